// Hand-made GLB assets for the GL tests: unit quads facing +z with chosen materials, textures,
// vertex colors, tangents, skins and morph targets, and a skin with thousands of joints, each
// small enough that the expected pixels follow from the glTF specification by hand.
// Header-only.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "asset/glb.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/gl.hpp"
#include "test_support.hpp"

namespace gltf_crowd::test {

// Accumulates a GLB's binary chunk, buffer views and accessors.
class GlbBuilder {
 public:
  // Appends `values` (4-byte aligned) as an accessor of `count` elements of `type` and
  // `component_type` (5121 u8, 5123 u16, 5126 float); returns its index.
  template <class T>
  int accessor(const std::vector<T>& values, const char* type, std::size_t count, int component_type,
               const nlohmann::json& min = nullptr, const nlohmann::json& max = nullptr) {
    nlohmann::json a = {{"bufferView", view(values.data(), values.size() * sizeof(T))},
                        {"componentType", component_type},
                        {"count", count},
                        {"type", type}};
    if (!min.is_null()) a["min"] = min;
    if (!max.is_null()) a["max"] = max;
    accessors_.push_back(a);
    return static_cast<int>(accessors_.size() - 1);
  }
  // Appends raw bytes as a buffer view; returns its index.
  int view(const void* data, std::size_t bytes) {
    while (bin_.size() % 4 != 0) bin_.push_back(0);
    views_.push_back({{"buffer", 0}, {"byteOffset", bin_.size()}, {"byteLength", bytes}});
    const auto* p = static_cast<const std::uint8_t*>(data);
    bin_.insert(bin_.end(), p, p + bytes);
    return static_cast<int>(views_.size() - 1);
  }
  // The GLB of `doc` plus the accumulated buffer, views and accessors (glTF 2.0 §4.4).
  std::vector<std::uint8_t> glb(nlohmann::json doc) {
    while (bin_.size() % 4 != 0) bin_.push_back(0);
    doc["asset"] = {{"version", "2.0"}};
    doc["buffers"] = {{{"byteLength", bin_.size()}}};
    doc["bufferViews"] = views_;
    doc["accessors"] = accessors_;
    return gltf_crowd::detail::write_glb(doc.dump(), bin_);
  }

 private:
  std::vector<std::uint8_t> bin_;
  nlohmann::json views_ = nlohmann::json::array();
  nlohmann::json accessors_ = nlohmann::json::array();
};

// How a quad's vertices move.
enum class QuadDeform {
  rigid,
  // Every vertex follows joint 1 (a child of joint 0, translated by (2, 0, 0)) with identity
  // inverse bind matrices, so the quad is drawn 2 units to the right; the mesh node's own
  // translation (0, 5, 0) must not move it (glTF 2.0 §3.7.3).
  skinned,
  // One morph target moves every vertex by (2, 0, 0); the mesh's default weight is 1, so the
  // quad is drawn 2 units to the right as well.
  morphed,
  // As skinned, but every vertex has weight 0.25 on joint 0 (JOINTS_0) and 0.75 on joint 1
  // (JOINTS_1, influences 5..8): it lands 0.75 × 2 = 1.5 units to the right.
  skinned8,
};

// One unit quad (x, y in [-0.5, 0.5], z = 0, normal +z, u = x + 0.5, v = 0.5 - y) on its own node.
struct QuadSpec {
  glm::vec3 translation{0.0f};
  int material = 0;  // index into the document's materials
  QuadDeform deform = QuadDeform::rigid;
  std::optional<glm::vec4> color;      // COLOR_0 of every vertex
  std::optional<glm::vec4> tangent;    // TANGENT of every vertex
  std::optional<glm::vec2> texcoord1;  // TEXCOORD_1 of every vertex
  // The primitive's extensions.KHR_materials_variants.mappings (glTF JSON), when not null.
  nlohmann::json variant_mappings = nullptr;
};

// A GLB with one node per quad (all scene roots, in order), `materials` (glTF material JSON)
// and `images` (PNG files, texture i = image i with `sampler`: glTF sampler JSON, or null for
// the default sampler). Non-null `variants` becomes the root's
// extensions.KHR_materials_variants.variants (with the extension in extensionsUsed).
inline std::vector<std::uint8_t> quad_glb(const std::vector<QuadSpec>& quads, const nlohmann::json& materials,
                                          const std::vector<std::vector<std::uint8_t>>& images = {},
                                          const nlohmann::json& sampler = nullptr,
                                          const nlohmann::json& variants = nullptr) {
  GlbBuilder b;
  const std::vector<float> positions = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0};
  const int position = b.accessor(positions, "VEC3", 4, 5126, {-0.5, -0.5, 0}, {0.5, 0.5, 0});
  const int normal = b.accessor(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3", 4, 5126);
  const int texcoord = b.accessor(std::vector<float>{0, 1, 1, 1, 1, 0, 0, 0}, "VEC2", 4, 5126);
  const int indices = b.accessor(std::vector<std::uint16_t>{0, 1, 2, 0, 2, 3}, "SCALAR", 6, 5123);
  nlohmann::json nodes = nlohmann::json::array(), meshes = nlohmann::json::array(), skins = nlohmann::json::array(),
                 roots = nlohmann::json::array();
  for (const QuadSpec& q : quads) {
    nlohmann::json attributes = {{"POSITION", position}, {"NORMAL", normal}, {"TEXCOORD_0", texcoord}};
    nlohmann::json primitive = {{"indices", indices}, {"material", q.material}};
    nlohmann::json mesh;
    if (q.color) {
      const glm::vec4 c = *q.color;
      attributes["COLOR_0"] =
          b.accessor(std::vector<float>{c.r, c.g, c.b, c.a, c.r, c.g, c.b, c.a, c.r, c.g, c.b, c.a, c.r, c.g, c.b, c.a},
                     "VEC4", 4, 5126);
    }
    if (q.texcoord1) {
      const glm::vec2 t = *q.texcoord1;
      attributes["TEXCOORD_1"] =
          b.accessor(std::vector<float>{t.x, t.y, t.x, t.y, t.x, t.y, t.x, t.y}, "VEC2", 4, 5126);
    }
    if (q.tangent) {
      const glm::vec4 t = *q.tangent;
      attributes["TANGENT"] =
          b.accessor(std::vector<float>{t.x, t.y, t.z, t.w, t.x, t.y, t.z, t.w, t.x, t.y, t.z, t.w, t.x, t.y, t.z, t.w},
                     "VEC4", 4, 5126);
    }
    nlohmann::json node = {{"mesh", meshes.size()},
                           {"translation", {q.translation.x, q.translation.y, q.translation.z}}};
    if (q.deform == QuadDeform::skinned || q.deform == QuadDeform::skinned8) {
      const bool eight = q.deform == QuadDeform::skinned8;
      const std::uint8_t first = eight ? 0 : 1;
      const float w = eight ? 0.25f : 1.0f;
      attributes["JOINTS_0"] = b.accessor(
          std::vector<std::uint8_t>{first, 0, 0, 0, first, 0, 0, 0, first, 0, 0, 0, first, 0, 0, 0}, "VEC4", 4, 5121);
      attributes["WEIGHTS_0"] =
          b.accessor(std::vector<float>{w, 0, 0, 0, w, 0, 0, 0, w, 0, 0, 0, w, 0, 0, 0}, "VEC4", 4, 5126);
      if (eight) {
        attributes["JOINTS_1"] =
            b.accessor(std::vector<std::uint8_t>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 4, 5121);
        attributes["WEIGHTS_1"] = b.accessor(
            std::vector<float>{0.75f, 0, 0, 0, 0.75f, 0, 0, 0, 0.75f, 0, 0, 0, 0.75f, 0, 0, 0}, "VEC4", 4, 5126);
      }
      const auto joint0 = nodes.size() + 1;
      node["translation"] = {0, 5, 0};
      node["skin"] = skins.size();
      skins.push_back({{"joints", {joint0, joint0 + 1}}});
      nodes.push_back(node);
      nodes.push_back({{"children", {joint0 + 1}}});
      nodes.push_back({{"translation", {2, 0, 0}}});
      roots.push_back(joint0 - 1);
      roots.push_back(joint0);
    } else {
      if (q.deform == QuadDeform::morphed) {
        primitive["targets"] = {{{"POSITION", b.accessor(std::vector<float>{2, 0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0}, "VEC3",
                                                         4, 5126, {2, 0, 0}, {2, 0, 0})}}};
        mesh["weights"] = {1.0};
      }
      roots.push_back(nodes.size());
      nodes.push_back(node);
    }
    primitive["attributes"] = attributes;
    if (!q.variant_mappings.is_null())
      primitive["extensions"] = {{"KHR_materials_variants", {{"mappings", q.variant_mappings}}}};
    mesh["primitives"] = {primitive};
    meshes.push_back(mesh);
  }
  nlohmann::json doc = {
      {"scene", 0}, {"scenes", {{{"nodes", roots}}}}, {"nodes", nodes}, {"meshes", meshes}, {"materials", materials}};
  if (!skins.empty()) doc["skins"] = skins;
  if (!images.empty()) {
    nlohmann::json image_list = nlohmann::json::array(), textures = nlohmann::json::array();
    for (const auto& png : images) {
      textures.push_back({{"source", image_list.size()}});
      if (!sampler.is_null()) textures.back()["sampler"] = 0;
      image_list.push_back({{"bufferView", b.view(png.data(), png.size())}, {"mimeType", "image/png"}});
    }
    doc["images"] = image_list;
    doc["textures"] = textures;
    if (!sampler.is_null()) doc["samplers"] = {sampler};
  }
  if (!variants.is_null()) {
    doc["extensions"] = {{"KHR_materials_variants", {{"variants", variants}}}};
    doc["extensionsUsed"] = {"KHR_materials_variants"};
  }
  return b.glb(doc);
}

// quad_glb loaded.
inline std::shared_ptr<const Asset> quad_asset(const std::vector<QuadSpec>& quads, const nlohmann::json& materials,
                                               const std::vector<std::vector<std::uint8_t>>& images = {},
                                               const nlohmann::json& sampler = nullptr,
                                               const nlohmann::json& variants = nullptr) {
  return std::make_shared<const Asset>(load_asset_from_memory(quad_glb(quads, materials, images, sampler, variants)));
}

// One red quad with the default metallic-roughness (metallic 1, roughness 1).
inline std::shared_ptr<const Asset> red_quad(QuadDeform deform = QuadDeform::rigid) {
  return quad_asset({{.deform = deform}}, {{{"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 1}}}}}});
}

// A PNG file of width × height pixels (RGBA8, top row first), as bytes.
inline std::vector<std::uint8_t> png_bytes(std::uint32_t width, std::uint32_t height,
                                           const std::vector<std::uint8_t>& pixels) {
  const auto file = scratch_dir("png_bytes") / "image.png";
  write_png(file, width, height, pixels);
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A quad whose skin has `joints` joints (detached nodes, identity inverse bind matrices), every
// vertex bound to joint 0: a palette of 3 × joints texels or 48 × joints bytes per actor.
inline std::shared_ptr<const Asset> many_joints_asset(std::size_t joints) {
  GlbBuilder b;
  const int position = b.accessor(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3, 5126, {0, 0, 0}, {1, 1, 0});
  const int joint = b.accessor(std::vector<std::uint8_t>(12, 0), "VEC4", 3, 5121);
  const int weight = b.accessor(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4", 3, 5126);
  nlohmann::json nodes = {{{"mesh", 0}, {"skin", 0}}};
  nlohmann::json joint_list = nlohmann::json::array();
  for (std::size_t j = 0; j < joints; ++j) {
    joint_list.push_back(nodes.size());
    nodes.push_back(nlohmann::json::object());
  }
  nlohmann::json doc = {
      {"scene", 0},
      {"scenes", {{{"nodes", {0}}}}},
      {"nodes", nodes},
      {"skins", {{{"joints", joint_list}}}},
      {"meshes",
       {{{"primitives", {{{"attributes", {{"POSITION", position}, {"JOINTS_0", joint}, {"WEIGHTS_0", weight}}}}}}}}}};
  return std::make_shared<const Asset>(load_asset_from_memory(b.glb(doc)));
}

}  // namespace gltf_crowd::test
