// Sampling against glTF 2.0 Appendix C, with expected values computed here from the raw
// accessor data of Khronos' InterpolationTest (read with tinygltf, not with our loader).
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/pose.hpp"
#include "gltf_crowd/sampling.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

// Tightly packed float accessor → values (InterpolationTest uses no stride or sparse data).
std::vector<float> raw_floats(const tinygltf::Model& m, int index) {
  const auto& a = m.accessors[static_cast<std::size_t>(index)];
  const auto& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  const std::size_t comps = a.type == TINYGLTF_TYPE_SCALAR ? 1 : a.type == TINYGLTF_TYPE_VEC3 ? 3 : 4;
  std::vector<float> out(a.count * comps);
  std::memcpy(out.data(), m.buffers[static_cast<std::size_t>(v.buffer)].data.data() + v.byteOffset + a.byteOffset,
              out.size() * 4);
  return out;
}

// Appendix C, written out independently of src/anim/sampling.cpp.
std::vector<float> expected_value(const std::string& interpolation, bool rotation, const std::vector<float>& times,
                                  const std::vector<float>& values, std::size_t n, float t) {
  const std::size_t keys = times.size();
  const bool cubic = interpolation == "CUBICSPLINE";
  auto value = [&](std::size_t k) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = values[(cubic ? 3 * k + 1 : k) * n + i];
    return v;
  };
  if (t <= times.front()) return value(0);
  if (t >= times.back()) return value(keys - 1);
  std::size_t k = 0;
  while (!(times[k] <= t && t < times[k + 1])) ++k;
  const float td = times[k + 1] - times[k];
  const float u = (t - times[k]) / td;
  std::vector<float> out(n);
  if (interpolation == "STEP") return value(k);
  if (!cubic) {
    const auto a = value(k), b0 = value(k + 1);
    if (!rotation) {
      for (std::size_t i = 0; i < n; ++i) out[i] = (1 - u) * a[i] + u * b0[i];
      return out;
    }
    double d = 0;
    auto b = b0;
    for (std::size_t i = 0; i < 4; ++i) d += a[i] * b[i];
    if (d < 0) {
      for (auto& x : b) x = -x;
      d = -d;
    }
    const double theta = std::acos(std::min(d, 1.0));
    const double s = std::sin(theta);
    for (std::size_t i = 0; i < 4; ++i)
      out[i] = s < 1e-6 ? static_cast<float>((1 - u) * a[i] + u * b[i])
                        : static_cast<float>((std::sin((1 - u) * theta) * a[i] + std::sin(u * theta) * b[i]) / s);
    return out;
  }
  // p(u) = (2u³−3u²+1)v_k + td(u³−2u²+u)b_k + (−2u³+3u²)v_k+1 + td(u³−u²)a_k+1
  for (std::size_t i = 0; i < n; ++i) {
    const float vk = values[(3 * k + 1) * n + i], bk = values[(3 * k + 2) * n + i];
    const float vk1 = values[(3 * (k + 1) + 1) * n + i], ak1 = values[(3 * (k + 1)) * n + i];
    out[i] = (2 * u * u * u - 3 * u * u + 1) * vk + td * (u * u * u - 2 * u * u + u) * bk +
             (-2 * u * u * u + 3 * u * u) * vk1 + td * (u * u * u - u * u) * ak1;
  }
  if (rotation) {
    float len = 0;
    for (float x : out) len += x * x;
    for (float& x : out) x /= std::sqrt(len);
  }
  return out;
}

TEST(InterpolationTest, MatchesAppendixCAtTwentyTimes) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto path = test::asset_path("khronos/InterpolationTest.glb");
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&model, &err, &warn, path.string())) << err;
  const Asset asset = load_asset(path);
  ASSERT_EQ(asset.clips.size(), 9u);
  for (std::size_t a = 0; a < model.animations.size(); ++a) {
    const auto& anim = model.animations[a];
    const auto& sampler = anim.samplers[0];
    const auto& target = anim.channels[0].target_path;
    const int node = anim.channels[0].target_node;
    const bool rotation = target == "rotation";
    const std::size_t n = rotation ? 4 : 3;
    const auto times = raw_floats(model, sampler.input);
    const auto values = raw_floats(model, sampler.output);
    const Clip& clip = asset.clips[a];
    EXPECT_EQ(clip.name, anim.name);
    Pose pose(asset);
    for (int step = 0; step < 20; ++step) {
      const float t =
          -0.1f + static_cast<float>(step) * (clip.duration_seconds + 0.2f) / 19.0f;  // before, inside, after the keys
      write_rest_pose(asset, pose.view());
      sample_clip(asset, clip, t, pose.view());
      const auto want = expected_value(sampler.interpolation, rotation, times, values, n, t);
      std::vector<float> got;
      if (rotation) {
        const glm::quat q = pose.rotations[static_cast<std::size_t>(node)];
        got = {q.x, q.y, q.z, q.w};
        EXPECT_NEAR(glm::length(q), 1.0f, 1e-5f);
      } else {
        const glm::vec3 v = target == "scale" ? pose.scales[static_cast<std::size_t>(node)]
                                              : pose.translations[static_cast<std::size_t>(node)];
        got = {v.x, v.y, v.z};
      }
      for (std::size_t i = 0; i < n; ++i)
        EXPECT_NEAR(got[i], want[i], 1e-4f) << anim.name << " t=" << t << " component " << i;
    }
  }
}

}  // namespace
}  // namespace gltf_crowd
