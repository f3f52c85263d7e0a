// Layer 4: the crowd — actor lifetime, slots, primitive groups, parallel update and packing.
// Based on: docs/spec.md §4 (palettes, instance data) and §5 (crowd); docs/architecture.md ("One frame").
#include "gltf_crowd/crowd.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "crowd/lod_state.hpp"
#include "crowd/state.hpp"

namespace gltf_crowd {
namespace {

bool finite(const glm::mat4& m) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) return false;
  return true;
}

std::uint64_t ticks() noexcept { return __builtin_ia32_rdtsc(); }

std::string clip_list(const Asset& asset) {
  std::string names;
  for (std::size_t i = 0; i < asset.clips.size(); ++i)
    names += (i ? ", " : "") + (asset.clips[i].name.empty() ? fmt::format("#{}", i) : asset.clips[i].name);
  return names.empty() ? "none" : names;
}

void check_capacity(std::size_t capacity) {
  if (capacity == 0 || capacity > kMaxCapacity)
    throw Error("capacity", "capacity_range", fmt::format("capacity {} is not in [1, {}]", capacity, kMaxCapacity));
}

}  // namespace

Crowd::Crowd(std::shared_ptr<const Asset> asset, CrowdOptions options) : asset_(std::move(asset)) {
  if (!asset_) throw Error("asset", "null_asset", "the asset is null");
  check_capacity(options.capacity);
  state_ = std::make_unique<State>();
  state_->capacity = options.capacity;
  validate_update_rate(options.update_rate);
  update_rate_ = options.update_rate;
  init_lod(options.lod);
  state_->plan = make_evaluation_plan(*asset_, streams_);
  state_->make_scratch(asset_->total_weights);
  resize_streams();
  link_ = std::make_shared<CrowdLink>(CrowdLink{this});
}

Crowd::~Crowd() {
  if (link_) link_->crowd = nullptr;
}

Crowd::Crowd(Crowd&& other) noexcept { take(other); }

Crowd& Crowd::operator=(Crowd&& other) noexcept {
  if (this == &other) return *this;
  if (link_) link_->crowd = nullptr;  // this crowd's own handles and renderers see it destroyed
  take(other);
  return *this;
}

void Crowd::take(Crowd& other) noexcept {
  asset_ = other.asset_;  // shared and immutable: the moved-from crowd keeps a valid asset()
  state_ = std::move(other.state_);
  groups_ = std::move(other.groups_);
  streams_ = std::move(other.streams_);
  stats_ = std::exchange(other.stats_, {});
  lod_ = std::move(other.lod_);
  lod_stats_ = std::exchange(other.lod_stats_, {});
  update_rate_ = std::move(other.update_rate_);
  generation_ = other.generation_;
  frames_ = other.frames_;
  destroyed_ = std::exchange(other.destroyed_, true);
  link_ = std::move(other.link_);
  if (link_) link_->crowd = this;
  other.groups_.clear();  // moved-from vectors are valid but unspecified: make them empty
  other.streams_.clear();
}

void Crowd::check_alive() const {
  if (destroyed_) throw Error("crowd", "destroyed", "the crowd was destroyed");
}

std::size_t Crowd::actor_count() const noexcept { return state_ ? state_->size() : 0; }
std::size_t Crowd::capacity() const noexcept { return state_ ? state_->capacity : 0; }

void Crowd::build_groups() {
  const Asset& asset = *asset_;
  // Depth-first from the default scene's roots; hidden nodes hide their subtree
  // (KHR_node_visibility). A mesh used by several nodes yields one stream per node.
  std::vector<std::uint32_t> stack(asset.scene_roots.rbegin(), asset.scene_roots.rend());
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    const Node& node = asset.nodes[n];
    if (!node.visible) continue;
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) stack.push_back(*it);
    if (node.mesh < 0) continue;
    NodeStream stream;
    stream.node = n;
    if (node.skin >= 0) stream.joint_count = static_cast<std::uint32_t>(asset.skins[static_cast<std::size_t>(node.skin)].joints.size());
    stream.weight_stride = (asset.weight_counts[n] + 3u) / 4u * 4u;
    const auto stream_index = static_cast<std::uint32_t>(streams_.size());
    streams_.push_back(std::move(stream));
    const Mesh& mesh = asset.meshes[static_cast<std::size_t>(node.mesh)];
    for (std::size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      PrimitiveGroup group;
      group.node = group.source_node = n;
      group.mesh = static_cast<std::uint32_t>(node.mesh);
      group.primitive = static_cast<std::uint32_t>(p);
      group.index_count = static_cast<std::uint32_t>(prim.indices.size());
      group.triangle_count = triangle_count(prim.mode, prim.indices.size());
      group.joint_count = prim.joints0.empty() ? 0 : streams_[stream_index].joint_count;
      group.palette_kind = group.joint_count > 0 ? PaletteKind::skinned : PaletteKind::rigid;
      group.stream = stream_index;
      groups_.push_back(std::move(group));
    }
  }
}

void Crowd::resize_streams() {
  const std::size_t capacity = state_->capacity;
  for (NodeStream& s : streams_) {
    s.transforms.resize(capacity * 3);
    if (s.palette_stream == static_cast<std::size_t>(&s - streams_.data())) s.palette.resize(capacity * s.joint_count * 3);
    s.weights.resize(capacity * s.weight_stride);
  }
  for (PrimitiveGroup& g : groups_) g.instances.reserve(capacity);
  lod_->resize(capacity);
  state_->weights.resize(capacity * asset_->total_weights);
  state_->due.resize(capacity);
  state_->stale.resize(capacity);
  state_->packed_frame.resize(capacity);
  state_->packed_generation.resize(capacity);
  state_->slot_key.reserve(capacity);
  state_->ids.reserve(capacity);
  state_->playback.reserve(capacity);
  state_->placements.reserve(capacity);
}

void Crowd::reserve(std::size_t n) {
  check_alive();
  check_capacity(n);
  if (n <= state_->capacity) return;
  state_->capacity = n;
  resize_streams();
}

std::vector<Actor> Crowd::add_actors(std::span<const ActorOptions> options) {
  check_alive();
  State& st = *state_;
  const Asset& asset = *asset_;
  if (st.size() + options.size() > st.capacity)
    throw Error("add_actors", "capacity_exceeded",
                fmt::format("{} actors + {} new exceed capacity {}", st.size(), options.size(), st.capacity));
  // Validate everything first; nothing changes on error.
  std::vector<std::string> ids(options.size());
  std::vector<std::uint32_t> clips(options.size(), 0);
  std::unordered_map<std::string, std::size_t> batch_ids;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const ActorOptions& o = options[i];
    const std::string path = fmt::format("add_actors[{}]", i);
    if (o.id.size() > kMaxIdLength)
      throw Error(path + ".id", "id_length", fmt::format("id of {} bytes exceeds {}", o.id.size(), kMaxIdLength));
    if (!o.id.empty()) {
      if (st.key_of_id.contains(o.id)) throw Error(path + ".id", "duplicate_id", fmt::format("id \"{}\" is already used", o.id));
      if (!batch_ids.emplace(o.id, i).second)
        throw Error(path + ".id", "duplicate_id", fmt::format("id \"{}\" appears twice in the batch", o.id));
    }
    if (!o.clip.empty()) {
      const int clip = asset.find_clip(o.clip);
      if (clip < 0)
        throw Error(path + ".clip", "unknown_clip",
                    fmt::format("no clip named \"{}\"; available: {}", o.clip, clip_list(asset)));
      clips[i] = static_cast<std::uint32_t>(clip);
    }
    if (o.time && !std::isfinite(*o.time)) throw Error(path + ".time", "not_finite", "the time must be finite");
    if (!std::isfinite(o.speed)) throw Error(path + ".speed", "not_finite", "the speed must be finite");
    if (o.loop != LoopMode::once && o.loop != LoopMode::repeat && o.loop != LoopMode::ping_pong)
      throw Error(path + ".loop", "loop_mode", fmt::format("{} is not a loop mode", static_cast<int>(o.loop)));
    // A finite phase whose time overflows would make the clock infinite and every time NaN.
    const float duration = asset.clips.empty() ? 0.0f : asset.clips[clips[i]].duration_seconds;
    if (!std::isfinite(o.phase) || !std::isfinite(o.phase * duration))
      throw Error(path + ".phase", "not_finite", "the phase and phase × duration must be finite");
    if (!finite(o.transform)) throw Error(path + ".transform", "not_finite", "the placement must be finite");
  }
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (!options[i].id.empty()) {
      ids[i] = options[i].id;
      continue;
    }
    do ids[i] = fmt::format("actor-{}", st.next_auto_id++);
    while (st.key_of_id.contains(ids[i]) || batch_ids.contains(ids[i]));
  }
  // Commit.
  std::vector<Actor> handles;
  handles.reserve(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    const ActorOptions& o = options[i];
    std::uint32_t key;
    if (!st.free_keys.empty()) {
      key = st.free_keys.back();
      st.free_keys.pop_back();
    } else {
      key = static_cast<std::uint32_t>(st.key_slot.size());
      st.key_slot.push_back(kNoSlot);
      st.key_generation.push_back(0);
    }
    const auto slot = static_cast<std::uint32_t>(st.size());
    st.key_slot[key] = slot;
    st.slot_key.push_back(key);
    st.ids.push_back(ids[i]);
    st.key_of_id.emplace(ids[i], key);
    lod_->add_actor(key);
    Playback p;
    p.speed = o.speed;
    p.loop = o.loop;
    p.repetitions = o.repetitions;
    p.paused = !o.playing;
    if (!asset.clips.empty()) {
      const float duration = asset.clips[clips[i]].duration_seconds;
      switch_clip(asset, p, clips[i], o.time ? *o.time : o.phase * duration);
    }
    st.playback.push_back(p);
    st.placements.push_back(o.transform);
    handles.push_back(Actor(link_, key, st.key_generation[key]));
  }
  refresh_instances();
  ++generation_;
  for (const Actor& a : handles) evaluate(a.slot(), st.caller_scratch());
  return handles;
}

Actor Crowd::add_actor(const ActorOptions& options) { return add_actors(std::span(&options, 1)).front(); }

std::size_t Crowd::remove_actors(std::span<const std::string> ids) {
  check_alive();
  State& st = *state_;
  std::size_t removed = 0;
  for (const std::string& id : ids) {
    const auto it = st.key_of_id.find(id);
    if (it == st.key_of_id.end()) continue;
    const std::uint32_t key = it->second;
    const std::uint32_t slot = st.key_slot[key];
    const auto last = static_cast<std::uint32_t>(st.size() - 1);
    if (slot != last) {  // move the last actor into the hole: one copy per stream
      const std::uint32_t moved_key = st.slot_key[last];
      st.slot_key[slot] = moved_key;
      st.key_slot[moved_key] = slot;
      st.ids[slot] = std::move(st.ids[last]);
      st.playback[slot] = st.playback[last];
      st.placements[slot] = st.placements[last];
      st.stale[slot] = st.stale[last];
      st.packed_frame[slot] = st.packed_frame[last];
      st.packed_generation[slot] = generation_ + 1;  // its rows moved: upload them again
      const std::size_t tw = asset_->total_weights;
      std::copy_n(st.weights.begin() + last * tw, tw, st.weights.begin() + slot * tw);
      for (NodeStream& s : streams_) {
        std::copy_n(s.transforms.begin() + last * 3, 3, s.transforms.begin() + slot * 3);
        if (!s.palette.empty()) {
          const std::size_t pj = std::size_t{s.joint_count} * 3;
          std::copy_n(s.palette.begin() + last * pj, pj, s.palette.begin() + slot * pj);
        }
        std::copy_n(s.weights.begin() + last * s.weight_stride, s.weight_stride, s.weights.begin() + slot * s.weight_stride);
      }
    }
    st.slot_key.pop_back();
    st.ids.pop_back();
    st.playback.pop_back();
    st.placements.pop_back();
    st.key_of_id.erase(it);
    st.key_slot[key] = kNoSlot;
    ++st.key_generation[key];
    st.free_keys.push_back(key);
    ++removed;
  }
  if (removed > 0) {
    ++generation_;
    refresh_instances();
  }
  return removed;
}

bool Crowd::remove_actor(std::string_view id) {
  const std::string ids[1] = {std::string(id)};
  return remove_actors(ids) == 1;
}

std::optional<Actor> Crowd::find_actor(std::string_view id) const {
  check_alive();
  const auto it = state_->key_of_id.find(std::string(id));
  if (it == state_->key_of_id.end()) return std::nullopt;
  return Actor(link_, it->second, state_->key_generation[it->second]);
}

std::vector<Actor> Crowd::actors() const {
  check_alive();
  std::vector<Actor> out;
  out.reserve(state_->size());
  for (std::uint32_t key : state_->slot_key) out.push_back(Actor(link_, key, state_->key_generation[key]));
  return out;
}

std::uint32_t Crowd::slot_of(std::uint32_t key, std::uint32_t generation) const {
  check_alive();
  if (key >= state_->key_slot.size() || state_->key_generation[key] != generation || state_->key_slot[key] == kNoSlot)
    throw Error("actor", "stale_actor", "the actor was removed");
  return state_->key_slot[key];
}

void Crowd::evaluate(std::uint32_t slot) {
  ++generation_;
  evaluate(slot, state_->caller_scratch());
}

std::span<const std::uint64_t> Crowd::slot_generations() const noexcept {
  if (!state_) return {};
  return std::span(state_->packed_generation).first(state_->size());
}

void Crowd::evaluate(std::uint32_t slot, Scratch& s, bool timed) {
  const Asset& asset = *asset_;
  State& st = *state_;
  const EvaluationPlan& plan = st.plan;
  const auto stamp = [timed] { return timed ? ticks() : 0; };
  const std::uint64_t t0 = stamp();
  evaluate_local_pose(asset, plan, st.playback[slot], s);
  const std::uint64_t t1 = stamp();
  evaluate_hierarchy(plan, s);
  const std::uint64_t t2 = stamp();
  // Palettes go straight into the packed arrays; a non-static mesh node's palette is relative
  // to its animated world transform, or carries the whole model transform when that is singular.
  for (const PalettePlan& p : plan.palettes) {
    NodeStream& stream = streams_[p.stream];
    glm::vec4* rows = stream.palette.data() + std::size_t{slot} * stream.joint_count * 3;
    if (p.static_mesh) {
      plan.kernels->palette(p.joints, p.inverse_binds, s.world, p.identity_correction ? nullptr : &p.correction, rows);
    } else {
      const Affine& model = s.world[p.mesh_node];
      const bool invertible = abs_determinant(model) > 1e-12f;
      const Affine inverse_model = invertible ? inverse(model) : Affine{};
      plan.kernels->palette(p.joints, p.inverse_binds, s.world, invertible ? &inverse_model : nullptr, rows);
    }
  }
  const std::uint64_t t3 = stamp();
  const Affine placement = to_affine(st.placements[slot]);
  const auto multiply = plan.kernels->multiply;
  Affine framed_placement = placement;
  if (plan.framed) multiply(placement, plan.unframe, framed_placement);
  const std::size_t tw = asset.total_weights;
  std::copy_n(s.weights.begin(), tw, st.weights.begin() + slot * tw);
  for (std::size_t si = 0; si < streams_.size(); ++si) {
    NodeStream& stream = streams_[si];
    const StreamPlan& sp = plan.streams[si];
    Affine* instance = reinterpret_cast<Affine*>(stream.transforms.data() + std::size_t{slot} * 3);
    const Affine& model = s.world[sp.node];
    switch (sp.rule) {
      case InstanceRule::rigid: multiply(framed_placement, model, *instance); break;
      case InstanceRule::static_mesh: multiply(placement, plan.palettes[sp.palette].mesh_world, *instance); break;
      case InstanceRule::animated_mesh:
        if (abs_determinant(model) > 1e-12f) multiply(framed_placement, model, *instance);
        else *instance = framed_placement;  // the palette carries the framed model transform (above)
        break;
    }
    if (stream.weight_stride > 0) {
      float* out = stream.weights.data() + std::size_t{slot} * stream.weight_stride;
      std::copy_n(s.weights.begin() + sp.weight_offset, sp.weight_count, out);
      std::fill(out + sp.weight_count, out + stream.weight_stride, 0.0f);
    }
  }
  st.stale[slot] = 0;
  st.packed_frame[slot] = frames_;
  st.packed_generation[slot] = generation_;
  const std::uint64_t t4 = stamp();
  s.ticks[0] += t1 - t0;
  s.ticks[1] += t2 - t1;
  s.ticks[2] += t3 - t2;
  s.ticks[3] += t4 - t3;
}

void Crowd::prefetch_rows(std::uint32_t slot) const noexcept {
  // The next actor's instance rows, one 48-byte row in each of the streams' arrays: fetched for
  // writing while this actor is evaluated, so the stores of its packing do not wait for them.
  // (Palette rows need no fetch: they are written with non-temporal stores.)
  for (const NodeStream& stream : streams_) {
    const auto* row = reinterpret_cast<const char*>(stream.transforms.data() + std::size_t{slot} * 3);
    __builtin_prefetch(row, 1);
    __builtin_prefetch(row + 47, 1);
  }
  __builtin_prefetch(&state_->playback[slot], 1);
}

void Crowd::update(float delta_seconds) {
  check_alive();
  if (!std::isfinite(delta_seconds))
    throw Error("update.delta_seconds", "not_finite", fmt::format("{} is not finite", delta_seconds));
  State& st = *state_;
  const Asset& asset = *asset_;
  const auto wall0 = std::chrono::steady_clock::now();
  const std::uint64_t tick0 = ticks();
  ++frames_;
  ++generation_;
  // Advance every clock (serial and cheap): clocks stay exact whether or not the pose is
  // evaluated this frame.
  const auto n = static_cast<std::uint32_t>(st.size());
  for (std::uint32_t slot = 0; slot < n; ++slot)
    if (advance_playback(asset, st.playback[slot], delta_seconds)) st.stale[slot] = 1;
  // Levels follow the camera, placements and clips of this frame (docs/spec.md §7).
  refresh_instances();
  std::uint32_t evaluated = 0, deferred = 0;
  for (std::uint32_t slot = 0; slot < n; ++slot) {
    st.due[slot] = st.stale[slot] && scheduled(slot);
    evaluated += st.due[slot];
    deferred += st.stale[slot] && !st.due[slot];
  }
  for (Scratch& s : st.scratch) {
    s.ticks = {};
    s.chunk_ticks = 0;
  }
  // Evaluate in parallel chunks; each task writes only its own slots, so results do not depend
  // on the thread count. Actors not advanced this frame keep their packed rows. Chunks are
  // timed whole; every 4th slot is also timed per stage, which splits the chunk time by stage
  // (reading the time-stamp counter 4 times per actor would cost about 5% of an evaluation).
  st.arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, n, 32), [&](const tbb::blocked_range<std::uint32_t>& range) {
      Scratch& scratch = st.scratch[static_cast<std::size_t>(tbb::this_task_arena::current_thread_index())];
      const std::uint64_t start = ticks();
      for (std::uint32_t slot = range.begin(); slot != range.end(); ++slot) {
        if (slot + 1 < n) prefetch_rows(slot + 1);
        if (st.due[slot]) evaluate(slot, scratch, (slot & 3u) == 0);
      }
      scratch.chunk_ticks += ticks() - start;
    });
  });
  const std::uint64_t tick1 = ticks();
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0).count();
  const double ms_per_tick = tick1 > tick0 ? wall_ns / static_cast<double>(tick1 - tick0) * 1e-6 : 0.0;
  std::array<double, 4> stage{};
  double chunks = 0.0;
  for (const Scratch& s : st.scratch) {
    for (int i = 0; i < 4; ++i) stage[i] += static_cast<double>(s.ticks[i]);
    chunks += static_cast<double>(s.chunk_ticks);
  }
  const double sampled = stage[0] + stage[1] + stage[2] + stage[3];
  const double scale = sampled > 0.0 ? chunks / sampled * ms_per_tick : 0.0;
  stats_.actors_evaluated = evaluated;
  stats_.actors_deferred = deferred;
  stats_.sampling_ms = stage[0] * scale;
  stats_.hierarchy_ms = stage[1] * scale;
  stats_.palettes_ms = stage[2] * scale;
  stats_.packing_ms = stage[3] * scale;
  std::uint64_t bytes_per_actor = 0;
  for (const NodeStream& s : streams_)
    bytes_per_actor += 48ull * (1 + (s.palette.empty() ? 0 : s.joint_count)) + 4ull * s.weight_stride;
  stats_.packed_bytes = bytes_per_actor * evaluated;
}

void Crowd::destroy() noexcept {
  if (destroyed_) return;
  destroyed_ = true;
  groups_.clear();
  streams_.clear();
  state_.reset();
  lod_.reset();
  lod_stats_ = {};
  stats_ = {};
}

}  // namespace gltf_crowd
