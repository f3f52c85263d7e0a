// Bounding spheres for LOD: the rest-pose sphere that coverage measures, and one conservative
// sphere per clip that culling tests (docs/spec.md §7).
// Based on: glTF 2.0 §3.7.3 (skinned vertex = Σ wᵢ · world(jointᵢ) · IBMᵢ · v, so it lies in the
// convex hull of its joints' transformed points) and §3.7.2.2 (morph targets add Σ wₜ · Δₜ).
//
// Animated bounds are never computed per vertex and frame. Each drawn primitive is split into
// elements rigidly attached to one node: a rigid primitive is one element on its node; a skinned
// primitive gives one element per joint, the sphere of IBM · v over the vertices that joint
// influences. Every skinned vertex lies inside the hull of its joints' elements, so enclosing
// the moved elements encloses the mesh. Morph targets grow an element by Σ |wₜ| · max |Δₜ|.
#include <algorithm>
#include <cmath>

#include "anim/posed_positions.hpp"
#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/pose.hpp"
#include "lod/spheres.hpp"

namespace gltf_crowd::detail {
namespace {

// A sphere attached to one node, in that node's local space.
struct Element {
  std::uint32_t node = 0;
  Sphere local;
  float scale = 1.0f;               // local units per mesh unit (IBM scale for joints)
  std::uint32_t weight_offset = 0;  // first morph weight of the drawing node
  std::vector<float> max_delta;     // per morph target: largest |Δposition| of its vertices
};

Sphere enclose_points(std::span<const glm::vec3> points) {
  if (points.empty()) return {};
  glm::vec3 lo = points[0], hi = points[0];
  for (const glm::vec3& p : points) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  Sphere s{(lo + hi) * 0.5f, 0.0f};
  for (const glm::vec3& p : points) s.radius = std::max(s.radius, glm::length(p - s.center));
  return s;
}

Sphere enclose_spheres(std::span<const Sphere> spheres) {
  if (spheres.empty()) return {};
  glm::vec3 lo = spheres[0].center - spheres[0].radius, hi = spheres[0].center + spheres[0].radius;
  for (const Sphere& s : spheres) {
    lo = glm::min(lo, s.center - s.radius);
    hi = glm::max(hi, s.center + s.radius);
  }
  Sphere out{(lo + hi) * 0.5f, 0.0f};
  for (const Sphere& s : spheres) out.radius = std::max(out.radius, glm::length(s.center - out.center) + s.radius);
  return out;
}

// Largest morph displacement per target over the vertices `take` accepts.
template <typename Take>
std::vector<float> max_deltas(const Primitive& primitive, std::uint32_t target_count, Take take) {
  std::vector<float> out(target_count, 0.0f);
  for (std::uint32_t t = 0; t < target_count; ++t) {
    const std::vector<glm::vec3>& deltas = primitive.targets[t].positions;
    for (std::size_t v = 0; v < deltas.size(); ++v)
      if (take(v)) out[t] = std::max(out[t], glm::length(deltas[v]));
  }
  return out;
}

void add_elements(const Asset& asset, std::uint32_t source, const Primitive& primitive, std::vector<Element>& out) {
  if (primitive.positions.empty()) return;
  const Node& node = asset.nodes[source];
  const std::uint32_t targets =
      std::min<std::uint32_t>(asset.weight_counts[source], static_cast<std::uint32_t>(primitive.targets.size()));
  if (node.skin < 0 || primitive.joints0.empty()) {
    out.push_back({source, enclose_points(primitive.positions), 1.0f, asset.weight_offsets[source],
                   max_deltas(primitive, targets, [](std::size_t) { return true; })});
    return;
  }
  const Skin& skin = asset.skins[static_cast<std::size_t>(node.skin)];
  std::vector<std::vector<glm::vec3>> points(skin.joints.size());
  std::vector<std::vector<bool>> influenced(skin.joints.size());
  const auto add = [&](std::size_t v, const glm::u16vec4& joints, const glm::vec4& weights) {
    for (int k = 0; k < 4; ++k) {
      if (!(weights[k] > 0.0f)) continue;
      const std::uint16_t j = joints[k];
      points[j].push_back(glm::vec3(skin.inverse_bind_matrices[j] * glm::vec4(primitive.positions[v], 1.0f)));
      if (influenced[j].empty()) influenced[j].assign(primitive.vertex_count(), false);
      influenced[j][v] = true;
    }
  };
  for (std::size_t v = 0; v < primitive.vertex_count(); ++v) {
    add(v, primitive.joints0[v], primitive.weights0[v]);
    if (!primitive.joints1.empty()) add(v, primitive.joints1[v], primitive.weights1[v]);
  }
  for (std::size_t j = 0; j < skin.joints.size(); ++j) {
    if (points[j].empty()) continue;
    out.push_back({skin.joints[j], enclose_points(points[j]), max_axis_scale(skin.inverse_bind_matrices[j]),
                   asset.weight_offsets[source],
                   max_deltas(primitive, targets, [&](std::size_t v) { return static_cast<bool>(influenced[j][v]); })});
  }
}

// Appends the elements, as one pose moves them, to `spheres`, and writes their centres to
// `centers` (elements order), from which the caller measures motion between samples.
void place_elements(const std::vector<Element>& elements, std::span<const glm::mat4> world,
                    std::span<const float> weights, std::vector<Sphere>& spheres, std::vector<glm::vec3>& centers) {
  centers.resize(elements.size());
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const Element& el = elements[e];
    float morph = 0.0f;
    for (std::size_t t = 0; t < el.max_delta.size(); ++t)
      morph += el.max_delta[t] * std::abs(weights[el.weight_offset + t]);
    const glm::mat4& m = world[el.node];
    centers[e] = glm::vec3(m * glm::vec4(el.local.center, 1.0f));
    spheres.push_back({centers[e], (el.local.radius + morph * el.scale) * max_axis_scale(m)});
  }
}

}  // namespace

void compute_lod_bounds(const Asset& asset, LodModel& model) {
  AssetPose pose(asset);
  std::vector<glm::mat4> world(asset.nodes.size());
  pose.world_matrices(glm::mat4(1.0f), world);

  std::vector<glm::vec3> rest_points;
  std::vector<Element> elements;
  for (const LodSourceNode& source : model.sources) {
    for (std::size_t l = 0; l < source.levels.size(); ++l) {
      const LodNodeLevel& level = source.levels[l];
      if (level.mesh < 0) continue;
      const Mesh& mesh = asset.meshes[static_cast<std::size_t>(level.mesh)];
      for (const LodPrimitive& p : level.primitives) {
        const Primitive& primitive = mesh.primitives[p.primitive];
        add_elements(asset, source.node, primitive, elements);
        if (l != 0) continue;
        append_posed_positions(asset, source.node, primitive, world, pose.weights(), rest_points);
      }
    }
  }
  model.rest_sphere = enclose_points(rest_points);

  std::vector<Sphere> spheres;
  std::vector<glm::vec3> centers, previous;
  place_elements(elements, world, pose.weights(), spheres, centers);
  model.rest_pose_bounds = enclose_spheres(spheres);

  model.clip_spheres.clear();
  for (std::size_t c = 0; c < asset.clips.size(); ++c) {
    const Clip& clip = asset.clips[c];
    spheres.clear();
    float motion = 0.0f;
    const std::vector<float> times = bounds_sample_times(clip);
    for (std::size_t s = 0; s < times.size(); ++s) {
      pose.set_clip(c, times[s]);
      pose.world_matrices(glm::mat4(1.0f), world);
      place_elements(elements, world, pose.weights(), spheres, centers);
      if (s > 0)
        for (std::size_t e = 0; e < centers.size(); ++e)
          motion = std::max(motion, glm::length(centers[e] - previous[e]));
      std::swap(centers, previous);
    }
    Sphere sphere = enclose_spheres(spheres);
    sphere.radius += 0.5f * motion;
    model.clip_spheres.push_back(sphere);
  }
}

}  // namespace gltf_crowd::detail
