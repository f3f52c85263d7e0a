// The reference path's CPU deformation (gl/reference_deform.hpp): validity first, then small
// hand-computed cases of glTF 2.0 §3.7.2.2 (morph) and §3.7.3 (skinning) and of the normal rule.
#include "gl/reference_deform.hpp"

#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

namespace gltf_crowd::gl {
namespace {

// One vertex at (1, 0, 0), normal +y, tangent +x (w = 1), bound half to joint 0, half to joint 1,
// with one morph target moving it by (0, 0, 2).
Primitive one_vertex() {
  Primitive p;
  p.positions = {{1, 0, 0}};
  p.normals = {{0, 1, 0}};
  p.tangents = {{1, 0, 0, 1}};
  p.joints0 = {{0, 1, 0, 0}};
  p.weights0 = {{0.5f, 0.5f, 0, 0}};
  p.indices = {0};
  MorphTarget target;
  target.positions = {{0, 0, 2}};
  p.targets = {target};
  return p;
}

void expect_near(const glm::vec3& actual, const glm::vec3& expected) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(actual[i], expected[i], 1e-5f) << "component " << i;
}

TEST(DeformJobValidity, RejectsBrokenInputsAndWritesNothing) {
  const Primitive p = one_vertex();
  const std::vector<glm::vec3> normals = p.normals;
  const std::vector<glm::mat4> joints(2, glm::mat4(1.0f));
  std::vector<DeformedVertex> out(1, DeformedVertex{glm::vec3(7.0f), glm::vec3(7.0f), glm::vec4(7.0f)});
  const DeformJob good{.primitive = &p, .normals = normals, .joint_matrices = joints, .out = out};
  EXPECT_TRUE(good.validate());

  DeformJob job = good;
  job.primitive = nullptr;
  EXPECT_FALSE(job.run());
  job = good;
  job.normals = {};
  EXPECT_FALSE(job.run());
  std::vector<DeformedVertex> two(2);
  job = good;
  job.out = two;
  EXPECT_FALSE(job.run());
  const std::vector<glm::mat4> one_joint(1, glm::mat4(1.0f));  // joint 1 is out of range
  job = good;
  job.joint_matrices = one_joint;
  EXPECT_FALSE(job.run());
  EXPECT_EQ(out[0].position, glm::vec3(7.0f));  // nothing written by the rejected runs
}

// Morph first, then skin: (1, 0, 0) + 1·(0, 0, 2) = (1, 0, 2); joint 0 translates by (0, 4, 0),
// joint 1 by (0, 0, 0), each weighted ½: the vertex lands at (1, 2, 2). The rotation-free blend
// keeps the normal and tangent.
TEST(DeformJob, MorphsThenSkinsWithWeightedJointMatrices) {
  const Primitive p = one_vertex();
  const std::vector<glm::vec3> normals = p.normals;
  const std::vector<float> weights = {1.0f};
  const std::vector<glm::mat4> joints = {glm::translate(glm::mat4(1.0f), glm::vec3(0, 4, 0)), glm::mat4(1.0f)};
  std::vector<DeformedVertex> out(1);
  ASSERT_TRUE(
      (DeformJob{.primitive = &p, .normals = normals, .weights = weights, .joint_matrices = joints, .out = out}.run()));
  expect_near(out[0].position, {1, 2, 2});
  expect_near(out[0].normal, {0, 1, 0});
  expect_near(glm::vec3(out[0].tangent), {1, 0, 0});
  EXPECT_EQ(out[0].tangent.w, 1.0f);
}

// Rigid, with a non-uniform scale: a normal (1, 1, 0)/√2 under scale (2, 1, 1) becomes
// (½, 1, 0) normalized (the inverse transpose), not (2, 1, 0).
TEST(DeformJob, NormalsUseTheInverseTransposeUnderNonUniformScale) {
  Primitive p = one_vertex();
  p.joints0.clear();
  p.weights0.clear();
  const std::vector<glm::vec3> normals = {glm::normalize(glm::vec3(1, 1, 0))};
  std::vector<DeformedVertex> out(1);
  ASSERT_TRUE((DeformJob{
      .primitive = &p, .normals = normals, .world = glm::scale(glm::mat4(1.0f), glm::vec3(2, 1, 1)), .out = out}
                   .run()));
  expect_near(out[0].position, {2, 0, 0});  // no weights given: the morph target counts 0
  expect_near(out[0].normal, glm::normalize(glm::vec3(0.5f, 1, 0)));
}

// A mirroring transform (det < 0) keeps normals pointing outward and flips the tangent's
// handedness, so the bitangent cross(n, t)·w still follows the mirrored surface.
TEST(DeformJob, MirroringFlipsTheTangentHandedness) {
  Primitive p = one_vertex();
  p.joints0.clear();
  p.weights0.clear();
  const std::vector<glm::vec3> normals = p.normals;
  std::vector<DeformedVertex> out(1);
  ASSERT_TRUE((DeformJob{
      .primitive = &p, .normals = normals, .world = glm::scale(glm::mat4(1.0f), glm::vec3(-1, 1, 1)), .out = out}
                   .run()));
  expect_near(out[0].position, {-1, 0, 0});
  expect_near(out[0].normal, {0, 1, 0});
  expect_near(glm::vec3(out[0].tangent), {-1, 0, 0});
  EXPECT_EQ(out[0].tangent.w, -1.0f);
}

}  // namespace
}  // namespace gltf_crowd::gl
