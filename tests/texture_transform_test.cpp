// KHR_texture_transform: the loader keeps each textureInfo's offset, rotation, scale and texCoord
// override, and rejects malformed values by JSON path and rule; both renderers (instanced, in
// both palette storages, and reference) sample every material texture at the transformed
// coordinate. Expected texels come from the extension's README: uv' = T · R · S · (uv, 1), with
// the rotation counter-clockwise in UV space (u right, v down), which is what the README's worked
// example ("only the lower left quadrant of the source image, rotated clockwise 90°") requires;
// the README's GLSL listing has the opposite sign (KhronosGroup/glTF#1563).
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gl_test_assets.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "test_documents.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using nlohmann::json;
using test::Document;

// ---- Loader ----------------------------------------------------------------------------------

// The skinned triangle with one 1 × 1 PNG texture and KHR_texture_transform in extensionsUsed.
Document textured_triangle() {
  Document d = test::skinned_triangle();
  d.json["images"] = {{{"uri",
                        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAj"
                        "CB0C8AAAAASUVORK5CYII="}}};
  d.json["textures"] = {{{"source", 0}}};
  d.json["extensionsUsed"] = {"KHR_texture_transform"};
  return d;
}

json transform(json properties) { return {{"KHR_texture_transform", std::move(properties)}}; }

TEST(TextureTransform, LoaderKeepsEachTexturesTransformAndTexCoordOverride) {
  Document d = textured_triangle();
  d.json["extensionsRequired"] = {"KHR_texture_transform"};
  json& m = d.json["materials"][0];
  m["pbrMetallicRoughness"]["baseColorTexture"] = {
      {"index", 0}, {"extensions", transform({{"offset", {0.25, -0.5}}, {"rotation", 1.5}, {"scale", {2, 3}}})}};
  // Integers are numbers too (JSON does not distinguish them; glTF-Validator accepts them).
  m["pbrMetallicRoughness"]["metallicRoughnessTexture"] = {{"index", 0}, {"extensions", transform({{"rotation", -2}})}};
  m["normalTexture"] = {{"index", 0},
                        {"scale", 0.5},
                        {"texCoord", 0},
                        {"extensions", transform({{"scale", {-1, 0.5}}, {"texCoord", 1}})}};
  m["occlusionTexture"] = {{"index", 0}, {"texCoord", 1}, {"extensions", transform({{"texCoord", 0}})}};
  m["emissiveTexture"] = {{"index", 0}, {"texCoord", 1}};
  const Asset a = load_asset_from_memory(d.gltf());
  const Material& r = a.materials.at(0);
  EXPECT_EQ(r.base_color_texture.offset, glm::vec2(0.25f, -0.5f));
  EXPECT_EQ(r.base_color_texture.rotation, 1.5f);
  EXPECT_EQ(r.base_color_texture.uv_scale, glm::vec2(2, 3));
  EXPECT_EQ(r.base_color_texture.tex_coord, 0u);
  EXPECT_EQ(r.metallic_roughness_texture.rotation, -2.0f);
  EXPECT_EQ(r.metallic_roughness_texture.offset, glm::vec2(0));  // README defaults
  EXPECT_EQ(r.metallic_roughness_texture.uv_scale, glm::vec2(1));
  EXPECT_EQ(r.normal_texture.uv_scale, glm::vec2(-1, 0.5f));
  EXPECT_EQ(r.normal_texture.scale, 0.5f);  // normalTexture.scale stays
  EXPECT_EQ(r.normal_texture.tex_coord, 1u) << "the extension's texCoord overrides textureInfo's";
  EXPECT_EQ(r.occlusion_texture.tex_coord, 0u) << "the extension's texCoord overrides textureInfo's";
  EXPECT_EQ(r.emissive_texture.tex_coord, 1u);
  EXPECT_EQ(r.emissive_texture.offset, glm::vec2(0));
  EXPECT_EQ(r.emissive_texture.rotation, 0.0f);
  EXPECT_EQ(r.emissive_texture.uv_scale, glm::vec2(1));
  EXPECT_EQ(a.extensions_required, std::vector<std::string>{"KHR_texture_transform"});
}

struct BadTransform {
  const char* name;
  const char* texture;  // the material property holding the textureInfo
  json extension;       // the KHR_texture_transform value
  const char* rule;
  const char* path;
};

TEST(TextureTransform, LoaderRejectsMalformedTransformsByPathAndRule) {
  const std::string base = "materials[0].pbrMetallicRoughness.baseColorTexture.extensions.KHR_texture_transform";
  const std::string emissive = "materials[0].emissiveTexture.extensions.KHR_texture_transform";
  const std::vector<BadTransform> cases = {
      {"offset of one number", "base", {{"offset", {1}}}, "texture_transform", ".offset"},
      {"offset not an array", "base", {{"offset", 1}}, "texture_transform", ".offset"},
      {"scale of three numbers", "emissive", {{"scale", {1, 1, 1}}}, "texture_transform", ".scale"},
      {"scale with a string", "emissive", {{"scale", {1, "2"}}}, "texture_transform", ".scale[1]"},
      {"rotation a string", "base", {{"rotation", "1"}}, "texture_transform", ".rotation"},
      {"rotation an array", "emissive", {{"rotation", {1}}}, "texture_transform", ".rotation"},
      {"texCoord not an integer", "base", {{"texCoord", 0.5}}, "texture_transform", ".texCoord"},
      {"texCoord a string", "base", {{"texCoord", "1"}}, "texture_transform", ".texCoord"},
      {"texCoord negative", "emissive", {{"texCoord", -1}}, "tex_coord", ".texCoord"},
  };
  for (const BadTransform& c : cases) {
    Document d = textured_triangle();
    json& m = d.json["materials"][0];
    const bool on_base = std::string(c.texture) == "base";
    json& info = on_base ? m["pbrMetallicRoughness"]["baseColorTexture"] : m["emissiveTexture"];
    info = {{"index", 0}, {"extensions", {{"KHR_texture_transform", c.extension}}}};
    try {
      (void)load_asset_from_memory(d.gltf());
      ADD_FAILURE() << c.name << ": loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), c.rule) << c.name << ": " << e.what();
      EXPECT_EQ(e.path(), (on_base ? base : emissive) + c.path) << c.name << ": " << e.what();
    }
  }
}

// ---- Rendering ------------------------------------------------------------------------------

enum class Path { storage, texture, reference };
constexpr std::array<Path, 3> paths = {Path::storage, Path::texture, Path::reference};
const char* name(Path path) {
  return path == Path::storage ? "storage" : path == Path::texture ? "texture" : "reference";
}

struct Rendered {
  std::uint32_t width = 0;
  std::vector<std::uint8_t> rgba;
  std::array<int, 3> at(std::uint32_t x, std::uint32_t y) const {
    const std::size_t i = (std::size_t{y} * width + x) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2]};
  }
};

// One actor of `asset` at the origin, drawn by `path` into width × height pixels.
Rendered render(const std::shared_ptr<const Asset>& asset, const Camera& camera, Path path, std::uint32_t width,
                std::uint32_t height, const std::string& test_name) {
  HeadlessContext context({.debug = true});
  Crowd crowd(asset, {.capacity = 1});
  crowd.add_actors(std::vector<ActorOptions>(1));
  crowd.update(0.0f);
  Framebuffer target({.width = width, .height = height});
  target.clear({0.0f, 0.0f, 1.0f, 1.0f});
  if (path == Path::reference) {
    ReferenceRenderer(crowd).draw(crowd, camera);
  } else {
    CrowdRenderer(crowd, {.palette = path == Path::storage ? PaletteStorage::storage_buffer : PaletteStorage::texture})
        .draw(crowd, camera);
  }
  Rendered out{width, target.read_pixels()};
  write_png(test::scratch_dir("texture_transform_" + test_name + "_" + name(path)) / "actual.png", width, height,
            out.rgba);
  EXPECT_EQ(context.debug_error_count(), 0u);
  return out;
}

// sRGB encoding of a linear value, as an 8-bit value (IEC 61966-2-1).
int srgb_byte(double linear) {
  const double c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
  return static_cast<int>(std::lround(c * 255.0));
}

// The 4 × 4 test texture: texel (i, j) (column i, row j from the top) has a red value unique to
// it, green by column and blue by row.
std::array<std::uint8_t, 4> texel(int i, int j) {
  return {static_cast<std::uint8_t>(15 + 15 * (i + 4 * j)), static_cast<std::uint8_t>(40 + 60 * i),
          static_cast<std::uint8_t>(40 + 60 * j), 255};
}

struct Transform {
  glm::dvec2 offset{0.0};
  double rotation = 0.0;
  glm::dvec2 scale{1.0};
};

// The README's uv' = T · R · S · (uv, 1), written out: S scales, R turns counter-clockwise in UV
// space (v down), T offsets.
glm::dvec2 transformed(const Transform& t, glm::dvec2 uv) {
  const double c = std::cos(t.rotation), s = std::sin(t.rotation);
  const glm::dvec2 scaled = uv * t.scale;
  return glm::dvec2(c * scaled.x + s * scaled.y, -s * scaled.x + c * scaled.y) + t.offset;
}

// The texel that NEAREST filtering with REPEAT wrapping picks at `uv`, or nothing when uv lies
// within 2% of a texel of a texel border (where rounding may pick either neighbour).
std::optional<glm::ivec2> nearest_texel(glm::dvec2 uv) {
  const glm::dvec2 texels = uv * 4.0;
  for (int k = 0; k < 2; ++k)
    if (std::abs(texels[k] - std::round(texels[k])) < 0.02) return std::nullopt;
  const auto wrap = [](double t) { return ((static_cast<int>(std::floor(t)) % 4) + 4) % 4; };
  return glm::ivec2(wrap(texels.x), wrap(texels.y));
}

// Three unit quads at x = -1, 0, 1 seen orthographically in 96 × 32 pixels (32 per quad), with
// ambient light 1 and no direct light, so that:
//   quad 0: metallic white × baseColorTexture: the pixel is the texel (sRGB in, sRGB out);
//   quad 1: metallic black plus emissiveTexture: the pixel is the texel; textureInfo.texCoord 1
//           (a constant TEXCOORD_1) is overridden by the extension's texCoord 0;
//   quad 2: metallic white, occlusionTexture (linear, strength 1): each channel is the sRGB
//           encoding of the texel's red value.
// Every pixel whose texture coordinate is not at a texel border is checked, for each path, and
// the instanced images equal the reference image.
TEST(TextureTransform, BothRenderersSampleEachTextureAtTheTransformedCoordinate) {
  constexpr std::uint32_t width = 96, height = 32;
  std::vector<std::uint8_t> pixels;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i)
      for (std::uint8_t b : texel(i, j)) pixels.push_back(b);
  // The README's first example, on the base colour texture.
  const Transform readme{{0.0, 1.0}, 1.57079632679, {0.5, 0.5}};
  const Transform emissive{{0.3, -0.2}, 0.5, {1.5, -0.75}};
  const Transform occlusion{{-0.1, 0.4}, -2.0, {2.0, 1.25}};
  const auto ext = [](const Transform& t, json extra = json::object()) {
    extra["offset"] = {t.offset.x, t.offset.y};
    extra["rotation"] = t.rotation;
    extra["scale"] = {t.scale.x, t.scale.y};
    return transform(extra);
  };
  const json materials = {
      {{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}, {"extensions", ext(readme)}}}}}},
      {{"pbrMetallicRoughness", {{"baseColorFactor", {0, 0, 0, 1}}}},
       {"emissiveFactor", {1, 1, 1}},
       {"emissiveTexture", {{"index", 0}, {"texCoord", 1}, {"extensions", ext(emissive, {{"texCoord", 0}})}}}},
      {{"occlusionTexture", {{"index", 0}, {"extensions", ext(occlusion)}}}}};
  const json nearest = {{"magFilter", 9728}, {"minFilter", 9728}};
  auto asset = test::quad_asset({{.translation = {-1, 0, 0}, .material = 0},
                                 {.translation = {0, 0, 0}, .material = 1, .texcoord1 = glm::vec2(0.875f, 0.5f)},
                                 {.translation = {1, 0, 0}, .material = 2}},
                                materials, {test::png_bytes(4, 4, pixels)}, nearest);
  Camera camera;
  camera.projection = glm::ortho(-1.5f, 1.5f, -0.5f, 0.5f, -10.0f, 10.0f);
  camera.light_color = glm::vec3(0.0f);
  camera.ambient_color = glm::vec3(1.0f);

  std::vector<Rendered> images;
  for (Path path : paths) {
    const Rendered r = render(asset, camera, path, width, height, "quads");
    int checked = 0, wrong = 0;
    for (std::uint32_t y = 0; y < height; ++y) {
      for (std::uint32_t x = 0; x < width; ++x) {
        // The pixel centre in the world, then on its quad: u = x + 0.5, v = 0.5 - y (quad_asset).
        const double wx = -1.5 + 3.0 * (x + 0.5) / width, wy = 0.5 - (y + 0.5) / height;
        const int quad = static_cast<int>(std::floor(wx + 1.5));
        const glm::dvec2 uv(wx - (quad - 1) + 0.5, 0.5 - wy);
        const Transform& t = quad == 0 ? readme : quad == 1 ? emissive : occlusion;
        const auto picked = nearest_texel(transformed(t, uv));
        if (!picked) continue;
        const auto s = texel(picked->x, picked->y);
        const std::array<int, 3> expected =
            quad == 2 ? std::array<int, 3>{srgb_byte(s[0] / 255.0), srgb_byte(s[0] / 255.0), srgb_byte(s[0] / 255.0)}
                      : std::array<int, 3>{s[0], s[1], s[2]};
        const auto got = r.at(x, y);
        ++checked;
        bool ok = true;
        for (int k = 0; k < 3; ++k) ok = ok && std::abs(got[k] - expected[k]) <= 1;
        if (!ok && ++wrong <= 5) {
          ADD_FAILURE() << name(path) << ": pixel (" << x << ", " << y << ") of quad " << quad << " is (" << got[0]
                        << ", " << got[1] << ", " << got[2] << "), expected texel (" << picked->x << ", " << picked->y
                        << ") = (" << expected[0] << ", " << expected[1] << ", " << expected[2] << ")";
        }
      }
    }
    EXPECT_GT(checked, static_cast<int>(width * height * 8 / 10)) << name(path);
    EXPECT_EQ(wrong, 0) << name(path);
    images.push_back(r);
  }
  // The README's description of its example: only the lower-left quadrant (columns 0-1, rows
  // 2-3), rotated clockwise 90°: the quad's top edge shows the quadrant's left column from the
  // bottom up, its bottom edge the quadrant's right column.
  const Rendered& reference = images.back();
  EXPECT_EQ(reference.at(1, 1)[0], texel(0, 3)[0]);    // top left: the image's bottom-left texel
  EXPECT_EQ(reference.at(30, 1)[0], texel(0, 2)[0]);   // top right
  EXPECT_EQ(reference.at(1, 30)[0], texel(1, 3)[0]);   // bottom left
  EXPECT_EQ(reference.at(30, 30)[0], texel(1, 2)[0]);  // bottom right
  for (std::size_t k = 0; k + 1 < images.size(); ++k) {
    int differing = 0;
    for (std::size_t i = 0; i < reference.rgba.size(); ++i)
      differing += std::abs(images[k].rgba[i] - reference.rgba[i]) > 1 ? 1 : 0;
    EXPECT_EQ(differing, 0) << name(paths[k]) << " differs from the reference renderer";
  }
}

// A normal texture turned 180° (u' = -u, v' = -v) has its +u axis along -x on the quad, so a texel
// tilted 60° toward +u tilts the normal toward -x, away from a light 60° off the view axis toward
// +x. Untransformed (quad 0) the tilt faces the light (bright); turned, both with TANGENT +x
// (quad 1, the tangent frame follows the texture's axes) and without TANGENT (quad 2, the frame
// from screen-space derivatives of the transformed coordinate), it faces away (ambient only).
TEST(TextureTransform, NormalTexturesFollowTheTransformedAxes) {
  const double s = std::sin(glm::radians(60.0)), c = std::cos(glm::radians(60.0));
  const auto encode = [](double v) { return static_cast<std::uint8_t>(std::lround((v + 1.0) * 127.5)); };
  const std::vector<std::vector<std::uint8_t>> images = {
      test::png_bytes(1, 1, {encode(s), encode(0.0), encode(c), 255})};
  const json white = {{"baseColorFactor", {1, 1, 1, 1}}, {"metallicFactor", 0}};
  const json materials = {
      {{"normalTexture", {{"index", 0}}}, {"pbrMetallicRoughness", white}},
      {{"normalTexture", {{"index", 0}, {"extensions", transform({{"rotation", 3.14159265358979}})}}},
       {"pbrMetallicRoughness", white}}};
  auto asset = test::quad_asset({{.translation = {-1, 0, 0}, .material = 0, .tangent = glm::vec4(1, 0, 0, 1)},
                                 {.translation = {0, 0, 0}, .material = 1, .tangent = glm::vec4(1, 0, 0, 1)},
                                 {.translation = {1, 0, 0}, .material = 1}},
                                materials, images);
  Camera camera;
  camera.projection = glm::ortho(-1.5f, 1.5f, -0.5f, 0.5f, -10.0f, 10.0f);
  camera.light_direction = -glm::vec3(s, 0, c);
  camera.ambient_color = glm::vec3(0.1f);
  for (Path path : paths) {
    const Rendered r = render(asset, camera, path, 48, 16, "normal");
    const int toward = r.at(8, 8)[0], turned = r.at(24, 8)[0], derived = r.at(40, 8)[0];
    EXPECT_GT(toward, 240) << name(path);
    EXPECT_LT(turned, 120) << name(path);
    EXPECT_LT(derived, 120) << name(path);
    EXPECT_NEAR(derived, turned, 3) << name(path);
  }
}

}  // namespace
}  // namespace gltf_crowd
