// Rest and animated bounds (include/gltf_crowd/bounds.hpp) of tiny documents built here, against
// boxes worked out by hand from glTF 2.0: node transforms (§3.5), morph targets (§3.7.2.2),
// skinning with the mesh node's transform ignored (§3.7.3) and LINEAR interpolation (Appendix C).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/bounds.hpp"
#include "test_documents.hpp"

namespace gltf_crowd {
namespace {

void expect_box(const Bounds& b, glm::vec3 min, glm::vec3 max, float tolerance = 1e-5f) {
  ASSERT_FALSE(b.empty());
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(b.min[a], min[a], tolerance) << "min axis " << a;
    EXPECT_NEAR(b.max[a], max[a], tolerance) << "max axis " << a;
  }
}

Asset load(const test::Document& d) {
  const std::vector<std::uint8_t> bytes = d.gltf();
  return load_asset_from_memory(bytes);
}

// Appends a LINEAR sampler and a channel targeting `node`'s `path` to animation `animation`.
void add_channel(test::Document& d, std::size_t animation, int node, const char* path, const std::vector<float>& times,
                 const std::vector<float>& values, const char* type, std::size_t components) {
  const int input = d.add_accessor(d.add_view(times), 5126, times.size(), "SCALAR",
                                   {{"min", {times.front()}}, {"max", {times.back()}}});
  const int output = d.add_accessor(d.add_view(values), 5126, values.size() / components, type);
  nlohmann::json& a = d.json["animations"][animation];
  a["channels"].push_back({{"sampler", a["samplers"].size()}, {"target", {{"node", node}, {"path", path}}}});
  a["samplers"].push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
}

// The cube [-0.5, 0.5]³ as mesh 0 (8 corners, 12 triangles).
void add_cube_mesh(test::Document& d) {
  std::vector<float> corners;
  for (int c = 0; c < 8; ++c)
    for (int a = 0; a < 3; ++a) corners.push_back((c >> a) & 1 ? 0.5f : -0.5f);
  const int position =
      d.add_accessor(d.add_view(corners), 5126, 8, "VEC3", {{"min", {-0.5, -0.5, -0.5}}, {"max", {0.5, 0.5, 0.5}}});
  const std::vector<std::uint16_t> indices = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                              2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
  const int index = d.add_accessor(d.add_view(indices), 5123, indices.size(), "SCALAR");
  d.json["meshes"] = {{{"primitives", {{{"attributes", {{"POSITION", position}}}, {"indices", index}}}}}};
}

// Node 0 "Parent" scales by 2; its child node 1 "Box" draws the cube at rest translation
// (0, 0, -1). Node 2 draws the cube too but is hidden (KHR_node_visibility), 100 m away.
// Clip 0 "Move": Box translation (0,0,0) → (1,0,0) → (1,1.5,0) at 0, 1, 2 s.
// Clip 1 "Spin": Box rotation 0° → 90° about +y over 1 s.
test::Document moving_box() {
  test::Document d;
  add_cube_mesh(d);
  d.json["extensionsUsed"] = {"KHR_node_visibility"};
  d.json["nodes"] = {{{"name", "Parent"}, {"scale", {2, 2, 2}}, {"children", {1}}},
                     {{"name", "Box"}, {"mesh", 0}, {"translation", {0, 0, -1}}},
                     {{"name", "Hidden"},
                      {"mesh", 0},
                      {"translation", {100, 0, 0}},
                      {"extensions", {{"KHR_node_visibility", {{"visible", false}}}}}}};
  d.json["scene"] = 0;
  d.json["scenes"] = {{{"nodes", {0, 2}}}};
  d.json["animations"] = {
      {{"name", "Move"}, {"samplers", nlohmann::json::array()}, {"channels", nlohmann::json::array()}},
      {{"name", "Spin"}, {"samplers", nlohmann::json::array()}, {"channels", nlohmann::json::array()}}};
  add_channel(d, 0, 1, "translation", {0, 1, 2}, {0, 0, 0, 1, 0, 0, 1, 1.5f, 0}, "VEC3", 3);
  const float h = std::sqrt(0.5f);
  add_channel(d, 1, 1, "rotation", {0, 1}, {0, 0, 0, 1, 0, h, 0, h}, "VEC4", 4);
  return d;
}

TEST(Bounds, RigidBoxAtRestIsTheCubeThroughItsNodeTransforms) {
  const Asset asset = load(moving_box());
  // world = scale 2 · translate(0, 0, -1): the cube spans [-1, 1] × [-1, 1] × [-3, -1]; the
  // hidden copy at x = 100 is not drawn.
  expect_box(rest_bounds(asset), {-1, -1, -3}, {1, 1, -1});
}

TEST(Bounds, TranslatedBoxIsTheUnionOfTheCubeAtItsKeyTranslations) {
  const Asset asset = load(moving_box());
  // LINEAR translation stays on the segments between the keys, inside the box of the keys:
  // t ∈ [0, 1] × [0, 1.5] × {0}; the cube adds ±0.5 and the parent doubles it. The clip
  // overrides the rest translation, so z = -1 is not part of it.
  expect_box(animated_bounds(asset, 0), {-1, -1, -1}, {3, 4, 1});
}

TEST(Bounds, SpinningBoxIsSampledBetweenKeys) {
  const Asset asset = load(moving_box());
  // About +y, the cube's x and z half-extents are 0.5 (|cos θ| + |sin θ|), largest at θ = 45°
  // (t = 0.5 s, on the 30 Hz grid though not a key): 0.5 √2, doubled by the parent; centred
  // on (0, 0, -2).
  const float r = std::sqrt(2.0f);
  expect_box(animated_bounds(asset, 1), {-r, -1, -2 - r}, {r, 1, -2 + r});
  // Over all clips: the union of both.
  expect_box(animated_bounds(asset), {-r, -1, -2 - r}, {3, 4, 1});
}

TEST(Bounds, UnknownClipIndexIsAnErrorNamingIt) {
  const Asset asset = load(moving_box());
  try {
    (void)animated_bounds(asset, 2);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "animated_bounds.clip");
    EXPECT_EQ(e.rule(), "unknown_clip");
    EXPECT_NE(std::string(e.what()).find("2"), std::string::npos) << e.what();
  }
}

// Two joints: node 0 "Joint0" at the origin and its child node 1 "Joint1" at (0, 1, 0), with
// inverse bind matrices identity and translate(0, -1, 0). Node 2 "Mesh" (translation (5, 0, 0),
// which skinning ignores) draws four points:
//   v0 (0, 0, 0.25) on Joint0; v1 (0, 2, 0) and v3 (0.5, 2, 0) on Joint1; v2 (1, 1, 0) half each.
// Clip "Bend" rotates Joint1 LINEAR from 0° to 90° about +z over 1 s.
test::Document bending_skin() {
  test::Document d;
  const int position = d.add_accessor(d.add_view(std::vector<float>{0, 0, 0.25f, 0, 2, 0, 1, 1, 0, 0.5f, 2, 0}), 5126,
                                      4, "VEC3", {{"min", {0, 0, 0}}, {"max", {1, 2, 0.25}}});
  const int joints = d.add_accessor(
      d.add_view(std::vector<std::uint8_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0}), 5121, 4, "VEC4");
  const int weights = d.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0}, 4, "VEC4");
  std::vector<float> ibms = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                             1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
  const int ibm = d.add_floats(ibms, 16, "MAT4");
  d.json["meshes"] = {
      {{"primitives",
        {{{"attributes", {{"POSITION", position}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}}, {"mode", 0}}}}}};
  d.json["nodes"] = {{{"name", "Joint0"}, {"children", {1}}},
                     {{"name", "Joint1"}, {"translation", {0, 1, 0}}},
                     {{"name", "Mesh"}, {"mesh", 0}, {"skin", 0}, {"translation", {5, 0, 0}}}};
  d.json["skins"] = {{{"joints", {0, 1}}, {"inverseBindMatrices", ibm}}};
  d.json["scene"] = 0;
  d.json["scenes"] = {{{"nodes", {0, 2}}}};
  d.json["animations"] = {
      {{"name", "Bend"}, {"samplers", nlohmann::json::array()}, {"channels", nlohmann::json::array()}}};
  const float h = std::sqrt(0.5f);
  add_channel(d, 0, 1, "rotation", {0, 1}, {0, 0, 0, 1, 0, 0, h, h}, "VEC4", 4);
  return d;
}

TEST(Bounds, SkinnedRestPoseIsTheBindPose) {
  const Asset asset = load(bending_skin());
  // At rest world(joint) · IBM is the identity for both joints, and the mesh node's own
  // translation (5, 0, 0) does not apply: the points themselves.
  expect_box(rest_bounds(asset), {0, 0, 0}, {1, 2, 0.25f});
}

TEST(Bounds, SkinnedJointRotatingNinetyDegrees) {
  const Asset asset = load(bending_skin());
  // Joint1's skin matrix at angle θ is translate(0,1,0) · Rz(θ) · translate(0,-1,0), so a point
  // (x, 1 + y) on it moves to (x cos θ − y sin θ, 1 + x sin θ + y cos θ):
  //   v0 stays (0, 0, 0.25); v1 goes (0, 2) → (-1, 1); v2 = ½ (1, 1) + ½ (cos θ, 1 + sin θ)
  //   goes (1, 1) → (0.5, 1.5); v3 = (0.5 cos θ − sin θ, 1 + 0.5 sin θ + cos θ) reaches its
  //   highest y = 1 + √1.25 at tan θ = 0.5 (θ ≈ 26.6°, between the keys) and x = -1 at 90°.
  const Bounds b = animated_bounds(asset, 0);
  const float top = 1.0f + std::sqrt(1.25f);
  // The 30 Hz grid samples every 3°, so the sampled top is within √1.25 (1 − cos 1.5°) of the
  // true one, and never above it; the keys alone would give 2.
  EXPECT_NEAR(b.max.y, top, 5e-4f);
  EXPECT_LE(b.max.y, top + 1e-6f);
  expect_box(b, {-1, 0, 0}, {1, b.max.y, 0.25f});
}

// Node 0 (translation (1, 0, 0)) draws the triangle (0,0,0), (1,0,0), (0,1,0) with two morph
// targets: target 0 moves v1 by (1, 0, 0); target 1 moves v0 by (0, -1, 0) and v2 by (0, 0, 2).
// Mesh weights [0.5, 0]; clip "Morph" animates the weights LINEAR [0,0] → [1,0] → [0,1].
test::Document morphing_triangle() {
  test::Document d;
  const int position = d.add_accessor(d.add_view(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}), 5126, 3, "VEC3",
                                      {{"min", {0, 0, 0}}, {"max", {1, 1, 0}}});
  const int t0 = d.add_accessor(d.add_view(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 0, 0}), 5126, 3, "VEC3",
                                {{"min", {0, 0, 0}}, {"max", {1, 0, 0}}});
  const int t1 = d.add_accessor(d.add_view(std::vector<float>{0, -1, 0, 0, 0, 0, 0, 0, 2}), 5126, 3, "VEC3",
                                {{"min", {0, -1, 0}}, {"max", {0, 0, 2}}});
  d.json["meshes"] = {
      {{"primitives",
        {{{"attributes", {{"POSITION", position}}}, {"targets", {{{"POSITION", t0}}, {{"POSITION", t1}}}}}}},
       {"weights", {0.5, 0}}}};
  d.json["nodes"] = {{{"name", "Triangle"}, {"mesh", 0}, {"translation", {1, 0, 0}}}};
  d.json["scene"] = 0;
  d.json["scenes"] = {{{"nodes", {0}}}};
  d.json["animations"] = {
      {{"name", "Morph"}, {"samplers", nlohmann::json::array()}, {"channels", nlohmann::json::array()}}};
  add_channel(d, 0, 0, "weights", {0, 1, 2}, {0, 0, 1, 0, 0, 1}, "SCALAR", 1);
  return d;
}

TEST(Bounds, MorphTargetsAtDefaultWeightsAndOverAClip) {
  const Asset asset = load(morphing_triangle());
  // Rest: weight 0.5 on target 0 puts v1 at (1.5, 0, 0); then the node moves everything by +1 x.
  expect_box(rest_bounds(asset), {1, 0, 0}, {2.5f, 1, 0});
  // Weights are linear between keys, so are positions: the extremes are at the keys, [0,0]
  // (the base triangle), [1,0] (v1 at (2, 0, 0)) and [0,1] (v0 at (0, -1, 0), v2 at (0, 1, 2)).
  // The clip overrides the default weights: x = 2.5 is not reached.
  expect_box(animated_bounds(asset, 0), {1, -1, 0}, {3, 1, 2});
}

TEST(Bounds, WithoutClipsAnimatedIsRestAndWithoutMeshesEmpty) {
  test::Document d = morphing_triangle();
  d.json.erase("animations");
  const Asset still = load(d);
  expect_box(animated_bounds(still), {1, 0, 0}, {2.5f, 1, 0});
  d.json["nodes"][0].erase("mesh");
  const Asset nothing = load(d);
  EXPECT_TRUE(rest_bounds(nothing).empty());
  EXPECT_TRUE(animated_bounds(nothing).empty());
}

TEST(Bounds, SampleTimesHoldEveryKeyAndAThirtyHertzGrid) {
  Clip clip;
  clip.duration_seconds = 1.0f;
  clip.times = {0.0f, 0.01f, 1.0f};
  const std::vector<float> times = bounds_sample_times(clip);
  ASSERT_FALSE(times.empty());
  EXPECT_EQ(times.front(), 0.0f);
  EXPECT_EQ(times.back(), 1.0f);
  EXPECT_NE(std::find(times.begin(), times.end(), 0.01f), times.end());
  for (std::size_t i = 1; i < times.size(); ++i) {
    EXPECT_GT(times[i], times[i - 1]);
    EXPECT_LE(times[i] - times[i - 1], 1.0f / 30.0f + 1e-6f);
  }
  EXPECT_EQ(times.size(), 31u + 1u);  // the grid 0, 1/30, ..., 1 plus the key 0.01
}

TEST(Bounds, SampleTimesOfAClipWithVeryManyKeysAreCapped) {
  Clip clip;
  for (int k = 0; k <= 5000; ++k) clip.times.push_back(static_cast<float>(k) * 0.002f);
  clip.duration_seconds = clip.times.back();
  const std::vector<float> times = bounds_sample_times(clip);
  EXPECT_EQ(times.size(), 2048u);
  EXPECT_EQ(times.front(), 0.0f);
  EXPECT_EQ(times.back(), clip.times.back());
  for (std::size_t i = 1; i < times.size(); ++i) EXPECT_GT(times[i], times[i - 1]);
}

}  // namespace
}  // namespace gltf_crowd
