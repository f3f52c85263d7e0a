// The GPU evaluator's per-frame uploads and dispatches (gpu_animation.hpp), its read-back and timing;
// building it is in gpu_animation_build.cpp, the arithmetic in animation_shaders.cpp.
#include "gl/gpu_animation.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>

#include "gl/gpu_animation_steps.hpp"
#include "gl/palette_store.hpp"
#include "gl/primitive_upload.hpp"
#include "gltf_crowd/error.hpp"

namespace gltf_crowd::gl {
namespace {

constexpr GLuint kLocalSize = 64;           // local_size_x of every pass
constexpr std::size_t kMaxBatch = 1 << 18;  // slots per batch: about 1 GB of scratch at 80 nodes
constexpr std::size_t kTile = 64;           // slots per scratch tile: TILE in the shaders (scratch_at)

// `slots` rounded up to whole scratch tiles: what the scratch holds and the sample pass covers.
constexpr std::uint64_t whole_tiles(std::uint64_t slots) { return (slots + kTile - 1) / kTile * kTile; }

namespace bind {
inline constexpr GLuint records = 0, tails = 1, placements = 2, nodes = 3, clip_nodes = 4, channels = 5, times = 6,
                        key_rows = 7, clip_weights = 8, locals = 9, worlds = 10, weights = 11, rest_weights = 12,
                        skin_joints = 13, output = 14, output_weights = 15;
// The sample and weights passes read the application-driven poses where the others write, and
// the animation layers where the others read placements and skin joints.
inline constexpr GLuint override_ranges = 14, overrides = 15, layer_records = 2, layer_tables = 13;
}  // namespace bind

void set_rows(GLuint program, const char* name, const Affine& a) {
  glUniform4fv(glGetUniformLocation(program, name), 3, glm::value_ptr(a.rows[0]));
}

void set_uint(GLuint program, const char* name, std::uint32_t value) {
  glUniform1ui(glGetUniformLocation(program, name), value);
}

void set_bool(GLuint program, const char* name, bool value) {
  glUniform1i(glGetUniformLocation(program, name), value ? 1 : 0);
}

void bind_buffer(GLuint index, GLuint buffer) { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, index, buffer); }

// Runs `program` over `invocations` (1D, 64 per group); large counts fold into y.
void dispatch(std::uint64_t invocations) {
  if (invocations == 0) return;
  const std::uint64_t groups = (invocations + kLocalSize - 1) / kLocalSize;
  constexpr std::uint64_t kMaxX = 65535;  // the minimum GL_MAX_COMPUTE_WORK_GROUP_COUNT
  const std::uint64_t x = std::min(groups, kMaxX);
  glDispatchCompute(static_cast<GLuint>(x), static_cast<GLuint>((groups + x - 1) / x), 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

}  // namespace

void reserve_slots(GpuAnimation& gpu, std::size_t capacity) {
  if (gpu.records && gpu.capacity >= capacity) return;
  const std::size_t slots = std::max<std::size_t>(capacity, 1);
  const std::size_t nodes = std::max<std::size_t>(gpu.rig.node_count(), 1);
  GLint64 block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  // The scratch holds one batch of slots: as many as fit the block limit, at most kMaxBatch.
  const std::uint64_t node_bytes = std::uint64_t{nodes} * 3 * sizeof(glm::vec4);
  const std::uint64_t weight_bytes = std::uint64_t{std::max<std::uint32_t>(gpu.weight_count, 1)} * sizeof(float);
  const auto limit = static_cast<std::uint64_t>(block);
  // Whole tiles of locals and worlds must fit too: the node limit is rounded down to whole tiles.
  const std::size_t batch = static_cast<std::size_t>(
      std::min<std::uint64_t>({slots, kMaxBatch, limit / node_bytes / kTile * kTile, limit / weight_bytes}));
  if (batch == 0) {
    throw Error("GpuAnimation.locals", Rule::palette_too_large,
                fmt::format("one tile of {} slots × {} nodes × 48 bytes exceeds GL_MAX_SHADER_STORAGE_BLOCK_SIZE = {}",
                            kTile, nodes, block));
  }
  gpu.records = make_dynamic_buffer(slots * sizeof(PlaybackRecord));
  gpu.tails = make_dynamic_buffer(slots * sizeof(PlaybackRecordTail));
  gpu.placements = make_dynamic_buffer(slots * sizeof(glm::mat4));
  if (batch != gpu.batch) {
    gpu.locals = make_dynamic_buffer(whole_tiles(batch) * node_bytes);
    gpu.worlds = make_dynamic_buffer(whole_tiles(batch) * node_bytes);
    gpu.weights = make_dynamic_buffer(batch * weight_bytes);
    gpu.batch = batch;
  }
  gpu.capacity = slots;
  gpu.upload_everything = true;
}

std::uint64_t animate(GpuAnimation& gpu, StateCache& cache, const Crowd& crowd,
                      std::span<const AnimationTargets> targets, bool timed) {
  reserve_slots(gpu, crowd.capacity());
  const auto live = static_cast<std::uint32_t>(crowd.actor_count());
  const bool everything = gpu.upload_everything;
  std::uint64_t uploaded = 0;
  const auto upload = [&](GLuint buffer, std::size_t stride, const void* base, std::uint32_t first, std::uint32_t end) {
    const std::size_t bytes = std::size_t{end - first} * stride;
    cache.upload(buffer, static_cast<GLsizeiptr>(bytes), static_cast<const unsigned char*>(base) + first * stride,
                 static_cast<GLintptr>(first * stride));
    uploaded += bytes;
  };
  const auto records = crowd.playback_records();
  const auto tails = crowd.playback_record_tails();
  // Layer records exist once some actor used a layer; they change with their slot's record. A
  // new buffer (the first layer, a larger capacity) gets every slot's at once.
  const auto layers = crowd.layer_records();
  constexpr std::size_t kLayerStride = kMaxLayers * sizeof(LayerRecord);
  const bool new_layers = !layers.empty() && (!gpu.layer_records || gpu.layer_capacity < gpu.capacity);
  if (new_layers) {
    gpu.layer_records = make_dynamic_buffer(gpu.capacity * kLayerStride);
    gpu.layer_capacity = gpu.capacity;
    if (live > 0) upload(gpu.layer_records.name(), kLayerStride, layers.data(), 0, live);
  }
  changed_runs(crowd.slot_generations(), gpu.uploaded_records, gpu.upload_everything, gpu.runs);
  for (const auto& [first, end] : gpu.runs) {
    upload(gpu.records.name(), sizeof(PlaybackRecord), records.data(), first, end);
    for (std::uint32_t slot = first; slot < end; ++slot)
      if (records[slot].count > kRecordContributors)
        upload(gpu.tails.name(), sizeof(PlaybackRecordTail), tails.data(), slot, slot + 1);
    if (!layers.empty() && !new_layers) upload(gpu.layer_records.name(), kLayerStride, layers.data(), first, end);
  }
  if (!layers.empty() && (!gpu.layer_tables || crowd.layer_tables_generation() != gpu.uploaded_layer_tables))
    uploaded += upload_layer_tables(gpu, crowd);
  changed_runs(crowd.placement_generations(), gpu.uploaded_placements, gpu.upload_everything, gpu.runs);
  for (const auto& [first, end] : gpu.runs)
    upload(gpu.placements.name(), sizeof(glm::mat4), crowd.placements().data(), first, end);
  if (!gpu.override_ranges || gpu.upload_everything || crowd.overrides_generation() != gpu.uploaded_overrides)
    uploaded += upload_overrides(gpu, crowd);
  gpu.uploaded_records = gpu.uploaded_placements = crowd.packed_generation();
  gpu.upload_everything = false;
  if (live == 0) return uploaded;

  const Rig& rig = gpu.rig;
  // Root motion (docs/spec.md §3.10): the sample pass pins the root's extracted components, as
  // remove_root_motion does on the CPU; the motion itself comes from the clocks, on the CPU.
  const RootMotionOptions& root = crowd.root_motion();
  std::uint32_t root_node = kNotInRig, root_flags = 0;
  if (const std::int32_t node = crowd.root_motion_node(); node >= 0) {
    root_node = rig.rig_node[static_cast<std::size_t>(node)];
    root_flags = (root.translation_xz ? 1u : 0u) | (root.translation_y ? 2u : 0u) | (root.yaw ? 4u : 0u);
  }
  // Generations, not uploaded bytes: clearing every override uploads nothing yet changes poses.
  const std::array<std::uint64_t, 3> generations{crowd.packed_generation(), crowd.overrides_generation(),
                                                 crowd.layer_tables_generation()};
  if (gpu.evaluated && !everything && uploaded == 0 && generations == gpu.evaluated_generations &&
      live == gpu.evaluated_live && root_node == gpu.evaluated_root_node && root_flags == gpu.evaluated_root_flags &&
      std::ranges::equal(targets, gpu.evaluated_targets))
    return uploaded;
  gpu.evaluated = true;
  ++gpu.evaluations;
  gpu.evaluated_generations = generations;
  gpu.evaluated_live = live;
  gpu.evaluated_root_node = root_node;
  gpu.evaluated_root_flags = root_flags;
  gpu.evaluated_targets.assign(targets.begin(), targets.end());

  if (timed) {  // not inside the application's own GL_TIME_ELAPSED query: those do not nest
    GLint running = 0;
    glGetQueryiv(GL_TIME_ELAPSED, GL_CURRENT_QUERY, &running);
    timed = running == 0;
  }
  gpu.timer_pending = false;  // an unread earlier run's result is no longer this run's
  gpu.stamps_used = 0;
  gpu.stamp_passes.clear();
  const auto stamp = [&](AnimationPass pass) {
    if (!timed) return;
    if (gpu.stamps_used == gpu.stamps.size()) gpu.stamps.push_back(make_query());
    glQueryCounter(gpu.stamps[gpu.stamps_used++].name(), GL_TIMESTAMP);
    if (gpu.stamps_used > 1) gpu.stamp_passes.push_back(pass);
  };
  if (timed) {
    if (!gpu.timer) gpu.timer = make_query();
    glBeginQuery(GL_TIME_ELAPSED, gpu.timer.name());
    stamp(AnimationPass::sample);  // the start: its pass is not recorded
  }
  const auto n = static_cast<std::uint32_t>(rig.node_count());
  for (auto [index, buffer] : {std::pair{bind::records, gpu.records.name()},
                               {bind::tails, gpu.tails.name()},
                               {bind::placements, gpu.placements.name()},
                               {bind::nodes, gpu.nodes.name()},
                               {bind::clip_nodes, gpu.clip_nodes.name()},
                               {bind::channels, gpu.channels.name()},
                               {bind::times, gpu.times.name()},
                               {bind::key_rows, gpu.key_rows.name()},
                               {bind::clip_weights, gpu.clip_weights.name()},
                               {bind::locals, gpu.locals.name()},
                               {bind::worlds, gpu.worlds.name()},
                               {bind::weights, gpu.weights.name()},
                               {bind::rest_weights, gpu.rest_weights.name()},
                               {bind::skin_joints, gpu.skin_joints.name()},
                               {bind::output, gpu.dummy.name()},
                               {bind::output_weights, gpu.dummy.name()}})
    bind_buffer(index, buffer);
  const auto streams = crowd.node_streams();
  for (std::uint32_t first = 0; first < live; first += static_cast<std::uint32_t>(gpu.batch)) {
    const auto slots = static_cast<std::uint32_t>(std::min<std::size_t>(gpu.batch, live - first));
    const auto use = [&](AnimationPass pass) {
      const GLuint program = gpu.programs[static_cast<std::size_t>(pass)].name();
      glUseProgram(program);
      set_uint(program, "u_first_slot", first);
      set_uint(program, "u_slots", slots);
      set_uint(program, "u_node_count", n);
      set_uint(program, "u_weight_count", gpu.weight_count);
      return program;
    };
    bind_buffer(bind::override_ranges, gpu.override_ranges.name());
    bind_buffer(bind::overrides, gpu.node_overrides.name());
    if (!layers.empty()) {  // else the passes skip the layers, and placements and skin joints fill the bindings
      bind_buffer(bind::layer_records, gpu.layer_records.name());
      bind_buffer(bind::layer_tables, gpu.layer_tables.name());
    }
    const GLuint sample = use(AnimationPass::sample);
    set_bool(sample, "u_overrides", gpu.has_overrides);
    set_bool(sample, "u_layers", !layers.empty());
    set_uint(sample, "u_root_node", root_node);
    set_uint(sample, "u_root_flags", root_flags);
    dispatch(whole_tiles(slots) * n);
    stamp(AnimationPass::sample);
    if (gpu.weight_count > 0) {
      bind_buffer(bind::overrides, gpu.morph_overrides.name());
      const GLuint weights = use(AnimationPass::weights);
      set_bool(weights, "u_overrides", gpu.has_overrides);
      set_bool(weights, "u_layers", !layers.empty());
      dispatch(std::uint64_t{slots} * gpu.weight_count);
      stamp(AnimationPass::weights);
    }
    if (!layers.empty()) {
      bind_buffer(bind::placements, gpu.placements.name());
      bind_buffer(bind::skin_joints, gpu.skin_joints.name());
    }
    GLuint program = use(AnimationPass::hierarchy);
    set_bool(program, "u_framed", rig.framed);
    set_rows(program, "u_frame", rig.frame);
    dispatch(slots);
    stamp(AnimationPass::hierarchy);

    program = use(AnimationPass::palette);
    for (std::size_t k = 0; k < rig.skins.size() && !targets.empty(); ++k) {
      const RigSkin& skin = rig.skins[k];
      const GLuint out = targets[skin.drawn].palette;
      if (out == 0) continue;
      bind_buffer(bind::output, out);
      set_uint(program, "u_first_joint", gpu.skin_first_joint[k]);
      set_uint(program, "u_joint_count", static_cast<std::uint32_t>(skin.joints.size()));
      set_bool(program, "u_static_mesh", skin.static_mesh);
      set_bool(program, "u_has_correction", skin.static_mesh && !skin.identity_correction);
      set_rows(program, "u_correction", skin.correction);
      set_uint(program, "u_mesh_node", skin.mesh_node);
      dispatch(std::uint64_t{slots} * skin.joints.size());
    }
    stamp(AnimationPass::palette);
    program = use(AnimationPass::instances);
    set_bool(program, "u_framed", rig.framed);
    set_rows(program, "u_unframe", rig.unframe);
    for (std::size_t d = 0; d < rig.drawn.size() && d < targets.size(); ++d) {
      const RigDrawn& dn = rig.drawn[d];
      bind_buffer(bind::output, targets[d].transforms);
      bind_buffer(bind::output_weights, targets[d].weights != 0 ? targets[d].weights : gpu.dummy.name());
      set_uint(program, "u_node", dn.node);
      set_uint(program, "u_rule", static_cast<std::uint32_t>(dn.rule));
      set_rows(program, "u_mesh_world",
               dn.skin >= 0 ? rig.skins[static_cast<std::size_t>(dn.skin)].mesh_world : Affine{});
      set_uint(program, "u_weight_offset", dn.weight_offset);
      set_uint(program, "u_weight_count_drawn", dn.weight_count);
      set_uint(program, "u_weight_stride", targets[d].weights != 0 ? streams[d].weight_stride : 0u);
      dispatch(slots);
    }
    stamp(AnimationPass::instances);
  }
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_PIXEL_BUFFER_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                  GL_TEXTURE_UPDATE_BARRIER_BIT);
  if (timed) {
    glEndQuery(GL_TIME_ELAPSED);
    gpu.timer_pending = true;
  }
  cache.forget_bindings();  // the passes changed the program and storage bindings behind the cache
  check_gl("glDispatchCompute(animation)");
  return uploaded;
}

void read_scratch(const GpuAnimation& gpu, std::size_t live, std::vector<glm::vec4>& locals,
                  std::vector<glm::vec4>& worlds, std::vector<float>& weights) {
  if (live > gpu.batch)
    throw Error("read_poses", Rule::palette_too_large,
                fmt::format("{} actors exceed the {} one evaluation batch holds for reading back", live, gpu.batch));
  const std::size_t nodes = gpu.rig.node_count();
  const std::size_t rows = live * nodes * 3;
  weights.assign(live * gpu.weight_count, 0.0f);
  const auto read = [](GLuint buffer, std::size_t bytes, void* out) {
    if (bytes == 0) return;
    glBindBuffer(GL_COPY_READ_BUFFER, buffer);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, static_cast<GLsizeiptr>(bytes), out);
  };
  // The scratch's tiles (scratch_at in the shaders) back into rows per (slot, node).
  const std::size_t tiled = whole_tiles(live) * nodes * 3;
  std::vector<glm::vec4> tiles(tiled);
  const auto untile = [&](GLuint buffer, std::vector<glm::vec4>& out) {
    read(buffer, tiled * sizeof(glm::vec4), tiles.data());
    out.assign(rows, glm::vec4(0.0f));
    for (std::size_t slot = 0; slot < live; ++slot)
      for (std::size_t row = 0; row < nodes * 3; ++row)
        out[slot * nodes * 3 + row] = tiles[((slot / kTile) * nodes * 3 + row) * kTile + slot % kTile];
  };
  untile(gpu.locals.name(), locals);
  untile(gpu.worlds.name(), worlds);
  read(gpu.weights.name(), weights.size() * sizeof(float), weights.data());
  check_gl("glGetBufferSubData(animation scratch)");
}

GpuMilliseconds gpu_milliseconds(GpuAnimation& gpu) {
  GpuMilliseconds result;
  if (!gpu.timer_pending) return result;
  GLuint64 nanoseconds = 0;
  glGetQueryObjectui64v(gpu.timer.name(), GL_QUERY_RESULT, &nanoseconds);
  gpu.timer_pending = false;
  result.total = static_cast<double>(nanoseconds) / 1e6;
  GLint bits = 0;  // 0: the driver keeps no timestamps, and the passes stay unmeasured (-1)
  glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits);
  if (bits == 0) return result;
  result.passes.fill(0.0);
  GLuint64 previous = 0;
  for (std::size_t i = 0; i < gpu.stamps_used; ++i) {
    GLuint64 stamp = 0;
    glGetQueryObjectui64v(gpu.stamps[i].name(), GL_QUERY_RESULT, &stamp);
    // Timestamps only grow; a driver that reads them as 0 (llvmpipe may) counts 0, never negative.
    if (i > 0 && stamp > previous)
      result.passes[static_cast<std::size_t>(gpu.stamp_passes[i - 1])] += static_cast<double>(stamp - previous) / 1e6;
    previous = std::max(previous, stamp);
  }
  return result;
}

}  // namespace gltf_crowd::gl
