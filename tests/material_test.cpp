// Materials and lighting (glTF 2.0 §3.9) on hand-made quads, for the instanced renderer in both
// palette storages and for the reference renderer: alpha modes, blend order, vertex colors,
// emissive and sRGB textures, TEXCOORD_1, metallic-roughness textures, normal maps with and
// without tangents, double-sided back faces. Expected pixels follow from the glTF rules (and
// the sRGB transfer function), not from the shader.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <glm/gtc/constants.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gl_test_assets.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using nlohmann::json;

enum class Path { storage, texture, reference };
constexpr std::array<Path, 3> paths = {Path::storage, Path::texture, Path::reference};
const char* name(Path path) {
  return path == Path::storage ? "storage" : path == Path::texture ? "texture" : "reference";
}

// Orthographic view of x ∈ [-4, 4], y ∈ [-3, 3] from +z into 64 × 48 pixels: the quads at
// x = -3, -1, 1, 3 are centred on columns 8, 24, 40, 56 and row 24, 8 pixels wide.
Camera ortho_camera(glm::vec3 light_direction = {0, 0, -1}, float ambient = 0.3f) {
  Camera camera;
  camera.projection = glm::ortho(-4.0f, 4.0f, -3.0f, 3.0f, -10.0f, 10.0f);
  camera.light_direction = light_direction;
  camera.ambient_color = glm::vec3(ambient);
  return camera;
}
constexpr std::uint32_t column[4] = {8, 24, 40, 56};
constexpr std::uint32_t row = 24;

struct Rendered {
  std::vector<std::uint8_t> rgba;
  std::array<int, 3> at(std::uint32_t x, std::uint32_t y) const {
    const std::size_t i = (std::size_t{y} * 64 + x) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2]};
  }
};

// `actors` (default: one at the origin) of `asset`, drawn over a blue background by `path`.
Rendered render(const std::shared_ptr<const Asset>& asset, const Camera& camera, Path path,
                const std::string& test_name, const std::vector<ActorOptions>& actors = std::vector<ActorOptions>(1)) {
  HeadlessContext context({.debug = true});
  Crowd crowd(asset, {.capacity = actors.size()});
  crowd.add_actors(actors);
  crowd.update(0.0f);
  Framebuffer target({.width = 64, .height = 48});
  target.clear({0.0f, 0.0f, 1.0f, 1.0f});
  if (path == Path::reference) {
    ReferenceRenderer(crowd).draw(crowd, camera);
  } else {
    CrowdRenderer(crowd, {.palette = path == Path::storage ? PaletteStorage::storage_buffer : PaletteStorage::texture})
        .draw(crowd, camera);
  }
  Rendered out{target.read_pixels()};
  write_png(test::scratch_dir("material_" + test_name + "_" + name(path)) / "actual.png", 64, 48, out.rgba);
  EXPECT_EQ(context.debug_error_count(), 0u);
  return out;
}

bool is_background(const std::array<int, 3>& c) { return c[0] == 0 && c[1] == 0 && c[2] == 255; }

// sRGB encoding of a linear value, as an 8-bit value (IEC 61966-2-1).
int srgb_byte(double linear) {
  const double c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
  return static_cast<int>(std::lround(c * 255.0));
}

// A dielectric: diffuse base color, plus the 4% white specular reflectance glTF gives every
// dielectric (Appendix B), so even a pure red surface shows a little green and blue.
json dielectric(json material) {
  material["pbrMetallicRoughness"]["metallicFactor"] = 0;
  return material;
}

// The most a dielectric's 4% specular adds to a channel its base color lacks under the cameras
// below (ambient 0.3 and one frontal light): about 41 of 255.
constexpr int specular_only = 50;

// MASK discards fragments whose alpha is below the cutoff and draws the others opaque.
TEST(MaterialTest, MaskKeepsOnlyFragmentsAtOrAboveTheCutoff) {
  const json materials = {dielectric({{"alphaMode", "MASK"},
                                      {"alphaCutoff", 0.5},
                                      {"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 0.3}}}}}),
                          dielectric({{"alphaMode", "MASK"},
                                      {"alphaCutoff", 0.5},
                                      {"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 0.7}}}}})};
  auto asset = test::quad_asset({{.translation = {-3, 0, 0}, .material = 0}, {.translation = {3, 0, 0}, .material = 1}},
                                materials);
  for (Path path : paths) {
    const Rendered r = render(asset, ortho_camera(), path, "mask");
    EXPECT_TRUE(is_background(r.at(column[0], row))) << name(path);
    const auto kept = r.at(column[3], row);
    EXPECT_GT(kept[0], 200) << name(path);
    EXPECT_LT(kept[2], specular_only) << name(path) << ": drawn opaque, no blue showing through";
  }
}

// BLEND groups are drawn after all others even when they come first: the half-transparent green
// quad in front (z = 1, node 0) mixes with the opaque red quad behind it (z = 0, node 1). Drawn
// in node order it would be overwritten by the red (no depth writes) or hide it (depth writes).
TEST(MaterialTest, BlendedGroupsDrawLastAndMix) {
  const json materials = {
      dielectric({{"alphaMode", "BLEND"}, {"pbrMetallicRoughness", {{"baseColorFactor", {0, 1, 0, 0.5}}}}}),
      dielectric({{"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 1}}}}})};
  auto asset = test::quad_asset({{.translation = {0, 0, 1}, .material = 0}, {.translation = {0, 0, 0}, .material = 1}},
                                materials);
  for (Path path : paths) {
    const auto c = render(asset, ortho_camera(), path, "blend").at(32, row);
    EXPECT_GT(c[0], 60) << name(path) << ": the red behind shows through";
    EXPECT_GT(c[1], 60) << name(path) << ": the green in front is blended over it";
    EXPECT_LT(c[2], specular_only) << name(path) << ": no blue background showing through";
  }
}

// COLOR_0 multiplies the base color: white × green = green.
TEST(MaterialTest, VertexColorsMultiplyTheBaseColor) {
  const json materials = {dielectric({{"pbrMetallicRoughness", {{"baseColorFactor", {1, 1, 1, 1}}}}})};
  auto asset = test::quad_asset({{.color = glm::vec4(0, 1, 0, 1)}}, materials);
  for (Path path : paths) {
    const auto c = render(asset, ortho_camera(), path, "vertex_color").at(32, row);
    EXPECT_GT(c[1], 150) << name(path);
    EXPECT_LT(c[0], specular_only) << name(path);
    EXPECT_LT(c[2], specular_only) << name(path);
  }
}

// Emissive radiance adds to the lighting: with a black base color, no light and no ambient, the
// pixel is the sRGB encoding of the emissive factor: (1, 0.5, 0) → (255, 188, 0).
TEST(MaterialTest, EmissiveFactorShowsWithoutLight) {
  const json materials = {
      dielectric({{"emissiveFactor", {1, 0.5, 0}}, {"pbrMetallicRoughness", {{"baseColorFactor", {0, 0, 0, 1}}}}})};
  auto asset = test::quad_asset({{}}, materials);
  Camera dark = ortho_camera({0, 0, -1}, 0.0f);
  dark.light_color = glm::vec3(0.0f);
  for (Path path : paths) {
    const auto c = render(asset, dark, path, "emissive").at(32, row);
    EXPECT_EQ(c[0], 255) << name(path);
    EXPECT_NEAR(c[1], srgb_byte(0.5), 1) << name(path);
    EXPECT_EQ(c[2], 0) << name(path);
  }
}

// An emissive texture is sRGB-encoded (glTF 2.0 §3.9.4): sampled to linear, lit by nothing,
// encoded back, it reappears byte for byte. Texture 0 is 4 × 1 texels red, red, green, green;
// TEXCOORD_0 runs u from 0 to 1 across the quad, TEXCOORD_1 is u = 0.875 everywhere: the left
// quarter of the quad shows red through set 0 and green through set 1.
TEST(MaterialTest, EmissiveTextureIsSrgbAndPicksItsTexcoordSet) {
  const std::vector<std::uint8_t> texels = {200, 40, 0, 255, 200, 40, 0, 255, 0, 160, 90, 255, 0, 160, 90, 255};
  const std::vector<std::vector<std::uint8_t>> images = {test::png_bytes(4, 1, texels)};
  const json black = {{"baseColorFactor", {0, 0, 0, 1}}};
  const json materials = {
      dielectric({{"emissiveFactor", {1, 1, 1}}, {"emissiveTexture", {{"index", 0}}}, {"pbrMetallicRoughness", black}}),
      dielectric({{"emissiveFactor", {1, 1, 1}},
                  {"emissiveTexture", {{"index", 0}, {"texCoord", 1}}},
                  {"pbrMetallicRoughness", black}})};
  auto asset = test::quad_asset({{.translation = {-1, 0, 0}, .material = 0, .texcoord1 = glm::vec2(0.875f, 0.5f)},
                                 {.translation = {1, 0, 0}, .material = 1, .texcoord1 = glm::vec2(0.875f, 0.5f)}},
                                materials, images);
  Camera dark = ortho_camera({0, 0, -1}, 0.0f);
  dark.light_color = glm::vec3(0.0f);
  for (Path path : paths) {
    const Rendered r = render(asset, dark, path, "emissive_texture");
    const auto set0 = r.at(column[1] - 2, row), set1 = r.at(column[2] - 2, row);
    EXPECT_NEAR(set0[0], 200, 1) << name(path);
    EXPECT_NEAR(set0[1], 40, 1) << name(path);
    EXPECT_NEAR(set1[1], 160, 1) << name(path);
    EXPECT_NEAR(set1[2], 90, 1) << name(path);
  }
}

// metallicRoughnessTexture's blue channel scales metallicFactor: a metal shows no diffuse light,
// so under the same frontal light the fully metallic texel is darker than the dielectric one
// (which saturates).
TEST(MaterialTest, MetallicRoughnessTextureScalesTheFactors) {
  const std::vector<std::vector<std::uint8_t>> images = {test::png_bytes(1, 1, {255, 255, 255, 255}),
                                                         test::png_bytes(1, 1, {255, 255, 0, 255})};
  const json white = {{"baseColorFactor", {1, 1, 1, 1}}, {"metallicFactor", 1}};
  json metal = white, plastic = white;
  metal["metallicRoughnessTexture"] = {{"index", 0}};
  plastic["metallicRoughnessTexture"] = {{"index", 1}};
  const json materials = {{{"pbrMetallicRoughness", metal}}, {{"pbrMetallicRoughness", plastic}}};
  auto asset = test::quad_asset({{.translation = {-1, 0, 0}, .material = 0}, {.translation = {1, 0, 0}, .material = 1}},
                                materials, images);
  for (Path path : paths) {
    const Rendered r = render(asset, ortho_camera(), path, "metallic_roughness");
    EXPECT_LT(r.at(column[1], row)[0], 230) << name(path);
    EXPECT_EQ(r.at(column[2], row)[0], 255) << name(path);
  }
}

// A normal map texel (sin 60°, 0, cos 60°) tilts the normal 60° toward the tangent. With the
// light 60° off the view axis toward +x, a quad whose TANGENT is +x faces the light (n·l = 1,
// bright); with TANGENT -x it turns away (n·l < 0, ambient only); without TANGENT the frame
// comes from the texture coordinates, whose u grows along +x, so it matches the first.
TEST(MaterialTest, NormalMapsTiltTowardTheTangent) {
  const double s = std::sin(glm::radians(60.0)), c = std::cos(glm::radians(60.0));
  const auto encode = [](double v) { return static_cast<std::uint8_t>(std::lround((v + 1.0) * 127.5)); };
  const std::vector<std::vector<std::uint8_t>> images = {
      test::png_bytes(1, 1, {encode(s), encode(0.0), encode(c), 255})};
  const json materials = {
      dielectric({{"normalTexture", {{"index", 0}}}, {"pbrMetallicRoughness", {{"baseColorFactor", {1, 1, 1, 1}}}}})};
  auto asset = test::quad_asset({{.translation = {-3, 0, 0}, .tangent = glm::vec4(1, 0, 0, 1)},
                                 {.translation = {-1, 0, 0}, .tangent = glm::vec4(-1, 0, 0, 1)},
                                 {.translation = {1, 0, 0}}},
                                materials, images);
  const Camera camera = ortho_camera(-glm::vec3(s, 0, c), 0.1f);
  for (Path path : paths) {
    const Rendered r = render(asset, camera, path, "normal_map");
    const int toward = r.at(column[0], row)[0], away = r.at(column[1], row)[0], derived = r.at(column[2], row)[0];
    EXPECT_GT(toward, 240) << name(path);
    EXPECT_LT(away, 120) << name(path);
    EXPECT_NEAR(derived, toward, 3) << name(path);
  }
}

// Normals follow the inverse transpose (docs/spec.md §4). The quad turned 45° about y, then stretched
// 3× along world x, has the true normal (1, 0, 3)/√10, whose n·l with a light from the viewer is
// 0.95; transforming the normal like a direction would give (3, 0, 1)/√10 and n·l = 0.32.
// A white dielectric lit by 0.95 without ambient encodes to about 245; by 0.32 to about 155.
TEST(MaterialTest, NonUniformScaleKeepsNormalsPerpendicular) {
  const json materials = {dielectric({{"pbrMetallicRoughness", {{"baseColorFactor", {1, 1, 1, 1}}}}})};
  auto asset = test::quad_asset({{}}, materials);
  const glm::mat4 stretch = glm::scale(glm::mat4(1.0f), glm::vec3(3, 1, 1)) *
                            glm::rotate(glm::mat4(1.0f), glm::radians(45.0f), glm::vec3(0, 1, 0));
  for (Path path : paths) {
    const Rendered r =
        render(asset, ortho_camera({0, 0, -1}, 0.0f), path, "non_uniform_scale", {{.transform = stretch}});
    EXPECT_GT(r.at(32, row)[0], 225) << name(path);
  }
}

// Turned 180° about y, a quad shows its back. Single-sided it is culled; double-sided it is
// drawn with its normal reversed (glTF 2.0 §3.9.6), so a light from the viewer lights it exactly
// as it lights the front of the same quad. Quads: x = -3 double-sided, x = -1 single-sided;
// actor 0 is turned (they land at x = 3 and 1, row 24), actor 1 is raised to y = 1.5 (row 12).
TEST(MaterialTest, DoubleSidedBackFacesAreLitWithTheReversedNormal) {
  const json materials = {
      dielectric({{"pbrMetallicRoughness", {{"baseColorFactor", {1, 1, 1, 1}}}}}),
      dielectric({{"doubleSided", true}, {"pbrMetallicRoughness", {{"baseColorFactor", {1, 1, 1, 1}}}}})};
  auto asset = test::quad_asset(
      {{.translation = {-3, 0, 0}, .material = 1}, {.translation = {-1, 0, 0}, .material = 0}}, materials);
  const std::vector<ActorOptions> actors = {
      {.transform = glm::rotate(glm::mat4(1.0f), glm::pi<float>(), glm::vec3(0, 1, 0))},
      {.transform = glm::translate(glm::mat4(1.0f), glm::vec3(0, 1.5f, 0))}};
  for (Path path : paths) {
    const Rendered r = render(asset, ortho_camera(), path, "double_sided", actors);
    const auto back = r.at(column[3], row), front = r.at(column[0], 12);
    EXPECT_GT(front[0], 240) << name(path);
    EXPECT_NEAR(back[0], front[0], 1) << name(path) << ": back face lit through its reversed normal";
    EXPECT_NEAR(back[1], front[1], 1) << name(path);
    EXPECT_TRUE(is_background(r.at(column[2], row))) << name(path) << ": single-sided back culled";
    EXPECT_FALSE(is_background(r.at(column[1], 12))) << name(path) << ": its front is drawn";
  }
}

}  // namespace
}  // namespace gltf_crowd
