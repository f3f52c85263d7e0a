// The kernels (src/anim/kernels.hpp) of the portable SSE2 set and, on CPUs with AVX2 and FMA
// (and AVX-512VL), the fused sets: the affine products against glm's 4×4 products, the group
// sampler against a double-precision evaluation of glTF 2.0 Appendix C written here.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <gtest/gtest.h>

#include "anim/blend_pair.hpp"
#include "anim/kernels.hpp"
#include "anim/locate_keys.hpp"
#include "gltf_crowd/asset.hpp"
#include "handmade_gltf.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

Affine random_affine(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  const glm::quat q = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
  return compose_trs({u(rng), u(rng), u(rng)}, q, {1.0f + 0.2f * u(rng), 1.0f, 0.5f + 0.1f * u(rng)});
}

void expect_near(const Affine& got, const glm::mat4& want, const char* what) {
  const glm::mat4 m = to_mat4(got);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(m[c][r], want[c][r], 1e-4f * (1.0f + std::abs(want[c][r]))) << what;
}

std::vector<const AffineKernels*> kernel_sets() {
  std::vector<const AffineKernels*> sets{&portable_affine_kernels()};
  if (const AffineKernels* fma = fma_affine_kernels()) sets.push_back(fma);
  if (const AffineKernels* avx512 = avx512_affine_kernels()) sets.push_back(avx512);
  return sets;
}

TEST(KernelsTest, ProductsPalettesAndHierarchyMatchGlm) {
  std::mt19937 rng(7);
  // A chain of 6 nodes (0 ← 1 ← 2, 0 ← 3 ← 4, root 5), nodes 1 and 4 posed by TRS.
  const std::vector<std::int32_t> parent{-1, 0, 1, 0, 3, -1};
  std::vector<Affine> rest(parent.size());
  for (Affine& a : rest) a = random_affine(rng);
  const std::vector<glm::vec3> translations(parent.size(), glm::vec3(0.3f, -1.0f, 2.0f));
  const std::vector<glm::quat> rotations(parent.size(), glm::normalize(glm::quat(0.9f, 0.1f, -0.3f, 0.2f)));
  const std::vector<glm::vec3> scales(parent.size(), glm::vec3(1.5f, 1.5f, 1.5f));
  const std::vector<std::uint32_t> mark{0, 9, 0, 0, 9, 0};
  const Affine root = random_affine(rng);
  std::vector<glm::mat4> want(parent.size());
  for (std::size_t n = 0; n < parent.size(); ++n) {
    const glm::mat4 local = mark[n] == 9 ? glm::translate(glm::mat4(1.0f), translations[n]) *
                                               glm::mat4_cast(rotations[n]) * glm::scale(glm::mat4(1.0f), scales[n])
                                         : to_mat4(rest[n]);
    want[n] = (parent[n] >= 0 ? want[static_cast<std::size_t>(parent[n])] : to_mat4(root)) * local;
  }
  const std::vector<std::uint32_t> joints{4, 2, 0};
  std::vector<Affine> inverse_binds(joints.size());
  for (Affine& a : inverse_binds) a = random_affine(rng);
  const Affine left = random_affine(rng);
  for (const AffineKernels* k : kernel_sets()) {
    SCOPED_TRACE(k->name);
    // Nodes whose chain is at rest (0, 3 and 5) take rest_world, which for them is `want`.
    std::vector<Affine> rest_world(parent.size());
    for (std::size_t n = 0; n < parent.size(); ++n) rest_world[n] = to_affine(want[n]);
    std::vector<std::uint8_t> moved(parent.size());
    std::vector<Affine> world(parent.size());
    k->hierarchy({parent.size(), parent.data(), rest.data(), translations.data(), rotations.data(), scales.data(),
                  mark.data(), 9, &root, rest_world.data(), moved.data()},
                 world.data());
    EXPECT_EQ(moved, (std::vector<std::uint8_t>{0, 1, 1, 0, 1, 0}));
    for (std::size_t n = 0; n < parent.size(); ++n) expect_near(world[n], want[n], "hierarchy");
    for (const bool stream : {false, true}) {  // plain and non-temporal stores write the same rows
      SCOPED_TRACE(stream ? "streamed" : "plain");
      std::vector<Affine> rows(joints.size());
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(rows.data()) % 16, 0u) << "streaming needs 16-byte aligned rows";
      k->palette(joints, inverse_binds, world, &left, reinterpret_cast<glm::vec4*>(rows.data()), stream);
      for (std::size_t j = 0; j < joints.size(); ++j)
        expect_near(rows[j], to_mat4(left) * want[joints[j]] * to_mat4(inverse_binds[j]), "palette");
      k->palette(joints, inverse_binds, world, nullptr, reinterpret_cast<glm::vec4*>(rows.data()), stream);
      for (std::size_t j = 0; j < joints.size(); ++j)
        expect_near(rows[j], want[joints[j]] * to_mat4(inverse_binds[j]), "palette without left");
    }
    Affine product;
    k->multiply(rest[0], rest[1], product);
    expect_near(product, to_mat4(rest[0]) * to_mat4(rest[1]), "multiply");
  }
}

// glTF 2.0 Appendix C in double precision: the channel's components at `seconds`.
std::vector<double> oracle_sample(const test::HandmadeChannel& c, double seconds) {
  const std::size_t n = c.path == "rotation" ? 4 : 3, keys = c.times.size();
  const bool cubic = c.interpolation == "CUBICSPLINE";
  const auto value = [&](std::size_t k, std::size_t part, std::size_t i) {
    return static_cast<double>(c.values[(cubic ? k * 3 * n + part * n : k * n) + i]);
  };
  std::size_t k = 0;
  while (k + 1 < keys && c.times[k + 1] <= seconds) ++k;
  std::vector<double> out(n);
  if (seconds <= c.times[0] || k + 1 == keys || c.interpolation == "STEP") {
    for (std::size_t i = 0; i < n; ++i) out[i] = value(k, 1, i);
    return out;
  }
  const double interval = double{c.times[k + 1]} - c.times[k], t = (seconds - c.times[k]) / interval;
  if (cubic) {
    const double t2 = t * t, t3 = t2 * t;
    for (std::size_t i = 0; i < n; ++i)
      out[i] = (2 * t3 - 3 * t2 + 1) * value(k, 1, i) + (t3 - 2 * t2 + t) * interval * value(k, 2, i) +
               (-2 * t3 + 3 * t2) * value(k + 1, 1, i) + (t3 - t2) * interval * value(k + 1, 0, i);
  } else if (n == 4) {
    double dot = 0, sign = 1;
    for (std::size_t i = 0; i < 4; ++i) dot += value(k, 1, i) * value(k + 1, 1, i);
    if (dot < 0) sign = -1, dot = -dot;
    const double theta = std::acos(std::min(dot, 1.0));
    const double wa = theta < 1e-9 ? 1 - t : std::sin((1 - t) * theta) / std::sin(theta);
    const double wb = theta < 1e-9 ? t : std::sin(t * theta) / std::sin(theta);
    for (std::size_t i = 0; i < 4; ++i) out[i] = wa * value(k, 1, i) + wb * sign * value(k + 1, 1, i);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = value(k, 1, i) + (value(k + 1, 1, i) - value(k, 1, i)) * t;
  }
  if (n == 4) {
    const double len = std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    for (double& x : out) x /= len;
  }
  return out;
}

// More channels than one group holds, all three interpolations, two timelines, rotations keyed
// close together, far apart (past the series' range) and across the sign flip.
std::vector<test::HandmadeChannel> sampler_channels() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const auto unit = [&] {
    const glm::quat q = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
    return std::vector<float>{q.x, q.y, q.z, q.w};
  };
  std::vector<test::HandmadeChannel> out;
  for (int node = 0; node < 10; ++node) {
    test::HandmadeChannel c{node, "rotation", "LINEAR", {0.0f, 0.5f, 1.0f, 2.0f}, {}};
    std::vector<float> q = unit();
    for (int k = 0; k < 4; ++k) {
      c.values.insert(c.values.end(), q.begin(), q.end());
      if (node % 3 == 0) {  // close: a small turn
        const glm::quat turn = glm::angleAxis(0.05f * static_cast<float>(node + 1), glm::vec3(0.6f, 0.0f, 0.8f));
        const glm::quat next = turn * glm::quat(q[3], q[0], q[1], q[2]);
        q = {next.x, next.y, next.z, next.w};
      } else if (node % 3 == 1) {  // the same rotation with the opposite sign, then far
        q = k % 2 == 0 ? std::vector<float>{-q[0], -q[1], -q[2], -q[3]} : unit();
      } else {
        q = unit();
      }
    }
    out.push_back(c);
  }
  for (int node = 0; node < 3; ++node)
    out.push_back({node, "translation", "STEP", {0.0f, 1.0f, 1.5f}, {1, 2, 3, 4, 5, 6, -7, 8, 9}});
  for (int node = 3; node < 5; ++node) {
    test::HandmadeChannel c{node, "scale", "CUBICSPLINE", {0.0f, 0.4f, 1.3f}, {}};
    for (int i = 0; i < 27; ++i) c.values.push_back(1.0f + 0.25f * u(rng));
    out.push_back(c);
  }
  test::HandmadeChannel cubic{10, "rotation", "CUBICSPLINE", {0.0f, 0.7f, 2.0f}, {}};
  for (int k = 0; k < 3; ++k)
    for (int part = 0; part < 3; ++part) {
      const std::vector<float> q = unit();
      for (float x : q) cubic.values.push_back(part == 1 ? x : 0.3f * x);
    }
  out.push_back(cubic);
  out.push_back({11, "translation", "LINEAR", {0.25f, 1.75f}, {0, 0, 0, 3, -6, 9}});
  return out;
}

// Groups of one and two channels, which SampleLanes samples across poses: two rotations on one
// timeline keyed close together (one across the sign flip), one alone that turns far between its
// second and third keys (0.9 s to 1.6 s: past the series' range, sampled pose by pose), a scale and
// a translation keyed from 0.25 s to 1.75 s (each its own group). Poses before a timeline's first
// key or after its last hold a key (k == next), copied as authored: −0 too, which a lerp of the key
// with itself would make +0.
std::vector<test::HandmadeChannel> narrow_channels() {
  std::vector<test::HandmadeChannel> out;
  for (int node = 0; node < 2; ++node) {
    test::HandmadeChannel c{node, "rotation", "LINEAR", {0.0f, 0.5f, 1.0f, 2.0f}, {}};
    glm::quat q = glm::normalize(glm::quat(0.8f, 0.1f * static_cast<float>(node + 1), -0.3f, 0.2f));
    for (int k = 0; k < 4; ++k) {
      const float sign = node == 1 && k == 2 ? -1.0f : 1.0f;
      c.values.insert(c.values.end(), {sign * q.x, sign * q.y, sign * q.z, sign * q.w});
      q = glm::angleAxis(0.1f + 0.05f * static_cast<float>(k), glm::vec3(0.0f, 0.6f, 0.8f)) * q;
    }
    out.push_back(c);
  }
  const glm::quat q = glm::normalize(glm::quat(0.5f, 0.5f, -0.1f, 0.3f));
  const glm::quat close = glm::angleAxis(0.2f, glm::vec3(1.0f, 0.0f, 0.0f)) * q;
  const glm::quat far = glm::angleAxis(2.5f, glm::vec3(0.0f, 0.0f, 1.0f)) * close;
  out.push_back({2,
                 "rotation",
                 "LINEAR",
                 {0.2f, 0.9f, 1.6f},
                 {q.x, q.y, q.z, q.w, close.x, close.y, close.z, close.w, far.x, far.y, far.z, far.w}});
  out.push_back({3, "scale", "LINEAR", {0.25f, 1.75f}, {1.0f, 2.0f, 0.5f, 1.5f, 0.25f, 3.0f}});
  out.push_back({4, "translation", "LINEAR", {0.25f, 1.75f}, {0.1f, -0.0f, 3.0f, 4.0f, 0.7f, -1.0f}});
  return out;
}

// `channels` (by default sampler_channels()) on 12 nodes, compiled.
struct SamplerClip {
  std::vector<test::HandmadeChannel> channels;
  Rig rig;
  ClipTracks tracks;
};

SamplerClip sampler_clip(std::vector<test::HandmadeChannel> channels = sampler_channels()) {
  SamplerClip out;
  out.channels = std::move(channels);
  nlohmann::json nodes = nlohmann::json::array();
  for (int i = 0; i < 12; ++i) nodes.push_back({{"name", "n" + std::to_string(i)}});
  const Asset asset = load_asset_from_memory(test::handmade_gltf(nodes, {{"clip", out.channels}}));
  out.rig = build_rig(asset, {}, {.all_nodes = true, .frame = false});
  out.tracks = build_clip_tracks(asset, out.rig)[0];
  return out;
}

// Each timeline's key position at `seconds`, searched without a cursor (locate_keys).
std::vector<KeyPosition> keys_at(const ClipTracks& c, float seconds) {
  std::vector<KeyPosition> keys(c.timelines.size());
  locate_keys(c, seconds, {}, keys.data());
  return keys;
}

// Random trees, rotations (a half turn about each axis among them) and non-uniform scales,
// with and without a root transform: every marked node's T × R × S against glm's.
TEST(KernelsTest, HierarchyComposesRandomPosesLikeGlm) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  constexpr std::size_t kNodes = 64;
  std::vector<std::int32_t> parent(kNodes);
  std::vector<Affine> rest(kNodes);
  std::vector<glm::vec3> translations(kNodes), scales(kNodes);
  std::vector<glm::quat> rotations(kNodes);
  std::vector<std::uint32_t> mark(kNodes);
  for (std::size_t n = 0; n < kNodes; ++n) {
    parent[n] = n % 9 == 0 ? -1 : static_cast<std::int32_t>(rng() % n);
    rest[n] = random_affine(rng);
    translations[n] = {u(rng), u(rng), u(rng)};
    rotations[n] = n < 3 ? glm::quat(0.0f, n == 0 ? 1.0f : 0.0f, n == 1 ? 1.0f : 0.0f, n == 2 ? 1.0f : 0.0f)
                         : glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
    scales[n] = {0.5f + 0.5f * std::abs(u(rng)), 1.0f + 0.2f * u(rng), 0.25f + std::abs(u(rng))};
    mark[n] = n % 4 == 3 && parent[n] >= 0 ? 0u : 5u;  // roots marked: every chain moves, no rest_world
  }
  const Affine frame = random_affine(rng);
  for (const Affine* root : {static_cast<const Affine*>(nullptr), &frame}) {
    std::vector<glm::mat4> want(kNodes);
    for (std::size_t n = 0; n < kNodes; ++n) {
      const glm::mat4 local = mark[n] == 5 ? glm::translate(glm::mat4(1.0f), translations[n]) *
                                                 glm::mat4_cast(rotations[n]) * glm::scale(glm::mat4(1.0f), scales[n])
                                           : to_mat4(rest[n]);
      const glm::mat4 up = parent[n] >= 0 ? want[static_cast<std::size_t>(parent[n])]
                                          : (root != nullptr ? to_mat4(*root) : glm::mat4(1.0f));
      want[n] = up * local;
    }
    for (const AffineKernels* k : kernel_sets()) {
      SCOPED_TRACE(k->name);
      std::vector<Affine> rest_world(kNodes), world(kNodes);
      std::vector<std::uint8_t> moved(kNodes);
      k->hierarchy({kNodes, parent.data(), rest.data(), translations.data(), rotations.data(), scales.data(),
                    mark.data(), 5, root, rest_world.data(), moved.data()},
                   world.data());
      for (std::size_t n = 0; n < kNodes; ++n) expect_near(world[n], want[n], "random hierarchy");
    }
  }
}

// hierarchy_lanes against hierarchy run on each pose alone: 1 to 8 poses of one random tree,
// each with its own TRS, and marks where some nodes are animated in every pose (the lanes'
// registers), some in a few, and some chains in none (rest_world), with and without a root
// transform. Each pose's world and moved flags must be what hierarchy gives it: the same
// operations in the same order, so the same bits. One scratch serves every pass, as in a crowd.
TEST(KernelsTest, HierarchyLanesEqualTheHierarchyOfEachPose) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  constexpr std::size_t kNodes = 40;
  std::vector<std::int32_t> parent(kNodes);
  std::vector<Affine> rest(kNodes), rest_world(kNodes);
  for (std::size_t n = 0; n < kNodes; ++n) {
    parent[n] = n % 13 == 0 ? -1 : static_cast<std::int32_t>(rng() % n);
    rest[n] = random_affine(rng);
  }
  struct Pose {
    std::vector<glm::vec3> translations = std::vector<glm::vec3>(kNodes), scales = std::vector<glm::vec3>(kNodes);
    std::vector<glm::quat> rotations = std::vector<glm::quat>(kNodes);
    std::vector<std::uint32_t> mark = std::vector<std::uint32_t>(kNodes);
    std::uint32_t stamp = 0;
  };
  std::vector<Pose> poses(kHierarchyLanes);
  for (std::size_t l = 0; l < poses.size(); ++l) {
    Pose& p = poses[l];
    p.stamp = static_cast<std::uint32_t>(3 + l);
    for (std::size_t n = 0; n < kNodes; ++n) {
      p.translations[n] = {u(rng), u(rng), u(rng)};
      p.rotations[n] = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
      p.scales[n] = {0.5f + 0.5f * std::abs(u(rng)), 1.0f + 0.2f * u(rng), 0.25f + std::abs(u(rng))};
      // Nodes 13–25 (a root's subtree among them) rest in every pose; every 5th node is animated
      // in even lanes only; the rest in all lanes.
      const bool animated = (n < 13 || n > 25) && (n % 5 != 4 || l % 2 == 0);
      p.mark[n] = animated ? p.stamp : p.stamp - 1;
    }
  }
  LanesScratch scratch(kNodes, 0, 0);
  for (const AffineKernels* k : kernel_sets()) {
    SCOPED_TRACE(k->name);
    for (std::size_t n = 0; n < kNodes; ++n)
      rest_world[n] = rest[n];  // an input here: both paths copy it where a chain is at rest
    const Affine frame = random_affine(rng);
    // keep_world: every node (null), or every third node. Elsewhere a node's world stays as it
    // was (a sentinel here), whether moved or at rest.
    std::vector<std::uint8_t> every_third(kNodes);
    for (std::size_t n = 0; n < kNodes; ++n) every_third[n] = n % 3 == 0;
    const Affine sentinel{{glm::vec4(7.0f), glm::vec4(7.0f), glm::vec4(7.0f)}};
    for (const std::uint8_t* keep :
         {static_cast<const std::uint8_t*>(nullptr), static_cast<const std::uint8_t*>(every_third.data())})
      for (const Affine* root : {static_cast<const Affine*>(nullptr), &frame}) {
        for (std::size_t lanes = 1; lanes <= kHierarchyLanes; ++lanes) {
          SCOPED_TRACE(::testing::Message() << lanes << " lanes, root " << (root != nullptr) << ", keep "
                                            << (keep != nullptr ? "every third" : "all"));
          std::vector<std::vector<Affine>> world(lanes, std::vector<Affine>(kNodes, sentinel));
          HierarchyLanes pass{kNodes, parent.data(), rest.data(), root, rest_world.data(), lanes};
          pass.keep_world = keep;
          for (std::size_t l = 0; l < lanes; ++l) {
            pass.translations[l] = poses[l].translations.data();
            pass.rotations[l] = poses[l].rotations.data();
            pass.scales[l] = poses[l].scales.data();
            pass.mark[l] = poses[l].mark.data();
            pass.stamp[l] = poses[l].stamp;
            pass.world[l] = world[l].data();
          }
          pass.lanes_world = scratch.world.data();
          pass.in_lanes = scratch.in_lanes.data();
          pass.moved_lanes = scratch.moved_lanes.data();
          k->hierarchy_lanes(pass);
          for (std::size_t l = 0; l < lanes; ++l) {
            const Pose& p = poses[l];
            std::vector<Affine> want(kNodes);
            std::vector<std::uint8_t> want_moved(kNodes);
            k->hierarchy({kNodes, parent.data(), rest.data(), p.translations.data(), p.rotations.data(),
                          p.scales.data(), p.mark.data(), p.stamp, root, rest_world.data(), want_moved.data()},
                         want.data());
            for (std::size_t n = 0; n < kNodes; ++n) {
              EXPECT_EQ((scratch.moved_lanes[n] >> l) & 1u, want_moved[n]) << "lane " << l << ", node " << n;
              if (keep != nullptr && !keep[n]) {
                EXPECT_EQ(std::memcmp(&world[l][n], &sentinel, sizeof(Affine)), 0) << "lane " << l << ", node " << n;
                continue;
              }
              for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 4; ++c)
                  ASSERT_EQ(std::bit_cast<std::uint32_t>(world[l][n].rows[r][c]),
                            std::bit_cast<std::uint32_t>(want[n].rows[r][c]))
                      << "lane " << l << ", node " << n << ", row " << r << ", column " << c;
            }
          }
        }
      }
  }
}

// Random poses of 8 lanes over a rig with rest transforms = rest worlds' inputs (no root), for
// the passes that run after hierarchy_lanes: stamp 1 marks a node animated in a lane.
struct LanePoses {
  std::vector<std::int32_t> parent;
  std::vector<Affine> rest;
  std::vector<std::vector<glm::vec3>> translations, scales;
  std::vector<std::vector<glm::quat>> rotations;
  std::vector<std::vector<std::uint32_t>> mark;

  // `animated(l, n)`: whether lane l animates node n.
  template <class Animated>
  LanePoses(std::mt19937& rng, std::vector<std::int32_t> parents, Animated&& animated)
      : parent(std::move(parents)),
        rest(parent.size()),
        translations(kHierarchyLanes, std::vector<glm::vec3>(parent.size())),
        scales(kHierarchyLanes, std::vector<glm::vec3>(parent.size())),
        rotations(kHierarchyLanes, std::vector<glm::quat>(parent.size())),
        mark(kHierarchyLanes, std::vector<std::uint32_t>(parent.size())) {
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    for (Affine& m : rest) m = random_affine(rng);
    for (std::size_t l = 0; l < kHierarchyLanes; ++l)
      for (std::size_t n = 0; n < parent.size(); ++n) {
        translations[l][n] = {u(rng), u(rng), u(rng)};
        rotations[l][n] = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
        scales[l][n] = {1.0f + 0.2f * u(rng), 1.0f, 0.5f + 0.1f * std::abs(u(rng))};
        mark[l][n] = animated(l, n) ? 1u : 0u;
      }
  }

  // hierarchy_lanes over the first `lanes` poses into world[l], with `scratch`'s lanes.
  void run_lanes(const AffineKernels& k, std::size_t lanes, const std::uint8_t* keep,
                 std::vector<std::vector<Affine>>& world, LanesScratch& scratch) const {
    HierarchyLanes pass{parent.size(), parent.data(), rest.data(), nullptr, rest.data(), lanes};
    pass.keep_world = keep;
    for (std::size_t l = 0; l < lanes; ++l) {
      pass.translations[l] = translations[l].data();
      pass.rotations[l] = rotations[l].data();
      pass.scales[l] = scales[l].data();
      pass.mark[l] = mark[l].data();
      pass.stamp[l] = 1;
      pass.world[l] = world[l].data();
    }
    pass.lanes_world = scratch.world.data();
    pass.in_lanes = scratch.in_lanes.data();
    pass.moved_lanes = scratch.moved_lanes.data();
    k.hierarchy_lanes(pass);
  }

  // `hierarchy` of lane l's pose alone.
  std::vector<Affine> world_of(const AffineKernels& k, std::size_t l) const {
    std::vector<Affine> world(parent.size());
    std::vector<std::uint8_t> moved(parent.size());
    k.hierarchy({parent.size(), parent.data(), rest.data(), translations[l].data(), rotations[l].data(),
                 scales[l].data(), mark[l].data(), 1, nullptr, rest.data(), moved.data()},
                world.data());
    return world;
  }
};

// palette_lanes after hierarchy_lanes against palette on each pose's world: a skin of 12 joints
// (some at rest in every lane, so broadcast from rest_world), with and without a left transform, 1 to 8 lanes,
// into aligned (streamed) and unaligned rows. The same bits, as for the hierarchy; one scratch
// serves every pass.
TEST(KernelsTest, PaletteLanesEqualThePaletteOfEachPose) {
  std::mt19937 rng(29);
  constexpr std::size_t kNodes = 16, kJoints = 12;
  std::vector<std::int32_t> parent(kNodes);
  for (std::size_t n = 0; n < kNodes; ++n) {
    // Nodes 13–15 hang from the root at rest, so no lane moves them and no moved child makes
    // hierarchy_lanes put them in its lanes: palette_lanes must.
    parent[n] = n == 0    ? -1
                : n >= 13 ? static_cast<std::int32_t>(n == 13 ? 0 : 13)
                          : static_cast<std::int32_t>(rng() % n);
  }
  // Nodes 0, 13–15 rest in every lane (0 is the root).
  const LanePoses poses(rng, parent, [](std::size_t, std::size_t n) { return n != 0 && n <= 12; });
  const std::vector<std::uint32_t> joints{15, 1, 2, 3, 5, 7, 8, 9, 11, 12, 13, 0};
  std::vector<Affine> inverse_binds(kJoints);
  for (Affine& m : inverse_binds) m = random_affine(rng);
  const Affine correction = random_affine(rng);
  LanesScratch scratch(kNodes, kJoints, 0);
  for (const AffineKernels* k : kernel_sets()) {
    SCOPED_TRACE(k->name);
    // Keeping no world in `world` (as a crowd of static skinned meshes does) changes no palette.
    const std::vector<std::uint8_t> keep_none(kNodes, 0);
    // Plain or streaming stores write the same rows.
    for (const bool stream : {true, false})
      for (const std::uint8_t* keep : {static_cast<const std::uint8_t*>(nullptr), keep_none.data()})
        for (const Affine* left : {static_cast<const Affine*>(nullptr), &correction}) {
          for (std::size_t lanes = 1; lanes <= kHierarchyLanes; ++lanes) {
            for (const std::size_t misalign : {std::size_t{0}, std::size_t{1}}) {
              SCOPED_TRACE(::testing::Message()
                           << lanes << " lanes, left " << (left != nullptr) << ", misaligned " << misalign << ", keep "
                           << (keep != nullptr ? "none" : "all") << ", stream " << stream);
              std::vector<std::vector<Affine>> world(lanes, std::vector<Affine>(kNodes));
              // glm::vec4 rows are 16-byte aligned; one float off makes every row unaligned.
              std::vector<std::vector<glm::vec4>> storage(lanes, std::vector<glm::vec4>(3 * kJoints + 1));
              PaletteLanes palettes{joints, inverse_binds, left, lanes};
              palettes.stream = stream;
              palettes.rest_world = poses.rest.data();
              for (std::size_t l = 0; l < lanes; ++l) {
                palettes.rows[l] = reinterpret_cast<glm::vec4*>(&storage[l][0].x + misalign);
              }
              palettes.lanes_world = scratch.world.data();
              palettes.in_lanes = scratch.in_lanes.data();
              palettes.staging = scratch.staging.data();
              poses.run_lanes(*k, lanes, keep, world, scratch);
              k->palette_lanes(palettes);
              for (std::size_t l = 0; l < lanes; ++l) {
                std::vector<glm::vec4> want(3 * kJoints);
                k->palette(joints, inverse_binds, poses.world_of(*k, l), left, want.data(), false);
                const float* got = &palettes.rows[l][0].x;
                for (std::size_t i = 0; i < 12 * kJoints; ++i)
                  ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>((&want[0].x)[i]))
                      << "lane " << l << ", joint " << i / 12 << ", float " << i % 12;
              }
            }
          }
        }
  }
}

// instance_lanes after hierarchy_lanes against `multiply` on each pose's world, as the crowd
// packs one pose: rigid nodes (one at rest in every lane, so not in the pass's lanes) and static
// skinned meshes, with and without an unframe transform, 1 to 8 lanes, bit for bit. Without
// static_rows, the static meshes' rows keep what they held.
TEST(KernelsTest, InstanceLanesEqualTheProductsOfEachPose) {
  std::mt19937 rng(31);
  constexpr std::size_t kNodes = 12;
  std::vector<std::int32_t> parent(kNodes);
  // Node 11 hangs from the root and no lane moves either; node 5 moves in even lanes only.
  for (std::size_t n = 0; n < kNodes; ++n) parent[n] = n == 0 ? -1 : n == 11 ? 0 : static_cast<std::int32_t>(rng() % n);
  const LanePoses poses(rng, parent,
                        [](std::size_t l, std::size_t n) { return n != 0 && n != 11 && (n != 5 || l % 2 == 0); });
  std::vector<RigSkin> skins(2);
  for (RigSkin& skin : skins) skin.mesh_world = random_affine(rng);
  std::vector<RigDrawn> drawn;
  for (const std::uint32_t node : {3u, 11u, 7u, 0u, 5u}) drawn.push_back({node, InstanceRule::rigid});
  drawn.push_back({2, InstanceRule::static_mesh, 1});
  drawn.push_back({9, InstanceRule::static_mesh, 0});
  std::vector<Affine> placements(kHierarchyLanes);
  for (Affine& m : placements) m = random_affine(rng);
  const Affine unframe = random_affine(rng);
  LanesScratch scratch(kNodes, 0, drawn.size());
  const std::vector<std::uint8_t> keep_none(kNodes, 0);
  for (const AffineKernels* k : kernel_sets()) {
    SCOPED_TRACE(k->name);
    for (const bool static_rows : {true, false})
      for (const Affine* frame : {static_cast<const Affine*>(nullptr), &unframe})
        for (std::size_t lanes = 1; lanes <= kHierarchyLanes; ++lanes) {
          SCOPED_TRACE(::testing::Message()
                       << lanes << " lanes, unframe " << (frame != nullptr) << ", static rows " << static_rows);
          std::vector<std::vector<Affine>> world(lanes, std::vector<Affine>(kNodes));
          Affine held;  // what every row holds before the pass
          for (glm::vec4& row : held.rows) row = glm::vec4(-7.0f);
          std::vector<std::vector<Affine>> got(lanes, std::vector<Affine>(drawn.size(), held));
          InstanceLanes instances{drawn, skins, frame, lanes};
          instances.static_rows = static_rows;
          for (std::size_t l = 0; l < lanes; ++l) {
            instances.placement[l] = &placements[l];
            for (std::size_t d = 0; d < drawn.size(); ++d)
              scratch.instance_rows[kHierarchyLanes * d + l] = &got[l][d].rows[0];
          }
          instances.lanes_world = scratch.world.data();
          instances.in_lanes = scratch.in_lanes.data();
          instances.rest_world = poses.rest.data();
          instances.rows = scratch.instance_rows.data();
          poses.run_lanes(*k, lanes, keep_none.data(), world, scratch);
          ASSERT_EQ(scratch.in_lanes[11], 0u);  // the test covers a node read from rest_world
          k->instance_lanes(instances);
          for (std::size_t l = 0; l < lanes; ++l) {
            const std::vector<Affine> want_world = poses.world_of(*k, l);
            Affine framed = placements[l];
            if (frame != nullptr) k->multiply(placements[l], *frame, framed);
            for (std::size_t d = 0; d < drawn.size(); ++d) {
              Affine want = held;
              if (drawn[d].rule == InstanceRule::rigid)
                k->multiply(framed, want_world[drawn[d].node], want);
              else if (static_rows)
                k->multiply(placements[l], skins[static_cast<std::size_t>(drawn[d].skin)].mesh_world, want);
              for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 4; ++c)
                  ASSERT_EQ(std::bit_cast<std::uint32_t>(got[l][d].rows[r][c]),
                            std::bit_cast<std::uint32_t>(want.rows[r][c]))
                      << "lane " << l << ", drawn " << d << ", row " << r << ", column " << c;
            }
          }
        }
  }
}

// Each kernel set's `sample` of `clip` at `times` against oracle_sample.
void expect_group_sampler_matches_oracle(const SamplerClip& clip, const std::vector<float>& times) {
  const std::vector<test::HandmadeChannel>& channels = clip.channels;
  const Rig& rig = clip.rig;
  const ClipTracks& tracks = clip.tracks;
  EXPECT_EQ(tracks.channels.size(), channels.size());
  for (const AffineKernels* set : kernel_sets()) {
    for (const float seconds : times) {
      const std::vector<KeyPosition> keys = keys_at(tracks, seconds);
      std::vector<glm::vec3> t(12, glm::vec3(-99.0f)), s(12, glm::vec3(-99.0f));
      std::vector<glm::quat> r(12, glm::quat(-99.0f, 0.0f, 0.0f, 0.0f));
      set->sample({tracks.key_rows.data(), tracks.groups.data(), tracks.groups.size(), keys.data(), t.data(), r.data(),
                   s.data(), nullptr});
      for (const test::HandmadeChannel& c : channels) {
        const std::vector<double> want = oracle_sample(c, seconds);
        const std::uint32_t node = rig.rig_node[static_cast<std::size_t>(c.node)];
        const float* got = c.path == "rotation" ? &r[node].x : c.path == "scale" ? &s[node].x : &t[node].x;
        for (std::size_t i = 0; i < want.size(); ++i)
          ASSERT_NEAR(got[i], want[i], 2e-6 * (1.0 + std::abs(want[i])))
              << set->name << " " << c.interpolation << " " << c.path << " of node " << c.node << " at " << seconds
              << " s, component " << i;
      }
    }
  }
}

TEST(KernelsTest, GroupSamplerMatchesDoublePrecisionSampling) {
  const SamplerClip clip = sampler_clip();
  ASSERT_EQ(clip.tracks.timelines.size(), 5u);
  expect_group_sampler_matches_oracle(clip, {-0.5f, 0.0f, 0.3f, 0.5f, 0.77f, 1.2f, 1.9f, 2.5f});
}

// sample_lanes against `sample` run on each pose alone: 1 to 8 poses of `clip`, pose l at
// times[l], bit for bit, in the layout hierarchy_lanes reads; lanes past `lanes` repeat lane 0 and
// nodes no group targets are untouched.
void expect_sample_lanes_equal_each_pose(const SamplerClip& clip, const float (&times)[kSampleLanes]) {
  const std::vector<test::HandmadeChannel>& channels = clip.channels;
  const Rig& rig = clip.rig;
  const ClipTracks& tracks = clip.tracks;
  constexpr float kUntouched = -99.0f;
  for (const AffineKernels* set : kernel_sets()) {
    for (std::size_t lanes = 1; lanes <= kSampleLanes; ++lanes) {
      SCOPED_TRACE(::testing::Message() << set->name << ", " << lanes << " lanes");
      std::vector<std::vector<KeyPosition>> keys(lanes);
      SampleLanes pass{tracks.key_rows.data(), tracks.groups.data(), tracks.groups.size(), lanes};
      std::vector<float> pose(kPoseLaneComponents * kSampleLanes * 12, kUntouched);
      pass.pose = pose.data();
      for (std::size_t l = 0; l < lanes; ++l) {
        keys[l] = keys_at(tracks, times[l]);
        pass.keys[l] = keys[l].data();
      }
      set->sample_lanes(pass);
      std::vector<bool> targeted(12 * kPoseLaneComponents, false);  // per node and component
      for (std::size_t lane = 0; lane < kSampleLanes; ++lane) {
        const std::size_t from = lane < lanes ? lane : 0;
        std::vector<glm::vec3> t(12, glm::vec3(kUntouched)), s(12, glm::vec3(kUntouched));
        std::vector<glm::quat> r(12, glm::quat(kUntouched, kUntouched, kUntouched, kUntouched));
        set->sample({tracks.key_rows.data(), tracks.groups.data(), tracks.groups.size(), keys[from].data(), t.data(),
                     r.data(), s.data(), nullptr});
        for (const test::HandmadeChannel& c : channels) {
          const std::uint32_t node = rig.rig_node[static_cast<std::size_t>(c.node)];
          const std::size_t first = c.path == "translation" ? 0 : c.path == "rotation" ? 3 : 7;
          const float* want = c.path == "rotation" ? &r[node].x : c.path == "scale" ? &s[node].x : &t[node].x;
          for (std::size_t k = 0; k < (c.path == "rotation" ? 4u : 3u); ++k) {
            targeted[node * kPoseLaneComponents + first + k] = true;
            const float got = pose[(node * kPoseLaneComponents + first + k) * kSampleLanes + lane];
            ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want[k]))
                << c.path << " of node " << c.node << ", lane " << lane << ", component " << k;
          }
        }
      }
      for (std::size_t i = 0; i < pose.size(); ++i)
        if (!targeted[i / kSampleLanes]) {
          ASSERT_EQ(pose[i], kUntouched) << "component " << i / kSampleLanes;
        }
    }
  }
}

// The sampler's clip (STEP, LINEAR and CUBICSPLINE over five timelines), each pose at its own time.
TEST(KernelsTest, SampleLanesEqualTheSamplerOfEachPose) {
  expect_sample_lanes_equal_each_pose(sampler_clip(), {1.2f, -0.5f, 0.3f, 0.77f, 2.5f, 0.0f, 1.9f, 0.5f});
}

// Narrow groups, sampled across poses: up to 7 poses none of which is in node 2's far interval
// (its group too across poses), then 8 with lane 7 there (that group pose by pose).
TEST(KernelsTest, NarrowGroupsSampledAcrossPosesEqualTheSamplerOfEachPose) {
  expect_sample_lanes_equal_each_pose(sampler_clip(narrow_channels()),
                                      {0.3f, -0.5f, 0.77f, 2.5f, 0.0f, 1.9f, 0.5f, 1.2f});
}

// Samplers that repeat key times (docs/spec.md §2.7) are a step at the repeated time, with no
// interval of zero length: the scalar sampler (sample_channel) and each kernel set against the
// oracle, whose last key at or before a time is that rule; each set's lanes against its single
// pose; and a cursor walking forward and back finds the keys a search finds.
TEST(KernelsTest, RepeatedKeyTimesAreAStepOnEveryPath) {
  const SamplerClip clip = sampler_clip(test::repeated_time_channels());
  const auto below = [](float x) { return std::nextafter(x, 0.0f); };
  const std::vector<float> times{-0.5f,       0.0f, 0.1f,  0.2f,        0.25f, below(0.3f), 0.3f,        0.35f,
                                 below(0.4f), 0.4f, 0.45f, below(0.5f), 0.5f,  0.55f,       below(0.6f), 0.6f,
                                 0.65f,       0.7f, 0.75f, 0.8f,        1.0f,  1.1f,        1.2f,        2.0f};
  expect_group_sampler_matches_oracle(clip, times);

  nlohmann::json nodes = nlohmann::json::array();
  for (int i = 0; i < 7; ++i) nodes.push_back({{"name", "n" + std::to_string(i)}});
  const Asset asset = load_asset_from_memory(test::handmade_gltf(nodes, {{"clip", clip.channels}}));
  ASSERT_EQ(asset.clips[0].channels.size(), clip.channels.size());
  for (std::size_t i = 0; i < clip.channels.size(); ++i)
    for (const float seconds : times) {
      float got[4] = {-99.0f, -99.0f, -99.0f, -99.0f};
      sample_channel(asset.clips[0], asset.clips[0].channels[i], seconds, got);
      const std::vector<double> want = oracle_sample(clip.channels[i], seconds);
      for (std::size_t c = 0; c < want.size(); ++c)
        ASSERT_NEAR(got[c], want[c], 2e-6 * (1.0 + std::abs(want[c])))
            << "sample_channel of channel " << i << " at " << seconds << " s, component " << c;
    }
  // Node 0 by hand: keys 0 → 1 up to 0.5 s, then keys 2 → 3.
  float at[4] = {};
  sample_channel(asset.clips[0], asset.clips[0].channels[0], 0.5f, at);
  EXPECT_EQ(at[0], 5.0f) << "at the repeated time: key 2";
  sample_channel(asset.clips[0], asset.clips[0].channels[0], 0.75f, at);
  EXPECT_NEAR(at[0], 5.5f, 1e-6f) << "halfway from key 2 to key 3";
  sample_channel(asset.clips[0], asset.clips[0].channels[0], below(0.5f), at);
  EXPECT_NEAR(at[0], 1.0f, 1e-6f) << "just before: key 1";

  expect_sample_lanes_equal_each_pose(clip, {0.5f, 0.3f, 0.6f, below(0.5f), 0.7f, 0.0f, 0.4f, 0.75f});
  expect_sample_lanes_equal_each_pose(clip, {0.3f, below(0.6f), 0.45f, 1.2f, 0.5f, 0.6f, below(0.3f), 0.9f});

  const ClipTracks& tracks = clip.tracks;
  std::vector<float> walk;
  for (int i = 0; i <= 130; ++i) walk.push_back(0.01f * static_cast<float>(i));
  walk.insert(walk.end(), times.begin(), times.end());
  std::sort(walk.begin(), walk.end());
  for (const Timeline& timeline : tracks.timelines) {
    const std::span<const float> keys(tracks.times.data() + timeline.times_offset, timeline.key_count);
    for (const bool forward : {true, false}) {
      std::uint16_t cursor = 0;
      for (std::size_t i = 0; i < walk.size(); ++i) {
        const float seconds = forward ? walk[i] : walk[walk.size() - 1 - i];
        std::uint16_t none = 0xFFFF;
        const KeyPosition hinted = locate_key(keys, seconds, cursor), searched = locate_key(keys, seconds, none);
        ASSERT_EQ(hinted.k, searched.k) << seconds << " s, " << (forward ? "forward" : "backward");
        ASSERT_EQ(hinted.next, searched.next) << seconds << " s";
        ASSERT_EQ(hinted.t, searched.t) << seconds << " s";
        ASSERT_TRUE(hinted.k == hinted.next || hinted.interval > 0.0f) << seconds << " s";
      }
    }
  }
}

// blend_lanes against blend_pair run on each lane's pose alone, bit for bit: random poses with
// b pointing away from a in some lanes (the sign flip), a zero sum in one (the identity), a
// node list that skips nodes (left untouched), and the output written over `a`.
TEST(KernelsTest, BlendLanesEqualTheBlendOfEachPose) {
  constexpr std::size_t kNodes = 5;
  constexpr std::size_t kFloats = kNodes * kPoseLaneComponents * kSampleLanes;
  const std::vector<std::uint32_t> nodes{0, 2, 3};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(kFloats), b(kFloats);
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  const auto at = [](std::size_t node, std::size_t component, std::size_t lane) {
    return (node * kPoseLaneComponents + component) * kSampleLanes + lane;
  };
  BlendLanes pass;
  for (std::size_t l = 0; l < kSampleLanes; ++l) {
    pass.wa[l] = 0.5f + 0.4f * u(rng);
    pass.wb[l] = 1.0f - pass.wa[l];
  }
  for (std::size_t c = 3; c < 7; ++c) {
    b[at(2, c, 1)] = -a[at(2, c, 1)];  // lane 1, node 2: b = -a, the same rotation
    b[at(3, c, 5)] = 0.0f;             // lane 5, node 3: with wa = 0 the sum is zero
  }
  pass.wa[5] = 0.0f;
  pass.nodes = nodes.data();
  pass.count = nodes.size();
  for (const AffineKernels* set : kernel_sets()) {
    for (const bool over_a : {false, true}) {
      SCOPED_TRACE(::testing::Message() << set->name << (over_a ? ", over a" : ""));
      std::vector<float> lanes_a = a, out(kFloats, -99.0f);
      pass.a = lanes_a.data();
      pass.b = b.data();
      pass.out = over_a ? lanes_a.data() : out.data();
      set->blend_lanes(pass);
      const std::vector<float>& got = over_a ? lanes_a : out;
      for (std::size_t l = 0; l < kSampleLanes; ++l) {
        // Lane l's poses as blend_pair takes them.
        const auto pose = [&](const std::vector<float>& lanes, std::vector<glm::vec3>& t, std::vector<glm::quat>& r,
                              std::vector<glm::vec3>& s) {
          for (std::size_t n = 0; n < kNodes; ++n) {
            t[n] = {lanes[at(n, 0, l)], lanes[at(n, 1, l)], lanes[at(n, 2, l)]};
            r[n] = glm::quat(lanes[at(n, 6, l)], lanes[at(n, 3, l)], lanes[at(n, 4, l)], lanes[at(n, 5, l)]);
            s[n] = {lanes[at(n, 7, l)], lanes[at(n, 8, l)], lanes[at(n, 9, l)]};
          }
        };
        std::vector<glm::vec3> ta(kNodes), sa(kNodes), tb(kNodes), sb(kNodes), to(kNodes), so(kNodes);
        std::vector<glm::quat> ra(kNodes), rb(kNodes), ro(kNodes);
        pose(a, ta, ra, sa);
        pose(b, tb, rb, sb);
        blend_pair({ta, ra, sa, {}}, pass.wa[l], {tb, rb, sb, {}}, pass.wb[l], nodes, {to, ro, so, {}});
        for (std::size_t n = 0; n < kNodes; ++n) {
          const bool blended = n == 0 || n == 2 || n == 3;
          const float want[kPoseLaneComponents] = {to[n].x, to[n].y, to[n].z, ro[n].x, ro[n].y,
                                                   ro[n].z, ro[n].w, so[n].x, so[n].y, so[n].z};
          for (std::size_t c = 0; c < kPoseLaneComponents; ++c) {
            const float untouched = over_a ? a[at(n, c, l)] : -99.0f;
            ASSERT_EQ(std::bit_cast<std::uint32_t>(got[at(n, c, l)]),
                      std::bit_cast<std::uint32_t>(blended ? want[c] : untouched))
                << "lane " << l << ", node " << n << ", component " << c;
          }
        }
      }
      EXPECT_EQ(got[at(3, 6, 5)], 1.0f) << "a zero sum blends to the identity";
    }
  }
}

// A crossfade of clip a at keys_a into clip b at keys_b with blend weights w into t, r and s.
SamplePair pair_pass(const ClipTracks& a, const ClipTracks& b, const std::vector<KeyPosition>& keys_a,
                     const std::vector<KeyPosition>& keys_b, const float (&w)[2], std::vector<glm::vec3>& t,
                     std::vector<glm::quat>& r, std::vector<glm::vec3>& s) {
  SamplePair pass;
  pass.key_rows[0] = a.key_rows.data();
  pass.key_rows[1] = b.key_rows.data();
  pass.groups[0] = a.groups.data();
  pass.groups[1] = b.groups.data();
  pass.count = a.groups.size();
  pass.keys[0] = keys_a.data();
  pass.keys[1] = keys_b.data();
  pass.wa = w[0];
  pass.wb = w[1];
  pass.translations = t.data();
  pass.rotations = r.data();
  pass.scales = s.data();
  return pass;
}

// Whether clips a and b have one group layout (CompiledRig::group_layout): group by group the
// same path, lanes and targets.
::testing::AssertionResult one_group_layout(const ClipTracks& a, const ClipTracks& b) {
  if (a.groups.size() != b.groups.size())
    return ::testing::AssertionFailure() << a.groups.size() << " groups against " << b.groups.size();
  for (std::size_t g = 0; g < a.groups.size(); ++g) {
    const ChannelGroup& x = a.groups[g];
    const ChannelGroup& y = b.groups[g];
    if (x.path != y.path || x.lanes != y.lanes || !std::equal(x.targets, x.targets + kGroupLanes, y.targets))
      return ::testing::AssertionFailure() << "group " << g << " differs";
  }
  return ::testing::AssertionSuccess();
}

// Whether differ(a.groups[g], b.groups[g]) for some g (the clips have one group layout).
template <typename Differ>
bool some_group(const ClipTracks& a, const ClipTracks& b, Differ differ) {
  for (std::size_t g = 0; g < a.groups.size(); ++g)
    if (differ(a.groups[g], b.groups[g])) return true;
  return false;
}

// `channels` with one more key each (the last value again, half a second later), so that a clip
// of them has its times and key rows elsewhere, and every value negated: sampled at the same time
// as the original, each rotation points away from the original's (b·a < 0, a crossfade's sign flip).
std::vector<test::HandmadeChannel> negated_and_rekeyed(std::vector<test::HandmadeChannel> channels) {
  for (test::HandmadeChannel& c : channels) {
    const std::size_t per_key = c.values.size() / c.times.size(), last = c.values.size() - per_key;
    c.times.push_back(c.times.back() + 0.5f);
    for (std::size_t i = 0; i < per_key; ++i) c.values.push_back(c.values[last + i]);
    for (float& v : c.values) v = -v;
  }
  return channels;
}

// sample_pair against `sample` run on each clip alone and blend_pair of the two poses, bit for
// bit: the sampler's clip against the same channels re-keyed (one more key each, so that the
// second clip's times and key rows lie elsewhere) with every value negated (b·a < 0 where both
// are sampled at one time: the sign flip), at pairs of times and weights (wa = wb = 0: the
// identity). Only the groups' targets are written.
TEST(KernelsTest, SamplePairEqualsTheBlendOfTwoSamples) {
  const SamplerClip clip = sampler_clip();
  const std::vector<test::HandmadeChannel> rekeyed = negated_and_rekeyed(clip.channels);
  nlohmann::json nodes = nlohmann::json::array();
  for (int i = 0; i < 12; ++i) nodes.push_back({{"name", "n" + std::to_string(i)}});
  const Asset asset = load_asset_from_memory(test::handmade_gltf(nodes, {{"a", clip.channels}, {"b", rekeyed}}));
  const Rig rig = build_rig(asset, {}, {.all_nodes = true, .frame = false});
  const std::vector<ClipTracks> both = build_clip_tracks(asset, rig);
  const ClipTracks& tracks = both[0];
  const ClipTracks& negated = both[1];
  // One group layout, but the groups' rows lie elsewhere.
  ASSERT_TRUE(one_group_layout(tracks, negated));
  ASSERT_TRUE(some_group(tracks, negated, [](const ChannelGroup& x, const ChannelGroup& y) {
    return x.values_offset != y.values_offset;
  }));
  constexpr float kUntouched = -99.0f;
  const float times[][2] = {{0.3f, 0.3f}, {0.77f, 1.9f}, {-0.5f, 2.5f}, {1.2f, 0.5f}};
  const float weights[][2] = {{0.3f, 0.7f}, {1.0f, 0.0f}, {0.0f, 0.0f}, {0.55f, 0.45f}};
  bool flipped = false;  // some rotation of b pointed away from a's
  for (const AffineKernels* set : kernel_sets())
    for (const auto& at : times)
      for (const auto& w : weights) {
        SCOPED_TRACE(::testing::Message()
                     << set->name << ", at " << at[0] << " and " << at[1] << " s, weights " << w[0] << " and " << w[1]);
        const std::vector<KeyPosition> keys_a = keys_at(tracks, at[0]), keys_b = keys_at(negated, at[1]);
        std::vector<glm::vec3> t(12, glm::vec3(kUntouched)), s(12, glm::vec3(kUntouched));
        std::vector<glm::quat> r(12, glm::quat(kUntouched, kUntouched, kUntouched, kUntouched));
        set->sample_pair(pair_pass(tracks, negated, keys_a, keys_b, w, t, r, s));
        // The same from two samples and blend_pair over the nodes they animate.
        std::vector<glm::vec3> ta(12), sa(12), tb(12), sb(12), tw(12), sw(12);
        std::vector<glm::quat> ra(12), rb(12), rw(12);
        set->sample({tracks.key_rows.data(), tracks.groups.data(), tracks.groups.size(), keys_a.data(), ta.data(),
                     ra.data(), sa.data(), nullptr});
        set->sample({negated.key_rows.data(), negated.groups.data(), negated.groups.size(), keys_b.data(), tb.data(),
                     rb.data(), sb.data(), nullptr});
        blend_pair({ta, ra, sa, {}}, w[0], {tb, rb, sb, {}}, w[1], tracks.animated, {tw, rw, sw, {}});
        std::vector<bool> targeted(12 * 3, false);  // per node and path
        for (const test::HandmadeChannel& c : clip.channels) {
          const std::uint32_t node = rig.rig_node[static_cast<std::size_t>(c.node)];
          const int path = c.path == "translation" ? 0 : c.path == "rotation" ? 1 : 2;
          targeted[node * 3 + path] = true;
          const float* got = path == 1 ? &r[node].x : path == 2 ? &s[node].x : &t[node].x;
          const float* want = path == 1 ? &rw[node].x : path == 2 ? &sw[node].x : &tw[node].x;
          for (int k = 0; k < (path == 1 ? 4 : 3); ++k)
            ASSERT_EQ(std::bit_cast<std::uint32_t>(got[k]), std::bit_cast<std::uint32_t>(want[k]))
                << c.path << " of node " << c.node << ", component " << k;
          if (path == 1) flipped |= glm::dot(ra[node], rb[node]) < 0.0f;
        }
        for (std::size_t n = 0; n < 12; ++n) {
          EXPECT_TRUE(targeted[n * 3] || t[n] == glm::vec3(kUntouched)) << "translation of node " << n;
          EXPECT_TRUE(targeted[n * 3 + 1] || r[n].x == kUntouched) << "rotation of node " << n;
          EXPECT_TRUE(targeted[n * 3 + 2] || s[n] == glm::vec3(kUntouched)) << "scale of node " << n;
        }
      }
  EXPECT_TRUE(flipped);
}

// sample_pair's morph weights are not blended: each clip's go to its own array, as `sample`
// writes them, whatever the blend weights. AnimatedMorphCube's one clip animates only weights;
// crossfading into itself at two times gives the two arrays different values, so swapped or
// shared arrays fail, and nothing else of the pose is written.
TEST(KernelsTest, SamplePairWritesEachClipsMorphWeightsApart) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Asset asset = load_asset(test::asset_path("lumagl/AnimatedMorphCube.glb"));
  const Rig rig = build_rig(asset, {}, {.all_nodes = true, .frame = false});
  const std::vector<ClipTracks> clips = build_clip_tracks(asset, rig);
  ASSERT_EQ(clips.size(), 1u);
  const ClipTracks& c = clips[0];
  ASSERT_TRUE(std::any_of(c.groups.begin(), c.groups.end(),
                          [](const ChannelGroup& g) { return g.path == ChannelPath::weights; }));
  const float duration = asset.clips[0].duration_seconds;
  const std::size_t nodes = rig.node_count(), weights = rig.rest_weights.size();
  ASSERT_GT(weights, 0u);
  constexpr float kUntouched = -99.0f;
  const float blend[][2] = {{0.3f, 0.7f}, {1.0f, 0.0f}, {0.0f, 0.0f}};
  bool differ = false;  // the two clips' weights differ somewhere
  for (const AffineKernels* set : kernel_sets())
    for (const auto& w : blend) {
      SCOPED_TRACE(::testing::Message() << set->name << ", blend weights " << w[0] << " and " << w[1]);
      const std::vector<KeyPosition> keys_a = keys_at(c, 0.2f * duration), keys_b = keys_at(c, 0.7f * duration);
      std::vector<glm::vec3> t(nodes, glm::vec3(kUntouched)), s(nodes, glm::vec3(kUntouched));
      std::vector<glm::quat> r(nodes, glm::quat(kUntouched, kUntouched, kUntouched, kUntouched));
      std::vector<float> pair_a(weights, kUntouched), pair_b(weights, kUntouched);
      SamplePair pass = pair_pass(c, c, keys_a, keys_b, w, t, r, s);
      pass.weights[0] = pair_a.data();
      pass.weights[1] = pair_b.data();
      set->sample_pair(pass);
      std::vector<glm::vec3> ts(nodes), ss(nodes);
      std::vector<glm::quat> rs(nodes);
      std::vector<float> alone_a(weights, kUntouched), alone_b(weights, kUntouched);
      set->sample({c.key_rows.data(), c.groups.data(), c.groups.size(), keys_a.data(), ts.data(), rs.data(), ss.data(),
                   alone_a.data()});
      set->sample({c.key_rows.data(), c.groups.data(), c.groups.size(), keys_b.data(), ts.data(), rs.data(), ss.data(),
                   alone_b.data()});
      for (std::size_t i = 0; i < weights; ++i) {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(pair_a[i]), std::bit_cast<std::uint32_t>(alone_a[i])) << "weight " << i;
        EXPECT_EQ(std::bit_cast<std::uint32_t>(pair_b[i]), std::bit_cast<std::uint32_t>(alone_b[i])) << "weight " << i;
        differ |= alone_a[i] != alone_b[i];
      }
      for (std::size_t n = 0; n < nodes; ++n) {
        EXPECT_EQ(t[n], glm::vec3(kUntouched)) << "translation of node " << n;
        EXPECT_EQ(r[n], glm::quat(kUntouched, kUntouched, kUntouched, kUntouched)) << "rotation of node " << n;
        EXPECT_EQ(s[n], glm::vec3(kUntouched)) << "scale of node " << n;
      }
    }
  EXPECT_TRUE(differ);
}

// sample_pair_lanes against sample_lanes of each clip (from the rest pose, as the crowd fills the
// properties no channel writes) and blend_lanes of the two, bit for bit over the whole pose
// array: a clip of `channels` crossfading into its negated, re-keyed copy, whose last channel's
// one-channel group steps instead (one layout, two interpolations), on 14 nodes with rest values
// of their own, 1 to 8 poses, pose l at times[l] in each clip and its own weights (one lane with
// wa = wb = 0: the identity). Lanes past `lanes` repeat lane 0; nodes 12 and 13, which no clip
// animates, are untouched.
void expect_pair_lanes_equal_lanes_then_blend(const std::vector<test::HandmadeChannel>& channels,
                                              const float (&times)[kSampleLanes][2]) {
  std::vector<test::HandmadeChannel> stepped = negated_and_rekeyed(channels);
  stepped.back().interpolation = "STEP";
  nlohmann::json nodes = nlohmann::json::array();
  for (int i = 0; i < 14; ++i) {
    const glm::quat q = glm::normalize(glm::quat(1.0f, 0.1f * static_cast<float>(i), -0.2f, 0.05f));
    const float f = static_cast<float>(i);
    nodes.push_back({{"name", "n" + std::to_string(i)},
                     {"translation", {f, -0.5f * f, 2.0f}},
                     {"rotation", {q.x, q.y, q.z, q.w}},
                     {"scale", {1.0f + 0.1f * f, 2.0f, 0.5f}}});
  }
  const Asset asset = load_asset_from_memory(test::handmade_gltf(nodes, {{"a", channels}, {"b", stepped}}));
  const Rig rig = build_rig(asset, {}, {.all_nodes = true, .frame = false});
  const std::vector<ClipTracks> clips = build_clip_tracks(asset, rig);
  const ClipTracks& a = clips[0];
  const ClipTracks& b = clips[1];
  ASSERT_FALSE(a.rest_translations.empty() || a.rest_rotations.empty() || a.rest_scales.empty());
  // One group layout, with the last channel's group stepping in b only.
  ASSERT_TRUE(one_group_layout(a, b));
  ASSERT_TRUE(some_group(
      a, b, [](const ChannelGroup& x, const ChannelGroup& y) { return x.interpolation != y.interpolation; }));
  ASSERT_EQ(rig.node_count(), 14u);
  for (std::size_t n : {12, 13})
    ASSERT_TRUE(std::find(a.animated.begin(), a.animated.end(), rig.rig_node[n]) == a.animated.end());
  const float weights[kSampleLanes][2] = {{0.3f, 0.7f}, {1.0f, 0.0f}, {0.55f, 0.45f}, {0.0f, 0.0f},
                                          {0.9f, 0.1f}, {0.0f, 1.0f}, {0.25f, 0.5f},  {0.6f, 0.4f}};
  constexpr float kUntouched = -99.0f;
  const std::size_t floats = kPoseLaneComponents * kSampleLanes * rig.node_count();
  for (const AffineKernels* set : kernel_sets())
    for (std::size_t lanes = 1; lanes <= kSampleLanes; ++lanes) {
      SCOPED_TRACE(::testing::Message() << set->name << ", " << lanes << " lanes");
      std::vector<std::vector<KeyPosition>> keys_a(lanes), keys_b(lanes);
      SamplePairLanes pass{&rig, {&a, &b}, lanes};
      for (std::size_t l = 0; l < kSampleLanes; ++l) {
        const std::size_t from = l < lanes ? l : 0;
        pass.wa[l] = weights[from][0];
        pass.wb[l] = weights[from][1];
      }
      for (std::size_t l = 0; l < lanes; ++l) {
        keys_a[l] = keys_at(a, times[l][0]);
        keys_b[l] = keys_at(b, times[l][1]);
        pass.keys[0][l] = keys_a[l].data();
        pass.keys[1][l] = keys_b[l].data();
      }
      std::vector<float> got(floats, kUntouched);
      pass.pose = got.data();
      set->sample_pair_lanes(pass);
      // Each clip sampled across lanes over its rest values, then the two blended.
      const auto sampled = [&](const ClipTracks& clip, const std::vector<std::vector<KeyPosition>>& keys) {
        std::vector<float> pose(floats, kUntouched);
        const auto rest = [&](std::uint32_t node, std::size_t first, const float* value, std::size_t n) {
          for (std::size_t k = 0; k < n; ++k)
            for (std::size_t l = 0; l < kSampleLanes; ++l)
              pose[(node * kPoseLaneComponents + first + k) * kSampleLanes + l] = value[k];
        };
        for (std::uint32_t n : clip.rest_translations) rest(n, 0, &rig.rest_translation[n].x, 3);
        for (std::uint32_t n : clip.rest_rotations) rest(n, 3, &rig.rest_rotation[n].x, 4);
        for (std::uint32_t n : clip.rest_scales) rest(n, 7, &rig.rest_scale[n].x, 3);
        SampleLanes one{clip.key_rows.data(), clip.groups.data(), clip.groups.size(), lanes};
        for (std::size_t l = 0; l < lanes; ++l) one.keys[l] = keys[l].data();
        one.pose = pose.data();
        set->sample_lanes(one);
        return pose;
      };
      std::vector<float> want = sampled(a, keys_a);
      const std::vector<float> second = sampled(b, keys_b);
      BlendLanes blend{want.data(), second.data()};
      std::copy_n(pass.wa, kSampleLanes, blend.wa);
      std::copy_n(pass.wb, kSampleLanes, blend.wb);
      blend.nodes = a.animated.data();
      blend.count = a.animated.size();
      blend.out = want.data();
      set->blend_lanes(blend);
      for (std::size_t i = 0; i < floats; ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
            << "node " << i / (kPoseLaneComponents * kSampleLanes) << ", component "
            << i / kSampleLanes % kPoseLaneComponents << ", lane " << i % kSampleLanes;
    }
}

// The sampler's clip, whose last channel (node 11's translation) is a group of its own.
TEST(KernelsTest, SamplePairLanesEqualSampleLanesThenBlendLanes) {
  ASSERT_EQ(sampler_channels().back().node, 11);
  expect_pair_lanes_equal_lanes_then_blend(sampler_channels(), {{1.2f, 0.3f},
                                                                {-0.5f, 2.5f},
                                                                {0.3f, 0.3f},
                                                                {0.77f, 1.9f},
                                                                {2.5f, 0.0f},
                                                                {0.0f, 1.1f},
                                                                {1.9f, 0.77f},
                                                                {0.5f, -0.2f}});
}

// Narrow groups, sampled across poses in both clips, or pose by pose where either clip has a pose
// in node 2's far interval (a from 8 poses on, b from 5: its copy turns far from 0.9 s to 1.6 s).
TEST(KernelsTest, NarrowGroupsPairedAcrossPosesEqualSampleLanesThenBlendLanes) {
  expect_pair_lanes_equal_lanes_then_blend(narrow_channels(), {{0.3f, 0.3f},
                                                               {-0.5f, 2.5f},
                                                               {0.77f, 1.9f},
                                                               {2.5f, 0.0f},
                                                               {0.0f, 1.1f},
                                                               {1.9f, 0.77f},
                                                               {0.5f, -0.2f},
                                                               {1.2f, 0.5f}});
}

TEST(KernelsTest, TheChosenSetIsTheWidestThisCpuHas) {
  const AffineKernels& chosen = affine_kernels();
  EXPECT_TRUE(&chosen == &portable_affine_kernels() || &chosen == fma_affine_kernels() ||
              &chosen == avx512_affine_kernels())
      << chosen.name;
  if (std::getenv("GLTF_CROWD_SIMD") == nullptr) {
    const AffineKernels* widest = avx512_affine_kernels() != nullptr ? avx512_affine_kernels() : fma_affine_kernels();
    EXPECT_EQ(&chosen, widest != nullptr ? widest : &portable_affine_kernels()) << chosen.name;
  }
}

// Bit for bit, or the first float that differs.
template <class T>
void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  static_assert(sizeof(T) % sizeof(float) == 0);
  ASSERT_EQ(got.size(), want.size()) << what;
  const auto* a = reinterpret_cast<const std::uint32_t*>(got.data());
  const auto* b = reinterpret_cast<const std::uint32_t*>(want.data());
  const std::size_t floats = got.size() * sizeof(T) / sizeof(float);
  const std::size_t differ = static_cast<std::size_t>(std::mismatch(a, a + floats, b).first - a);
  EXPECT_EQ(differ, floats) << what << ": float " << differ << " of " << floats << " differs";
}

// The avx512vl set is the avx2+fma set's code compiled with AVX-512VL's 32 registers: its
// single-pose kernels give that set's bits, and the tests above give each set's lane kernels
// the bits of its own single-pose kernels, so a crowd packs alike on either. Random products,
// palettes and hierarchies, and the sampler's clips sampled and crossfaded at times in and
// outside them.
TEST(KernelsTest, TheAvx512SetGivesTheAvx2SetsBits) {
  const AffineKernels* avx512 = avx512_affine_kernels();
  if (avx512 == nullptr) GTEST_SKIP() << "this CPU has no AVX-512F and VL";
  const AffineKernels* fma = fma_affine_kernels();
  ASSERT_NE(fma, nullptr);
  std::mt19937 rng(43);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  constexpr std::size_t kNodes = 48;
  std::vector<std::int32_t> parent(kNodes);
  std::vector<Affine> rest(kNodes), rest_world(kNodes);
  std::vector<glm::vec3> translations(kNodes), scales(kNodes);
  std::vector<glm::quat> rotations(kNodes);
  std::vector<std::uint32_t> mark(kNodes);
  for (std::size_t n = 0; n < kNodes; ++n) {
    parent[n] = n % 11 == 0 ? -1 : static_cast<std::int32_t>(rng() % n);
    rest[n] = random_affine(rng);
    rest_world[n] = random_affine(rng);
    translations[n] = {u(rng), u(rng), u(rng)};
    rotations[n] = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
    scales[n] = {0.5f + 0.5f * std::abs(u(rng)), 1.0f + 0.2f * u(rng), 0.25f + std::abs(u(rng))};
    mark[n] = n % 3 == 0 ? 1u : 2u;  // animated at stamp 2
  }
  const Affine root = random_affine(rng);
  const auto products = [&](const AffineKernels& k) {
    std::vector<Affine> out(kNodes);
    for (std::size_t n = 0; n + 1 < kNodes; ++n) k.multiply(rest[n], rest_world[n + 1], out[n]);
    return out;
  };
  expect_same_bits(products(*avx512), products(*fma), "multiply");
  const auto worlds = [&](const AffineKernels& k, const Affine* frame) {
    std::vector<Affine> world(kNodes);
    std::vector<std::uint8_t> moved(kNodes);
    k.hierarchy({kNodes, parent.data(), rest.data(), translations.data(), rotations.data(), scales.data(), mark.data(),
                 2, frame, rest_world.data(), moved.data()},
                world.data());
    return world;
  };
  for (const Affine* frame : {static_cast<const Affine*>(nullptr), &root})
    expect_same_bits(worlds(*avx512, frame), worlds(*fma, frame), "hierarchy");
  std::vector<std::uint32_t> joints;
  for (std::uint32_t n = 0; n < kNodes; n += 2) joints.push_back(n);
  std::vector<Affine> inverse_binds(joints.size());
  for (Affine& m : inverse_binds) m = random_affine(rng);
  const auto palette = [&](const AffineKernels& k, const Affine* left) {
    std::vector<glm::vec4> rows(3 * joints.size());
    k.palette(joints, inverse_binds, rest_world, left, rows.data(), false);
    return rows;
  };
  for (const Affine* left : {static_cast<const Affine*>(nullptr), &root})
    expect_same_bits(palette(*avx512, left), palette(*fma, left), "palette");
  for (const SamplerClip& clip : {sampler_clip(), sampler_clip(narrow_channels())}) {
    const ClipTracks& tracks = clip.tracks;
    for (const float seconds : {-0.5f, 0.0f, 0.3f, 0.5f, 0.77f, 1.2f, 1.9f, 2.5f}) {
      SCOPED_TRACE(::testing::Message() << "at " << seconds << " s");
      const std::vector<KeyPosition> keys = keys_at(tracks, seconds), later = keys_at(tracks, 2.5f - seconds);
      const auto sampled = [&](const AffineKernels& k) {
        std::vector<glm::vec3> t(12), s(12);
        std::vector<glm::quat> r(12);
        k.sample({tracks.key_rows.data(), tracks.groups.data(), tracks.groups.size(), keys.data(), t.data(), r.data(),
                  s.data(), nullptr});
        return std::tuple(t, r, s);
      };
      const auto crossfaded = [&](const AffineKernels& k) {
        std::vector<glm::vec3> t(12), s(12);
        std::vector<glm::quat> r(12);
        k.sample_pair(pair_pass(tracks, tracks, keys, later, {0.35f, 0.65f}, t, r, s));
        return std::tuple(t, r, s);
      };
      for (const auto& [got, want] :
           {std::pair(sampled(*avx512), sampled(*fma)), std::pair(crossfaded(*avx512), crossfaded(*fma))}) {
        expect_same_bits(std::get<0>(got), std::get<0>(want), "translations");
        expect_same_bits(std::get<1>(got), std::get<1>(want), "rotations");
        expect_same_bits(std::get<2>(got), std::get<2>(want), "scales");
      }
    }
  }
}

}  // namespace
}  // namespace gltf_crowd
