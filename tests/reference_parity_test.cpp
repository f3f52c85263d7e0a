// The instanced images agree with the reference path on real assets (docs/spec.md §4, §6): for
// each asset a crowd of actors with mixed clips, phases, speeds, crossfades and some
// mirrored placements is drawn by CrowdRenderer with storage buffers and with textures (OpenGL
// 4.5 core and OpenGL ES), and by ReferenceRenderer, which skins and morphs on the CPU from
// Actor::node_world and Actor::morph_weights. At most 0.5% of the pixels may differ by more than
// 2/255. A deliberately broken palette or zeroed morph weights must fail the same comparison.
// The OpenGL 3.3 and ES 3.0 capped contexts run through the tool (render_test.cpp), since Mesa
// reads its version override once per process.
//
// The depth pass (CrowdRenderer::draw_depth) is judged the same way: its depth buffer against
// ReferenceRenderer::draw_depth's, with the GPU evaluator too, and the color buffer untouched.
#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <epoxy/gl.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "asset/glb.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"
#include "image_compare.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

constexpr std::uint32_t width = 160;
constexpr std::uint32_t height = 120;
constexpr std::uint8_t background[3] = {26, 31, 41};

struct AssetCase {
  const char* name;
  const char* file;  // under ../shared/assets
  std::uint32_t actors;
};

const AssetCase robot{"RobotExpressive", "threejs/RobotExpressive.glb", 20};
const AssetCase cesium_man{"CesiumMan", "khronos/CesiumMan.glb", 6};
const AssetCase fox{"Fox", "khronos/Fox.glb", 6};
const AssetCase negative_scale{"NegativeScaleTest", "khronos/NegativeScaleTest.glb", 4};
const AssetCase morph_cube{"AnimatedMorphCube", "lumagl/AnimatedMorphCube.glb", 6};
const AssetCase morph_stress{"MorphStressTest", "khronos/MorphStressTest/MorphStressTest.gltf", 6};

// gtest prints parameters of failing tests with this.
void PrintTo(const AssetCase& c, std::ostream* os) { *os << c.name; }

struct Box {
  glm::vec3 min{std::numeric_limits<float>::max()};
  glm::vec3 max{std::numeric_limits<float>::lowest()};
  void add(const glm::vec3& p) {
    min = glm::min(min, p);
    max = glm::max(max, p);
  }
};

// Bounds of one actor's current pose: rigid primitives' boxes by world(node), skinned vertices
// by Σ w · world(joint) · IBM (glTF 2.0 §3.7.3). Only for framing the camera.
void add_actor(Box& box, const Crowd& crowd, const Actor& actor) {
  const Asset& asset = crowd.asset();
  for (const PrimitiveGroup& group : crowd.primitive_groups()) {
    const Primitive& p = asset.meshes[group.mesh].primitives[group.primitive];
    const std::int32_t skin = asset.nodes[group.source_node].skin;
    if (group.joint_count == 0 || skin < 0) {
      const glm::mat4 world = actor.node_world(group.source_node);
      for (int corner = 0; corner < 8; ++corner) {
        box.add(glm::vec3(world * glm::vec4(corner & 1 ? p.max.x : p.min.x, corner & 2 ? p.max.y : p.min.y,
                                            corner & 4 ? p.max.z : p.min.z, 1.0f)));
      }
      continue;
    }
    const Skin& s = asset.skins[static_cast<std::size_t>(skin)];
    std::vector<glm::mat4> joints(s.joints.size());
    for (std::size_t j = 0; j < joints.size(); ++j) {
      joints[j] = actor.node_world(s.joints[j]) * s.inverse_bind_matrices[j];
    }
    for (std::size_t v = 0; v < p.vertex_count(); ++v) {
      glm::mat4 m(0.0f);
      for (int k = 0; k < 4; ++k) {
        m += p.weights0[v][k] * joints[p.joints0[v][k]];
        if (!p.joints1.empty()) m += p.weights1[v][k] * joints[p.joints1[v][k]];
      }
      box.add(glm::vec3(m * glm::vec4(p.positions[v], 1.0f)));
    }
  }
}

struct Scene {
  std::unique_ptr<Crowd> crowd;
  Camera camera;
};

// `c.actors` actors on a grid spaced by one actor's footprint; actor i plays clip i mod clips
// at phase 0.37·i mod 1 and speed 0.8 + 0.15·(i mod 4), every third one is mirrored in x, and
// every fourth is caught mid-crossfade into the next clip. The camera frames them from the
// front and above.
// With `asset`, that asset in place of c.file's.
Scene make_scene(const AssetCase& c, std::shared_ptr<const Asset> asset = nullptr) {
  if (!asset) asset = std::make_shared<const Asset>(load_asset(test::asset_path(c.file)));
  Box one;
  {
    Crowd probe(asset, {.capacity = 1});
    add_actor(one, probe, probe.add_actor());
  }
  const glm::vec3 size = one.max - one.min;
  const float spacing = 1.3f * std::max({size.x, size.z, 0.25f * size.y});
  const auto columns = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<float>(c.actors))));
  const std::size_t clips = asset->clips.size();
  std::vector<ActorOptions> options(c.actors);
  for (std::uint32_t i = 0; i < c.actors; ++i) {
    ActorOptions& o = options[i];
    if (clips > 0) o.clip = asset->clips[i % clips].name;
    o.phase = std::fmod(0.37f * static_cast<float>(i), 1.0f);
    o.speed = 0.8f + 0.15f * static_cast<float>(i % 4);
    const glm::vec3 cell(static_cast<float>(i % columns) * spacing, 0.0f, static_cast<float>(i / columns) * spacing);
    o.transform = glm::translate(glm::mat4(1.0f), cell - 0.5f * (one.min + one.max));
    if (i % 3 == 2) o.transform = o.transform * glm::scale(glm::mat4(1.0f), glm::vec3(-1, 1, 1));
  }
  Scene scene;
  scene.crowd = std::make_unique<Crowd>(asset, CrowdOptions{.capacity = c.actors});
  Crowd& crowd = *scene.crowd;
  std::vector<Actor> actors = crowd.add_actors(options);
  crowd.update(0.4f);
  for (std::uint32_t i = 1; i < c.actors && clips > 1; i += 4) {
    actors[i].select_clip(asset->clips[(i + 1) % clips].name, {.crossfade_seconds = 0.5f});
  }
  crowd.update(0.25f);

  Box all;
  for (const Actor& actor : actors) add_actor(all, crowd, actor);
  const glm::vec3 center = 0.5f * (all.min + all.max);
  const float radius = 0.5f * glm::length(all.max - all.min);
  const float fov = glm::radians(40.0f);
  const float distance = 0.75f * radius / std::tan(0.5f * fov);  // crops the sphere a little
  const glm::vec3 eye = center + distance * glm::normalize(glm::vec3(0.0f, 0.6f, 1.0f));
  scene.camera.view = glm::lookAt(eye, center, glm::vec3(0, 1, 0));
  scene.camera.projection =
      glm::perspective(fov, static_cast<float>(width) / height, std::max(distance - 1.5f * radius, 0.01f * distance),
                       distance + 1.5f * radius);
  return scene;
}

// The crowd drawn into a fresh target: by CrowdRenderer with `storage`, or by the reference
// path when `storage` is empty.
test::Image draw(const Crowd& crowd, const Camera& camera, std::optional<PaletteStorage> storage) {
  Framebuffer target({.width = width, .height = height});
  target.clear(glm::vec4(background[0], background[1], background[2], 255.0f) / 255.0f);
  std::size_t groups = 0;
  for (const PrimitiveGroup& g : crowd.primitive_groups()) groups += g.instances.empty() ? 0 : 1;
  if (storage) {
    CrowdRenderer renderer(crowd, {.palette = *storage});
    EXPECT_EQ(renderer.palette_storage(), *storage);
    EXPECT_EQ(renderer.draw(crowd, camera), groups);
  } else {
    ReferenceRenderer renderer(crowd);
    EXPECT_EQ(renderer.draw(crowd, camera), groups * crowd.actor_count());
  }
  return {width, height, target.read_pixels()};
}

// One main pass of an existing renderer into a fresh target cleared to the background.
test::Image draw_with(CrowdRenderer& renderer, const Crowd& crowd, const Camera& camera) {
  Framebuffer target({.width = width, .height = height});
  target.clear(glm::vec4(background[0], background[1], background[2], 255.0f) / 255.0f);
  renderer.draw(crowd, camera);
  return {width, height, target.read_pixels()};
}

// Window-space depth of the bound target (desktop OpenGL: glReadPixels of the depth buffer).
std::vector<float> read_depth(const Framebuffer& target) {
  target.bind();
  std::vector<float> depth(std::size_t{target.width()} * target.height());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, static_cast<GLsizei>(target.width()), static_cast<GLsizei>(target.height()), GL_DEPTH_COMPONENT,
               GL_FLOAT, depth.data());
  return depth;
}

// Groups draw_depth draws: the non-empty ones whose material is not BLEND (glTF 2.0 §3.9.4).
std::size_t depth_groups(const Crowd& crowd) {
  std::size_t groups = 0;
  const Asset& asset = crowd.asset();
  for (const PrimitiveGroup& g : crowd.primitive_groups()) {
    const std::int32_t m = asset.meshes[g.mesh].primitives[g.primitive].material;
    const bool blended = m >= 0 && asset.materials[static_cast<std::size_t>(m)].alpha_mode == AlphaMode::blend;
    groups += g.instances.empty() || blended ? 0 : 1;
  }
  return groups;
}

// One depth pass into a fresh target (the reference path when `renderer` is a
// ReferenceRenderer). The color buffer is cleared to the background first and must keep it.
template <class Renderer>
std::vector<float> draw_depth(Renderer& renderer, const Crowd& crowd, const Camera& camera, std::uint32_t draws) {
  Framebuffer target({.width = width, .height = height});
  target.clear(glm::vec4(background[0], background[1], background[2], 255.0f) / 255.0f);
  EXPECT_EQ(renderer.draw_depth(crowd, camera), draws);
  GLboolean mask[4] = {};
  glGetBooleanv(GL_COLOR_WRITEMASK, mask);
  EXPECT_TRUE(mask[0] && mask[1] && mask[2] && mask[3]) << "the color mask was not restored";
  EXPECT_EQ(test::foreground_fraction({width, height, target.read_pixels()}, background), 0.0)
      << "the depth pass wrote color";
  return read_depth(target);
}

// Fraction of pixels whose depths differ by more than `tolerance` (window depth in [0, 1]; a
// pixel covered in one image and not in the other differs by the background's 1).
double depth_differing_fraction(const std::vector<float>& a, const std::vector<float>& b, float tolerance) {
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differing += std::abs(a[i] - b[i]) > tolerance ? 1 : 0;
  return static_cast<double>(differing) / static_cast<double>(a.size());
}

double covered_fraction(const std::vector<float>& depth) {
  return static_cast<double>(std::count_if(depth.begin(), depth.end(), [](float d) { return d < 1.0f; })) /
         static_cast<double>(depth.size());
}

class ReferenceParity : public ::testing::TestWithParam<AssetCase> {};

INSTANTIATE_TEST_SUITE_P(Assets, ReferenceParity,
                         ::testing::Values(robot, cesium_man, fox, negative_scale, morph_cube, morph_stress),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST_P(ReferenceParity, InstancedImagesMatchTheReference) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const AssetCase& c = GetParam();
  const Scene scene = make_scene(c);
  const Crowd& crowd = *scene.crowd;
  const auto dir = test::scratch_dir(std::string("parity_") + c.name);
  test::Image reference;
  {
    HeadlessContext context({.debug = true});
    reference = draw(crowd, scene.camera, std::nullopt);
    write_png(dir / "reference.png", width, height, reference.rgba);
    // Something must be on screen for the comparison to mean anything.
    EXPECT_GT(test::foreground_fraction(reference, background), 0.03) << dir / "reference.png";
    EXPECT_TRUE(
        test::images_agree(dir, "storage", draw(crowd, scene.camera, PaletteStorage::storage_buffer), reference));
    EXPECT_TRUE(test::images_agree(dir, "texture", draw(crowd, scene.camera, PaletteStorage::texture), reference));
    EXPECT_EQ(context.debug_error_count(), 0u)
        << (context.debug_errors().empty() ? "" : context.debug_errors().front());
  }
  EXPECT_EQ(gl_object_count(), 0u);
  {
    HeadlessContext context({.api = GlApi::gles30, .debug = true});
    EXPECT_TRUE(test::images_agree(dir, "es_texture", draw(crowd, scene.camera, PaletteStorage::texture), reference));
    EXPECT_EQ(context.debug_error_count(), 0u)
        << (context.debug_errors().empty() ? "" : context.debug_errors().front());
  }
  EXPECT_EQ(gl_object_count(), 0u);
}

// The depth pass of both storages, and of the GPU evaluator, against the reference path's depth
// pass: at most 0.5 % of the pixels (as for color) may differ by more than 1e-4 in window depth.
// A GPU crowd's depth pass followed by its main pass runs the compute passes once (the second
// reports no animation time) and an update in between is seen by the next pass.
TEST_P(ReferenceParity, DepthPassMatchesTheReference) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const AssetCase& c = GetParam();
  Scene scene = make_scene(c);
  Crowd& crowd = *scene.crowd;
  constexpr float tolerance = 1e-4f;
  constexpr double bound = 0.005;
  HeadlessContext context({.debug = true});
  const std::size_t groups = depth_groups(crowd);
  const auto check = [&](const char* what, const std::vector<float>& depth, const std::vector<float>& reference) {
    const double differing = depth_differing_fraction(depth, reference, tolerance);
    EXPECT_LE(differing, bound) << c.name << " " << what;
  };
  std::vector<float> reference;
  {
    ReferenceRenderer renderer(crowd);
    reference = draw_depth(renderer, crowd, scene.camera, static_cast<std::uint32_t>(groups * crowd.actor_count()));
  }
  EXPECT_GT(covered_fraction(reference), 0.03);
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    CrowdRenderer renderer(crowd, {.palette = storage});
    check(palette_storage_name(storage), draw_depth(renderer, crowd, scene.camera, static_cast<std::uint32_t>(groups)),
          reference);
    // The main pass writes the same depth where it draws opaque and MASK surfaces.
    Framebuffer target({.width = width, .height = height});
    target.clear(glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
    renderer.draw(crowd, scene.camera);
    check("main pass", read_depth(target), reference);
  }

  crowd.set_animation(Animation::gpu);
  CrowdRenderer renderer(crowd, {.time_animation = true});
  check("gpu", draw_depth(renderer, crowd, scene.camera, static_cast<std::uint32_t>(groups)), reference);
  EXPECT_GE(renderer.stats().animation_ms, 0.0) << "the depth pass evaluated the poses";
  {
    Framebuffer target({.width = width, .height = height});
    target.clear(glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
    renderer.draw(crowd, scene.camera);
    EXPECT_EQ(renderer.stats().animation_ms, -1.0) << "the main pass evaluated the same poses again";
    check("gpu main pass", read_depth(target), reference);
  }
  crowd.update(0.3f);
  const std::vector<float> moved = draw_depth(renderer, crowd, scene.camera, static_cast<std::uint32_t>(groups));
  const bool animated = !crowd.asset().clips.empty();  // NegativeScaleTest has no clip: nothing changes
  if (animated) {
    EXPECT_GE(renderer.stats().animation_ms, 0.0);
  }
  crowd.set_animation(Animation::cpu);
  ReferenceRenderer after(crowd);
  const std::vector<float> moved_reference =
      draw_depth(after, crowd, scene.camera, static_cast<std::uint32_t>(groups * crowd.actor_count()));
  check("gpu after update", moved, moved_reference);
  if (animated) {
    EXPECT_GT(depth_differing_fraction(moved_reference, reference, tolerance), bound) << "nothing moved";
  }
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// The skinned-vertex cache (CrowdRendererOptions::skinned_vertex_cache, docs/spec.md §6.9) on
// both storages, the GPU evaluator and ES 3.0: the depth pass skins into the cache and matches
// the reference's depth; the main pass then reuses it (no vertex skinned again) and matches the
// reference's image; after an update, and after an update with an actor's removal (the last
// actor moves into its slot), the next pass skins again and matches the reference of that frame.
TEST_P(ReferenceParity, SkinnedVertexCacheMatchesTheReference) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const AssetCase& c = GetParam();
  const auto dir = test::scratch_dir(std::string("skinned_vertex_cache_") + c.name);
  constexpr float tolerance = 1e-4f;
  constexpr double bound = 0.005;
  struct Frame {
    test::Image color;
    std::vector<float> depth;
  };
  // Frame 1 advances the clocks (the streams change, the slot lists do not); frame 2 also
  // removes an actor.
  const auto next_frame = [](Crowd& crowd, int frame) {
    crowd.update(0.3f);
    if (frame == 2 && crowd.actor_count() > 1) crowd.remove_actor(crowd.actors().front().id());
  };
  Scene scene = make_scene(c);
  const auto reference_frame = [&](const Crowd& crowd) {
    HeadlessContext context;
    ReferenceRenderer renderer(crowd);
    Frame f;
    f.depth = draw_depth(renderer, crowd, scene.camera,
                         static_cast<std::uint32_t>(depth_groups(crowd) * crowd.actor_count()));
    f.color = draw(crowd, scene.camera, std::nullopt);
    return f;
  };
  std::vector<Frame> frames;
  for (int frame = 0; frame < 3; ++frame) {
    if (frame > 0) next_frame(*scene.crowd, frame);
    frames.push_back(reference_frame(*scene.crowd));
  }
  if (!scene.crowd->asset().clips.empty()) {
    EXPECT_GT(depth_differing_fraction(frames[0].depth, frames[1].depth, tolerance), bound) << "nothing moved";
  }
  // Vertices the cache holds for the crowd as it is: Σ instances × primitive vertices.
  const auto vertices = [](const Crowd& crowd) {
    std::uint64_t n = 0;
    for (const PrimitiveGroup& g : crowd.primitive_groups())
      n += g.instances.size() * crowd.asset().meshes[g.mesh].primitives[g.primitive].vertex_count();
    return n;
  };
  // ES reads no depth buffer back: there the depth pass only fills the cache.
  // `skins`: the frame changed what the cache holds, so the depth pass must skin every vertex
  // again (else it must skin none: NegativeScaleTest has no clip, an update changes no row; the
  // GPU evaluator runs again after any update, and the cache follows it).
  const auto check = [&](CrowdRenderer& renderer, const Crowd& crowd, const Frame& reference, const std::string& what,
                         bool es, bool skins) {
    if (es) {
      Framebuffer depth_target({.width = width, .height = height});
      depth_target.clear(glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
      EXPECT_EQ(renderer.draw_depth(crowd, scene.camera), depth_groups(crowd));
    } else {
      EXPECT_LE(depth_differing_fraction(
                    draw_depth(renderer, crowd, scene.camera, static_cast<std::uint32_t>(depth_groups(crowd))),
                    reference.depth, tolerance),
                bound)
          << c.name << " " << what << " depth";
    }
    EXPECT_EQ(renderer.stats().cached_vertices, skins ? vertices(crowd) : 0u) << what << ": the depth pass's skinning";
    Framebuffer target({.width = width, .height = height});
    target.clear(glm::vec4(background[0], background[1], background[2], 255.0f) / 255.0f);
    renderer.draw(crowd, scene.camera);
    EXPECT_EQ(renderer.stats().cached_vertices, 0u) << what << ": the main pass reuses the cache";
    EXPECT_TRUE(test::images_agree(dir, what, {width, height, target.read_pixels()}, reference.color));
  };
  for (const bool gpu : {false, true}) {
    for (const GlApi api : {GlApi::gl43_core, GlApi::gles30}) {
      for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
        if (api == GlApi::gles30 && (gpu || storage == PaletteStorage::storage_buffer)) continue;
        Scene run = make_scene(c);  // the same crowd as `scene` had for frames[0]
        Crowd& crowd = *run.crowd;
        crowd.set_animation(gpu ? Animation::gpu : Animation::cpu);
        HeadlessContext context({.api = api, .debug = true});
        const std::string what =
            std::string(gpu ? "gpu_" : "") + (api == GlApi::gles30 ? "es_" : "") + palette_storage_name(storage);
        CrowdRenderer renderer(crowd, {.palette = storage, .skinned_vertex_cache = true});
        for (int frame = 0; frame < 3; ++frame) {
          if (frame > 0) next_frame(crowd, frame);
          check(renderer, crowd, frames[static_cast<std::size_t>(frame)], what + "_frame" + std::to_string(frame),
                api == GlApi::gles30, frame != 1 || !crowd.asset().clips.empty() || gpu);
        }
        EXPECT_EQ(context.debug_error_count(), 0u)
            << (context.debug_errors().empty() ? "" : context.debug_errors().front());
      }
    }
  }
  EXPECT_EQ(gl_object_count(), 0u);
}

// With Animation::gpu a pose override changes the evaluated poses without an update or any row
// upload: the cache must be skinned again and show it, as a renderer without the cache does.
TEST(SkinnedVertexCache, GpuPoseOverridesReachTheCache) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Scene scene = make_scene(cesium_man);
  Crowd& crowd = *scene.crowd;
  crowd.set_animation(Animation::gpu);
  HeadlessContext context({.debug = true});
  const auto dir = test::scratch_dir("skinned_vertex_cache_override");
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    CrowdRenderer cached(crowd, {.palette = storage, .skinned_vertex_cache = true});
    CrowdRenderer plain(crowd, {.palette = storage});
    const auto image = [&](CrowdRenderer& renderer) { return draw_with(renderer, crowd, scene.camera); };
    const test::Image before = image(cached);
    const std::uint32_t hips = crowd.asset().skins.at(0).joints.at(1);
    for (Actor actor : crowd.actors())
      actor.set_local_transform(hips, {.rotation = glm::angleAxis(glm::radians(90.0f), glm::vec3(1, 0, 0))});
    const test::Image after = image(cached);
    EXPECT_GT(cached.stats().cached_vertices, 0u) << "the override's evaluation skinned again";
    EXPECT_GT(test::differing_fraction(after, before), 0.01) << "the override changed nothing";
    EXPECT_TRUE(test::images_agree(dir, palette_storage_name(storage), after, image(plain)));
    for (Actor actor : crowd.actors()) actor.clear_local_transform(hips);
  }
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// Hiding every actor empties every group, and a capture then (here forced by the motion
// history's set swap, which the first draw_velocity starts) holds no rows for them. Shown again,
// the groups are captured again and the image is that of a renderer without the cache.
TEST(SkinnedVertexCache, GroupsThatWereEmptyAreCapturedAgain) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Scene scene = make_scene(cesium_man);
  Crowd& crowd = *scene.crowd;
  HeadlessContext context({.debug = true});
  const auto dir = test::scratch_dir("skinned_vertex_cache_empty");
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    CrowdRenderer cached(crowd, {.palette = storage, .skinned_vertex_cache = true});
    CrowdRenderer plain(crowd, {.palette = storage});
    const auto image = [&](CrowdRenderer& renderer) { return draw_with(renderer, crowd, scene.camera); };
    {
      Framebuffer motion({.width = width, .height = height, .color = FramebufferColor::rg16f});
      cached.draw_velocity(crowd, scene.camera, scene.camera);
    }
    for (Actor actor : crowd.actors()) actor.set_visible(false);
    crowd.update(0.1f);
    EXPECT_EQ(image(cached).rgba, image(plain).rgba) << "nothing drawn";
    EXPECT_EQ(cached.stats().cached_vertices, 0u);
    for (Actor actor : crowd.actors()) actor.set_visible(true);
    crowd.update(0.1f);
    const test::Image again = image(cached);
    EXPECT_GT(cached.stats().cached_vertices, 0u) << palette_storage_name(storage);
    EXPECT_TRUE(test::images_agree(dir, palette_storage_name(storage), again, image(plain)));
  }
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// Groups that stay empty (here the generated levels no actor uses) hold no rows and leave the
// cache valid: the main pass after the depth pass reuses it, as in a crowd without levels. It
// used to recapture every group on every pass while any group was empty.
TEST(SkinnedVertexCache, GroupsThatStayEmptyLeaveTheCacheValid) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  HeadlessContext context({.debug = true});
  Crowd crowd(asset, {.capacity = 4, .lod = {.enabled = true, .auto_generate = true}});
  crowd.add_actors(std::vector<ActorOptions>(4));
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(0.0f, 1.0f, 5.0f), glm::vec3(0.0f, 1.0f, 0.0f), glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(50.0f), static_cast<float>(width) / height, 0.1f, 100.0f);
  const LodView view{camera.view, camera.projection, width, height};
  crowd.update(0.1f, view);
  std::size_t empty = 0, used = 0;
  for (const PrimitiveGroup& g : crowd.primitive_groups()) ++(g.instances.empty() ? empty : used);
  ASSERT_GT(empty, 0u) << "the levels below level 0 are unused at this distance";
  ASSERT_GT(used, 0u);
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    CrowdRenderer renderer(crowd, {.palette = storage, .skinned_vertex_cache = true});
    Framebuffer target({.width = width, .height = height});
    for (int frame = 0; frame < 2; ++frame) {
      crowd.update(0.1f, view);
      renderer.draw_depth(crowd, camera);
      EXPECT_GT(renderer.stats().cached_vertices, 0u) << palette_storage_name(storage) << ", frame " << frame;
      renderer.draw(crowd, camera);
      EXPECT_EQ(renderer.stats().cached_vertices, 0u)
          << palette_storage_name(storage) << ", frame " << frame << ": the main pass reuses the cache";
    }
  }
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// CesiumMan with KHR_materials_variants: "Red" and "Blue" map its one primitive to copies of its
// material with a red and a blue base color factor, so a crowd of it draws in up to three
// material partitions (docs/spec.md §5.11).
std::shared_ptr<const Asset> cesium_man_with_variants() {
  std::ifstream in(test::asset_path(cesium_man.file), std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const detail::GlbChunks glb = detail::parse_glb(bytes);
  nlohmann::json doc = nlohmann::json::parse(glb.json.begin(), glb.json.end());
  nlohmann::json& materials = doc["materials"];
  const auto first = static_cast<int>(materials.size());
  for (const std::array<float, 4> color : {std::array{1.0f, 0.2f, 0.2f, 1.0f}, std::array{0.2f, 0.3f, 1.0f, 1.0f}}) {
    nlohmann::json m = materials[0];
    m["pbrMetallicRoughness"]["baseColorFactor"] = color;
    materials.push_back(m);
  }
  doc["extensionsUsed"].push_back("KHR_materials_variants");
  doc["extensions"]["KHR_materials_variants"]["variants"] = {{{"name", "Red"}}, {{"name", "Blue"}}};
  doc["meshes"][0]["primitives"][0]["extensions"]["KHR_materials_variants"]["mappings"] = {
      {{"material", first}, {"variants", {0}}}, {{"material", first + 1}, {"variants", {1}}}};
  return std::make_shared<const Asset>(load_asset_from_memory(detail::write_glb(doc.dump(), glb.bin)));
}

// A group whose cache exceeds one piece (docs/spec.md §6.9: a storage buffer of at most
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE bytes and under 2 GiB, or a texture of 2,048 × 2,048
// texels) is drawn in pieces, one draw per piece that each material partition's instances lie
// in: 1,000 CesiumMan actors skin 3,273,000 vertices, 157 MB, above llvmpipe's 128 MiB block.
// Every third actor wears "Red", every third "Blue", so partitions cross piece boundaries. The
// cache first holds a fifth of the crowd (one piece), then grows. Both passes draw the image of
// a renderer without the cache.
TEST(SkinnedVertexCache, GroupsLargerThanAPieceDrawInPieces) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Scene scene = make_scene({"CesiumMan", cesium_man.file, 1000}, cesium_man_with_variants());
  Crowd& crowd = *scene.crowd;
  {
    std::size_t i = 0;
    for (Actor actor : crowd.actors()) actor.set_material_variant(i % 3 == 0 ? "" : i % 3 == 1 ? "Red" : "Blue"), ++i;
  }
  ASSERT_EQ(crowd.primitive_groups().size(), 1u);
  // The partitions' sizes: by variant, in the order the group's slot list first meets them.
  const auto partitions = [&crowd] {
    std::vector<std::size_t> sizes;
    const auto variants = crowd.material_variants();
    std::vector<std::uint32_t> keys;
    for (std::uint32_t slot : crowd.primitive_groups()[0].instances) {
      const auto k = static_cast<std::size_t>(std::find(keys.begin(), keys.end(), variants[slot]) - keys.begin());
      if (k == keys.size()) {
        keys.push_back(variants[slot]);
        sizes.push_back(0);
      }
      ++sizes[k];
    }
    return sizes;
  };
  ASSERT_EQ(partitions().size(), 3u);
  const std::size_t vertices = crowd.asset().meshes[0].primitives[0].vertex_count();
  const std::size_t instance_bytes = vertices * 48;
  HeadlessContext context({.debug = true});
  const auto dir = test::scratch_dir("skinned_vertex_cache_pieces");
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    std::size_t piece = 0;  // instances per piece, from the rule above
    if (storage == PaletteStorage::storage_buffer) {
      GLint64 block = 0;
      glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
      piece = std::min(static_cast<std::size_t>(block), std::size_t{0x7FFFFFFF}) / instance_bytes;  // under 2 GiB
    } else {
      GLint side = 0;
      glGetIntegerv(GL_MAX_TEXTURE_SIZE, &side);
      const auto texture = static_cast<std::size_t>(std::min(side, 2048));
      piece = texture * texture / (3 * vertices);
    }
    const std::string name = palette_storage_name(storage);
    CrowdRenderer cached(crowd, {.palette = storage, .skinned_vertex_cache = true});
    CrowdRenderer plain(crowd, {.palette = storage});
    // First a fifth of the crowd (one piece), then all of it: the cache grows into more pieces.
    std::vector<Actor> actors = crowd.actors();
    for (std::size_t i = actors.size() / 5; i < actors.size(); ++i) actors[i].set_visible(false);
    crowd.update(0.0f);
    ASSERT_LE(crowd.primitive_groups()[0].instances.size(), piece);
    EXPECT_TRUE(test::images_agree(dir, name + "_fifth", draw_with(cached, crowd, scene.camera),
                                   draw_with(plain, crowd, scene.camera)));
    for (Actor actor : actors) actor.set_visible(true);
    crowd.update(0.0f);
    std::uint32_t draws = 0;  // per partition, the pieces its instances lie in
    bool crosses = false;
    for (std::size_t first = 0; const std::size_t count : partitions()) {
      const std::size_t spanned = (first + count - 1) / piece - first / piece + 1;
      draws += static_cast<std::uint32_t>(spanned);
      crosses = crosses || spanned > 1;
      first += count;
    }
    // Where a driver's storage block holds the whole crowd (NVIDIA's 2 GiB), storage is one piece.
    ASSERT_TRUE(crosses || piece >= crowd.actor_count())
        << name << ": no partition crosses a piece (piece " << piece << ")";
    {
      Framebuffer depth({.width = width, .height = height});
      EXPECT_EQ(cached.draw_depth(crowd, scene.camera), draws) << name;
      EXPECT_EQ(cached.stats().cached_vertices, crowd.actor_count() * vertices);
    }
    const test::Image image = draw_with(cached, crowd, scene.camera);
    EXPECT_EQ(cached.stats().draws, draws);
    EXPECT_EQ(cached.stats().instances, crowd.actor_count());
    EXPECT_EQ(cached.stats().cached_vertices, 0u) << "the main pass reuses the cache";
    const test::Image expected = draw_with(plain, crowd, scene.camera);
    EXPECT_EQ(plain.stats().draws, 3u);
    EXPECT_TRUE(test::images_agree(dir, name, image, expected));
  }
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// Motion vectors (docs/spec.md §6.4) of both storages and the GPU evaluator against the finite
// difference of two frames of the reference path (ReferenceRenderer::draw_velocity), over three
// frames: the first (no earlier frame: no motion), a second where the crowd advances, the camera
// turns and one actor is removed (the last moves into its slot) and one added in its place, and
// a third that advances and turns again. As for color, at most 0.5 % of the pixels may differ
// in coverage or by more than 1e-3 (texture coordinates: a sixth of a pixel here).
constexpr glm::vec2 kNoSurface{9.0f, 9.0f};  // cleared into the motion target

template <class Renderer>
std::vector<glm::vec2> draw_motion(Renderer& renderer, const Crowd& crowd, const Camera& camera,
                                   const Camera& previous) {
  Framebuffer target({.width = width, .height = height, .color = FramebufferColor::rg16f});
  target.clear(glm::vec4(kNoSurface, 0.0f, 0.0f));
  renderer.draw_velocity(crowd, camera, previous);
  return target.read_motion();
}

double motion_differing_fraction(const std::vector<glm::vec2>& a, const std::vector<glm::vec2>& b) {
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool covered = a[i] != kNoSurface;
    differing += covered != (b[i] != kNoSurface) ||
                         (covered && (std::abs(a[i].x - b[i].x) > 1e-3f || std::abs(a[i].y - b[i].y) > 1e-3f))
                     ? 1
                     : 0;
  }
  return static_cast<double>(differing) / static_cast<double>(a.size());
}

// Fraction of all pixels that show a surface moving by more than 1e-3.
double moving_fraction(const std::vector<glm::vec2>& motion) {
  return static_cast<double>(
             std::count_if(motion.begin(), motion.end(),
                           [](const glm::vec2& m) { return m != kNoSurface && glm::length(m) > 1e-3f; })) /
         static_cast<double>(motion.size());
}

TEST_P(ReferenceParity, MotionVectorsMatchTheReference) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const AssetCase& c = GetParam();
  Scene cpu = make_scene(c), gpu = make_scene(c);
  gpu.crowd->set_animation(Animation::gpu);
  HeadlessContext context({.debug = true});
  ReferenceRenderer reference(*cpu.crowd);
  CrowdRenderer storage(*cpu.crowd, {.palette = PaletteStorage::storage_buffer});
  CrowdRenderer texture(*cpu.crowd, {.palette = PaletteStorage::texture});
  CrowdRenderer evaluator(*gpu.crowd);
  Camera camera = cpu.camera, previous = cpu.camera;
  const auto frame = [&](const std::string& what, bool moving) {
    const std::vector<glm::vec2> expected = draw_motion(reference, *cpu.crowd, camera, previous);
    if (moving) {
      EXPECT_GT(moving_fraction(expected), 0.02) << what << ": nothing moved";
    } else {
      EXPECT_EQ(moving_fraction(expected), 0.0) << what;
    }
    EXPECT_LE(motion_differing_fraction(draw_motion(storage, *cpu.crowd, camera, previous), expected), 0.005)
        << what << " storage";
    EXPECT_LE(motion_differing_fraction(draw_motion(texture, *cpu.crowd, camera, previous), expected), 0.005)
        << what << " texture";
    EXPECT_LE(motion_differing_fraction(draw_motion(evaluator, *gpu.crowd, camera, previous), expected), 0.005)
        << what << " gpu";
  };
  frame("first frame", false);

  const auto turn = [&] {
    previous = camera;
    camera.view = camera.view * glm::rotate(glm::mat4(1.0f), glm::radians(1.5f), glm::vec3(0.0f, 1.0f, 0.0f));
  };
  turn();
  for (Crowd* crowd : {cpu.crowd.get(), gpu.crowd.get()}) {
    crowd->update(0.1f);
    const Actor first = crowd->actors().front();
    const glm::mat4 hole = first.transform();
    const std::string id = first.id();
    const std::string clip = crowd->asset().clips.empty() ? "" : crowd->asset().clips.back().name;
    ASSERT_TRUE(crowd->remove_actor(id));
    crowd->add_actor({.id = "newcomer", .clip = clip, .phase = 0.5f, .transform = hole});
  }
  frame("second frame", true);
  turn();
  cpu.crowd->update(0.1f);
  gpu.crowd->update(0.1f);
  frame("third frame", true);
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// Shadows (docs/spec.md §6): each renderer's depth pass from the light into a ShadowMap, then a
// GroundPlane and the crowd shaded with Camera::shadow. The instanced images on both storages
// agree with the reference path's as the unshadowed images do, and the shadows darken the ground.
test::Image draw_shadowed(const Crowd& crowd, const Camera& camera, std::optional<PaletteStorage> storage,
                          bool shadows) {
  Box all;
  for (const Actor& actor : crowd.actors()) add_actor(all, crowd, actor);
  const glm::vec3 size = all.max - all.min;
  const float margin = std::max(size.x, size.z);
  const GroundOptions ground_options{
      .center = glm::vec3(0.5f * (all.min.x + all.max.x), all.min.y, 0.5f * (all.min.z + all.max.z)),
      .half_extent = 2.0f * margin};
  ShadowMap map({.size = 1024});
  const Camera light = map.fit(camera.light_direction, all.min - glm::vec3(margin, 0.0f, margin),
                               all.max + glm::vec3(margin, 0.0f, margin));
  std::optional<CrowdRenderer> instanced;
  std::optional<ReferenceRenderer> reference;
  if (storage) {
    instanced.emplace(crowd, CrowdRendererOptions{.palette = *storage});
  } else {
    reference.emplace(crowd);
  }
  Camera shaded = camera;
  if (shadows) {
    map.begin();
    instanced ? instanced->draw_depth(crowd, light) : reference->draw_depth(crowd, light);
    map.end();
    shaded.shadow = map.sampling();
  }
  Framebuffer target({.width = width, .height = height});
  target.clear(glm::vec4(background[0], background[1], background[2], 255.0f) / 255.0f);
  GroundPlane ground;
  ground.draw(shaded, ground_options);
  instanced ? instanced->draw(crowd, shaded) : reference->draw(crowd, shaded);
  return {width, height, target.read_pixels()};
}

TEST_P(ReferenceParity, ShadowsMatchTheReference) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const AssetCase& c = GetParam();
  const Scene scene = make_scene(c);
  const Crowd& crowd = *scene.crowd;
  const auto dir = test::scratch_dir(std::string("shadows_") + c.name);
  HeadlessContext context({.debug = true});
  const test::Image reference = draw_shadowed(crowd, scene.camera, std::nullopt, true);
  write_png(dir / "reference.png", width, height, reference.rgba);
  const test::Image unshadowed = draw_shadowed(crowd, scene.camera, std::nullopt, false);
  EXPECT_GT(test::differing_fraction(reference, unshadowed, 8), 0.01) << "no shadow on the ground: " << dir;
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    EXPECT_TRUE(test::images_agree(dir, palette_storage_name(storage),
                                   draw_shadowed(crowd, scene.camera, storage, true), reference));
  }
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
  EXPECT_EQ(gl_object_count(), 0u);
}

// Each actor casts its own pose: two robots left and right seen from above with the light
// from above, only the ground and its shadows drawn (the crowd only in the depth pass). Moving
// the left robot's clock changes shadow pixels on the left only, with both storages and on the
// reference path, and the instanced shadow images agree with the reference.
TEST(Shadows, EachActorsShadowFollowsItsOwnPose) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = std::make_shared<const Asset>(load_asset(test::asset_path(robot.file)));
  Crowd crowd(asset, {.capacity = 2});
  std::vector<Actor> actors = crowd.add_actors(std::vector<ActorOptions>{
      {.clip = "Dance", .transform = glm::translate(glm::mat4(1.0f), glm::vec3(-3.0f, 0, 0))},
      {.clip = "Dance", .transform = glm::translate(glm::mat4(1.0f), glm::vec3(3.0f, 0, 0))}});
  crowd.update(0.2f);
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(0, 14, 0.01f), glm::vec3(0), glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(50.0f), 4.0f / 3.0f, 1.0f, 40.0f);
  camera.light_direction = glm::vec3(0.1f, -1.0f, 0.15f);
  HeadlessContext context({.debug = true});
  ShadowMap map({.size = 1024});
  const Camera light = map.fit(camera.light_direction, glm::vec3(-7, 0, -4), glm::vec3(7, 6, 4));
  GroundPlane ground;
  // The ground only, shaded with the shadows of the crowd's depth pass.
  const auto shadows_of = [&](auto& renderer) {
    map.begin();
    renderer.draw_depth(crowd, light);
    map.end();
    Camera shaded = camera;
    shaded.shadow = map.sampling();
    Framebuffer target({.width = width, .height = height});
    target.clear(glm::vec4(0, 0, 0, 1));
    ground.draw(shaded, {.half_extent = 12.0f, .color = glm::vec4(0.8f, 0.8f, 0.8f, 1.0f)});
    return test::Image{width, height, target.read_pixels()};
  };
  const auto dir = test::scratch_dir("shadow_per_actor");
  test::Image reference_after;
  for (int path = 0; path < 3; ++path) {
    const char* name = path == 0 ? "reference" : path == 1 ? "storage" : "texture";
    actors[0].seek(0.2f);
    std::optional<CrowdRenderer> instanced;
    std::optional<ReferenceRenderer> reference;
    if (path == 0) {
      reference.emplace(crowd);
    } else {
      instanced.emplace(
          crowd, CrowdRendererOptions{.palette = path == 1 ? PaletteStorage::storage_buffer : PaletteStorage::texture});
    }
    const auto draw = [&] { return instanced ? shadows_of(*instanced) : shadows_of(*reference); };
    const test::Image before = draw();
    actors[0].seek(1.1f);
    const test::Image after = draw();
    std::size_t left = 0, right = 0;
    for (std::size_t i = 0; i < before.rgba.size(); i += 4) {
      const bool changed = std::abs(int{before.rgba[i]} - int{after.rgba[i]}) > 2;
      ((i / 4) % width < width / 2 ? left : right) += changed ? 1 : 0;
    }
    EXPECT_GT(left, 30u) << name << ": the left robot's shadow did not move";
    EXPECT_EQ(right, 0u) << name << ": the right robot's shadow moved";
    if (left <= 30u || right != 0u) ADD_FAILURE() << test::write_difference(dir, name, after, before, 2);
    if (path == 0)
      reference_after = after;
    else
      EXPECT_TRUE(test::images_agree(dir, name, after, reference_after));
  }
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// The joint carrying the most skin weight in the first skinned group, zeroed in every actor's
// packed palette: the instanced images must now fail the comparison that passes above.
TEST(ReferenceParityBroken, ZeroedPaletteJointFailsTheComparison) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Scene scene = make_scene(cesium_man);
  const Crowd& crowd = *scene.crowd;
  const auto groups = crowd.primitive_groups();
  const auto skinned = std::find_if(groups.begin(), groups.end(),
                                    [](const PrimitiveGroup& g) { return g.palette_kind == PaletteKind::skinned; });
  ASSERT_NE(skinned, groups.end());
  const Primitive& p = crowd.asset().meshes[skinned->mesh].primitives[skinned->primitive];
  std::vector<double> load(skinned->joint_count, 0.0);
  for (std::size_t v = 0; v < p.vertex_count(); ++v) {
    for (int k = 0; k < 4; ++k) load[p.joints0[v][k]] += p.weights0[v][k];
  }
  const auto joint = static_cast<std::size_t>(std::max_element(load.begin(), load.end()) - load.begin());

  HeadlessContext context({.debug = true});
  const test::Image reference = draw(crowd, scene.camera, std::nullopt);
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    EXPECT_TRUE(test::images_agree(test::scratch_dir("parity_unbroken"), "unbroken", draw(crowd, scene.camera, storage),
                                   reference));
  }
  // The streams are the crowd's own arrays; draw() uploads them as they are (no update here).
  auto& stream = const_cast<NodeStream&>(crowd.node_streams()[crowd.node_streams()[skinned->stream].palette_stream]);
  for (std::size_t slot = 0; slot < crowd.actor_count(); ++slot) {
    std::fill_n(stream.palette.begin() + static_cast<std::ptrdiff_t>((slot * stream.joint_count + joint) * 3), 3,
                glm::vec4(0.0f));
  }
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    EXPECT_GT(test::differing_fraction(draw(crowd, scene.camera, storage), reference), 0.005)
        << palette_storage_name(storage) << ": zeroing joint " << joint << " went unnoticed";
  }
  EXPECT_EQ(context.debug_error_count(), 0u);
}

// The same for morph targets: with every packed morph weight zeroed, MorphStressTest's bars stop
// following each actor's clip and the comparison fails.
TEST(ReferenceParityBroken, ZeroedMorphWeightsFailTheComparison) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Scene scene = make_scene(morph_stress);
  const Crowd& crowd = *scene.crowd;
  HeadlessContext context({.debug = true});
  const test::Image reference = draw(crowd, scene.camera, std::nullopt);
  for (const NodeStream& s : crowd.node_streams()) {
    std::fill(const_cast<NodeStream&>(s).weights.begin(), const_cast<NodeStream&>(s).weights.end(), 0.0f);
  }
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    EXPECT_GT(test::differing_fraction(draw(crowd, scene.camera, storage), reference), 0.005)
        << palette_storage_name(storage);
  }
  EXPECT_EQ(context.debug_error_count(), 0u);
}

// RobotExpressive's head has three morph targets (Angry, Surprised, Sad), but every one of its
// clips keys their weights at 0, so the faces only change when weights are set per actor. With
// actor 0's head weights set to Surprised = 1 in the packed stream, only the left robot's face
// changes on the GPU, in both storages: the weights are indexed by the instance's slot.
TEST(RobotFaces, HeadMorphWeightsApplyPerActor) {
  GLTF_CROWD_REQUIRE_ASSETS();
  auto asset = std::make_shared<const Asset>(load_asset(test::asset_path(robot.file)));
  // The node that draws the Head mesh (a joint is called "Head" too).
  const auto& counts = asset->weight_counts;
  const auto head = static_cast<int>(std::find(counts.begin(), counts.end(), 3u) - counts.begin());
  ASSERT_LT(static_cast<std::size_t>(head), counts.size());
  ASSERT_EQ(asset->meshes[static_cast<std::size_t>(asset->nodes[static_cast<std::size_t>(head)].mesh)].name, "Head");
  Crowd crowd(asset, {.capacity = 2});
  const std::vector<Actor> actors = crowd.add_actors(
      std::vector<ActorOptions>{{.clip = "Idle", .transform = glm::translate(glm::mat4(1.0f), glm::vec3(-2.5f, 0, 0))},
                                {.clip = "Idle", .transform = glm::translate(glm::mat4(1.0f), glm::vec3(2.5f, 0, 0))}});
  crowd.update(0.0f);
  const glm::vec3 left(actors[0].node_world(static_cast<std::uint32_t>(head))[3]);
  const glm::vec3 right(actors[1].node_world(static_cast<std::uint32_t>(head))[3]);
  const glm::vec3 center = 0.5f * (left + right);
  Camera camera;
  camera.view = glm::lookAt(center + glm::vec3(0, 0, 9), center, glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(40.0f), 4.0f / 3.0f, 0.5f, 50.0f);

  const auto stream = std::find_if(crowd.node_streams().begin(), crowd.node_streams().end(),
                                   [head](const NodeStream& s) { return s.node == static_cast<std::uint32_t>(head); });
  ASSERT_NE(stream, crowd.node_streams().end());
  auto& weights = const_cast<NodeStream&>(*stream).weights;
  HeadlessContext context({.debug = true});
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    std::fill(weights.begin(), weights.end(), 0.0f);
    const test::Image neutral = draw(crowd, camera, storage);
    weights[1] = 1.0f;  // slot 0, target 1: Surprised
    const test::Image surprised = draw(crowd, camera, storage);
    std::size_t left_changed = 0, right_changed = 0;
    for (std::size_t i = 0; i < neutral.rgba.size(); i += 4) {
      const bool changed = std::equal(neutral.rgba.begin() + static_cast<std::ptrdiff_t>(i),
                                      neutral.rgba.begin() + static_cast<std::ptrdiff_t>(i + 4),
                                      surprised.rgba.begin() + static_cast<std::ptrdiff_t>(i)) == false;
      ((i / 4) % width < width / 2 ? left_changed : right_changed) += changed ? 1 : 0;
    }
    EXPECT_GT(left_changed, 20u) << palette_storage_name(storage);
    EXPECT_EQ(right_changed, 0u) << palette_storage_name(storage);
    if (left_changed <= 20u || right_changed != 0u) {
      ADD_FAILURE() << test::write_difference(test::scratch_dir("robot_faces"), palette_storage_name(storage),
                                              surprised, neutral, 0);
    }
  }
  EXPECT_EQ(context.debug_error_count(), 0u);
}

}  // namespace
}  // namespace gltf_crowd
