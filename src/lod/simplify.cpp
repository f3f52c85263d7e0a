// Index-only level generation (docs/spec.md §7 "Levels").
// Based on: meshoptimizer 0.18 meshopt_simplify (Garland & Heckbert 1997 quadric edge
// collapses onto existing vertices, so the vertex buffers stay shared) and meshopt_simplifySloppy;
// glTF 2.0 §3.7.3.1 (JOINTS_n / WEIGHTS_n).
//
// Render vertices are the wrong topology to simplify: every hard-normal split is an open border to
// meshopt, and a flat-shaded character (Fox) is nothing but borders. So vertices that differ only
// in normal or tangent are welded, the welded surface is simplified, and each corner of an output
// triangle is mapped back to the original vertex with the normal closest to its face. Texture
// coordinates stay apart, so UV seams reach meshopt as seams, which it moves only along
// themselves: UV charts stay intact (welding them too showed another chart's texture on
// CesiumMan's forearm and gave Fox's levels the wrong colours; docs/benchmarks.md, "Tried and dropped").
//
// Skinning limits which collapses are safe: a collapse hands a removed vertex's part of the
// surface to triangles whose corners follow other joints, which is harmless where those joints
// move together and a crack where they do not. That is measured, not guessed from the weights:
// at each sampled pose of the asset's clips, every vertex a result removes may be further from
// the result's surface (the triangles nearest it at rest) than at rest by at most the pose
// tolerance. Where it is further, the worst offenders are locked and the simplifier runs again
// (refine). Weights alone lock too much: a rule that no collapse or new edge joins vertices
// sharing no weighted joint kept Fox at 1,428 of 1,728 indices at both ratios, where the
// measured rule reaches 864 and 654 and walks without cracks (docs/benchmarks.md, "Tried and dropped"). A skinned
// primitive without poses (an asset without clips) keeps a static rule: a vertex whose weights
// differ from a neighbour's by more than kCollapseTolerance stays in place.
// meshopt 0.18 has no per-vertex lock; it locks any position shared by more than two vertices,
// even unreferenced ones, so two unreferenced copies of a position lock it.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include <meshoptimizer.h>

#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/lod.hpp"

namespace gltf_crowd {
namespace {

// The sloppy simplifier runs only for levels the regular one leaves above 1.2 × the target, and
// may reach twice the regular simplifier's error.
constexpr float kSloppyStall = 1.2f;
constexpr float kSloppyErrorFactor = 2.0f;
// Σ|Δweight| over joints, in [0, 2]: vertices at one position with weights this close weld.
constexpr float kWeldTolerance = 1e-3f;
// Without poses, Σ|Δweight| a collapse may bridge: a quarter of the weight moved.
constexpr float kCollapseTolerance = 0.5f;
// Offenders locked per refinement (the worst kLocksPerRefinement, or the worst kLockShare-th of
// them if more) and refinements per tolerance, as measured for 8fcb22e: locking every offender
// at once kept Fox at 1,158 indices at ratio 0.5 and one per run needed over 100 runs, where 4
// reached 864 within 21; an eighth of them halved CesiumMan's runs for the same result.
constexpr std::size_t kLocksPerRefinement = 4;
constexpr std::size_t kLockShare = 8;
constexpr int kMaxRefinements = 64;
// Fractions of PoseSamples::tolerance tried in turn, and how close to its target a level must come
// for a tighter one to be kept: CesiumMan's levels reach their targets at any tolerance, but at
// the full one with a pose error near it (thresholds 0.044 and 0.035 at 2 % of its extent), at a
// sixteenth or an eighth with 0.12 % and 0.33 % (0.75 and 0.28).
constexpr std::array<float, 5> kToleranceLadder = {1.0f / 16, 1.0f / 8, 1.0f / 4, 1.0f / 2, 1.0f};
constexpr float kReached = 1.1f;
// Triangles a removed vertex's distance is measured to at each pose: those nearest at rest.
constexpr std::size_t kNearTriangles = 8;

// A vertex's joint weights (glTF §3.7.3.1), sorted by joint, repeated joints summed.
struct Influences {
  std::array<std::uint16_t, 8> joints{};
  std::array<float, 8> weights{};
  std::uint32_t count = 0;
};

Influences influences(const Primitive& p, std::size_t v) {
  Influences s;
  const auto add = [&s](std::uint16_t joint, float weight) {
    if (!(weight > 0.0f)) return;
    std::uint32_t i = 0;
    while (i < s.count && s.joints[i] < joint) ++i;
    if (i < s.count && s.joints[i] == joint) {
      s.weights[i] += weight;
      return;
    }
    for (std::uint32_t k = s.count; k > i; --k) {
      s.joints[k] = s.joints[k - 1];
      s.weights[k] = s.weights[k - 1];
    }
    s.joints[i] = joint;
    s.weights[i] = weight;
    ++s.count;
  };
  for (int k = 0; k < 4; ++k) add(p.joints0[v][k], p.weights0[v][k]);
  if (!p.joints1.empty())
    for (int k = 0; k < 4; ++k) add(p.joints1[v][k], p.weights1[v][k]);
  return s;
}

// Σ over joints of |a(j) − b(j)|.
float distance(const Influences& a, const Influences& b) noexcept {
  float d = 0.0f;
  std::uint32_t i = 0, k = 0;
  while (i < a.count || k < b.count) {
    if (k == b.count || (i < a.count && a.joints[i] < b.joints[k])) {
      d += a.weights[i++];
    } else if (i == a.count || b.joints[k] < a.joints[i]) {
      d += b.weights[k++];
    } else {
      d += std::abs(a.weights[i++] - b.weights[k++]);
    }
  }
  return d;
}

template <typename T>
void append_bytes(std::string& key, const T& value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// The surface meshopt simplifies: one point per class of vertices that share a position, morph
// displacements, texture coordinates, colour and (within kWeldTolerance) joint weights, so the
// classes differ from the vertices only where normals or tangents split a corner. A UV seam stays
// a seam: meshopt moves its vertices only along it, which keeps every UV chart intact.
struct Welding {
  std::vector<glm::vec3> positions;                        // per class
  std::vector<std::uint32_t> class_of;                     // per vertex
  std::vector<std::vector<std::uint32_t>> class_vertices;  // per class: its vertices, ascending
  std::vector<Influences> influence;                       // per class (empty without joints)
};

Welding weld(const Primitive& p) {
  Welding w;
  const std::size_t n = p.vertex_count();
  w.class_of.resize(n);
  const bool skinned = !p.joints0.empty();
  std::unordered_map<std::string, std::vector<std::uint32_t>> at_corner;  // key → classes there
  std::string key;
  for (std::size_t v = 0; v < n; ++v) {
    key.clear();
    append_bytes(key, p.positions[v]);
    for (const MorphTarget& t : p.targets)
      if (!t.positions.empty()) append_bytes(key, t.positions[v]);
    if (!p.texcoords0.empty()) append_bytes(key, p.texcoords0[v]);
    if (!p.texcoords1.empty()) append_bytes(key, p.texcoords1[v]);
    if (!p.colors0.empty()) append_bytes(key, p.colors0[v]);
    std::vector<std::uint32_t>& candidates = at_corner[key];
    const Influences mine = skinned ? influences(p, v) : Influences{};
    std::uint32_t cls = 0xFFFFFFFFu;
    for (std::uint32_t c : candidates)
      if (!skinned || distance(w.influence[c], mine) <= kWeldTolerance) {
        cls = c;
        break;
      }
    if (cls == 0xFFFFFFFFu) {
      cls = static_cast<std::uint32_t>(w.positions.size());
      candidates.push_back(cls);
      w.positions.push_back(p.positions[v]);
      w.class_vertices.emplace_back();
      if (skinned) w.influence.push_back(mine);
    }
    w.class_of[v] = cls;
    w.class_vertices[cls].push_back(static_cast<std::uint32_t>(v));
  }
  return w;
}

// Welded triangles back to original vertices: of each corner's class, the vertex whose normal is
// closest to the face normal (ties, no normals: the lowest).
void unweld(const Primitive& p, const Welding& w, std::vector<std::uint32_t>& triangles) {
  for (std::size_t t = 0; t + 2 < triangles.size(); t += 3) {
    std::uint32_t* c = &triangles[t];
    const glm::vec3 a = w.positions[c[0]], b = w.positions[c[1]], d = w.positions[c[2]];
    const glm::vec3 face = glm::cross(b - a, d - a);
    for (int k = 0; k < 3; ++k) {
      const std::vector<std::uint32_t>& vertices = w.class_vertices[c[k]];
      std::uint32_t best = vertices[0];
      if (!p.normals.empty())
        for (std::uint32_t v : vertices)
          if (glm::dot(p.normals[v], face) > glm::dot(p.normals[best], face)) best = v;
      c[k] = best;
    }
  }
}

// Per class, whether its weights differ from a neighbour's by more than kCollapseTolerance.
std::vector<bool> weight_locks(const Welding& w, std::span<const std::uint32_t> triangles) {
  std::vector<bool> locked(w.positions.size(), false);
  for (std::size_t t = 0; t + 2 < triangles.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t a = triangles[t + k], b = triangles[t + (k + 1) % 3];
      if (distance(w.influence[a], w.influence[b]) > kCollapseTolerance) locked[a] = locked[b] = true;
    }
  return locked;
}

// Class positions with two unreferenced copies of every locked class: meshopt then locks those
// positions.
std::vector<glm::vec3> locked_positions(const Welding& w, const std::vector<bool>& locked) {
  std::vector<glm::vec3> positions = w.positions;
  for (std::size_t c = 0; c < locked.size(); ++c)
    if (locked[c]) positions.insert(positions.end(), 2, w.positions[c]);
  return positions;
}

// The point of triangle abc closest to p, as barycentric weights of a, b, c (Ericson, Real-Time
// Collision Detection §5.1.5).
glm::vec3 closest_barycentric(glm::vec3 p, glm::vec3 a, glm::vec3 b, glm::vec3 c) noexcept {
  const glm::vec3 ab = b - a, ac = c - a, ap = p - a;
  const float d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
  if (d1 <= 0.0f && d2 <= 0.0f) return {1.0f, 0.0f, 0.0f};
  const glm::vec3 bp = p - b;
  const float d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
  if (d3 >= 0.0f && d4 <= d3) return {0.0f, 1.0f, 0.0f};
  const float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
    const float v = d1 / (d1 - d3);
    return {1.0f - v, v, 0.0f};
  }
  const glm::vec3 cp = p - c;
  const float d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
  if (d6 >= 0.0f && d5 <= d6) return {0.0f, 0.0f, 1.0f};
  const float vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
    const float w = d2 / (d2 - d6);
    return {1.0f - w, 0.0f, w};
  }
  const float va = d3 * d6 - d5 * d4;
  if (va <= 0.0f && d4 - d3 >= 0.0f && d5 - d6 >= 0.0f) {
    const float w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {0.0f, 1.0f - w, w};
  }
  const float denom = 1.0f / (va + vb + vc);
  const float v = vb * denom, w = vc * denom;
  return {1.0f - v - w, v, w};
}

// What the pose check found in a result: the classes it removed whose distance to its surface
// grows by more than the tolerance at some pose, worst first; and the largest growth of any,
// relative to the primitive's rest-pose extent (an error the thresholds must see: CesiumMan's
// levels, 0.02 % and 0.1 % from their rest shape, let removed vertices move up to 2.5 % away from
// the walking surface without the check).
struct PoseVerdict {
  std::vector<std::uint32_t> offenders;
  float error = 0.0f;
};

// The pose check of the header comment, over the welded surface. Per class and pose its
// position; per class its neighbours on the surface.
class PoseCheck {
 public:
  PoseCheck(const Welding& w, std::span<const std::uint32_t> surface, const PoseSamples& poses)
      : tolerance_(poses.tolerance), classes_(w.positions.size()), around_(classes_), mark_(classes_, 0) {
    posed_.resize(poses.pose_count * classes_);
    const std::size_t vertices = w.class_of.size();
    for (std::size_t k = 0; k < poses.pose_count; ++k)
      for (std::size_t v = 0; v < vertices; ++v)
        posed_[k * classes_ + w.class_of[v]] = poses.positions[k * vertices + v];
    Bounds rest;
    for (std::uint32_t c = 0; c < classes_; ++c) rest.add(at(0, c));
    const glm::vec3 size = rest.max - rest.min;
    extent_ = std::max({size.x, size.y, size.z});
    for (std::size_t t = 0; t + 2 < surface.size(); t += 3)
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t a = surface[t + k], b = surface[t + (k + 1) % 3];
        around_[a].push_back(b);
        around_[b].push_back(a);
      }
    for (std::vector<std::uint32_t>& n : around_) {
      std::sort(n.begin(), n.end());
      n.erase(std::unique(n.begin(), n.end()), n.end());
    }
  }

  void set_tolerance(float tolerance) noexcept { tolerance_ = tolerance; }

  PoseVerdict judge(std::span<const std::uint32_t> surface, std::span<const std::uint32_t> reduced) {
    std::vector<std::vector<std::uint32_t>> triangles_at(classes_);  // per kept class: its triangles
    for (std::uint32_t t = 0; t + 2 < reduced.size(); t += 3)
      for (int k = 0; k < 3; ++k) triangles_at[reduced[t + k]].push_back(t);
    std::vector<bool> removed(classes_, false);
    for (std::uint32_t c : surface) removed[c] = triangles_at[c].empty();
    std::vector<std::pair<float, std::uint32_t>> found;
    float worst = 0.0f;
    for (std::uint32_t c = 0; c < classes_; ++c) {
      if (!removed[c]) continue;
      const float growth = worst_growth(c, reduced, triangles_at);
      if (growth <= tolerance_) {
        worst = std::max(worst, growth);
      } else {  // NaN from overflowing positions offends too, worst of all
        found.emplace_back(growth > tolerance_ ? growth : std::numeric_limits<float>::infinity(), c);
      }
    }
    std::sort(found.begin(), found.end(), std::greater<>());
    PoseVerdict out;
    for (const auto& f : found) out.offenders.push_back(f.second);
    // A tiny or overflowing extent gives no finite ratio: then the largest finite error.
    const float ratio = worst > 0.0f ? worst / extent_ : 0.0f;
    out.error = std::isfinite(ratio) ? ratio : std::numeric_limits<float>::max();
    return out;
  }

 private:
  glm::vec3 at(std::size_t pose, std::uint32_t c) const noexcept { return posed_[pose * classes_ + c]; }

  // The kept classes nearest to removed class c on the original surface: breadth-first rings
  // until one holds a kept class, plus the ring after it.
  void nearest_kept(std::uint32_t c, const std::vector<std::vector<std::uint32_t>>& triangles_at) {
    ++stamp_;
    ring_.assign(1, c);
    kept_.clear();
    mark_[c] = stamp_;
    for (int extra = -1; !ring_.empty() && extra < 1;) {
      next_.clear();
      for (std::uint32_t x : ring_)
        for (std::uint32_t y : around_[x]) {
          if (mark_[y] == stamp_) continue;
          mark_[y] = stamp_;
          next_.push_back(y);
          if (!triangles_at[y].empty()) kept_.push_back(y);
        }
      if (!kept_.empty()) ++extra;
      ring_.swap(next_);
    }
  }

  // Distance of class c, at pose k, to the triangle of `reduced` whose first index is at t.
  float distance_at(std::size_t k, std::uint32_t c, std::span<const std::uint32_t> reduced, std::uint32_t t) const {
    const glm::vec3 p = at(k, c), a = at(k, reduced[t]), b = at(k, reduced[t + 1]), d = at(k, reduced[t + 2]);
    const glm::vec3 w = closest_barycentric(p, a, b, d);
    return glm::length(p - (w.x * a + w.y * b + w.z * d));
  }

  // Of removed class c: the largest growth over the poses of its distance to the surface that
  // replaced it, against its distance at rest. That surface is the kNearTriangles triangles
  // nearest at rest of those around its nearest kept classes. The distance to the surface, not
  // to one point of it: where the skin stretches, a removed vertex slides along the surface,
  // which is no error.
  float worst_growth(std::uint32_t c, std::span<const std::uint32_t> reduced,
                     const std::vector<std::vector<std::uint32_t>>& triangles_at) {
    nearest_kept(c, triangles_at);
    near_.clear();
    for (std::uint32_t kept : kept_)
      for (std::uint32_t t : triangles_at[kept]) near_.emplace_back(distance_at(0, c, reduced, t), t);
    if (near_.empty()) return 0.0f;  // an island removed whole
    std::sort(near_.begin(), near_.end());
    near_.erase(std::unique(near_.begin(), near_.end()), near_.end());
    if (near_.size() > kNearTriangles) near_.resize(kNearTriangles);
    const float rest = near_.front().first;
    float worst = 0.0f;
    const std::size_t poses = posed_.size() / classes_;
    for (std::size_t k = 1; k < poses; ++k) {
      float now = std::numeric_limits<float>::infinity();
      for (const auto& near : near_) now = std::min(now, distance_at(k, c, reduced, near.second));
      worst = std::max(worst, now - rest);
    }
    return worst;
  }

  float tolerance_;
  float extent_ = 0.0f;  // largest side of the rest pose's bounds
  std::size_t classes_;
  std::vector<glm::vec3> posed_;                    // per pose, per class
  std::vector<std::vector<std::uint32_t>> around_;  // per class: its neighbours, ascending
  std::vector<std::uint32_t> mark_, ring_, next_, kept_;
  std::vector<std::pair<float, std::uint32_t>> near_;  // rest distance, first index of the triangle
  std::uint32_t stamp_ = 0;
};

}  // namespace

std::vector<SimplifiedLevel> simplify_levels(const Primitive& primitive, std::span<const float> ratios,
                                             float target_error, bool preserve_boundary, const PoseSamples& poses) {
  std::vector<SimplifiedLevel> levels(ratios.size(), SimplifiedLevel{primitive.indices, 0.0f, false});
  if (primitive.mode != PrimitiveMode::triangles || primitive.indices.size() < 6 || primitive.indices.size() % 3 != 0)
    return levels;
  const Welding welding = weld(primitive);
  std::vector<std::uint32_t> surface;
  surface.reserve(primitive.indices.size());
  for (std::size_t t = 0; t < primitive.indices.size(); t += 3) {
    const std::uint32_t a = welding.class_of[primitive.indices[t]], b = welding.class_of[primitive.indices[t + 1]],
                        c = welding.class_of[primitive.indices[t + 2]];
    if (a != b && b != c && a != c) surface.insert(surface.end(), {a, b, c});
  }
  if (surface.size() < 6) return levels;
  const bool posed = poses.pose_count >= 2 && poses.positions.size() == poses.pose_count * primitive.vertex_count();
  std::optional<PoseCheck> check;
  if (posed) check.emplace(welding, surface, poses);
  const bool skinned = !welding.influence.empty();
  const std::vector<bool> static_locks =
      skinned && !posed ? weight_locks(welding, surface) : std::vector<bool>(welding.positions.size(), false);
  const auto judge = [&](std::span<const std::uint32_t> reduced) {
    return posed ? check->judge(surface, reduced) : PoseVerdict{};
  };
  const unsigned options = preserve_boundary ? static_cast<unsigned>(meshopt_SimplifyLockBorder) : 0u;
  std::vector<std::uint32_t> out(surface.size()), attempt(surface.size());
  for (std::size_t l = 0; l < ratios.size(); ++l) {
    // Of the original indices; the surface may hold fewer (triangles welded to degenerate ones).
    const std::size_t target = std::min(
        static_cast<std::size_t>(ratios[l] * static_cast<float>(primitive.indices.size())) / 3 * 3, surface.size());
    std::size_t count = surface.size();
    float error = 0.0f;
    // Tighter tolerances first: the first result within kReached × the target is kept, else the
    // smallest. Its error includes the growth, so a tighter pass earns finer thresholds.
    for (const float fraction : kToleranceLadder) {
      if (posed) check->set_tolerance(fraction * poses.tolerance);
      std::vector<bool> locked = static_locks;
      for (int round = 0; round < kMaxRefinements; ++round) {
        const std::vector<glm::vec3> positions = locked_positions(welding, locked);
        float attempt_error = 0.0f;
        const std::size_t n =
            meshopt_simplify(attempt.data(), surface.data(), surface.size(), &positions[0].x, positions.size(),
                             sizeof(glm::vec3), target, target_error, options, &attempt_error);
        const PoseVerdict verdict = judge(std::span<const std::uint32_t>(attempt.data(), n));
        if (verdict.offenders.empty()) {
          if (n < count) {
            std::swap(out, attempt);
            count = n;
            error = std::max(attempt_error, verdict.error);
          }
          break;
        }
        const std::size_t locks = std::max(kLocksPerRefinement, verdict.offenders.size() / kLockShare);
        for (std::size_t k = 0; k < std::min(locks, verdict.offenders.size()); ++k) locked[verdict.offenders[k]] = true;
      }
      if (!posed || static_cast<float>(count) <= kReached * static_cast<float>(target)) break;
    }
    bool sloppy = false;
    if (static_cast<float>(count) > kSloppyStall * static_cast<float>(target) && !preserve_boundary &&
        (posed || !skinned)) {
      float attempt_error = 0.0f;
      const std::size_t n = meshopt_simplifySloppy(attempt.data(), surface.data(), surface.size(),
                                                   &welding.positions[0].x, welding.positions.size(), sizeof(glm::vec3),
                                                   target, kSloppyErrorFactor * target_error, &attempt_error);
      // Sloppy clustering ignores the weights: it joined RiggedFigure's legs to its body, which
      // tore at the hips once it walked (tests/lod_visual_test.cpp). It has no locks to refine,
      // so it passes the pose check whole or not at all.
      if (n > 0 && n < count) {
        const PoseVerdict verdict = judge(std::span(attempt.data(), n));
        if (verdict.offenders.empty()) {
          std::swap(out, attempt);
          count = n;
          error = std::max(attempt_error, verdict.error);
          sloppy = true;
        }
      }
    }
    // A level is never larger than the one before it (a lower target can stall higher).
    if (l > 0 && count >= levels[l - 1].indices.size()) {
      levels[l] = levels[l - 1];
      continue;
    }
    if (count >= primitive.indices.size()) continue;
    std::vector<std::uint32_t> indices(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(count));
    unweld(primitive, welding, indices);
    levels[l] = {std::move(indices), error, sloppy};
  }
  return levels;
}

}  // namespace gltf_crowd
