// Levels of detail inside a crowd (docs/spec.md §5, §7): level groups, instance lists per level,
// culling, hysteresis, bias, vertex budget and lod_stats, with the reference numbers of
// SimpleSkinLOD (90° vertical field of view, 512 × 512).
#include <algorithm>
#include <memory>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/crowd.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

std::shared_ptr<const Asset> load_shared(const std::string& file) {
  return std::make_shared<const Asset>(load_asset(test::asset_path(file)));
}

// Camera at the origin looking down −z; P[1][1] = 1, so coverage = r · s / distance.
LodView reference_view(float far_plane = 1000.0f) {
  return {glm::mat4(1.0f), glm::perspective(glm::radians(90.0f), 1.0f, 0.1f, far_plane), 512, 512};
}

ActorOptions at(const std::string& id, float x, float y, float z) {
  ActorOptions o;
  o.id = id;
  o.transform = glm::translate(glm::mat4(1.0f), glm::vec3(x, y, z));
  return o;
}

std::vector<ActorOptions> reference_actors() {
  return {at("near", 0, 0, -1.5f), at("middle", 0, 0, -4), at("far", 0, 0, -12), at("tiny", 0, 0, -150)};
}

std::vector<std::uint32_t> instance_counts(const Crowd& crowd) {
  std::vector<std::uint32_t> out;
  for (const PrimitiveGroup& g : crowd.primitive_groups()) {
    EXPECT_EQ(g.instance_count, g.instances.size());
    out.push_back(g.instance_count);
  }
  return out;
}

// The level at which `slot` is drawn, or -1 when no group draws it.
int level_of(const Crowd& crowd, std::uint32_t slot) {
  for (const PrimitiveGroup& g : crowd.primitive_groups())
    if (std::find(g.instances.begin(), g.instances.end(), slot) != g.instances.end()) return static_cast<int>(g.level);
  return -1;
}

// SimpleSkinLOD's rest-pose sphere, computed here from the file: vertices skinned with
// world(joint) · IBM (glTF 2.0 §3.7.3), centre of their box, largest distance from it.
Sphere simple_skin_rest_sphere(const Asset& asset) {
  const Primitive& p = asset.meshes[0].primitives[0];
  const Skin& skin = asset.skins[0];
  std::vector<glm::vec3> points;
  for (std::size_t v = 0; v < p.vertex_count(); ++v) {
    glm::vec3 q(0.0f);
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t joint = skin.joints[p.joints0[v][k]];
      glm::mat4 world = asset.local_matrix(joint);
      for (int n = asset.nodes[joint].parent; n >= 0; n = asset.nodes[static_cast<std::size_t>(n)].parent)
        world = asset.local_matrix(static_cast<std::uint32_t>(n)) * world;
      q += p.weights0[v][k] *
           glm::vec3(world * skin.inverse_bind_matrices[p.joints0[v][k]] * glm::vec4(p.positions[v], 1.0f));
    }
    points.push_back(q);
  }
  glm::vec3 lo = points[0], hi = points[0];
  for (const glm::vec3& q : points) lo = glm::min(lo, q), hi = glm::max(hi, q);
  Sphere s{(lo + hi) * 0.5f, 0.0f};
  for (const glm::vec3& q : points) s.radius = std::max(s.radius, glm::length(q - s.center));
  return s;
}

TEST(LodCrowd, WithoutLodOptionsOneGroup) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"));
  ASSERT_EQ(crowd.primitive_groups().size(), 1u);
  EXPECT_EQ(crowd.primitive_groups()[0].index_count, 24u);
  EXPECT_EQ(crowd.primitive_groups()[0].node, 0u);
  EXPECT_EQ(crowd.lod_model(), nullptr);
  crowd.add_actors(reference_actors());
  crowd.update(0.1f, reference_view());  // a view without LOD changes nothing
  EXPECT_EQ(instance_counts(crowd), std::vector<std::uint32_t>{4});
  EXPECT_EQ(crowd.lod_stats().source, LodSource::none);
  EXPECT_EQ(crowd.lod_stats().visible_actors, 4u);
  EXPECT_EQ(crowd.lod_stats().vertices, 96u);
}

TEST(LodCrowd, SimpleSkinLodReferenceNumbers) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"), {.capacity = 8, .lod = {.enabled = true}});
  const auto groups = crowd.primitive_groups();
  ASSERT_EQ(groups.size(), 3u);
  const std::uint32_t nodes[] = {0, 3, 4}, triangles[] = {8, 4, 2};
  for (std::uint32_t l = 0; l < 3; ++l) {
    EXPECT_EQ(groups[l].level, l);
    EXPECT_EQ(groups[l].node, nodes[l]);
    EXPECT_EQ(groups[l].source_node, 0u);  // animation, skin and placement of the best node
    EXPECT_EQ(groups[l].triangle_count, triangles[l]);
    EXPECT_EQ(groups[l].index_count, 3 * triangles[l]);
    EXPECT_EQ(groups[l].stream, groups[0].stream);
    EXPECT_EQ(groups[l].palette_kind, PaletteKind::skinned);
    EXPECT_EQ(groups[l].joint_count, 2u);
  }
  EXPECT_EQ(crowd.node_streams().size(), 1u);  // detached level nodes are never packed alone

  crowd.add_actors(reference_actors());
  // No view yet: everything at level 0, nothing culled.
  EXPECT_EQ(instance_counts(crowd), (std::vector<std::uint32_t>{4, 0, 0}));
  crowd.update(1.0f / 30.0f, reference_view());
  // r = √(0.5² + 1²) ≈ 1.118: coverage 0.745, 0.280, 0.093, 0.0075 against [0.5, 0.2, 0.01].
  EXPECT_EQ(instance_counts(crowd), (std::vector<std::uint32_t>{1, 1, 1}));
  EXPECT_EQ(level_of(crowd, 0), 0);
  EXPECT_EQ(level_of(crowd, 1), 1);
  EXPECT_EQ(level_of(crowd, 2), 2);
  EXPECT_EQ(level_of(crowd, 3), -1);
  const LodStats& s = crowd.lod_stats();
  EXPECT_EQ(s.source, LodSource::authored);
  EXPECT_EQ(s.visible_actors, 3u);
  EXPECT_EQ(s.culled_actors, 1u);
  EXPECT_EQ(s.draw_count, 3u);
  EXPECT_EQ(s.triangles, 14u);
  EXPECT_EQ(s.vertices, 42u);
  EXPECT_FALSE(s.vertex_budget.has_value());
  EXPECT_EQ(s.demoted_actors, 0u);
  EXPECT_TRUE(s.budget_satisfied);
  ASSERT_EQ(s.levels.size(), 3u);
  for (std::uint32_t l = 0; l < 3; ++l) {
    EXPECT_EQ(s.levels[l].actors, 1u);
    EXPECT_EQ(s.levels[l].triangles, triangles[l]);
  }
  EXPECT_EQ(crowd.frame_stats().draws, 3u);
  // The culled actor keeps animating.
  const float before = crowd.find_actor("tiny")->time();
  crowd.update(0.5f, reference_view());
  EXPECT_NEAR(crowd.find_actor("tiny")->time(), before + 0.5f, 1e-5f);
}

TEST(LodCrowd, VertexBudgetDemotesSmallestFirst) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"), {.lod = {.enabled = true, .vertex_budget = 24}});
  crowd.add_actors(reference_actors());
  crowd.set_lod_view(reference_view());
  EXPECT_EQ(instance_counts(crowd), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(level_of(crowd, 0), 1);
  EXPECT_EQ(level_of(crowd, 1), 2);
  const LodStats& s = crowd.lod_stats();
  EXPECT_EQ(s.vertices, 24u);
  EXPECT_EQ(s.vertex_budget, std::optional<std::uint64_t>(24));
  EXPECT_EQ(s.demoted_actors, 2u);
  EXPECT_TRUE(s.budget_satisfied);
  EXPECT_EQ(s.visible_actors, 3u);

  crowd.set_lod_vertex_budget(0);  // unlimited: plain coverage levels, no budget field
  EXPECT_EQ(instance_counts(crowd), (std::vector<std::uint32_t>{1, 1, 1}));
  EXPECT_FALSE(crowd.lod_stats().vertex_budget.has_value());
  EXPECT_EQ(crowd.lod_stats().demoted_actors, 0u);

  crowd.set_lod_vertex_budget(1);  // impossible: everyone visible at the lowest level
  EXPECT_EQ(instance_counts(crowd), (std::vector<std::uint32_t>{0, 0, 3}));
  EXPECT_EQ(crowd.lod_stats().visible_actors, 3u);
  EXPECT_EQ(crowd.lod_stats().culled_actors, 1u);
  EXPECT_EQ(crowd.lod_stats().vertices, 18u);
  EXPECT_FALSE(crowd.lod_stats().budget_satisfied);
}

TEST(LodCrowd, BudgetTiesDemoteTheFirstInsertedActor) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"), {.lod = {.enabled = true, .vertex_budget = 36}});
  // a is removed so that c moves into slot 0: slot order then differs from insertion order.
  // b and c stand at the same distance: equal coverage 0.745, both level 0, 48 > 36.
  crowd.add_actors(std::vector{at("a", 0, 0, -50), at("b", -0.5f, 0, -1.5f), at("c", 0.5f, 0, -1.5f)});
  ASSERT_TRUE(crowd.remove_actor("a"));
  crowd.set_lod_view(reference_view());
  const auto actors = crowd.actors();
  ASSERT_EQ(actors[0].id(), "c");
  EXPECT_EQ(level_of(crowd, 0), 0);  // c, inserted after b
  EXPECT_EQ(level_of(crowd, 1), 1);  // b, demoted
  EXPECT_EQ(crowd.lod_stats().demoted_actors, 1u);
}

TEST(LodCrowd, BudgetWithLodDisabledChangesNothing) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = load_shared("lumagl/SimpleSkinLOD.gltf");
  Crowd plain(asset, {.lod = {.enabled = false}});
  Crowd budgeted(asset, {.lod = {.enabled = false, .vertex_budget = 24}});
  for (Crowd* c : {&plain, &budgeted}) {
    c->add_actors(reference_actors());
    c->update(0.1f, reference_view());
  }
  EXPECT_EQ(instance_counts(budgeted), instance_counts(plain));
  EXPECT_EQ(budgeted.lod_stats().vertices, 96u);
  EXPECT_FALSE(budgeted.lod_stats().vertex_budget.has_value());
  EXPECT_EQ(budgeted.lod_stats().demoted_actors, 0u);
  // Prepared levels, then disabled: level 0 for all, the budget unused.
  Crowd toggled(asset, {.lod = {.enabled = true, .vertex_budget = 24}});
  toggled.add_actors(reference_actors());
  toggled.update(0.1f, reference_view());
  toggled.set_lod_enabled(false);
  EXPECT_EQ(instance_counts(toggled), (std::vector<std::uint32_t>{4, 0, 0}));
  EXPECT_EQ(toggled.lod_stats().vertices, 96u);
  EXPECT_FALSE(toggled.lod_stats().vertex_budget.has_value());
  EXPECT_TRUE(toggled.lod_stats().budget_satisfied);
}

TEST(LodCrowd, HysteresisAndBias) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = load_shared("lumagl/SimpleSkinLOD.gltf");
  const Sphere rest = simple_skin_rest_sphere(*asset);
  EXPECT_NEAR(rest.radius, std::sqrt(1.25f), 1e-5f);
  Crowd crowd(asset, {.lod = {.enabled = true, .hysteresis = 0.2f}});
  Actor actor = crowd.add_actor(at("walker", 0, 0, -10));
  // Coverage c = r / distance of the sphere centre.
  const auto place_at_coverage = [&](float coverage) {
    actor.set_transform(glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, -rest.center.z - rest.radius / coverage)));
    crowd.update(0.0f, reference_view());
    return level_of(crowd, 0);
  };
  EXPECT_EQ(place_at_coverage(0.6f), 0);
  EXPECT_EQ(place_at_coverage(0.45f), 0);  // not below 0.5 · 0.8
  EXPECT_EQ(place_at_coverage(0.35f), 1);
  EXPECT_EQ(place_at_coverage(0.55f), 1);  // not at 0.5 · 1.2
  crowd.set_lod_bias(2.0f);                // 1.1 ≥ 0.6
  EXPECT_EQ(level_of(crowd, 0), 0);
}

TEST(LodCrowd, TogglingKeepsActorsClipsAndBuffers) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"), {.lod = {.enabled = true}});
  auto handles = crowd.add_actors(reference_actors());
  crowd.update(0.25f, reference_view());
  const std::size_t groups = crowd.primitive_groups().size();
  const glm::vec4* transforms = crowd.node_streams()[0].transforms.data();
  const glm::vec4* palette = crowd.node_streams()[0].palette.data();
  const std::string clip = handles[0].active_clip();
  const float time = handles[0].time();
  crowd.set_lod_enabled(false);
  EXPECT_EQ(instance_counts(crowd), (std::vector<std::uint32_t>{4, 0, 0}));
  EXPECT_EQ(crowd.lod_stats().culled_actors, 0u);
  crowd.set_lod_enabled(true);
  EXPECT_EQ(instance_counts(crowd), (std::vector<std::uint32_t>{1, 1, 1}));
  EXPECT_EQ(crowd.primitive_groups().size(), groups);
  EXPECT_EQ(crowd.node_streams()[0].transforms.data(), transforms);
  EXPECT_EQ(crowd.node_streams()[0].palette.data(), palette);
  EXPECT_EQ(handles[0].id(), "near");
  EXPECT_EQ(handles[3].id(), "tiny");
  EXPECT_EQ(handles[0].active_clip(), clip);
  EXPECT_FLOAT_EQ(handles[0].time(), time);
}

TEST(LodCrowd, EnablingACrowdWithoutLevelsPreparesThem) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"));
  crowd.add_actors(reference_actors());
  const glm::vec4* transforms = crowd.node_streams()[0].transforms.data();
  crowd.set_lod_view(reference_view());
  EXPECT_EQ(instance_counts(crowd), std::vector<std::uint32_t>{4});
  crowd.set_lod_enabled(true);
  EXPECT_EQ(instance_counts(crowd), (std::vector<std::uint32_t>{1, 1, 1}));
  ASSERT_NE(crowd.lod_model(), nullptr);
  EXPECT_EQ(crowd.node_streams().size(), 1u);
  EXPECT_EQ(crowd.node_streams()[0].transforms.data(), transforms);
}

TEST(LodCrowd, CullingKeepsPartlyVisibleActors) {
  GLTF_CROWD_REQUIRE_ASSETS();
  // Tiny thresholds (one per level): only the frustum culls here. Far plane at 50.
  Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"),
              {.lod = {.enabled = true, .screen_coverage = {1e-6f, 1e-6f, 1e-6f}}});
  crowd.add_actors(
      std::vector{at("straddles-near", 0, -1, 0),      // centre on the eye plane, sphere through the near plane
                  at("partly-left", -10.6f, -1, -10),  // centre 0.6 left of the left plane at x = z, r > 0.42
                  at("behind", 0, 0, 5),               // whole sphere behind the camera
                  at("beyond-far", 0, 0, -60)});       // whole sphere past z = −50
  crowd.update(0.0f, reference_view(50.0f));
  EXPECT_EQ(level_of(crowd, 0), 0);
  EXPECT_EQ(level_of(crowd, 1), 0);
  EXPECT_EQ(level_of(crowd, 2), -1);
  EXPECT_EQ(level_of(crowd, 3), -1);
  EXPECT_EQ(crowd.lod_stats().visible_actors, 2u);
  EXPECT_EQ(crowd.lod_stats().culled_actors, 2u);
}

// world_bounds (docs/spec.md §5.8): the box around each visible actor's placed animated sphere,
// with or without prepared levels; it holds each actor's animated_bounds (bounds.hpp, sampled
// independently of the spheres) placed; hidden actors are left out.
TEST(LodCrowd, WorldBoundsHoldEveryVisibleActor) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = load_shared("threejs/RobotExpressive.glb");
  for (const bool lod : {false, true}) {
    SCOPED_TRACE(lod ? "with levels" : "without levels");
    Crowd crowd(asset, {.lod = {.enabled = lod}});
    EXPECT_TRUE(crowd.world_bounds().empty());
    std::vector<ActorOptions> options = {at("a", -20, 0, 0), at("b", 10, 0, 5), at("c", 0, 0, -30)};
    for (ActorOptions& o : options) o.clip = "Dance";
    options[1].transform = glm::scale(options[1].transform, glm::vec3(2.0f));
    std::vector<Actor> actors = crowd.add_actors(options);
    actors[2].set_visible(false);
    crowd.update(0.5f);
    const Bounds world = crowd.world_bounds();
    // The definition: the Dance sphere, placed, of actors a and b.
    const LodModel model = build_lod_model(*asset, {});
    const auto dance = static_cast<std::size_t>(asset->find_clip("Dance"));
    Bounds expected;
    for (std::size_t i = 0; i < 2; ++i) {
      const glm::mat4& t = options[i].transform;
      const Sphere& s = model.clip_spheres[dance];
      const glm::vec3 c = glm::vec3(t * glm::vec4(s.center, 1.0f));
      const float r = s.radius * max_axis_scale(t);
      expected.add(c - r);
      expected.add(c + r);
      // Every vertex of the clip, placed (corners of its box), lies inside.
      const Bounds posed = animated_bounds(*asset, dance);
      for (int k = 0; k < 8; ++k) {
        const glm::vec3 corner((k & 1) ? posed.max.x : posed.min.x, (k & 2) ? posed.max.y : posed.min.y,
                               (k & 4) ? posed.max.z : posed.min.z);
        const glm::vec3 p = glm::vec3(t * glm::vec4(corner, 1.0f));
        EXPECT_TRUE(glm::all(glm::greaterThanEqual(p, world.min)) && glm::all(glm::lessThanEqual(p, world.max)))
            << "actor " << i << " corner " << k;
      }
    }
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(world.min[a], expected.min[a], 1e-3f);
      EXPECT_NEAR(world.max[a], expected.max[a], 1e-3f);
    }
    EXPECT_GT(world.min.z, -25.0f) << "the hidden actor at z = -30 is left out";
  }
}

// The reference coverages 0.745, 0.280, 0.093 and 0.0075: min_coverage 0 keeps the tiny actor
// (at the last level), 0.1 culls the far one too.
TEST(LodCrowd, MinCoverageMovesTheCullThreshold) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const struct {
    float min_coverage;
    std::vector<std::uint32_t> counts;
    std::uint32_t culled;
  } cases[] = {{0.0f, {1, 1, 2}, 0}, {0.1f, {1, 1, 0}, 2}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.min_coverage);
    Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"), {.lod = {.enabled = true, .min_coverage = c.min_coverage}});
    crowd.add_actors(reference_actors());
    crowd.update(1.0f / 30.0f, reference_view());
    EXPECT_EQ(instance_counts(crowd), c.counts);
    EXPECT_EQ(crowd.lod_stats().culled_actors, c.culled);
    EXPECT_EQ(crowd.lod_stats().visible_actors, 4u - c.culled);
  }
}

TEST(LodCrowd, MsftLodGroupsMapToTheBestNode) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/msft-lod.gltf"), {.lod = {.enabled = true}});
  const auto groups = crowd.primitive_groups();
  ASSERT_EQ(groups.size(), 3u);
  const std::uint32_t nodes[] = {2, 1, 0}, indices[] = {5796, 324, 36};
  for (std::uint32_t l = 0; l < 3; ++l) {
    EXPECT_EQ(groups[l].node, nodes[l]);
    EXPECT_EQ(groups[l].source_node, 2u);
    EXPECT_EQ(groups[l].index_count, indices[l]);
    EXPECT_EQ(crowd.group_indices(groups[l]).size(), indices[l]);
    EXPECT_EQ(groups[l].palette_kind, PaletteKind::rigid);
  }
  EXPECT_EQ(crowd.lod_model()->thresholds, (std::vector<float>{0.2f, 0.05f, 0.001f}));
}

TEST(LodCrowd, GeneratedLevelsShareStreamsAndExposeTheirIndices) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const auto asset = load_shared("threejs/RobotExpressive.glb");
  Crowd crowd(asset, {.lod = {.enabled = true, .auto_generate = true}});
  const auto groups = crowd.primitive_groups();
  EXPECT_EQ(groups.size(), 3u * 19u);  // 19 reachable primitives × 3 levels
  EXPECT_EQ(crowd.node_streams().size(), 14u);
  std::uint64_t level_indices[3] = {};
  for (const PrimitiveGroup& g : groups) {
    const Primitive& p = asset->meshes[g.mesh].primitives[g.primitive];
    const std::span<const std::uint32_t> indices = crowd.group_indices(g);
    EXPECT_EQ(indices.size(), g.index_count);
    EXPECT_EQ(g.node, g.source_node);  // index-only: same node, same vertex buffers
    if (g.level == 0) {
      EXPECT_EQ(indices.data(), p.indices.data());
    }
    for (std::uint32_t i : indices) ASSERT_LT(i, p.vertex_count());
    level_indices[g.level] += g.index_count;
  }
  EXPECT_LT(level_indices[1], level_indices[0]);
  EXPECT_LT(level_indices[2], level_indices[1]);
  EXPECT_EQ(crowd.lod_stats().source, LodSource::generated);
}

TEST(LodCrowd, ControlsValidateAndLeaveStateUnchanged) {
  GLTF_CROWD_REQUIRE_ASSETS();
  Crowd crowd(load_shared("lumagl/SimpleSkinLOD.gltf"), {.lod = {.enabled = true}});
  crowd.add_actors(reference_actors());
  crowd.update(0.0f, reference_view());
  const auto before = instance_counts(crowd);
  const float time = crowd.actors()[0].time();
  LodView bad = reference_view();
  bad.height = 0;
  try {
    crowd.update(0.5f, bad);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "update.view.height");
    EXPECT_EQ(e.rule(), "viewport_size");
  }
  EXPECT_FLOAT_EQ(crowd.actors()[0].time(), time);
  for (float bias : {0.0f, -1.0f, std::numeric_limits<float>::infinity()}) {
    try {
      crowd.set_lod_bias(bias);
      ADD_FAILURE() << bias;
    } catch (const Error& e) {
      EXPECT_EQ(e.rule(), "lod_bias");
    }
  }
  EXPECT_EQ(instance_counts(crowd), before);
  try {
    Crowd invalid(load_shared("lumagl/SimpleSkinLOD.gltf"), {.lod = {.ratios = {0.5f, 0.7f}}});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), "lod.ratios[1]");
  }
  const PrimitiveGroup copy = crowd.primitive_groups()[0];
  try {
    (void)crowd.group_indices(copy);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "foreign_group");
  }
  crowd.destroy();
  try {
    crowd.set_lod_enabled(false);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "destroyed");
  }
}

}  // namespace
}  // namespace gltf_crowd
