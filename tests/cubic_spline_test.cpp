// CUBICSPLINE tangents are scaled by the key interval (glTF 2.0 Appendix C):
//   p(u) = (2u³−3u²+1)·v_k + t_d·(u³−2u²+u)·b_k + (−2u³+3u²)·v_k+1 + t_d·(u³−u²)·a_k+1
// Khronos' InterpolationTest has all tangents zero, so it cannot see a missing t_d; these keys
// have non-zero tangents and intervals of 2 s and 0.5 s, and the expected values are worked out
// by hand below.
#include <cmath>

#include <gtest/gtest.h>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/pose.hpp"
#include "gltf_crowd/sampling.hpp"
#include "handmade_gltf.hpp"

namespace gltf_crowd {
namespace {

Asset translation_asset() {
  test::HandmadeChannel c;
  c.path = "translation";
  c.interpolation = "CUBICSPLINE";
  c.times = {1.0f, 3.0f, 3.5f};
  c.values = {
      9, 9, 9, 0, 0, 0, 1, 0, 0,  // key 0: in-tangent (unused), v0, b0
      0, 2, 0, 1, 1, 0, 0, 0, 4,  // key 1: a1, v1, b1
      2, 0, 0, 0, 0, 1, 9, 9, 9,  // key 2: a2, v2, out-tangent (unused)
  };
  return load_asset_from_memory(test::handmade_gltf(nlohmann::json::array({{{"name", "n"}}}), {{"move", {c}}}));
}

glm::vec3 translation_at(const Asset& asset, float t) {
  Pose pose(asset);
  write_rest_pose(asset, pose.view());
  sample_clip(asset, asset.clips[0], t, pose.view());
  return pose.translations[0];
}

TEST(CubicSplineTest, TangentsAreScaledByTheKeyInterval) {
  const Asset asset = translation_asset();
  struct Case {
    float t;
    glm::vec3 want;
    const char* why;
  };
  const Case cases[] = {
      // u = 0.5, t_d = 2: h = (0.5, 0.125, 0.5, −0.125):
      // 0.5·v0 + 2·0.125·b0 + 0.5·v1 − 2·0.125·a1 = (0.25,0,0) + (0.5,0.5,0) − (0,0.5,0)
      // (without the interval scaling it would be (0.625, 0.25, 0))
      {2.0f, {0.75f, 0.0f, 0.0f}, "middle of a 2 s interval"},
      // u = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = −0.046875:
      // x = 2·0.140625 + 0.15625 = 0.4375, y = 0.15625 − 2·0.046875·2 = −0.03125
      {1.5f, {0.4375f, -0.03125f, 0.0f}, "quarter of a 2 s interval"},
      // u = 0.5, t_d = 0.5: 0.5·v1 + 0.5·0.125·b1 + 0.5·v2 − 0.5·0.125·a2
      //   = (0.5,0.5,0) + (0,0,0.25) + (0,0,0.5) − (0.125,0,0)
      {3.25f, {0.375f, 0.5f, 0.75f}, "middle of a 0.5 s interval"},
      {0.5f, {0.0f, 0.0f, 0.0f}, "before the first key: v0"},
      {1.0f, {0.0f, 0.0f, 0.0f}, "at key 0: v0"},
      {3.0f, {1.0f, 1.0f, 0.0f}, "at key 1: v1"},
      {9.0f, {0.0f, 0.0f, 1.0f}, "after the last key: v2"},
  };
  for (const Case& c : cases) {
    const glm::vec3 got = translation_at(asset, c.t);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], c.want[i], 1e-6f) << c.why << ", component " << i;
  }
}

TEST(CubicSplineTest, RotationsAreNormalizedAfterTheSpline) {
  const float h = std::sqrt(0.5f);
  test::HandmadeChannel c;
  c.path = "rotation";
  c.interpolation = "CUBICSPLINE";
  c.times = {0.0f, 0.5f};
  c.values = {
      0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0,  // key 0: a0, v0 = identity, b0 = (0, 1, 0, 0)
      0, 0, 0, 0, 0, h, 0, h, 0, 0, 0, 0,  // key 1: a1 = 0, v1 = 90° about y, b1
  };
  const Asset asset =
      load_asset_from_memory(test::handmade_gltf(nlohmann::json::array({{{"name", "n"}}}), {{"turn", {c}}}));
  for (const float u : {0.1f, 0.5f, 0.9f}) {
    const float td = 0.5f;
    const float h00 = 2 * u * u * u - 3 * u * u + 1, h10 = u * u * u - 2 * u * u + u, h01 = -2 * u * u * u + 3 * u * u;
    // Only y and w are non-zero: y = h01·h + t_d·h10·1, w = h00·1 + h01·h.
    const float y = h01 * h + td * h10, w = h00 + h01 * h;
    const float len = std::sqrt(y * y + w * w);
    Pose pose(asset);
    write_rest_pose(asset, pose.view());
    sample_clip(asset, asset.clips[0], u * td, pose.view());
    const glm::quat q = pose.rotations[0];
    EXPECT_NEAR(glm::length(q), 1.0f, 1e-6f);
    EXPECT_NEAR(q.x, 0.0f, 1e-6f);
    EXPECT_NEAR(q.y, y / len, 1e-6f) << "u=" << u;
    EXPECT_NEAR(q.z, 0.0f, 1e-6f);
    EXPECT_NEAR(q.w, w / len, 1e-6f) << "u=" << u;
  }
}

}  // namespace
}  // namespace gltf_crowd
