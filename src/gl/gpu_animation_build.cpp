// The GPU evaluator built for a crowd (build_gpu_animation): its passes compiled, its rig and every
// clip's tracks laid out as the shaders' std430 records and uploaded once; require_compute.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "gl/gpu_animation_steps.hpp"
#include "gl/primitive_upload.hpp"
#include "gl/program.hpp"
#include "gl/shaders.hpp"
#include "gltf_crowd/error.hpp"

namespace gltf_crowd::gl {
namespace {

// A std430 node (animation_shaders.cpp, struct Node): 10 vec4.
struct NodeRecord {
  glm::ivec4 meta{0};
  glm::vec4 t{0.0f}, r{0.0f}, s{0.0f};
  glm::vec4 local[3];
  glm::vec4 world[3];
};
static_assert(sizeof(NodeRecord) == 160);

struct SkinJointRecord {
  glm::uvec4 meta{0u};
  glm::vec4 inverse_bind[3];
};
static_assert(sizeof(SkinJointRecord) == 64);

}  // namespace

void require_compute(const char* who) {
  const bool desktop = epoxy_is_desktop_gl();
  const int version = epoxy_gl_version();
  if (!desktop || version < 43) {
    throw Error(
        who, Rule::gl_version,
        fmt::format("Animation::gpu needs compute shaders (desktop OpenGL 4.3); the current context is {} {}.{}",
                    desktop ? "OpenGL" : "OpenGL ES", version / 10, version % 10));
  }
  GLint bindings = 0, compute_blocks = 0;
  glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
  glGetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &compute_blocks);
  check_gl("glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS)");
  // Every pass declares 16 storage blocks (animation_shaders.cpp), and Mesa counts the declared
  // ones against the limit, used or not.
  if (bindings < static_cast<GLint>(binding::compute_count) || compute_blocks < 16) {
    throw Error(who, Rule::gl_version,
                fmt::format("Animation::gpu needs 16 storage buffer bindings and 16 compute storage blocks; "
                            "GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS = {}, GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS = {}",
                            bindings, compute_blocks));
  }
}

void build_gpu_animation(GpuAnimation& gpu, const Crowd& crowd, const RigOptions& options) {
  const Asset& asset = crowd.asset();
  std::vector<std::uint32_t> drawn;
  for (const NodeStream& s : crowd.node_streams()) drawn.push_back(s.node);
  gpu.rig = build_rig(asset, drawn, options);
  const Rig& rig = gpu.rig;
  const std::vector<ClipTracks> clips = build_clip_tracks(asset, rig);
  const auto n = static_cast<std::uint32_t>(rig.node_count());
  gpu.weight_count = static_cast<std::uint32_t>(rig.rest_weights.size());
  const std::uint32_t w = gpu.weight_count;

  std::vector<NodeRecord> nodes(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    NodeRecord& r = nodes[i];
    r.meta = glm::ivec4(rig.parent[i], 0, 0, 0);
    r.t = glm::vec4(rig.rest_translation[i], 0.0f);
    const glm::quat& q = rig.rest_rotation[i];
    r.r = glm::vec4(q.x, q.y, q.z, q.w);
    r.s = glm::vec4(rig.rest_scale[i], 0.0f);
    for (int k = 0; k < 3; ++k) {
      r.local[k] = rig.rest_local[i].rows[k];
      r.world[k] = rig.rest_world[i].rows[k];
    }
  }
  std::vector<glm::ivec4> clip_nodes(std::max<std::size_t>(clips.size(), 1) * n, glm::ivec4(-1));
  std::vector<std::int32_t> clip_weights(std::max<std::size_t>(clips.size(), 1) * w, -1);
  std::vector<glm::uvec4> channels;
  std::vector<float> times, key_rows;
  for (std::size_t c = 0; c < clips.size(); ++c) {
    const ClipTracks& tracks = clips[c];
    const auto times_base = static_cast<std::uint32_t>(times.size());
    const auto rows_base = static_cast<std::uint32_t>(key_rows.size());
    times.insert(times.end(), tracks.times.begin(), tracks.times.end());
    key_rows.insert(key_rows.end(), tracks.key_rows.begin(), tracks.key_rows.end());
    for (const BoundChannel& ch : tracks.channels) {
      const auto index = static_cast<std::int32_t>(channels.size() / 2);
      const Timeline& timeline = tracks.timelines[ch.timeline];
      channels.emplace_back(times_base + timeline.times_offset, timeline.key_count, rows_base + ch.values_offset,
                            ch.key_stride);
      channels.emplace_back(ch.components, static_cast<std::uint32_t>(ch.interpolation), ch.component_stride, 0u);
      switch (ch.path) {
        case ChannelPath::translation: clip_nodes[c * n + ch.target].x = index; break;
        case ChannelPath::rotation: clip_nodes[c * n + ch.target].y = index; break;
        case ChannelPath::scale: clip_nodes[c * n + ch.target].z = index; break;
        case ChannelPath::weights:  // one channel per morph weight (BoundChannel)
          if (ch.target < w) clip_weights[c * w + ch.target] = index;
          break;
      }
    }
  }
  std::vector<SkinJointRecord> skin_joints;
  gpu.skin_first_joint.clear();
  for (const RigSkin& skin : rig.skins) {
    gpu.skin_first_joint.push_back(static_cast<std::uint32_t>(skin_joints.size()));
    for (std::size_t j = 0; j < skin.joints.size(); ++j) {
      SkinJointRecord r;
      r.meta.x = skin.joints[j];
      for (int k = 0; k < 3; ++k) r.inverse_bind[k] = skin.inverse_binds[j].rows[k];
      skin_joints.push_back(r);
    }
  }

  gpu.programs.clear();
  for (std::size_t p = 0; p < kAnimationPasses; ++p) {
    const std::string source = animation_compute_source(static_cast<AnimationPass>(p));
    gpu.programs.push_back(link_compute_program(fmt::format("animation_pass[{}]", p), source.c_str()));
  }
  gpu.nodes = make_static(nodes);
  gpu.clip_nodes = make_static(clip_nodes);
  gpu.clip_weights = make_static(clip_weights);
  gpu.channels = make_static(channels);
  gpu.times = make_static(times);
  gpu.key_rows = make_static(key_rows);
  gpu.rest_weights = make_static(rig.rest_weights);
  gpu.skin_joints = make_static(skin_joints);
  gpu.dummy = make_dynamic_buffer(16);
  gpu.records = {};
  gpu.layer_records = {};
  gpu.override_ranges = {};  // rig indices of the old rig: flatten again
  gpu.layer_tables = {};
  gpu.capacity = gpu.batch = 0;
  reserve_slots(gpu, crowd.capacity());
}

}  // namespace gltf_crowd::gl
