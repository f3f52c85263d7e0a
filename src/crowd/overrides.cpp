// Application-driven poses (docs/spec.md §3.8): per actor, node transforms and morph weights that
// the application sets and the evaluation blends over the clips' pose, after sampling and before
// the hierarchy (the "you drive poses" of skinned-instancing renderers: ragdolls, IK, procedural
// motion). Controls validate everything first, then store into the slot's PoseOverrides. Unlike
// the playback controls they do not re-evaluate the actor at once: they mark it stale, so the
// next update packs it (paused or not). An application that drives a skeleton every frame
// would otherwise pay two evaluations per actor per frame; read-back sees overrides at once.
#include <cmath>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "crowd/blend_towards.hpp"
#include "crowd/pack.hpp"
#include "crowd/state.hpp"
#include "gltf_crowd/crowd.hpp"

namespace gltf_crowd {
namespace {

void check_node(const Asset& asset, std::uint32_t node, std::string_view path) {
  if (node >= asset.nodes.size())
    throw Error(std::string(path), Rule::node_index,
                fmt::format("node {} does not exist ({} nodes)", node, asset.nodes.size()));
}

void check_weight(float weight, std::string_view path) {
  if (!(weight >= 0.0f && weight <= 1.0f))  // NaN fails too
    throw Error(std::string(path), Rule::blend_weight, fmt::format("weight {} is not in [0, 1]", weight));
}

// The transform with its rotation normalized; throws for non-finite entries and a zero rotation.
NodeTransform checked(const NodeTransform& local, std::string_view path) {
  const glm::vec3& t = local.translation;
  const glm::vec3& s = local.scale;
  const glm::quat& q = local.rotation;
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(t[i])) detail::throw_not_finite(fmt::format("{}.translation", path), fmt::format("{}", t[i]));
    if (!std::isfinite(s[i])) detail::throw_not_finite(fmt::format("{}.scale", path), fmt::format("{}", s[i]));
  }
  for (int i = 0; i < 4; ++i)
    if (!std::isfinite(q[i])) detail::throw_not_finite(fmt::format("{}.rotation", path), fmt::format("{}", q[i]));
  const float length = glm::length(q);
  if (!(length > 0.0f) || !std::isfinite(length))
    throw Error(fmt::format("{}.rotation", path), Rule::zero_rotation, "the rotation quaternion has length 0");
  return {t, q / length, s};
}

// The index of node's entry in `nodes`, or nodes.size().
std::size_t find_override(const std::vector<NodeOverride>& nodes, std::uint32_t node) noexcept {
  std::size_t i = 0;
  while (i < nodes.size() && nodes[i].node != node) ++i;
  return i;
}

void store(std::vector<NodeOverride>& nodes, std::uint32_t node, const NodeTransform& local, float weight) {
  const std::size_t i = find_override(nodes, node);
  if (i == nodes.size())
    nodes.push_back({node, local, weight});
  else
    nodes[i] = {node, local, weight};
}

// Keeps Crowd::State::overridden equal to the number of slots with overrides, around a change of
// one slot's.
template <typename Change>
void change_overrides(Crowd::State& st, std::uint32_t slot, Change change) {
  PoseOverrides& o = st.overrides[slot];
  const bool was_empty = o.empty();
  change(o);
  st.overridden = st.overridden + (was_empty ? 1u : 0u) - (o.empty() ? 1u : 0u);
  ++st.overrides_generation;
}

const PoseOverrides* overrides_of(const Crowd::State* st, std::size_t slot) noexcept {
  return st != nullptr && slot < st->size() ? &st->overrides[slot] : nullptr;
}

}  // namespace

void apply_overrides(const CompiledRig& compiled, const PoseOverrides& o, Scratch& s) noexcept {
  const Rig& rig = compiled.rig;
  for (const NodeOverride& n : o.nodes) {
    const std::uint32_t a = rig.rig_node[n.node];
    if (a == kNotInRig) continue;  // nothing the rig evaluates depends on the node
    if (s.mark[a] != s.stamp) {    // at rest in this evaluation
      s.translations[a] = rig.rest_translation[a];
      s.rotations[a] = rig.rest_rotation[a];
      s.scales[a] = rig.rest_scale[a];
      s.mark[a] = s.stamp;
    }
    blend_towards(s.translations[a], s.rotations[a], s.scales[a], n.local.translation, n.local.rotation, n.local.scale,
                  n.weight);
  }
  for (const MorphOverride& m : o.morphs) {
    float* out = s.weights.data() + m.offset;
    const float* in = o.morph_values.data() + m.values;
    for (std::uint32_t i = 0; i < m.count; ++i) out[i] = out[i] * (1.0f - m.weight) + in[i] * m.weight;
  }
}

std::span<const NodeOverride> Crowd::node_overrides(std::size_t slot) const noexcept {
  const PoseOverrides* o = overrides_of(state_.get(), slot);
  return o != nullptr ? std::span<const NodeOverride>(o->nodes) : std::span<const NodeOverride>();
}

std::span<const MorphOverride> Crowd::morph_overrides(std::size_t slot) const noexcept {
  const PoseOverrides* o = overrides_of(state_.get(), slot);
  return o != nullptr ? std::span<const MorphOverride>(o->morphs) : std::span<const MorphOverride>();
}

std::span<const float> Crowd::morph_override_values(std::size_t slot) const noexcept {
  const PoseOverrides* o = overrides_of(state_.get(), slot);
  return o != nullptr ? std::span<const float>(o->morph_values) : std::span<const float>();
}

std::uint64_t Crowd::overrides_generation() const noexcept {
  return state_ != nullptr ? state_->overrides_generation : 0;
}

void Actor::set_local_transform(std::uint32_t node, const NodeTransform& local, float weight) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  check_node(st.asset, node, "set_local_transform.node");
  const NodeTransform unit = checked(local, "set_local_transform.local");
  check_weight(weight, "set_local_transform.weight");
  change_overrides(st, s, [&](PoseOverrides& o) { store(o.nodes, node, unit, weight); });
  st.stale[s] = 1;  // packed by the next update (docs/spec.md §3.8)
}

void Actor::set_local_transform(std::string_view node_name, const NodeTransform& local, float weight) {
  set_local_transform(crowd().asset_->resolve_node(node_name, "set_local_transform.node"), local, weight);
}

void Actor::clear_local_transform(std::uint32_t node) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  check_node(st.asset, node, "clear_local_transform.node");
  std::vector<NodeOverride>& nodes = st.overrides[s].nodes;
  const std::size_t i = find_override(nodes, node);
  if (i == nodes.size()) return;
  change_overrides(st, s, [i](PoseOverrides& o) { o.nodes.erase(o.nodes.begin() + static_cast<std::ptrdiff_t>(i)); });
  st.stale[s] = 1;  // packed by the next update (docs/spec.md §3.8)
}

void Actor::set_local_pose(std::span<const std::uint32_t> nodes, std::span<const NodeTransform> locals, float weight) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  if (nodes.size() != locals.size())
    throw Error("set_local_pose", Rule::pose_size,
                fmt::format("{} nodes but {} transforms", nodes.size(), locals.size()));
  check_weight(weight, "set_local_pose.weight");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] >= st.asset.nodes.size()) check_node(st.asset, nodes[i], fmt::format("set_local_pose.nodes[{}]", i));
    const NodeTransform& l = locals[i];
    // Build the path only to throw: this runs for every node of a skeleton every frame.
    bool finite = glm::length(l.rotation) > 0.0f;
    for (int c = 0; c < 3; ++c) finite = finite && std::isfinite(l.translation[c]) && std::isfinite(l.scale[c]);
    for (int c = 0; c < 4; ++c) finite = finite && std::isfinite(l.rotation[c]);
    if (!finite || !std::isfinite(glm::length(l.rotation))) checked(l, fmt::format("set_local_pose.locals[{}]", i));
  }
  change_overrides(st, s, [&](PoseOverrides& o) {
    // A game that sets the same skeleton every frame finds its nodes in place: no search.
    bool in_place = o.nodes.size() >= nodes.size();
    for (std::size_t i = 0; in_place && i < nodes.size(); ++i) in_place = o.nodes[i].node == nodes[i];
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const glm::quat& q = locals[i].rotation;
      const NodeTransform unit{locals[i].translation, q / glm::length(q), locals[i].scale};
      if (in_place)
        o.nodes[i] = {nodes[i], unit, weight};
      else
        store(o.nodes, nodes[i], unit, weight);
    }
  });
  st.stale[s] = 1;  // packed by the next update (docs/spec.md §3.8)
}

void Actor::clear_local_pose() {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  if (st.overrides[s].nodes.empty()) return;
  change_overrides(st, s, [](PoseOverrides& o) { o.nodes.clear(); });
  st.stale[s] = 1;  // packed by the next update (docs/spec.md §3.8)
}

void Actor::set_morph_weights(std::uint32_t node, std::span<const float> weights, float weight) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  const Asset& asset = st.asset;
  check_node(asset, node, "set_morph_weights.node");
  const std::uint32_t count = asset.weight_counts[node];
  if (weights.size() != count)
    throw Error("set_morph_weights.weights", Rule::morph_count,
                fmt::format("{} weights for node {} (\"{}\"), whose mesh has {} morph targets", weights.size(), node,
                            asset.nodes[node].name, count));
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (!std::isfinite(weights[i])) detail::check_finite(weights[i], fmt::format("set_morph_weights.weights[{}]", i));
  check_weight(weight, "set_morph_weights.weight");
  change_overrides(st, s, [&](PoseOverrides& o) {
    std::size_t i = 0;
    while (i < o.morphs.size() && o.morphs[i].node != node) ++i;
    if (i == o.morphs.size()) {  // new: its values go at the end of the pool
      o.morphs.push_back(
          {node, asset.weight_offsets[node], count, static_cast<std::uint32_t>(o.morph_values.size()), weight});
      o.morph_values.insert(o.morph_values.end(), weights.begin(), weights.end());
    } else {  // a node's count never changes: overwrite in place
      o.morphs[i].weight = weight;
      std::copy(weights.begin(), weights.end(), o.morph_values.begin() + o.morphs[i].values);
    }
  });
  st.stale[s] = 1;  // packed by the next update (docs/spec.md §3.8)
}

void Actor::clear_morph_weights(std::uint32_t node) {
  const std::uint32_t s = slot();
  Crowd::State& st = *crowd().state_;
  check_node(st.asset, node, "clear_morph_weights.node");
  PoseOverrides& o = st.overrides[s];
  std::size_t i = 0;
  while (i < o.morphs.size() && o.morphs[i].node != node) ++i;
  if (i == o.morphs.size()) return;
  change_overrides(st, s, [i](PoseOverrides& p) {
    const MorphOverride gone = p.morphs[i];
    const auto first = p.morph_values.begin() + gone.values;
    p.morph_values.erase(first, first + gone.count);
    p.morphs.erase(p.morphs.begin() + static_cast<std::ptrdiff_t>(i));
    for (MorphOverride& m : p.morphs)
      if (m.values > gone.values) m.values -= gone.count;
  });
  st.stale[s] = 1;  // packed by the next update (docs/spec.md §3.8)
}

}  // namespace gltf_crowd
