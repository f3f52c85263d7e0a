#include "crowd/readback.hpp"

#include "crowd/pack.hpp"

namespace gltf_crowd {
namespace {

// The actor's local pose in the full rig's scratch.
void evaluate(const Crowd::State& st, std::uint32_t slot, Scratch& s) {
  Playback p = st.playback[slot];  // the key cursors advance in the copies only
  std::vector<LayerState> layers = st.layers[slot];
  evaluate_actor_pose(st, st.full, p, layers, slot, s);
}

}  // namespace

Pose readback_pose(const Crowd::State& st, std::uint32_t slot) {
  const Rig& rig = st.full.rig;
  Scratch s(st.full);
  evaluate(st, slot, s);
  Pose out(st.asset);
  for (std::size_t r = 0; r < rig.node_count(); ++r) {
    const std::uint32_t n = rig.asset_node[r];
    const bool sampled = s.mark[r] == s.stamp;
    out.translations[n] = sampled ? s.translations[r] : rig.rest_translation[r];
    out.rotations[n] = sampled ? s.rotations[r] : rig.rest_rotation[r];
    out.scales[n] = sampled ? s.scales[r] : rig.rest_scale[r];
  }
  out.weights = s.weights;
  return out;
}

glm::mat4 readback_world(const Crowd::State& st, std::uint32_t slot, std::uint32_t node) {
  const Rig& rig = st.full.rig;
  Scratch s(st.full);
  evaluate(st, slot, s);
  LocalToModelJob{&rig, s.translations, s.rotations, s.scales, s.mark, s.stamp, s.moved, s.world}.run();
  return st.placements[slot] * to_mat4(s.world[rig.rig_node[node]]);
}

}  // namespace gltf_crowd
