// The affine kernels (src/anim/kernels.hpp) against glm's 4×4 products: the portable SSE2 set
// and, on CPUs with AVX2 and FMA, the fused set.
#include <cmath>
#include <random>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <gtest/gtest.h>

#include "anim/kernels.hpp"

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
    std::vector<Affine> rows(joints.size());
    k->palette(joints, inverse_binds, world, &left, reinterpret_cast<glm::vec4*>(rows.data()));
    for (std::size_t j = 0; j < joints.size(); ++j)
      expect_near(rows[j], to_mat4(left) * want[joints[j]] * to_mat4(inverse_binds[j]), "palette");
    k->palette(joints, inverse_binds, world, nullptr, reinterpret_cast<glm::vec4*>(rows.data()));
    for (std::size_t j = 0; j < joints.size(); ++j)
      expect_near(rows[j], want[joints[j]] * to_mat4(inverse_binds[j]), "palette without left");
    Affine product;
    k->multiply(rest[0], rest[1], product);
    expect_near(product, to_mat4(rest[0]) * to_mat4(rest[1]), "multiply");
  }
}

TEST(KernelsTest, TheChosenSetIsOneOfTheTwo) {
  const AffineKernels& chosen = affine_kernels();
  EXPECT_TRUE(&chosen == &portable_affine_kernels() || &chosen == fma_affine_kernels()) << chosen.name;
}

}  // namespace
}  // namespace gltf_crowd
