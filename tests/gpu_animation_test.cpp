// GPU animation (issue 17): a crowd with Animation::gpu, evaluated by CrowdRenderer's compute
// passes, must hold the palettes, instance transforms and morph weights the CPU path packs for
// the same actors and controls, on every shared asset, over clips, times, speeds, loop modes,
// hard switches and 2- and 3-way (interrupted) crossfades. The oracle is the CPU crowd, which
// the jobs tests check against scalar code of their own.
#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <epoxy/gl.h>
#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"
#include "gltf_crowd/rig.hpp"
#include "handmade_gltf.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

// Relative bound on every packed float: |gpu − cpu| ≤ kTolerance × max(1, the largest |entry|
// of that slot's rows in that array), i.e. relative to the actor's size in that array: a
// palette's translation is a difference of world and inverse bind translations of the model's
// size, so its rounding scales with the model, not with the (possibly small) result. GPU and
// CPU round differently (fused multiply-adds, another acos / sin), nothing more.
constexpr float kTolerance = 1e-5f;

struct Difference {
  float worst = 0.0f;  // largest |gpu − cpu| / max(1, scale) seen
  std::string where;
};

// Compares `count` slots of `width` floats each (transforms: 12, a palette: 12 × joints,
// weights: the stride).
void compare(const float* gpu, const float* cpu, std::size_t count, std::size_t width, const std::string& what,
             Difference& d) {
  for (std::size_t g = 0; g < count; ++g) {
    float scale = 1.0f;
    for (std::size_t i = 0; i < width; ++i) scale = std::max(scale, std::abs(cpu[g * width + i]));
    for (std::size_t i = 0; i < width; ++i) {
      const float a = gpu[g * width + i], b = cpu[g * width + i];
      const float e = std::isfinite(a) ? std::abs(a - b) / scale : INFINITY;
      if (e > d.worst) {
        d.worst = e;
        d.where = what + " entry " + std::to_string(g) + "." + std::to_string(i) + ": gpu " + std::to_string(a) +
                  ", cpu " + std::to_string(b);
      }
    }
  }
}

// The GPU renderer's streams against the CPU crowd's, for every live slot.
Difference compare_streams(CrowdRenderer& renderer, const Crowd& gpu, const Crowd& cpu) {
  Difference d;
  renderer.animate(gpu);
  const std::vector<NodeStream> read = renderer.read_node_streams(gpu);
  const auto expected = cpu.node_streams();
  EXPECT_EQ(read.size(), expected.size());
  const std::size_t live = cpu.actor_count();
  for (std::size_t i = 0; i < read.size() && i < expected.size(); ++i) {
    const NodeStream& g = read[i];
    const NodeStream& c = expected[i];
    const std::string node = "stream " + std::to_string(i) + " (node " + std::to_string(c.node) + ")";
    compare(&g.transforms[0].x, &c.transforms[0].x, live, 12, node + " transforms", d);
    if (c.palette_stream == i && c.joint_count > 0)
      compare(&g.palette[0].x, &c.palette[0].x, live, 12 * std::size_t{c.joint_count}, node + " palette", d);
    if (c.weight_stride > 0) compare(g.weights.data(), c.weights.data(), live, c.weight_stride, node + " weights", d);
  }
  return d;
}

// The same controls on both crowds.
struct Pair {
  Crowd cpu, gpu;
  std::vector<Actor> cpu_actors, gpu_actors;
  template <class Fn>
  void each(std::size_t i, Fn&& fn) {
    fn(cpu_actors[i]);
    fn(gpu_actors[i]);
  }
  void update(float dt) {
    cpu.update(dt);
    gpu.update(dt);
  }
};

Pair make_crowds(const std::shared_ptr<const Asset>& asset, std::size_t actors, const LodOptions& lod = {}) {
  Pair p{Crowd(asset, {.capacity = actors, .lod = lod}),
         Crowd(asset, {.capacity = actors, .lod = lod, .animation = Animation::gpu}),
         {},
         {}};
  std::vector<ActorOptions> options(actors);
  const LoopMode loops[] = {LoopMode::repeat, LoopMode::once, LoopMode::ping_pong};
  const float speeds[] = {1.0f, -0.7f, 1.6f, 0.45f};
  for (std::size_t i = 0; i < actors; ++i) {
    ActorOptions& o = options[i];
    if (!asset->clips.empty()) o.clip = asset->clips[i % asset->clips.size()].name;
    o.phase = static_cast<float>(i) / static_cast<float>(actors);
    o.speed = speeds[i % 4];
    o.loop = loops[i % 3];
    o.transform = glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(float(i % 5), 0.0f, -float(i / 5))),
                              0.3f * float(i), glm::vec3(0, 1, 0));
    if (i % 7 == 3) o.transform = glm::scale(o.transform, glm::vec3(-1.0f, 1.0f, 1.0f));  // a mirrored actor
  }
  p.cpu_actors = p.cpu.add_actors(options);
  p.gpu_actors = p.gpu.add_actors(options);
  return p;
}

// Plays a script of controls and frames, comparing after every step; returns the worst difference.
Difference play_script(const std::shared_ptr<const Asset>& asset, PaletteStorage storage) {
  constexpr std::size_t kActors = 14;
  Pair p = make_crowds(asset, kActors);
  CrowdRenderer renderer(p.gpu, {.palette = storage});
  Difference worst;
  const auto check = [&](const char* step) {
    Difference d = compare_streams(renderer, p.gpu, p.cpu);
    if (d.worst > worst.worst) worst = {d.worst, std::string(step) + ": " + d.where};
  };
  check("added");
  const std::size_t clips = asset->clips.size();
  const auto clip = [&](std::size_t k) { return asset->clips[k % std::max<std::size_t>(clips, 1)].name; };
  for (int frame = 0; frame < 12; ++frame) {
    // Application-driven poses (docs/spec.md §3.8), full and partial weight: set before an update,
    // which packs them on the CPU (the GPU passes apply them at every animate).
    if (frame == 6) {
      const auto nodes = static_cast<std::uint32_t>(asset->nodes.size());
      for (std::uint32_t i = 2; i < 6; ++i) {
        const NodeTransform local{{0.1f * float(i), -0.05f, 0.02f},
                                  glm::angleAxis(0.4f * float(i), glm::normalize(glm::vec3(1.0f, float(i), 0.5f))),
                                  {1.1f, 0.9f, 1.0f}};
        const std::uint32_t node = (i * 7) % nodes;
        p.each(i, [&](Actor& a) { a.set_local_transform(node, local, i % 2 == 0 ? 1.0f : 0.35f); });
      }
      for (std::uint32_t n = 0; n < nodes; ++n) {
        if (asset->weight_counts[n] == 0) continue;
        std::vector<float> values(asset->weight_counts[n]);
        for (std::size_t k = 0; k < values.size(); ++k) values[k] = 0.2f + 0.1f * float(k);
        p.each(6, [&](Actor& a) { a.set_morph_weights(n, values, 0.6f); });
        p.each(13, [&](Actor& a) { a.set_morph_weights(n, values); });
        break;
      }
    }
    if (frame == 9) p.each(4, [](Actor& a) { a.clear_local_pose(); });
    p.update(frame % 4 == 3 ? 0.21f : 1.0f / 30.0f);
    if (clips > 0 && frame == 2)  // 2-way crossfades
      for (std::size_t i = 0; i < 8; ++i)
        p.each(i, [&](Actor& a) { a.select_clip(clip(i + 1), {.crossfade_seconds = 0.5f, .phase = 0.25f}); });
    if (clips > 0 && frame == 4)  // interrupted: 3-way
      for (std::size_t i = 0; i < 4; ++i)
        p.each(i, [&](Actor& a) { a.select_clip(clip(i + 2), {.crossfade_seconds = 0.6f}); });
    if (clips > 0 && frame == 5) {
      p.each(9, [&](Actor& a) { a.select_clip(clip(3)); });  // a hard switch
      p.each(10, [&](Actor& a) { a.seek(0.37f); });
      p.each(11, [&](Actor& a) { a.set_speed(-2.0f); });
      p.each(12, [](Actor& a) { a.pause(); });
      p.each(13, [](Actor& a) { a.set_transform(glm::translate(glm::mat4(1.0f), glm::vec3(0, 2, 0))); });
    }
    if (frame == 7) {  // removal moves the last slot into the hole
      p.cpu.remove_actor(p.cpu_actors[1].id());
      p.gpu.remove_actor(p.gpu_actors[1].id());
    }
    check(("frame " + std::to_string(frame)).c_str());
  }
  return worst;
}

struct AssetCase {
  const char* name;
  const char* path;  // under ../shared/assets; nullptr: the built-in character
};

// gtest prints the parameter in test names (and ctest lists them): the asset, not its bytes.
void PrintTo(const AssetCase& c, std::ostream* os) { *os << c.name; }

class GpuAnimationExactness : public ::testing::TestWithParam<AssetCase> {};

INSTANTIATE_TEST_SUITE_P(Assets, GpuAnimationExactness,
                         ::testing::Values(AssetCase{"BuiltIn", nullptr},
                                           AssetCase{"RobotExpressive", "threejs/RobotExpressive.glb"},
                                           AssetCase{"CesiumMan", "khronos/CesiumMan.glb"},
                                           AssetCase{"Fox", "khronos/Fox.glb"},
                                           AssetCase{"InterpolationTest", "khronos/InterpolationTest.glb"},
                                           AssetCase{"SimpleSkin", "lumagl/SimpleSkin.gltf"},
                                           AssetCase{"RecursiveSkeletons", "khronos/RecursiveSkeletons.glb"},
                                           AssetCase{"MorphStressTest", "khronos/MorphStressTest/MorphStressTest.gltf"},
                                           AssetCase{"AnimatedMorphCube", "lumagl/AnimatedMorphCube.glb"},
                                           AssetCase{"NegativeScaleTest", "khronos/NegativeScaleTest.glb"},
                                           AssetCase{"BoxAnimated", "khronos/BoxAnimated.glb"}),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST_P(GpuAnimationExactness, StreamsEqualTheCpuPathInBothStorages) {
  std::shared_ptr<const Asset> asset;
  if (GetParam().path == nullptr) {
    asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  } else {
    GLTF_CROWD_REQUIRE_ASSETS();
    asset = std::make_shared<const Asset>(load_asset(test::asset_path(GetParam().path)));
  }
  HeadlessContext context;
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    const Difference d = play_script(asset, storage);
    std::printf("%s, %s: worst relative difference %.3g\n", GetParam().name, palette_storage_name(storage),
                static_cast<double>(d.worst));
    EXPECT_LE(d.worst, kTolerance) << palette_storage_name(storage) << ": " << d.where;
  }
}

// Images: the GPU-animated crowd drawn by CrowdRenderer against the CPU crowd drawn by another,
// in both storages: at most 0.5 % of the pixels may differ by more than 2/255 in a channel.
TEST(GpuAnimation, ImagesMatchTheCpuPath) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  HeadlessContext context;
  Pair p = make_crowds(asset, 10);
  p.update(0.4f);
  for (std::size_t i = 0; i < 4; ++i)
    p.each(i, [&](Actor& a) { a.select_clip(asset->clips[i + 3].name, {.crossfade_seconds = 0.5f}); });
  p.update(0.2f);
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(2, 6, 12), glm::vec3(2, 1, -1), glm::vec3(0, 1, 0));
  camera.projection = glm::perspective(glm::radians(50.0f), 1.0f, 0.1f, 100.0f);
  Framebuffer target({.width = 160, .height = 160});
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    const auto image = [&](const Crowd& crowd) {
      CrowdRenderer renderer(crowd, {.palette = storage});
      target.clear(glm::vec4(0.1f, 0.1f, 0.1f, 1.0f));
      renderer.draw(crowd, camera);
      return target.read_pixels();
    };
    const std::vector<std::uint8_t> cpu = image(p.cpu), gpu = image(p.gpu);
    ASSERT_EQ(cpu.size(), gpu.size());
    std::size_t differing = 0, covered = 0;
    for (std::size_t px = 0; px < cpu.size(); px += 4) {
      int worst = 0;
      for (std::size_t c = 0; c < 3; ++c) worst = std::max(worst, std::abs(int(cpu[px + c]) - int(gpu[px + c])));
      differing += worst > 2;
      covered += cpu[px] != cpu[0] || cpu[px + 1] != cpu[1];
    }
    EXPECT_GT(covered, cpu.size() / 4 / 50) << "the robots cover the image";
    EXPECT_LE(differing, cpu.size() / 4 / 200)
        << palette_storage_name(storage) << ": " << differing << " pixels differ";
  }
}

// Mesh LOD is unchanged on the GPU path: levels, groups and culling come from the crowd, and a
// crowd that enables LOD later (new level groups, possibly new streams) gets a new evaluator.
TEST(GpuAnimation, LodLevelsAndGroupsWorkUnchanged) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  HeadlessContext context;
  LodOptions lod;
  lod.auto_generate = true;                   // levels prepared, LOD off until enabled below
  lod.screen_coverage = {0.5f, 0.2f, 0.01f};  // fixed bands: the bias below lowers most actors
  Pair p = make_crowds(asset, 12, lod);
  CrowdRenderer renderer(p.gpu);
  p.update(0.1f);
  EXPECT_LE(compare_streams(renderer, p.gpu, p.cpu).worst, kTolerance);
  // Far enough that the back rows cover little of the view.
  const LodView view{glm::lookAt(glm::vec3(2, 6, 16), glm::vec3(2, 0, -1), glm::vec3(0, 1, 0)),
                     glm::perspective(glm::radians(40.0f), 1.0f, 0.1f, 200.0f), 128, 128};
  for (Crowd* c : {&p.cpu, &p.gpu}) {
    c->set_lod_enabled(true);
    c->set_lod_bias(0.15f);  // coverage × 0.15: most actors drop to a generated level
    c->update(0.05f, view);
  }
  std::uint32_t lowered = 0;
  for (std::size_t i = 1; i < p.gpu.lod_stats().levels.size(); ++i) lowered += p.gpu.lod_stats().levels[i].actors;
  EXPECT_GT(lowered, 0u) << "some actors draw a generated level; levels " << p.gpu.lod_stats().levels.size()
                         << " visible " << p.gpu.lod_stats().visible_actors << " culled "
                         << p.gpu.lod_stats().culled_actors << " source " << int(p.gpu.lod_stats().source);
  EXPECT_LE(compare_streams(renderer, p.gpu, p.cpu).worst, kTolerance);
  Camera camera{view.view, view.projection};
  Framebuffer target({.width = 128, .height = 128});
  const auto image = [&](CrowdRenderer& r, const Crowd& crowd) {
    target.clear(glm::vec4(0.1f, 0.1f, 0.1f, 1.0f));
    r.draw(crowd, camera);
    return target.read_pixels();
  };
  CrowdRenderer cpu_renderer(p.cpu);
  const auto a = image(cpu_renderer, p.cpu), b = image(renderer, p.gpu);
  EXPECT_EQ(cpu_renderer.stats().draws, renderer.stats().draws);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); i += 4)
    for (std::size_t c = 0; c < 3; ++c) differing += std::abs(int(a[i + c]) - int(b[i + c])) > 2 ? 1 : 0;
  EXPECT_LE(differing, a.size() / 4 / 200);
}

// A crowd whose scratch does not fit one storage block is evaluated in batches (llvmpipe's
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE is 128 MiB: about 40,000 RobotExpressive actors per batch).
TEST(GpuAnimation, LargeCrowdsAreEvaluatedInBatches) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  HeadlessContext context;
  GLint64 block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  const std::size_t nodes = build_rig(*asset, asset->drawn_nodes).node_count();
  const std::size_t per_batch = static_cast<std::size_t>(block) / (nodes * 48);
  const std::size_t actors = per_batch + per_batch / 8;
  // The palettes must still fit: 43 joints × 48 bytes per actor.
  if (actors * 43 * 48 > static_cast<std::size_t>(block)) GTEST_SKIP() << "this driver's blocks hold one batch";
  Pair p = make_crowds(asset, actors);
  CrowdRenderer renderer(p.gpu);
  p.update(0.25f);
  for (std::size_t i = actors - 5; i < actors; ++i)  // crossfades in the second batch
    p.each(i, [&](Actor& a) { a.select_clip(asset->clips[2].name, {.crossfade_seconds = 0.5f}); });
  p.update(0.1f);
  const Difference d = compare_streams(renderer, p.gpu, p.cpu);
  EXPECT_LE(d.worst, kTolerance) << d.where;
  EXPECT_THROW(renderer.read_poses(p.gpu), Error) << "read-back holds one batch";
}

// More contributors than a record holds (a crossfade interrupted six times): the tail carries
// the 7th and 8th.
TEST(GpuAnimation, EightContributorsUseTheRecordTail) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  ASSERT_GE(asset->clips.size(), 2u);
  HeadlessContext context;
  Pair p = make_crowds(asset, 3);
  CrowdRenderer renderer(p.gpu);
  for (int k = 0; k < 9; ++k) {
    p.update(0.05f);
    p.each(0,
           [&](Actor& a) { a.select_clip(asset->clips[k % asset->clips.size()].name, {.crossfade_seconds = 2.0f}); });
  }
  p.update(0.05f);
  ASSERT_EQ(p.cpu_actors[0].contributors().size(), 8u);
  EXPECT_EQ(p.gpu.playback_records()[0].count, 8u);
  EXPECT_NE(p.gpu.playback_record_tails()[0].weights[1], 0.0f);
  const Difference d = compare_streams(renderer, p.gpu, p.cpu);
  EXPECT_LE(d.worst, kTolerance) << d.where;
}

// Samplers that repeat key times (docs/spec.md §2.7): the evaluator's key search gives the CPU's
// step at the repeated time, at it and just before, with no interval of zero length (NaN). The
// CPU is held to the spec's values in the unit tests (KernelsTest.RepeatedKeyTimesAreAStepOnEveryPath).
TEST(GpuAnimation, RepeatedKeyTimesStepAsOnTheCpu) {
  nlohmann::json nodes = nlohmann::json::array();
  for (int i = 0; i < 7; ++i) nodes.push_back({{"name", "n" + std::to_string(i)}, {"mesh", 0}});
  const auto asset = std::make_shared<const Asset>(
      load_asset_from_memory(test::handmade_gltf(nodes, {{"steps", test::repeated_time_channels()}}, true)));
  const auto below = [](float x) { return std::nextafter(x, 0.0f); };
  const std::vector<float> times{0.0f, below(0.3f), 0.3f, 0.4f,  below(0.5f), 0.5f,
                                 0.6f, below(0.6f), 0.7f, 0.75f, 1.2f,        0.45f};
  HeadlessContext context;
  Pair p{Crowd(asset, {.capacity = times.size()}),
         Crowd(asset, {.capacity = times.size(), .animation = Animation::gpu}),
         {},
         {}};
  std::vector<ActorOptions> options;
  for (const float t : times) options.push_back({.time = t, .loop = LoopMode::once, .playing = false});
  p.cpu_actors = p.cpu.add_actors(options);
  p.gpu_actors = p.gpu.add_actors(options);
  CrowdRenderer renderer(p.gpu);
  const Difference d = compare_streams(renderer, p.gpu, p.cpu);
  EXPECT_LE(d.worst, kTolerance) << d.where;
  // Node 0's translation at 0.5 s, its repeated time, is key 2's x = 5 (rows of 3 × 4, x in row 0's w).
  const NodeStream& node0 = p.cpu.node_streams()[0];
  ASSERT_EQ(node0.node, 0u);
  EXPECT_EQ(node0.transforms[5 * 3].w, 5.0f);
}

// Root motion (docs/spec.md §3.10): the sample pass pins the root's extracted components as the
// CPU's remove_root_motion does, for single clips and through crossfades, and the placements it
// moves upload.
TEST(GpuAnimation, RootMotionPinsTheRootAsTheCpuDoes) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  HeadlessContext context;
  constexpr std::size_t kActors = 9;
  Pair p = make_crowds(asset, kActors);
  const RootMotionOptions root{.node = "Hips", .translation_y = true, .yaw = true, .apply_to_placement = true};
  p.cpu.set_root_motion(root);
  p.gpu.set_root_motion(root);
  CrowdRenderer renderer(p.gpu);
  for (int frame = 0; frame < 8; ++frame) {
    p.update(0.13f);
    if (frame == 2)
      for (std::size_t i = 0; i < kActors; i += 2)
        p.each(i, [&](Actor& a) {
          a.select_clip(asset->clips[(i + 1) % asset->clips.size()].name, {.crossfade_seconds = 0.5f});
        });
    const Difference d = compare_streams(renderer, p.gpu, p.cpu);
    EXPECT_LE(d.worst, kTolerance) << "frame " << frame << ": " << d.where;
  }
  // The comparison sees the removal: without it the hips sway again.
  p.gpu.set_root_motion({});
  EXPECT_GT(compare_streams(renderer, p.gpu, p.cpu).worst, kTolerance);
}

// Animation layers (docs/spec.md §3.11) on the GPU: the mask of an upper part of the asset (the
// built-in character's upper body with a half-weight neck; else the first child of the first
// skin's root joint, its own first child at half weight; else the first uniquely named node at 0.6).
std::vector<MaskBranch> upper_mask(const Asset& asset, bool built_in) {
  if (built_in) return {{"Spine", 1.0f}, {"Neck", 0.5f}};
  const auto first_child = [&](std::uint32_t n) -> const Node* {
    return asset.nodes[n].children.empty() ? nullptr : &asset.nodes[asset.nodes[n].children[0]];
  };
  if (!asset.skins.empty()) {  // by index: RobotExpressive's names repeat (docs/spec.md §2.3)
    const std::uint32_t root = asset.skins[0].joints[0];
    if (first_child(root) != nullptr) {
      const std::uint32_t c = asset.nodes[root].children[0];
      std::vector<MaskBranch> mask{{.weight = 1.0f, .index = c}};
      if (first_child(c) != nullptr) mask.push_back({.weight = 0.5f, .index = asset.nodes[c].children[0]});
      return mask;
    }
  }
  for (const Node& n : asset.nodes)
    if (asset.find_node(n.name) >= 0) return {{n.name, 0.6f}};
  return {};
}

// Layers of every kind on a crowd of actors, played through updates, crossfades within layers,
// a weight fade and a removal: the GPU passes must give what the CPU packs.
class GpuAnimationLayers : public ::testing::TestWithParam<AssetCase> {};

INSTANTIATE_TEST_SUITE_P(Assets, GpuAnimationLayers,
                         ::testing::Values(AssetCase{"BuiltIn", nullptr},
                                           AssetCase{"RobotExpressive", "threejs/RobotExpressive.glb"},
                                           AssetCase{"Fox", "khronos/Fox.glb"},
                                           AssetCase{"CesiumMan", "khronos/CesiumMan.glb"},
                                           AssetCase{"AnimatedMorphCube", "lumagl/AnimatedMorphCube.glb"}),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST_P(GpuAnimationLayers, LayersEqualTheCpuPathInBothStorages) {
  const bool built_in = GetParam().path == nullptr;
  std::shared_ptr<const Asset> asset;
  if (built_in) {
    asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  } else {
    GLTF_CROWD_REQUIRE_ASSETS();
    asset = std::make_shared<const Asset>(load_asset(test::asset_path(GetParam().path)));
  }
  ASSERT_FALSE(asset->clips.empty());
  const std::vector<MaskBranch> mask = upper_mask(*asset, built_in);
  ASSERT_FALSE(mask.empty());
  const auto clip = [&](std::size_t k) { return asset->clips[k % asset->clips.size()].name; };
  const float reference_time = 0.4f * asset->clips[0].duration_seconds;
  HeadlessContext context;
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    constexpr std::size_t kActors = 10;
    Pair p = make_crowds(asset, kActors);
    p.cpu.add_mask("upper", mask);
    p.gpu.add_mask("upper", mask);
    if (built_in) {  // layers come after root motion removal: unmasked ones move the pinned hips
      const RootMotionOptions root{.node = "Hips", .yaw = true};
      p.cpu.set_root_motion(root);
      p.gpu.set_root_motion(root);
    }
    CrowdRenderer renderer(p.gpu, {.palette = storage});
    EXPECT_LE(compare_streams(renderer, p.gpu, p.cpu).worst, kTolerance) << "before any layer";
    EXPECT_TRUE(p.gpu.layer_records().empty());
    // 0: a masked override; 1: additive (first-key reference) at 0.7; 2: additive with a set
    // reference; 3: an override that crossfades later; 4: a masked override at 0.6 under an
    // additive layer; 5: an override that fades out later; 6: additive, crossfading later;
    // 7: layers 1 and 3, masked; 8: none; 9: an override under an application-driven pose.
    p.each(0, [&](Actor& a) {
      a.layer(1).set_mask("upper");
      a.layer(1).select_clip(clip(1), {.time = 0.3f});
    });
    p.each(1, [&](Actor& a) {
      a.layer(1).set_mode(LayerMode::additive);
      a.layer(1).select_clip(clip(2), {.time = 0.4f});
      a.layer(1).set_weight(0.7f);
    });
    p.each(2, [&](Actor& a) {
      a.layer(1).set_mode(LayerMode::additive);
      a.layer(1).set_additive_reference(clip(0), reference_time);
      a.layer(1).select_clip(clip(1), {.time = 0.1f});
    });
    p.each(3, [&](Actor& a) { a.layer(1).select_clip(clip(2), {.time = 0.2f}); });
    p.each(4, [&](Actor& a) {
      a.layer(1).set_mask("upper");
      a.layer(1).set_weight(0.6f);
      a.layer(1).select_clip(clip(3), {.time = 0.5f});
      a.layer(2).set_mode(LayerMode::additive);
      a.layer(2).select_clip(clip(1), {.time = 0.2f});
    });
    p.each(5, [&](Actor& a) { a.layer(1).select_clip(clip(1), {.time = 0.6f}); });
    p.each(6, [&](Actor& a) {
      a.layer(2).set_mode(LayerMode::additive);
      a.layer(2).select_clip(clip(0), {.time = 0.3f});
    });
    p.each(7, [&](Actor& a) {
      a.layer(1).set_mode(LayerMode::additive);
      a.layer(1).set_mask("upper");
      a.layer(1).select_clip(clip(2), {.time = 0.15f});
      a.layer(3).set_mask("upper");
      a.layer(3).set_weight(0.5f);
      a.layer(3).select_clip(clip(3), {.time = 0.45f});
    });
    const int node = mask.front().index ? static_cast<int>(*mask.front().index) : asset->find_node(mask.front().node);
    ASSERT_GE(node, 0);
    p.each(9, [&](Actor& a) {
      a.layer(1).select_clip(clip(1), {.time = 0.25f});
      a.set_local_transform(static_cast<std::uint32_t>(node),
                            {{0.05f, 0.1f, 0.0f}, glm::angleAxis(0.5f, glm::vec3(0, 0, 1)), {1.0f, 1.0f, 1.0f}}, 0.5f);
    });
    EXPECT_EQ(p.gpu.layer_records().size(), kActors * kMaxLayers);
    Difference worst;
    for (int frame = 0; frame < 10; ++frame) {
      p.update(frame % 4 == 3 ? 0.21f : 1.0f / 30.0f);
      if (frame == 2) {  // crossfades within a layer, override and additive
        p.each(3, [&](Actor& a) { a.layer(1).select_clip(clip(3), {.crossfade_seconds = 0.5f}); });
        p.each(6, [&](Actor& a) { a.layer(2).select_clip(clip(1), {.crossfade_seconds = 0.6f, .phase = 0.5f}); });
      }
      if (frame == 3) p.each(5, [](Actor& a) { a.layer(1).set_weight(0.0f, 0.4f); });  // a fade out, mid-way below
      if (frame == 6) {  // removal moves the last slot, layers and all, into the hole
        p.cpu.remove_actor(p.cpu_actors[8].id());
        p.gpu.remove_actor(p.gpu_actors[8].id());
      }
      const Difference d = compare_streams(renderer, p.gpu, p.cpu);
      if (d.worst > worst.worst) worst = {d.worst, "frame " + std::to_string(frame) + ": " + d.where};
    }
    std::printf("%s layers, %s: worst relative difference %.3g\n", GetParam().name, palette_storage_name(storage),
                static_cast<double>(worst.worst));
    EXPECT_LE(worst.worst, kTolerance) << palette_storage_name(storage) << ": " << worst.where;
    EXPECT_GT(p.cpu_actors[5].layer(1).weight(), 0.0f) << "the fade is still under way";
    // The comparison sees the layers: without them on the CPU, the two paths differ.
    for (std::size_t i = 0; i < kActors; ++i)
      if (i != 8)
        for (std::uint32_t l = 1; l <= kMaxLayers; ++l) p.cpu_actors[i].layer(l).clear();
    EXPECT_GT(compare_streams(renderer, p.gpu, p.cpu).worst, kTolerance);
  }
}

// Steady playback uploads one 64-byte record per playing actor and nothing for paused ones;
// placements only when they change.
TEST(GpuAnimation, UploadsOnlyChangedRecordsAndPlacements) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  HeadlessContext context;
  Crowd crowd(asset, {.capacity = 20, .animation = Animation::gpu});
  std::vector<ActorOptions> options(20);
  auto actors = crowd.add_actors(options);
  CrowdRenderer renderer(crowd);
  renderer.animate(crowd);  // the first call uploads every record, placement and tint (16 bytes)
  EXPECT_EQ(renderer.stats().upload_bytes, 20u * (64u + 64u + 16u));
  crowd.update(0.02f);
  renderer.animate(crowd);
  EXPECT_EQ(renderer.stats().upload_bytes, 20u * 64u);
  for (Actor& a : actors) a.pause();
  crowd.update(0.02f);  // the pauses wrote records; this frame advances nobody
  renderer.animate(crowd);
  crowd.update(0.02f);
  renderer.animate(crowd);
  EXPECT_EQ(renderer.stats().upload_bytes, 0u);
  actors[4].set_transform(glm::translate(glm::mat4(1.0f), glm::vec3(1, 0, 0)));
  renderer.animate(crowd);
  EXPECT_EQ(renderer.stats().upload_bytes, 64u + 64u) << "one record and one placement";
  EXPECT_TRUE(crowd.node_streams().front().palette.empty()) << "no CPU rows are packed";
}

// The largest difference between the poses read back from the GPU and each actor's
// local_pose() (evaluated on the CPU): translations relative to their length (at least 1),
// rotations and scales absolute, morph weights absolute.
float worst_pose_difference(const std::vector<GpuPose>& poses, const std::vector<Actor>& actors) {
  float worst = 0.0f;
  for (std::size_t i = 0; i < actors.size(); ++i) {
    const Pose want = actors[i].local_pose();
    const Pose& got = poses[i].local;
    for (std::size_t n = 0; n < want.translations.size(); ++n) {
      const float scale = std::max(1.0f, glm::length(want.translations[n]));
      worst = std::max(
          {worst, glm::length(got.translations[n] - want.translations[n]) / scale,
           glm::length(glm::vec4(got.rotations[n].x - want.rotations[n].x, got.rotations[n].y - want.rotations[n].y,
                                 got.rotations[n].z - want.rotations[n].z, got.rotations[n].w - want.rotations[n].w)),
           glm::length(got.scales[n] - want.scales[n])});
    }
    for (std::size_t w = 0; w < want.weights.size(); ++w)
      worst = std::max(worst, std::abs(got.weights[w] - want.weights[w]));
  }
  return worst;
}

// The scratch lies in tiles of 64 slots (docs/architecture.md): 150 actors fill two and part of
// a third, whose streams and read-back poses must equal the CPU path's as a single tile's do.
TEST(GpuAnimation, SlotsAcrossScratchTilesMatchTheCpuPath) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  HeadlessContext context;
  constexpr std::size_t kActors = 150;
  Pair p = make_crowds(asset, kActors);
  CrowdRenderer renderer(p.gpu);
  p.update(0.2f);
  for (std::size_t i = 60; i < kActors; i += 7)  // crossfades in every tile
    p.each(i,
           [&](Actor& a) { a.select_clip(asset->clips[i % asset->clips.size()].name, {.crossfade_seconds = 0.5f}); });
  p.update(0.15f);
  const Difference d = compare_streams(renderer, p.gpu, p.cpu);
  EXPECT_LE(d.worst, kTolerance) << d.where;
  const std::vector<GpuPose> poses = renderer.read_poses(p.gpu);
  ASSERT_EQ(poses.size(), kActors);
  EXPECT_LE(worst_pose_difference(poses, p.cpu_actors), kTolerance);
}

// time_animation times each pass (RenderStats::animation_pass_ms) beside the total: every pass
// that ran reads a time, the morph pass 0 without morph weights, and a call that runs no pass
// reads -1 throughout, as animation_ms does.
void expect_each_pass_timed(const std::shared_ptr<const Asset>& asset, bool morphs) {
  HeadlessContext context;
  Crowd crowd(asset, {.capacity = 4, .animation = Animation::gpu});
  crowd.add_actors(std::vector<ActorOptions>(4));
  bool weights = false;
  for (const NodeStream& stream : crowd.node_streams()) weights = weights || stream.weight_stride > 0;
  ASSERT_EQ(weights, morphs);
  CrowdRenderer renderer(crowd, {.time_animation = true});
  renderer.animate(crowd);
  const RenderStats::AnimationPassMilliseconds& ms = renderer.stats().animation_pass_ms;
  EXPECT_GE(renderer.stats().animation_ms, 0.0);
  for (double v : {ms.sample, ms.hierarchy, ms.palette, ms.instances}) EXPECT_GE(v, 0.0);
  if (morphs) {
    EXPECT_GE(ms.weights, 0.0);
  } else {
    EXPECT_EQ(ms.weights, 0.0) << "no morph pass ran";
  }
  renderer.animate(crowd);  // nothing changed: no pass runs
  const RenderStats::AnimationPassMilliseconds& none = renderer.stats().animation_pass_ms;
  EXPECT_EQ(renderer.stats().animation_ms, -1.0);
  for (double v : {none.sample, none.weights, none.hierarchy, none.palette, none.instances}) EXPECT_EQ(v, -1.0);
}

TEST(GpuAnimation, TimedRunsReportEachPass) {
  expect_each_pass_timed(std::make_shared<const Asset>(load_asset_from_memory(default_character_glb())), true);
  GLTF_CROWD_REQUIRE_ASSETS();
  expect_each_pass_timed(std::make_shared<const Asset>(load_asset(test::asset_path("khronos/CesiumMan.glb"))), false);
}

// read_poses evaluates every node (a rig in asset order, not the draw rig's): the layers' tables
// follow its node order, and the local poses equal Actor::local_pose (evaluated on the CPU).
TEST(GpuAnimation, ReadPosesIncludeLayers) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("threejs/RobotExpressive.glb")));
  HeadlessContext context;
  Crowd crowd(asset, {.capacity = 3, .animation = Animation::gpu});
  auto actors = crowd.add_actors(std::vector<ActorOptions>(3, ActorOptions{.clip = asset->clips[0].name}));
  const std::vector<MaskBranch> mask = upper_mask(*asset, false);
  crowd.add_mask("upper", mask);
  actors[0].layer(1).set_mask("upper");
  actors[0].layer(1).select_clip(asset->clips[3].name, {.time = 0.2f});
  actors[1].layer(2).set_mode(LayerMode::additive);
  actors[1].layer(2).set_additive_reference(asset->clips[5].name, 0.1f);
  actors[1].layer(2).select_clip(asset->clips[4].name, {.time = 0.3f});
  crowd.update(0.1f);
  CrowdRenderer renderer(crowd);
  const std::vector<GpuPose> poses = renderer.read_poses(crowd);
  ASSERT_EQ(poses.size(), actors.size());
  EXPECT_LE(worst_pose_difference(poses, actors), kTolerance);
  // The layers change the pose read back: actor 0 without its layer differs.
  actors[0].layer(1).clear();
  const Pose bare = actors[0].local_pose();
  float moved = 0.0f;
  for (std::size_t n = 0; n < bare.rotations.size(); ++n)
    moved = std::max(moved, 1.0f - std::abs(glm::dot(bare.rotations[n], poses[0].local.rotations[n])));
  EXPECT_GT(moved, 1e-3f);
}

// Layer records upload with their slot's record, 512 bytes per slot once some actor has used a
// layer (every slot's at once then); before that, nothing more.
TEST(GpuAnimation, LayerRecordsUploadWithTheirRecords) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  HeadlessContext context;
  Crowd crowd(asset, {.capacity = 20, .animation = Animation::gpu});
  auto actors = crowd.add_actors(std::vector<ActorOptions>(20));
  CrowdRenderer renderer(crowd);
  renderer.animate(crowd);
  crowd.update(0.02f);
  renderer.animate(crowd);
  EXPECT_EQ(renderer.stats().upload_bytes, 20u * 64u) << "no layer yet";
  const MaskBranch upper[] = {{"Spine", 1.0f}};
  crowd.add_mask("upper", upper);
  ActorLayer layer = actors[3].layer(2);
  layer.set_mask("upper");
  layer.set_mode(LayerMode::additive);
  layer.select_clip(asset->clips[1].name);
  renderer.animate(crowd);
  // Every slot's layers and slot 3's record (the tables are new buffers, which the stats, like
  // the overrides', do not count).
  EXPECT_EQ(renderer.stats().upload_bytes, 20u * 512u + 64u);
  crowd.update(0.02f);
  renderer.animate(crowd);
  EXPECT_EQ(renderer.stats().upload_bytes, 20u * (64u + 512u)) << "records with their layers";
}

// Switching a crowd between the two paths keeps the poses.
TEST(GpuAnimation, SwitchingPathsKeepsThePoses) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  HeadlessContext context;
  Pair p = make_crowds(asset, 6);
  p.update(0.3f);
  p.gpu.set_animation(Animation::cpu);
  p.gpu.set_animation(Animation::gpu);
  CrowdRenderer renderer(p.gpu);
  p.update(0.1f);
  EXPECT_LE(compare_streams(renderer, p.gpu, p.cpu).worst, kTolerance);
  p.gpu.set_animation(Animation::cpu);
  renderer.animate(p.gpu);
  const auto cpu = p.cpu.node_streams();
  const auto back = p.gpu.node_streams();
  ASSERT_EQ(cpu.size(), back.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) EXPECT_EQ(cpu[i].palette, back[i].palette);
}

// read_node_streams on a CPU crowd returns what was uploaded, in both storages, also after
// draws (which leave the application's texture bindings behind them).
TEST(GpuAnimation, ReadNodeStreamsOfACpuCrowdAfterDraws) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = std::make_shared<const Asset>(load_asset(test::asset_path("khronos/CesiumMan.glb")));
  HeadlessContext context;
  Crowd crowd(asset, {.capacity = 4});
  crowd.add_actors(std::vector<ActorOptions>(3));
  crowd.update(0.3f);
  for (PaletteStorage storage : {PaletteStorage::storage_buffer, PaletteStorage::texture}) {
    CrowdRenderer renderer(crowd, {.palette = storage});
    Framebuffer target({.width = 32, .height = 32});
    renderer.draw(crowd, Camera{});
    const std::vector<NodeStream> read = renderer.read_node_streams(crowd);
    const auto streams = crowd.node_streams();
    ASSERT_EQ(read.size(), streams.size());
    for (std::size_t i = 0; i < read.size(); ++i) {
      EXPECT_TRUE(std::equal(read[i].transforms.begin(), read[i].transforms.end(), streams[i].transforms.begin()));
      if (streams[i].palette_stream == i) {
        EXPECT_TRUE(std::equal(read[i].palette.begin(), read[i].palette.end(), streams[i].palette.begin()));
      }
    }
  }
}

// Without compute shaders the GPU path is an error naming the capability, never a fallback.
TEST(GpuAnimation, ContextsWithoutComputeShadersRefuseIt) {
  const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  HeadlessContext context({.api = GlApi::gles30});
  Crowd crowd(asset, {.capacity = 2, .animation = Animation::gpu});
  crowd.add_actor();
  try {
    CrowdRenderer renderer(crowd);
    FAIL() << "expected Error gl_version";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), rule_id(Rule::gl_version));
    EXPECT_NE(std::string(e.what()).find("compute shaders"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gltf_crowd
