// A hand-made character for the appearance tests (docs/spec.md §3.12): two quads, the upper one
// with KHR_materials_variants mappings to three materials of different base colors, the lower
// one without mappings. Header-only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "gl_test_assets.hpp"

namespace gltf_crowd::test {

// Base colors of the variant asset's materials: 0 white (the upper quad's default), 1 red,
// 2 green, 3 blue (variants "Red", "Green", "Blue"), 4 grey (the lower quad's, never mapped).
inline const std::vector<glm::vec4> kVariantColors = {{1.0f, 1.0f, 1.0f, 1.0f},
                                                      {0.9f, 0.15f, 0.1f, 1.0f},
                                                      {0.1f, 0.8f, 0.2f, 1.0f},
                                                      {0.15f, 0.2f, 0.9f, 1.0f},
                                                      {0.6f, 0.6f, 0.6f, 1.0f}};

// A dielectric (metallic 0) material of `color`.
inline nlohmann::json flat_material(const glm::vec4& color) {
  return {{"pbrMetallicRoughness", {{"baseColorFactor", {color.r, color.g, color.b, color.a}}, {"metallicFactor", 0}}}};
}

// The upper quad's mappings: variant i → material i + 1.
inline nlohmann::json variant_mappings() {
  return {
      {{"material", 1}, {"variants", {0}}}, {{"material", 2}, {"variants", {1}}}, {{"material", 3}, {"variants", {2}}}};
}

// The character's GLB with `mappings` on the upper quad (at y = 0.6) and `variants` at the root.
inline std::vector<std::uint8_t> variant_glb(const nlohmann::json& mappings = variant_mappings(),
                                             const nlohmann::json& variants = {
                                                 {{"name", "Red"}}, {{"name", "Green"}}, {{"name", "Blue"}}}) {
  nlohmann::json materials = nlohmann::json::array();
  for (const glm::vec4& c : kVariantColors) materials.push_back(flat_material(c));
  return quad_glb({{.translation = {0.0f, 0.6f, 0.0f}, .material = 0, .variant_mappings = mappings},
                   {.translation = {0.0f, -0.6f, 0.0f}, .material = 4}},
                  materials, {}, nullptr, variants);
}

inline std::shared_ptr<const Asset> variant_asset() {
  return std::make_shared<const Asset>(load_asset_from_memory(variant_glb()));
}

}  // namespace gltf_crowd::test
