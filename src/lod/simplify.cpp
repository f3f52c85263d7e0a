// Index-only level generation with joint-domain protection (docs/spec.md §7 "Levels").
// Based on: meshoptimizer 0.18 meshopt_simplify (Garland & Heckbert 1997 quadric edge
// collapses onto existing vertices, so the vertex buffers stay shared); glTF 2.0 §3.7.3.1
// (JOINTS_n / WEIGHTS_n).
//
// Two problems stand between meshopt_simplify and a skinned, flat-shaded character:
// - Hard edges split every corner into one vertex per face. meshopt then sees no connected
//   surface and locks everything. So corners that differ only in normal or tangent are welded
//   for simplification, and each corner of an output triangle takes back the original vertex
//   whose normal best matches that triangle's face.
// - An edge collapse moves one vertex onto another; between vertices bound to different joints
//   that tears the skin when the character moves. So welding never crosses joint sets, the
//   triangles are grouped by joint set, and each group is simplified alone with its border
//   locked: every collapse stays inside one joint set, and the triangles that straddle joint
//   sets are kept as authored.
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>

#include <meshoptimizer.h>

#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {
namespace {

// Relative to the mesh extent (meshopt_simplify's unit): 5 % keeps silhouettes recognisable
// while letting the coarse levels reach their ratios on the test characters.
constexpr float kTargetError = 0.05f;

using JointSet = std::array<std::uint16_t, 8>;

template <typename T>
void append_bytes(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// Vertices that may stand in for each other: equal position, joint set, texture coordinates,
// colour and morph displacements; only normals and tangents may differ. meshopt sees one vertex
// per class: it locks any position shared by more than two vertices, even unreferenced ones.
struct Welding {
  std::vector<glm::vec3> positions;                // per class
  std::vector<std::uint32_t> class_of;             // per vertex
  std::vector<std::vector<std::uint32_t>> wedges;  // per class: its vertices, ascending
};

Welding weld(const Primitive& p) {
  Welding w;
  w.class_of.resize(p.vertex_count());
  std::unordered_map<std::string, std::uint32_t> classes;
  std::string key;
  for (std::size_t v = 0; v < p.vertex_count(); ++v) {
    key.clear();
    append_bytes(key, p.positions[v]);
    if (!p.joints0.empty()) append_bytes(key, joint_set(p, v));
    if (!p.texcoords0.empty()) append_bytes(key, p.texcoords0[v]);
    if (!p.texcoords1.empty()) append_bytes(key, p.texcoords1[v]);
    if (!p.colors0.empty()) append_bytes(key, p.colors0[v]);
    for (const MorphTarget& t : p.targets)
      if (!t.positions.empty()) append_bytes(key, t.positions[v]);
    const auto [it, added] = classes.emplace(key, static_cast<std::uint32_t>(w.positions.size()));
    if (added) {
      w.positions.push_back(p.positions[v]);
      w.wedges.emplace_back();
    }
    w.class_of[v] = it->second;
    w.wedges[it->second].push_back(static_cast<std::uint32_t>(v));
  }
  return w;
}

// Welded triangles grouped by joint set (one group without joints) with the same triangles
// unwelded, and the original triangles that straddle joint sets.
struct Regions {
  std::vector<std::vector<std::uint32_t>> regions;
  std::vector<std::vector<std::uint32_t>> originals;
  std::vector<std::uint32_t> mixed;
};

Regions split_by_joint_set(const Primitive& p, const Welding& w) {
  Regions out;
  std::map<JointSet, std::uint32_t> class_of_set;
  std::vector<std::uint32_t> vertex_set(p.vertex_count(), 0);
  if (!p.joints0.empty())
    for (std::size_t v = 0; v < p.vertex_count(); ++v)
      vertex_set[v] =
          class_of_set.emplace(joint_set(p, v), static_cast<std::uint32_t>(class_of_set.size())).first->second;
  out.regions.resize(std::max<std::size_t>(class_of_set.size(), 1));
  out.originals.resize(out.regions.size());
  for (std::size_t t = 0; t + 2 < p.indices.size(); t += 3) {
    const std::uint32_t a = p.indices[t], b = p.indices[t + 1], c = p.indices[t + 2];
    const std::uint32_t k = vertex_set[a];
    if (vertex_set[b] == k && vertex_set[c] == k) {
      out.regions[k].insert(out.regions[k].end(), {w.class_of[a], w.class_of[b], w.class_of[c]});
      out.originals[k].insert(out.originals[k].end(), {a, b, c});
    } else {
      out.mixed.insert(out.mixed.end(), {a, b, c});
    }
  }
  std::erase_if(out.originals, [](const auto& r) { return r.empty(); });
  std::erase_if(out.regions, [](const auto& r) { return r.empty(); });
  return out;
}

// Welded triangles back to original vertices: each corner takes the wedge whose normal is
// closest to the face normal (ties and primitives without normals: the lowest index).
void unweld(const Primitive& p, const Welding& w, std::vector<std::uint32_t>& triangles) {
  for (std::size_t t = 0; t + 2 < triangles.size(); t += 3) {
    const glm::vec3 a = w.positions[triangles[t]], b = w.positions[triangles[t + 1]], c = w.positions[triangles[t + 2]];
    const glm::vec3 n = glm::cross(b - a, c - a);
    for (int k = 0; k < 3; ++k) {
      const std::vector<std::uint32_t>& wedges = w.wedges[triangles[t + k]];
      std::uint32_t best = wedges[0];
      if (!p.normals.empty())
        for (std::uint32_t v : wedges)
          if (glm::dot(p.normals[v], n) > glm::dot(p.normals[best], n)) best = v;
      triangles[t + k] = best;
    }
  }
}

std::vector<std::uint32_t> simplify_region(const Welding& w, const std::vector<std::uint32_t>& region, float ratio,
                                           unsigned options) {
  const auto target = static_cast<std::size_t>(ratio * static_cast<float>(region.size())) / 3 * 3;
  std::vector<std::uint32_t> out(region.size());
  const std::size_t count =
      meshopt_simplify(out.data(), region.data(), region.size(), &w.positions[0].x, w.positions.size(),
                       sizeof(glm::vec3), target, kTargetError, options, nullptr);
  out.resize(count);
  return out;
}

}  // namespace

JointSet joint_set(const Primitive& primitive, std::size_t v) noexcept {
  JointSet set;
  set.fill(0xFFFFu);
  std::size_t n = 0;
  // Insertion into the sorted prefix; a joint listed twice is one joint.
  const auto insert = [&](std::uint16_t joint) {
    std::size_t i = 0;
    while (i < n && set[i] < joint) ++i;
    if (i < n && set[i] == joint) return;
    for (std::size_t k = n; k > i; --k) set[k] = set[k - 1];
    set[i] = joint;
    ++n;
  };
  const auto add = [&](const glm::u16vec4& joints, const glm::vec4& weights) {
    for (int k = 0; k < 4; ++k)
      if (weights[k] > 0.0f) insert(joints[k]);
  };
  add(primitive.joints0[v], primitive.weights0[v]);
  if (!primitive.joints1.empty()) add(primitive.joints1[v], primitive.weights1[v]);
  return set;
}

std::vector<std::vector<std::uint32_t>> simplify_levels(const Primitive& primitive, std::span<const float> ratios,
                                                        bool preserve_boundary) {
  std::vector<std::vector<std::uint32_t>> levels(ratios.size(), primitive.indices);
  if (primitive.mode != PrimitiveMode::triangles || primitive.indices.size() < 6 || primitive.indices.size() % 3 != 0)
    return levels;
  const Welding welding = weld(primitive);
  const Regions split = split_by_joint_set(primitive, welding);
  // Several regions share borders that must not move (joint seams); a lone region's borders
  // are the mesh's own open edges, locked only on request.
  const bool seams = split.regions.size() > 1 || !split.mixed.empty();
  const unsigned options = (seams || preserve_boundary) ? static_cast<unsigned>(meshopt_SimplifyLockBorder) : 0u;
  for (std::size_t l = 0; l < ratios.size(); ++l) {
    std::vector<std::uint32_t> out = split.mixed;
    for (std::size_t r = 0; r < split.regions.size(); ++r) {
      std::vector<std::uint32_t> reduced = simplify_region(welding, split.regions[r], ratios[l], options);
      if (reduced.size() < split.regions[r].size())
        unweld(primitive, welding, reduced);
      else
        reduced = split.originals[r];  // nothing collapsed: keep the authored corners
      out.insert(out.end(), reduced.begin(), reduced.end());
    }
    if (!out.empty() && out.size() < primitive.indices.size()) levels[l] = std::move(out);
  }
  return levels;
}

}  // namespace gltf_crowd
