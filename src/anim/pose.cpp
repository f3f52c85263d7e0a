// AssetPose and the one-off pose functions (pose.hpp, sampling.hpp): the jobs over an asset's
// full rig, with poses copied between glTF node order and rig order.
#include <algorithm>

#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {
namespace {

Rig full_rig(const Asset& asset) { return build_rig(asset, {}, {.all_nodes = true, .frame = false}); }

}  // namespace

AssetPose::AssetPose(const Asset& asset)
    : asset_(asset),
      rig_(full_rig(asset)),
      clips_(build_clip_tracks(asset, rig_)),
      translations_(rig_.node_count()),
      scales_(rig_.node_count()),
      rotations_(rig_.node_count()),
      weights_(rig_.rest_weights),
      mark_(rig_.node_count(), 0),
      moved_(rig_.node_count()),
      keys_(max_timelines(clips_)),
      model_(rig_.node_count()) {
  set_rest();
}

void AssetPose::set_rest() noexcept {
  if (++stamp_ == 0) {  // nothing carries the new stamp: every node takes its rest transform
    std::fill(mark_.begin(), mark_.end(), 0u);
    stamp_ = 1;
  }
  weights_ = rig_.rest_weights;
}

bool AssetPose::set_clip(std::size_t clip, float seconds) noexcept {
  if (clip >= clips_.size()) return false;
  if (++stamp_ == 0) {  // wrapped: old marks would read as current
    std::fill(mark_.begin(), mark_.end(), 0u);
    stamp_ = 1;
  }
  SampleJob{
      &rig_, &clips_[clip], seconds, {}, keys_, mark_, stamp_, true, {translations_, rotations_, scales_, weights_}}
      .run();
  return true;
}

Pose AssetPose::local_pose() const {
  Pose out(asset_);
  for (std::size_t r = 0; r < rig_.node_count(); ++r) {
    const std::uint32_t n = rig_.asset_node[r];
    const bool sampled = mark_[r] == stamp_;
    out.translations[n] = sampled ? translations_[r] : rig_.rest_translation[r];
    out.rotations[n] = sampled ? rotations_[r] : rig_.rest_rotation[r];
    out.scales[n] = sampled ? scales_[r] : rig_.rest_scale[r];
  }
  out.weights = weights_;
  return out;
}

bool AssetPose::world_matrices(const glm::mat4& root, std::span<glm::mat4> world) noexcept {
  if (world.size() < asset_.nodes.size()) return false;
  LocalToModelJob{&rig_, translations_, rotations_, scales_, mark_, stamp_, moved_, model_}.run();
  for (std::size_t r = 0; r < rig_.node_count(); ++r) world[rig_.asset_node[r]] = root * to_mat4(model_[r]);
  return true;
}

void compute_world_matrices(const Asset& asset, const PoseView& pose, const glm::mat4& root,
                            std::span<glm::mat4> world) {
  const Rig rig = full_rig(asset);
  const std::size_t n = rig.node_count();
  std::vector<glm::vec3> t(n), s(n);
  std::vector<glm::quat> q(n);
  std::vector<std::uint32_t> mark(n, 1);  // every node posed by `pose` (matrix nodes keep theirs)
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint32_t a = rig.asset_node[r];
    t[r] = pose.translations[a];
    q[r] = pose.rotations[a];
    s[r] = pose.scales[a];
    if (asset.nodes[a].has_matrix) mark[r] = 0;
  }
  std::vector<std::uint8_t> moved(n);
  std::vector<Affine> model(n);
  LocalToModelJob{&rig, t, q, s, mark, 1, moved, model}.run();
  for (std::size_t r = 0; r < n; ++r) world[rig.asset_node[r]] = root * to_mat4(model[r]);
}

void sample_clip(const Asset& asset, const Clip& clip, float seconds, const PoseView& out) {
  const Rig rig = full_rig(asset);
  const ClipTracks tracks = build_clip_tracks(asset, clip, rig);
  const std::size_t n = rig.node_count();
  std::vector<glm::vec3> t(n), s(n);
  std::vector<glm::quat> q(n);
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint32_t a = rig.asset_node[r];
    t[r] = out.translations[a];
    q[r] = out.rotations[a];
    s[r] = out.scales[a];
  }
  std::vector<std::uint32_t> mark(n, 0);
  std::vector<KeyPosition> keys(tracks.timelines.size());
  // from_rest off: the clip overwrites only what its channels animate, as documented.
  SampleJob{&rig, &tracks, seconds, {}, keys, mark, 1, false, {t, q, s, out.weights}}.run();
  for (std::uint32_t r : tracks.animated) {
    const std::uint32_t a = rig.asset_node[r];
    out.translations[a] = t[r];
    out.rotations[a] = q[r];
    out.scales[a] = s[r];
  }
}

}  // namespace gltf_crowd
