// Tests of the built-in character (docs/spec.md §9): the GLB parses back with tinygltf and holds what
// the spec promises (skin, primitives, morph targets, clips) with sound skinning data.
#include "gltf_crowd/default_character.hpp"

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd {
namespace {

// Bounds-checked element of a glTF array by glTF index.
template <typename T>
const T& get(const std::vector<T>& v, int index) {
  return v.at(static_cast<std::size_t>(index));
}

tinygltf::Model parse(const std::vector<std::uint8_t>& glb) {
  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  const bool ok = loader.LoadBinaryFromMemory(&model, &err, &warn, glb.data(), static_cast<unsigned int>(glb.size()));
  EXPECT_TRUE(ok) << err;
  EXPECT_TRUE(err.empty()) << err;
  return model;
}

// Element i of an accessor, one double per component (the generator writes no normalized
// integers, so none are converted).
std::vector<double> element(const tinygltf::Model& m, int accessor, std::size_t i) {
  const tinygltf::Accessor& a = get(m.accessors, accessor);
  const tinygltf::BufferView& v = get(m.bufferViews, a.bufferView);
  const int components = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(a.type));
  const int size = tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(a.componentType));
  const auto stride = static_cast<std::size_t>(a.ByteStride(v));
  const unsigned char* p = get(m.buffers, v.buffer).data.data() + v.byteOffset + a.byteOffset;
  p += i * stride;
  std::vector<double> out;
  for (int c = 0; c < components; ++c, p += size) {
    std::uint32_t u = 0;
    float f = 0.0f;
    switch (a.componentType) {
      case TINYGLTF_COMPONENT_TYPE_FLOAT:
        std::memcpy(&f, p, 4);
        out.push_back(f);
        break;
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
        std::memcpy(&u, p, static_cast<std::size_t>(size));  // little-endian host
        out.push_back(u);
        break;
      default: ADD_FAILURE() << "unexpected component type " << a.componentType;
    }
  }
  return out;
}

glm::vec3 vec3_at(const tinygltf::Model& m, int accessor, std::size_t i) {
  const auto e = element(m, accessor, i);
  return {e[0], e[1], e[2]};
}

glm::mat4 local_matrix(const tinygltf::Node& n) {
  glm::mat4 t(1.0f);
  const auto& tr = n.translation;
  const auto& r = n.rotation;
  if (tr.size() == 3) t = glm::translate(t, glm::vec3(tr[0], tr[1], tr[2]));
  if (r.size() == 4) t *= glm::mat4_cast(glm::quat(static_cast<float>(r[3]), glm::vec3(r[0], r[1], r[2])));
  if (n.scale.size() == 3) t = glm::scale(t, glm::vec3(n.scale[0], n.scale[1], n.scale[2]));
  return t;
}

// World matrix of every node (the node graph is a forest).
std::vector<glm::mat4> world_matrices(const tinygltf::Model& m) {
  std::vector<int> parent(m.nodes.size(), -1);
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    for (const int c : m.nodes[i].children) parent.at(static_cast<std::size_t>(c)) = static_cast<int>(i);
  std::vector<glm::mat4> world(m.nodes.size());
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    world[i] = local_matrix(m.nodes[i]);
    for (int p = parent[i]; p >= 0; p = get(parent, p)) world[i] = local_matrix(get(m.nodes, p)) * world[i];
  }
  return world;
}

std::size_t primitive_count(const tinygltf::Model& m) {
  std::size_t n = 0;
  for (const auto& mesh : m.meshes) n += mesh.primitives.size();
  return n;
}

TEST(DefaultCharacter, IsDeterministic) {
  EXPECT_EQ(default_character_glb(), default_character_glb());
  const CharacterParams big{.segments = 12, .rings = 6, .extra_spine_joints = 3, .keys_per_second = 30};
  EXPECT_EQ(default_character_glb(big), default_character_glb(big));
}

TEST(DefaultCharacter, HasSkinnedPrimitivesAndMaterials) {
  const tinygltf::Model m = parse(default_character_glb());
  EXPECT_GE(primitive_count(m), 8u);
  std::set<std::vector<double>> colours;
  for (const auto& mat : m.materials) colours.insert(mat.pbrMetallicRoughness.baseColorFactor);
  EXPECT_GE(colours.size(), 3u);
  ASSERT_EQ(m.skins.size(), 1u);
  std::set<int> children;
  for (const auto& node : m.nodes) children.insert(node.children.begin(), node.children.end());
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (m.nodes[i].mesh < 0) continue;
    EXPECT_EQ(m.nodes[i].skin, 0) << m.nodes[i].name;
    // Skinned mesh nodes are roots, outside the joint hierarchy (glTF 2.0 §3.7.3).
    EXPECT_FALSE(children.count(static_cast<int>(i))) << m.nodes[i].name;
  }
}

TEST(DefaultCharacter, InverseBindMatricesInvertJointWorldMatrices) {
  const tinygltf::Model m = parse(default_character_glb());
  ASSERT_EQ(m.skins.size(), 1u);
  const tinygltf::Skin& skin = m.skins[0];
  EXPECT_GE(skin.joints.size(), 20u);
  const auto world = world_matrices(m);
  for (std::size_t j = 0; j < skin.joints.size(); ++j) {
    const auto e = element(m, skin.inverseBindMatrices, j);
    ASSERT_EQ(e.size(), 16u);
    glm::mat4 ibm;
    for (std::size_t k = 0; k < 16; ++k) glm::value_ptr(ibm)[k] = static_cast<float>(e[k]);
    const glm::mat4 product = get(world, skin.joints[j]) * ibm;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) EXPECT_NEAR(product[c][r], c == r ? 1.0f : 0.0f, 1e-5f) << "joint " << j;
  }
}

TEST(DefaultCharacter, VertexDataIsConsistent) {
  const tinygltf::Model m = parse(default_character_glb());
  const std::size_t joint_count = m.skins.at(0).joints.size();
  float min_y = 1e9f, max_y = -1e9f;
  for (const auto& mesh : m.meshes) {
    for (const auto& prim : mesh.primitives) {
      for (const char* name : {"POSITION", "NORMAL", "JOINTS_0", "WEIGHTS_0"})
        ASSERT_TRUE(prim.attributes.count(name)) << mesh.name << " lacks " << name;
      const int pos = prim.attributes.at("POSITION");
      const int nrm = prim.attributes.at("NORMAL");
      const int joints = prim.attributes.at("JOINTS_0");
      const int weights = prim.attributes.at("WEIGHTS_0");
      EXPECT_EQ(get(m.accessors, weights).componentType, TINYGLTF_COMPONENT_TYPE_FLOAT);
      const std::size_t vertices = get(m.accessors, pos).count;
      for (std::size_t v = 0; v < vertices; ++v) {
        const auto w = element(m, weights, v);
        EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-5) << mesh.name << " vertex " << v;
        for (const double j : element(m, joints, v)) EXPECT_LT(j, joint_count);
        EXPECT_NEAR(glm::length(vec3_at(m, nrm, v)), 1.0f, 1e-4f);
        min_y = std::min(min_y, vec3_at(m, pos, v).y);
        max_y = std::max(max_y, vec3_at(m, pos, v).y);
      }
      ASSERT_GE(prim.indices, 0);
      const std::size_t index_count = get(m.accessors, prim.indices).count;
      ASSERT_EQ(index_count % 3, 0u);
      for (std::size_t t = 0; t < index_count; t += 3) {
        std::size_t tri[3];
        for (std::size_t k = 0; k < 3; ++k) {
          tri[k] = static_cast<std::size_t>(element(m, prim.indices, t + k)[0]);
          ASSERT_LT(tri[k], vertices) << mesh.name;
        }
        // Counter-clockwise front faces: the face normal agrees with the vertex normals.
        const glm::vec3 a = vec3_at(m, pos, tri[0]);
        const glm::vec3 b = vec3_at(m, pos, tri[1]);
        const glm::vec3 c = vec3_at(m, pos, tri[2]);
        const glm::vec3 n = vec3_at(m, nrm, tri[0]) + vec3_at(m, nrm, tri[1]) + vec3_at(m, nrm, tri[2]);
        EXPECT_GT(glm::dot(glm::cross(b - a, c - a), n), 0.0f) << mesh.name << " tri " << t / 3;
      }
    }
  }
  // About 1.8 units tall, standing on y = 0.
  EXPECT_NEAR(max_y, 1.8f, 0.05f);
  EXPECT_GE(min_y, -1e-4f);
  EXPECT_LT(min_y, 0.03f);
}

// A clean file loads with no warnings (docs/spec.md §2.8); the head's mesh node is "HeadMesh", so
// no node shares the joint's name "Head" (§9).
TEST(DefaultCharacter, LoadsWithoutWarnings) {
  for (const CharacterParams& params : {CharacterParams{}, CharacterParams{.extra_spine_joints = 3}}) {
    const Asset a = load_asset_from_memory(default_character_glb(params));
    for (const Warning& w : a.warnings) ADD_FAILURE() << w.path << ": [" << w.rule << "] " << w.message;
    EXPECT_EQ(a.find_node("Head"), a.find_node("Neck/Head"));
    EXPECT_EQ(a.nodes.at(static_cast<std::size_t>(a.find_node("HeadMesh"))).mesh, 1);
  }
}

TEST(DefaultCharacter, HeadMeshHasNamedMorphTargets) {
  const tinygltf::Model m = parse(default_character_glb());
  bool found = false;
  for (const auto& mesh : m.meshes) {
    if (mesh.name != "Head") continue;
    found = true;
    ASSERT_EQ(mesh.weights.size(), 2u);
    const tinygltf::Value& names = mesh.extras.Get("targetNames");
    ASSERT_TRUE(names.IsArray());
    ASSERT_EQ(names.ArrayLen(), 2u);
    EXPECT_EQ(names.Get(0).Get<std::string>(), "Smile");
    EXPECT_EQ(names.Get(1).Get<std::string>(), "Blink");
    for (const auto& prim : mesh.primitives) {
      ASSERT_EQ(prim.targets.size(), 2u);
      for (const auto& target : prim.targets) EXPECT_TRUE(target.count("POSITION"));
    }
  }
  EXPECT_TRUE(found);
}

TEST(DefaultCharacter, ClipsLoopWithUnitRotations) {
  const tinygltf::Model m = parse(default_character_glb());
  std::set<std::string> names;
  bool morph_channel = false;
  for (const auto& anim : m.animations) {
    names.insert(anim.name);
    bool hips_translation = false, rotation = false;
    for (const auto& ch : anim.channels) {
      const auto& s = get(anim.samplers, ch.sampler);
      EXPECT_EQ(s.interpolation, "LINEAR");
      const auto& input = get(m.accessors, s.input);
      ASSERT_EQ(input.maxValues.size(), 1u);  // min/max are required on animation input
      EXPECT_GE(input.maxValues[0], 1.0);
      EXPECT_LE(input.maxValues[0], 3.0);
      const std::size_t keys = input.count;
      const std::size_t per_key = get(m.accessors, s.output).count / keys;
      for (std::size_t e = 0; e < per_key; ++e)  // loop-friendly: first key == last key
        EXPECT_EQ(element(m, s.output, e), element(m, s.output, (keys - 1) * per_key + e));
      if (ch.target_path == "rotation") {
        rotation = true;
        for (std::size_t k = 0; k < keys; ++k) {
          const auto q = element(m, s.output, k);
          EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-5);
        }
      }
      hips_translation |= ch.target_path == "translation" && get(m.nodes, ch.target_node).name == "Hips";
      morph_channel |= ch.target_path == "weights";
    }
    EXPECT_TRUE(rotation) << anim.name;
    EXPECT_TRUE(hips_translation) << anim.name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"Idle", "Walking", "Running", "Wave", "Dance"}));
  EXPECT_TRUE(morph_channel);
}

TEST(DefaultCharacter, ParamsScaleJointsVerticesAndKeys) {
  const tinygltf::Model base = parse(default_character_glb());
  const tinygltf::Model big =
      parse(default_character_glb({.segments = 16, .rings = 8, .extra_spine_joints = 10, .keys_per_second = 30}));
  EXPECT_EQ(big.skins.at(0).joints.size(), base.skins.at(0).joints.size() + 10);
  EXPECT_EQ(primitive_count(big), primitive_count(base));
  // Accessor of the first primitive's attribute `name`.
  const auto first = [](const tinygltf::Model& m, const char* name) -> const tinygltf::Accessor& {
    return get(m.accessors, m.meshes.at(0).primitives.at(0).attributes.at(name));
  };
  EXPECT_GT(first(big, "POSITION").count, 2 * first(base, "POSITION").count);
  const auto keys = [](const tinygltf::Model& m) {
    return get(m.accessors, m.animations.at(0).samplers.at(0).input).count;
  };
  EXPECT_GT(keys(big), keys(base));
  // Past 256 joints, JOINTS_0 switches to UNSIGNED_SHORT.
  const tinygltf::Model many = parse(default_character_glb({.extra_spine_joints = 250}));
  EXPECT_EQ(first(many, "JOINTS_0").componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
  // Degenerate parameters are clamped, not rejected.
  const tinygltf::Model tiny = parse(default_character_glb({.segments = 0, .rings = 0, .keys_per_second = 0}));
  EXPECT_EQ(primitive_count(tiny), primitive_count(base));
}

}  // namespace
}  // namespace gltf_crowd
