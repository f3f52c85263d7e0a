// Per-actor tints and material variants on the GPU (docs/spec.md §3.12, §5.11): a 3 × 3 crowd of
// the two-quad variant character (test/variant_assets.hpp), each actor with its own tint and
// one of three variants or none, drawn by CrowdRenderer with storage buffers and textures (and
// on OpenGL ES) and by ReferenceRenderer. Independently of both renderers' tint and variant
// code, the same picture is drawn from a second asset in which every actor's quads are separate
// nodes whose materials already hold base color × tint: all images must agree. Draws: one per
// primitive group plus one per extra (group, material) partition, never one per actor; tints
// are uploaded only when they change.
#include <array>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "image_compare.hpp"
#include "test_support.hpp"
#include "variant_assets.hpp"

namespace gltf_crowd {
namespace {

constexpr std::uint32_t width = 160;
constexpr std::uint32_t height = 120;
constexpr std::size_t kActors = 9;

// Orthographic, from +z: x ∈ [-6, 6], y ∈ [-4.5, 4.5] fill the image; frontal light.
Camera camera() {
  Camera c;
  c.projection = glm::ortho(-6.0f, 6.0f, -4.5f, 4.5f, -10.0f, 10.0f);
  c.light_direction = {0.0f, 0.0f, -1.0f};
  return c;
}

glm::vec3 position(std::size_t actor) {
  return {-3.6f + 3.6f * static_cast<float>(actor % 3), 2.9f - 2.9f * static_cast<float>(actor / 3), 0.0f};
}
glm::vec4 tint(std::size_t actor) {
  const auto i = static_cast<float>(actor);
  return {0.4f + 0.06f * i, 1.0f - 0.07f * i, 0.5f + 0.05f * i, 1.0f};
}
// Actor i's variant: i mod 4, where 3 is none.
const char* variant(std::size_t actor) {
  static const char* names[] = {"Red", "Green", "Blue", ""};
  return names[actor % 4];
}

struct Scene {
  std::unique_ptr<Crowd> crowd;
  std::vector<Actor> actors;
};

Scene make_scene() {
  Scene scene;
  scene.crowd = std::make_unique<Crowd>(test::variant_asset(), CrowdOptions{.capacity = kActors});
  std::vector<ActorOptions> options(kActors);
  for (std::size_t i = 0; i < kActors; ++i) options[i].transform = glm::translate(glm::mat4(1.0f), position(i));
  scene.actors = scene.crowd->add_actors(options);
  for (std::size_t i = 0; i < kActors; ++i) {
    scene.actors[i].set_tint(tint(i));
    scene.actors[i].set_material_variant(variant(i));
  }
  scene.crowd->update(0.0f);
  return scene;
}

// The oracle of the oracle: one actor of an asset whose quads are every actor's, each with the
// material its variant selects, its base color already multiplied by the tint.
std::shared_ptr<const Asset> baked_asset() {
  nlohmann::json materials = nlohmann::json::array();
  std::vector<test::QuadSpec> quads;
  for (std::size_t i = 0; i < kActors; ++i) {
    const int upper = i % 4 == 3 ? 0 : static_cast<int>(i % 4) + 1;
    quads.push_back(
        {.translation = position(i) + glm::vec3(0, 0.6f, 0), .material = static_cast<int>(materials.size())});
    materials.push_back(test::flat_material(test::kVariantColors[static_cast<std::size_t>(upper)] * tint(i)));
    quads.push_back(
        {.translation = position(i) - glm::vec3(0, 0.6f, 0), .material = static_cast<int>(materials.size())});
    materials.push_back(test::flat_material(test::kVariantColors[4] * tint(i)));
  }
  return test::quad_asset(quads, materials);
}

enum class Path { storage, texture, reference };

// `cached`: with CrowdRendererOptions::skinned_vertex_cache, whose rows follow the instances'
// order as the variants partition it.
test::Image draw(const Crowd& crowd, Path path, RenderStats* stats = nullptr, bool cached = false) {
  Framebuffer target({.width = width, .height = height});
  target.clear({0.0f, 0.0f, 0.0f, 1.0f});
  if (path == Path::reference) {
    ReferenceRenderer renderer(crowd);
    renderer.draw(crowd, camera());
    if (stats) *stats = renderer.stats();
  } else {
    CrowdRenderer renderer(crowd,
                           {.palette = path == Path::storage ? PaletteStorage::storage_buffer : PaletteStorage::texture,
                            .skinned_vertex_cache = cached});
    renderer.draw(crowd, camera());
    if (stats) *stats = renderer.stats();
  }
  return {width, height, target.read_pixels()};
}

// One draw_depth of `crowd` into a fresh target (cleared to depth 1), read back.
std::vector<float> draw_depth(const Crowd& crowd, Path path, bool cached) {
  Framebuffer target({.width = width, .height = height});
  target.clear({0.0f, 0.0f, 0.0f, 1.0f});
  if (path == Path::reference) {
    ReferenceRenderer renderer(crowd);
    renderer.draw_depth(crowd, camera());
  } else {
    CrowdRenderer renderer(crowd,
                           {.palette = path == Path::storage ? PaletteStorage::storage_buffer : PaletteStorage::texture,
                            .skinned_vertex_cache = cached});
    renderer.draw_depth(crowd, camera());
  }
  std::vector<float> depth(std::size_t{width} * height);
  target.bind();
  glReadPixels(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height), GL_DEPTH_COMPONENT, GL_FLOAT,
               depth.data());
  return depth;
}

// The depth at the pixel of `world` (as pixel(): row 0 at the top of the image).
float depth_at(const std::vector<float>& depth, glm::vec3 world) {
  const auto x = static_cast<std::size_t>((world.x + 6.0f) / 12.0f * width);
  const auto y = static_cast<std::size_t>((4.5f - world.y) / 9.0f * height);
  return depth[(height - 1 - y) * width + x];  // glReadPixels starts at the bottom row
}

std::array<int, 3> pixel(const test::Image& image, glm::vec3 world) {
  const auto x = static_cast<std::size_t>((world.x + 6.0f) / 12.0f * width);
  const auto y = static_cast<std::size_t>((4.5f - world.y) / 9.0f * height);  // row 0 at the top
  const std::size_t i = (y * width + x) * 4;
  return {image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]};
}

TEST(AppearanceGl, TintsAndVariantsMatchTheReferenceAndABakedAsset) {
  const Scene scene = make_scene();
  const Crowd& crowd = *scene.crowd;
  const auto dir = test::scratch_dir("appearance_gl");
  HeadlessContext context({.debug = true});
  RenderStats stats;
  const test::Image reference = draw(crowd, Path::reference, &stats);
  write_png(dir / "reference.png", width, height, reference.rgba);
  EXPECT_EQ(stats.draws, 2 * kActors) << "the reference draws every actor separately";

  // Independent of every tint and variant code path: the baked asset, drawn by both renderers.
  const auto baked = baked_asset();
  Crowd baked_crowd(baked, {.capacity = 1});
  baked_crowd.add_actor();
  baked_crowd.update(0.0f);
  const test::Image expected = draw(baked_crowd, Path::reference);
  write_png(dir / "baked.png", width, height, expected.rgba);
  EXPECT_TRUE(test::images_agree(dir, "reference_vs_baked", reference, expected));

  for (const bool cached : {false, true}) {
    for (const Path path : {Path::storage, Path::texture}) {
      const std::string name = std::string(path == Path::storage ? "storage" : "texture") + (cached ? "_cached" : "");
      const test::Image image = draw(crowd, path, &stats, cached);
      EXPECT_TRUE(test::images_agree(dir, name, image, reference));
      EXPECT_TRUE(test::images_agree(dir, name + "_vs_baked", image, expected));
      // Two groups (the quads); the upper one's actors select four materials (three variants and
      // the default): three extra draws, never one per actor.
      EXPECT_EQ(stats.draws, 5u) << name;
      EXPECT_EQ(stats.variant_draws, 3u) << name;
      EXPECT_EQ(stats.instances, 2 * kActors) << name;
      EXPECT_EQ(stats.cached_vertices, cached ? 2 * kActors * 4 : 0u) << name << ": two quads of 4 vertices per actor";
    }
  }
  // What the variants do, by eye: actor 0's upper quad (Red, × tint (0.4, 1, 0.5): brown) is
  // mostly red, actor 1's (Green) green, actor 2's (Blue) blue.
  const auto red = pixel(reference, position(0) + glm::vec3(0, 0.6f, 0));
  EXPECT_GT(red[0], red[1] + 30);
  EXPECT_GT(red[0], red[2] + 60);
  const auto green = pixel(reference, position(1) + glm::vec3(0, 0.6f, 0));
  EXPECT_GT(green[1], green[0] + 60);
  const auto blue = pixel(reference, position(2) + glm::vec3(0, 0.6f, 0));
  EXPECT_GT(blue[2], blue[0] + 60);
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

TEST(AppearanceGl, OpenGlEsTexturePathAgrees) {
  const Scene scene = make_scene();
  test::Image reference;
  {
    HeadlessContext context;
    reference = draw(*scene.crowd, Path::reference);
  }
  HeadlessContext context({.api = GlApi::gles30, .debug = true});
  EXPECT_TRUE(test::images_agree(test::scratch_dir("appearance_gl_es"), "es_texture", draw(*scene.crowd, Path::texture),
                                 reference));
  EXPECT_EQ(context.debug_error_count(), 0u);
}

// With Animation::gpu the compute passes write the rows and the draws read the same tints and
// variants: the images still match the reference.
TEST(AppearanceGl, GpuAnimationDrawsTheSameTintsAndVariants) {
  Scene scene = make_scene();
  Crowd& crowd = *scene.crowd;
  const auto dir = test::scratch_dir("appearance_gl_gpu");
  HeadlessContext context({.debug = true});
  const test::Image reference = draw(crowd, Path::reference);
  crowd.set_animation(Animation::gpu);
  for (const Path path : {Path::storage, Path::texture}) {
    RenderStats stats;
    EXPECT_TRUE(
        test::images_agree(dir, path == Path::storage ? "storage" : "texture", draw(crowd, path, &stats), reference));
    EXPECT_EQ(stats.variant_draws, 3u);
  }
  EXPECT_EQ(context.debug_error_count(), 0u);
}

// The tint's alpha multiplies the base alpha before the MASK cutoff (docs/spec.md §3.12): a
// MASK quad of alpha 0.8 (cutoff 0.5) disappears under a tint alpha of 0.5 (0.4 < 0.5) and stays
// under 0.75 (0.6), in every path.
TEST(AppearanceGl, TintAlphaReachesTheMaskCutoff) {
  const auto asset = test::quad_asset(
      {{}}, nlohmann::json::array(
                {{{"alphaMode", "MASK"},
                  {"alphaCutoff", 0.5},
                  {"pbrMetallicRoughness", {{"baseColorFactor", {1, 1, 1, 0.8}}, {"metallicFactor", 0}}}}}));
  Crowd crowd(asset, {.capacity = 2});
  std::vector<Actor> actors =
      crowd.add_actors(std::vector<ActorOptions>{{.transform = glm::translate(glm::mat4(1.0f), glm::vec3(-3, 0, 0))},
                                                 {.transform = glm::translate(glm::mat4(1.0f), glm::vec3(3, 0, 0))}});
  actors[0].set_tint({1.0f, 1.0f, 1.0f, 0.5f});
  actors[1].set_tint({1.0f, 1.0f, 1.0f, 0.75f});
  crowd.update(0.0f);
  HeadlessContext context;
  for (const Path path : {Path::storage, Path::texture, Path::reference}) {
    const test::Image image = draw(crowd, path);
    EXPECT_EQ(pixel(image, {-3, 0, 0}), (std::array<int, 3>{0, 0, 0})) << static_cast<int>(path) << ": discarded";
    EXPECT_GT(pixel(image, {3, 0, 0})[0], 100) << static_cast<int>(path) << ": kept";
  }
  // The depth pass cuts out the same (its shadow has the same hole), with and without the
  // skinned-vertex cache.
  for (const Path path : {Path::storage, Path::texture, Path::reference}) {
    for (const bool cached : {false, true}) {
      if (path == Path::reference && cached) continue;
      const std::vector<float> depth = draw_depth(crowd, path, cached);
      const std::string what = std::to_string(static_cast<int>(path)) + (cached ? " cached" : "");
      EXPECT_EQ(depth_at(depth, {-3, 0, 0}), 1.0f) << what << ": discarded";
      EXPECT_LT(depth_at(depth, {3, 0, 0}), 1.0f) << what << ": kept";
    }
  }
}

// A variant may select a BLEND material: that partition of the group draws in the blended pass,
// after every opaque draw, as the reference draws that actor.
TEST(AppearanceGl, AVariantsBlendedMaterialDrawsInTheBlendedPass) {
  const auto asset = test::quad_asset(
      {{.variant_mappings = nlohmann::json::array({{{"material", 1}, {"variants", {0}}}})},
       {.translation = {0.0f, 0.0f, -1.0f}, .material = 2}},
      nlohmann::json::array(
          {test::flat_material({1.0f, 0.2f, 0.2f, 1.0f}),
           {{"alphaMode", "BLEND"},
            {"pbrMetallicRoughness", {{"baseColorFactor", {0.2, 1.0, 0.2, 0.5}}, {"metallicFactor", 0}}}},
           test::flat_material({0.2f, 0.2f, 1.0f, 1.0f})}),
      {}, nullptr, nlohmann::json::array({{{"name", "Glass"}}}));
  Crowd crowd(asset, {.capacity = 2});
  std::vector<Actor> actors =
      crowd.add_actors(std::vector<ActorOptions>{{.transform = glm::translate(glm::mat4(1.0f), glm::vec3(-3, 0, 0))},
                                                 {.transform = glm::translate(glm::mat4(1.0f), glm::vec3(3, 0, 0))}});
  actors[1].set_material_variant("Glass");
  actors[1].set_tint({1.0f, 1.0f, 1.0f, 0.8f});
  crowd.update(0.0f);
  HeadlessContext context;
  const auto dir = test::scratch_dir("appearance_gl_blend");
  const test::Image reference = draw(crowd, Path::reference);
  for (const Path path : {Path::storage, Path::texture}) {
    RenderStats stats;
    const test::Image image = draw(crowd, path, &stats);
    EXPECT_TRUE(test::images_agree(dir, path == Path::storage ? "storage" : "texture", image, reference));
    EXPECT_EQ(stats.draws, 3u);
    EXPECT_EQ(stats.variant_draws, 1u);
    const auto glass = pixel(image, {3, 0, 0});
    EXPECT_GT(glass[1], 60) << "green glass";
    EXPECT_GT(glass[2], 40) << "over the blue quad behind it";
  }
}

// One material for every actor splits nothing, whichever it is; a changed tint uploads 16 bytes.
TEST(AppearanceGl, DrawsSplitOnlyWhenActorsDifferAndTintsUploadOnlyWhenChanged) {
  Scene scene = make_scene();
  Crowd& crowd = *scene.crowd;
  HeadlessContext context;
  Framebuffer target({.width = width, .height = height});
  for (const PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    SCOPED_TRACE(palette_storage_name(storage));
    CrowdRenderer renderer(crowd, {.palette = storage});
    for (Actor& a : scene.actors) a.set_material_variant("Blue");
    EXPECT_EQ(renderer.draw(crowd, camera()), 2u);
    EXPECT_EQ(renderer.stats().variant_draws, 0u);
    for (Actor& a : scene.actors) a.clear_material_variant();
    EXPECT_EQ(renderer.draw(crowd, camera()), 2u);
    EXPECT_EQ(renderer.draw(crowd, camera()), 2u);
    EXPECT_EQ(renderer.stats().upload_bytes, 0u) << "nothing changed";
    scene.actors[4].set_tint({1.0f, 0.0f, 0.0f, 1.0f});
    renderer.draw(crowd, camera());
    EXPECT_EQ(renderer.stats().upload_bytes, 16u) << "one tint";
    crowd.update(0.1f);
    crowd.update(0.1f);
    renderer.draw(crowd, camera());
    const std::uint64_t rows_only = renderer.stats().upload_bytes;
    scene.actors[4].set_tint({0.0f, 1.0f, 0.0f, 1.0f});
    crowd.update(0.1f);
    renderer.draw(crowd, camera());
    EXPECT_EQ(renderer.stats().upload_bytes, rows_only + 16u) << "updates upload no tints";
    scene.actors[8].set_material_variant("Red");  // one actor differs: one extra draw
    EXPECT_EQ(renderer.draw(crowd, camera()), 3u);
    EXPECT_EQ(renderer.stats().variant_draws, 1u);
    scene.actors[8].clear_material_variant();
  }
}

}  // namespace
}  // namespace gltf_crowd
