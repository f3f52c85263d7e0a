// Per-actor appearance (docs/spec.md §3.12) in the crowd layer: tints and material variants,
// their validation (errors name the actor and value and change nothing), their per-slot arrays
// following slot compaction, the change clock a backend uploads by, and KHR_materials_variants
// at load (the variant names, each primitive's per-variant materials, malformed mappings
// rejected with the primitive's path).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "variant_assets.hpp"

namespace gltf_crowd {
namespace {

using nlohmann::json;

// The Error `load` throws, or a failure.
template <class Fn>
Error error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no Error thrown";
  return Error("", Rule::parse, "no Error thrown");
}

Error load_error(const json& mappings,
                 const json& variants = {{{"name", "Red"}}, {{"name", "Green"}}, {{"name", "Blue"}}}) {
  return error_of([&] { load_asset_from_memory(test::variant_glb(mappings, variants)); });
}

std::vector<Actor> add_actors(Crowd& crowd, std::size_t count) {
  std::vector<ActorOptions> options(count);
  for (std::size_t i = 0; i < count; ++i) options[i].id = "a" + std::to_string(i);
  return crowd.add_actors(options);
}

// ActorOptions::tint and material_variant give new actors their appearance in the same call, and
// a bad one rejects the whole batch (docs/spec.md §3.2): nothing is added, the clock stays.
TEST(AppearanceValidity, ActorOptionsSetTheAppearanceOfABatchOrRejectIt) {
  Crowd crowd(test::variant_asset(), {.capacity = 4});
  const std::uint64_t generation = crowd.appearance_generation();
  std::vector<ActorOptions> bad(2);
  bad[0].id = "fine";
  bad[1].id = "dark";
  bad[1].tint = {0.5f, -1.0f, 0.5f, 1.0f};
  const Error negative = error_of([&] { crowd.add_actors(bad); });
  EXPECT_EQ(negative.path(), "add_actors[1].tint");
  EXPECT_EQ(negative.rule(), "negative");
  EXPECT_NE(std::string(negative.what()).find("\"dark\""), std::string::npos) << negative.what();
  bad[1].tint = glm::vec4(1.0f);
  bad[1].material_variant = "Purple";
  const Error unknown = error_of([&] { crowd.add_actors(bad); });
  EXPECT_EQ(unknown.path(), "add_actors[1].material_variant");
  EXPECT_EQ(unknown.rule(), "unknown_variant");
  EXPECT_NE(std::string(unknown.what()).find("\"Green\""), std::string::npos) << unknown.what();
  EXPECT_EQ(crowd.actor_count(), 0u);
  EXPECT_EQ(crowd.appearance_generation(), generation);

  std::vector<ActorOptions> good(2);
  good[0].tint = {0.25f, 0.5f, 1.0f, 0.75f};
  good[1].material_variant = "Blue";
  const std::vector<Actor> actors = crowd.add_actors(good);
  EXPECT_EQ(actors[0].tint(), glm::vec4(0.25f, 0.5f, 1.0f, 0.75f));
  EXPECT_EQ(actors[0].material_variant(), "");
  EXPECT_EQ(actors[1].tint(), glm::vec4(1.0f));
  EXPECT_EQ(actors[1].material_variant(), "Blue");
  EXPECT_EQ(crowd.tints()[0], glm::vec4(0.25f, 0.5f, 1.0f, 0.75f));
  EXPECT_EQ(crowd.material_variants()[1], 2u);  // Red, Green, Blue
  EXPECT_GT(crowd.appearance_generation(), generation);
}

TEST(AppearanceValidity, BadTintsAndUnknownVariantsChangeNothing) {
  Crowd crowd(test::variant_asset(), {.capacity = 4});
  std::vector<Actor> actors = add_actors(crowd, 2);
  actors[1].set_tint({0.5f, 0.25f, 1.0f, 1.0f});
  actors[1].set_material_variant("Green");
  const std::uint64_t generation = crowd.appearance_generation();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    glm::vec4 tint;
    const char* rule;
  };
  for (const Case& c :
       {Case{{nan, 1, 1, 1}, "not_finite"}, Case{{1, inf, 1, 1}, "not_finite"}, Case{{1, 1, 1, -inf}, "not_finite"},
        Case{{1, 1, -0.5f, 1}, "negative"}, Case{{1, 1, 1, -1e-6f}, "negative"}}) {
    const Error e = error_of([&] { actors[1].set_tint(c.tint); });
    EXPECT_EQ(e.path(), "set_tint.rgba");
    EXPECT_EQ(e.rule(), c.rule);
    EXPECT_NE(std::string(e.what()).find("\"a1\""), std::string::npos) << e.what() << ": names the actor";
  }
  const Error unknown = error_of([&] { actors[1].set_material_variant("Purple"); });
  EXPECT_EQ(unknown.path(), "set_material_variant.name");
  EXPECT_EQ(unknown.rule(), "unknown_variant");
  const std::string message = unknown.what();
  for (const char* part : {"\"a1\"", "\"Purple\"", "\"Red\"", "\"Green\"", "\"Blue\""})
    EXPECT_NE(message.find(part), std::string::npos) << message << " lacks " << part;
  // Nothing changed: values, the other actor and the change clock.
  EXPECT_EQ(actors[1].tint(), glm::vec4(0.5f, 0.25f, 1.0f, 1.0f));
  EXPECT_EQ(actors[1].material_variant(), "Green");
  EXPECT_EQ(actors[0].tint(), glm::vec4(1.0f));
  EXPECT_EQ(actors[0].material_variant(), "");
  EXPECT_EQ(crowd.appearance_generation(), generation);
  // Zero and above-one tints are fine (black, brighter).
  actors[0].set_tint({0.0f, 0.0f, 0.0f, 0.0f});
  actors[0].set_tint({2.0f, 1.0f, 1.0f, 1.0f});
  EXPECT_EQ(actors[0].tint(), glm::vec4(2.0f, 1.0f, 1.0f, 1.0f));
}

TEST(AppearanceValidity, AnAssetWithoutVariantsSaysSo) {
  Crowd crowd(test::red_quad(), {.capacity = 1});
  Actor actor = crowd.add_actor({.id = "solo"});
  const Error e = error_of([&] { actor.set_material_variant("Red"); });
  EXPECT_EQ(e.rule(), "unknown_variant");
  EXPECT_NE(std::string(e.what()).find("none"), std::string::npos) << e.what();
  EXPECT_EQ(crowd.material_variants()[0], kNoVariant);
}

TEST(Appearance, DefaultsAndGetters) {
  Crowd crowd(test::variant_asset(), {.capacity = 4});
  std::vector<Actor> actors = add_actors(crowd, 3);
  ASSERT_EQ(crowd.tints().size(), 3u);
  ASSERT_EQ(crowd.material_variants().size(), 3u);
  ASSERT_EQ(crowd.appearance_generations().size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(actors[i].tint(), glm::vec4(1.0f));
    EXPECT_EQ(actors[i].material_variant(), "");
    EXPECT_EQ(crowd.tints()[i], glm::vec4(1.0f));
    EXPECT_EQ(crowd.material_variants()[i], kNoVariant);
  }
  actors[2].set_material_variant("Blue");
  EXPECT_EQ(actors[2].material_variant(), "Blue");
  EXPECT_EQ(crowd.material_variants()[2], 2u);
  actors[2].set_material_variant("");  // "" clears, as clear_material_variant
  EXPECT_EQ(crowd.material_variants()[2], kNoVariant);
  actors[2].set_material_variant("Red");
  actors[2].clear_material_variant();
  EXPECT_EQ(actors[2].material_variant(), "");
  EXPECT_EQ(crowd.material_variants()[2], kNoVariant);
}

// Only appearance writes move the clock, never update(); each write marks only its slot.
TEST(Appearance, ChangeClockMarksOnlyWrittenSlots) {
  Crowd crowd(test::variant_asset(), {.capacity = 4});
  std::vector<Actor> actors = add_actors(crowd, 3);
  const std::uint64_t g0 = crowd.appearance_generation();
  crowd.update(0.1f);
  crowd.update(0.1f);
  EXPECT_EQ(crowd.appearance_generation(), g0) << "update() changes no appearance";
  actors[1].set_tint({0.5f, 0.5f, 0.5f, 1.0f});
  EXPECT_GT(crowd.appearance_generation(), g0);
  EXPECT_GT(crowd.appearance_generations()[1], g0);
  EXPECT_LE(crowd.appearance_generations()[0], g0);
  EXPECT_LE(crowd.appearance_generations()[2], g0);
  const std::uint64_t g1 = crowd.appearance_generation();
  actors[2].set_material_variant("Green");
  EXPECT_GT(crowd.appearance_generations()[2], g1);
  EXPECT_LE(crowd.appearance_generations()[1], g1);
  // The pose is not re-evaluated by appearance controls.
  const std::uint64_t packed = crowd.packed_generation();
  actors[0].set_tint({1.0f, 0.0f, 0.0f, 1.0f});
  EXPECT_EQ(crowd.packed_generation(), packed);
}

// Removal moves the last actor into the hole, with its tint and variant, as it moves placements;
// the moved slot is marked changed. A new actor in a freed slot starts white, without variant.
TEST(Appearance, ValuesFollowSlotCompaction) {
  Crowd crowd(test::variant_asset(), {.capacity = 4});
  std::vector<Actor> actors = add_actors(crowd, 4);
  const std::vector<glm::vec4> tints = {
      {0.1f, 0.2f, 0.3f, 1.0f}, {0.4f, 0.5f, 0.6f, 1.0f}, {0.7f, 0.8f, 0.9f, 1.0f}, {1.0f, 0.5f, 0.25f, 0.5f}};
  const char* variants[] = {"Red", "", "Blue", "Green"};
  for (std::size_t i = 0; i < 4; ++i) {
    actors[i].set_tint(tints[i]);
    actors[i].set_material_variant(variants[i]);
  }
  const std::uint64_t before = crowd.appearance_generation();
  ASSERT_TRUE(crowd.remove_actor("a1"));  // a3 moves into slot 1
  ASSERT_EQ(crowd.tints().size(), 3u);
  EXPECT_EQ(crowd.actors()[1].id(), "a3");
  EXPECT_EQ(crowd.tints()[1], tints[3]);
  EXPECT_EQ(crowd.material_variants()[1], 1u);  // Green
  EXPECT_GT(crowd.appearance_generations()[1], before) << "the moved slot must be uploaded again";
  EXPECT_EQ(crowd.tints()[0], tints[0]);
  EXPECT_EQ(crowd.tints()[2], tints[2]);
  EXPECT_EQ(crowd.material_variants()[0], 0u);
  EXPECT_EQ(crowd.material_variants()[2], 2u);
  EXPECT_EQ(actors[3].tint(), tints[3]) << "the handle follows its actor";
  EXPECT_EQ(actors[3].material_variant(), "Green");
  ASSERT_TRUE(crowd.remove_actor("a2"));  // the last one: nothing moves
  EXPECT_EQ(crowd.tints().size(), 2u);
  Actor fresh = crowd.add_actor({.id = "fresh"});
  EXPECT_EQ(fresh.tint(), glm::vec4(1.0f));
  EXPECT_EQ(fresh.material_variant(), "");
  EXPECT_EQ(crowd.material_variants()[2], kNoVariant);
  // reserve() keeps them.
  crowd.reserve(16);
  EXPECT_EQ(actors[3].tint(), tints[3]);
  EXPECT_EQ(crowd.material_variants()[1], 1u);
}

TEST(MaterialVariantsLoading, NamesAndPerVariantMaterials) {
  const auto asset = test::variant_asset();
  ASSERT_EQ(asset->material_variants, (std::vector<std::string>{"Red", "Green", "Blue"}));
  EXPECT_EQ(asset->find_material_variant("Green"), 1);
  EXPECT_EQ(asset->find_material_variant("Purple"), -1);
  const Primitive& mapped = asset->meshes[0].primitives[0];
  EXPECT_EQ(mapped.material, 0);
  EXPECT_EQ(mapped.variant_materials, (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(mapped.material_for(kNoVariant), 0);
  EXPECT_EQ(mapped.material_for(2), 3);
  const Primitive& plain = asset->meshes[1].primitives[0];
  EXPECT_TRUE(plain.variant_materials.empty());
  EXPECT_EQ(plain.material_for(1), 4);
  for (const Warning& w : asset->warnings) EXPECT_NE(w.rule, "extension_ignored") << w.path;
}

// A variant no mapping lists keeps the primitive's own material; one mapping may list several.
TEST(MaterialVariantsLoading, UnmappedVariantsKeepTheDefaultMaterial) {
  const auto asset = std::make_shared<const Asset>(
      load_asset_from_memory(test::variant_glb({{{"material", 2}, {"variants", {0, 2}}}})));
  EXPECT_EQ(asset->meshes[0].primitives[0].variant_materials, (std::vector<std::int32_t>{2, 0, 2}));
}

TEST(MaterialVariantsLoading, MalformedMappingsNameThePrimitive) {
  const std::string ext = "meshes[0].primitives[0].extensions.KHR_materials_variants";
  struct Case {
    json mappings;
    std::string path;
    const char* rule;
  };
  const std::vector<Case> cases = {
      {{{{"material", 1}, {"variants", {3}}}}, ext + ".mappings[0].variants[0]", "variant_index"},
      {{{{"material", 1}, {"variants", {-1}}}}, ext + ".mappings[0].variants[0]", "variant_index"},
      {{{{"material", 1}, {"variants", {0}}}, {{"material", 2}, {"variants", {1, 0}}}},
       ext + ".mappings[1].variants[1]",
       "variant_index"},
      {{{{"material", 9}, {"variants", {0}}}}, ext + ".mappings[0].material", "material_index"},
      {{{{"material", -1}, {"variants", {0}}}}, ext + ".mappings[0].material", "material_index"},
      {{{{"material", 1.5}, {"variants", {0}}}}, ext + ".mappings[0].material", "material_variants"},
      {{{{"variants", {0}}}}, ext + ".mappings[0].material", "material_variants"},
      {{{{"material", 1}, {"variants", json::array()}}}, ext + ".mappings[0].variants", "material_variants"},
      {{{{"material", 1}, {"variants", {"Red"}}}}, ext + ".mappings[0].variants[0]", "material_variants"},
      {json::object(), ext + ".mappings", "material_variants"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mappings.dump());
    const Error e = load_error(c.mappings);
    EXPECT_EQ(e.path(), c.path) << e.what();
    EXPECT_EQ(e.rule(), c.rule) << e.what();
  }
  // Mappings without the root's variant list name variants that do not exist.
  EXPECT_EQ(error_of([] {
              load_asset_from_memory(test::quad_glb({{.variant_mappings = {{{"material", 0}, {"variants", {0}}}}}},
                                                    json::array({test::flat_material(glm::vec4(1))})));
            }).rule(),
            "variant_index");
}

TEST(MaterialVariantsLoading, MalformedVariantListsAreRejected) {
  const std::string root = "extensions.KHR_materials_variants.variants";
  struct Case {
    json variants;
    std::string path;
  };
  const std::vector<Case> cases = {
      {json::array(), root},
      {{{{"name", "Red"}}, {{"name", "Red"}}}, root + "[1].name"},
      {{{{"name", 3}}}, root + "[0].name"},
      {json::array({json{{"label", "no name"}}}), root + "[0].name"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.variants.dump());
    const Error e = load_error(json::array(), c.variants);
    EXPECT_EQ(e.path(), c.path) << e.what();
    EXPECT_EQ(e.rule(), "material_variants") << e.what();
  }
}

}  // namespace
}  // namespace gltf_crowd
