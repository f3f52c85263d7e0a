// The rule table (gltf_crowd/rules.hpp): identifiers are unique snake_case strings equal to the
// enumerator names, and Error carries them. The shared wordings: clip_name_list and the
// not_finite checks (src/asset/checks.hpp).
#include <cstddef>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

#include <gtest/gtest.h>

#include "asset/checks.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/error.hpp"

namespace gltf_crowd {
namespace {

TEST(Rules, IdentifiersAreUniqueSnakeCaseWithDescriptions) {
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < rule_count; ++i) {
    const auto rule = static_cast<Rule>(i);
    const std::string_view id = rule_id(rule);
    SCOPED_TRACE(std::string(id));
    ASSERT_FALSE(id.empty());
    EXPECT_TRUE(id.front() >= 'a' && id.front() <= 'z');
    for (const char c : id) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
    EXPECT_TRUE(seen.insert(id).second) << "listed twice";
    EXPECT_FALSE(rule_description(rule).empty());
  }
  EXPECT_EQ(rule_id(static_cast<Rule>(rule_count)), "");
}

TEST(Rules, IdentifierIsTheEnumeratorName) {
  static_assert(rule_id(Rule::node_cycle) == "node_cycle");
  EXPECT_EQ(rule_id(Rule::accessor_out_of_bounds), "accessor_out_of_bounds");
  EXPECT_EQ(rule_id(Rule::glb_trailing_bytes), "glb_trailing_bytes");
  EXPECT_EQ(rule_id(Rule::unknown_clip), "unknown_clip");
}

// Error takes only a Rule of the table (issue 56 item 8): no string can name a rule the table lacks.
static_assert(!std::is_constructible_v<Error, std::string, std::string, std::string>);
static_assert(!std::is_constructible_v<Error, const char*, const char*, const char*>);

TEST(Rules, ErrorTakesOnlyARule) {
  const Error by_rule("nodes[3]", Rule::node_cycle, "is part of a cycle");
  EXPECT_EQ(by_rule.rule(), "node_cycle");
  EXPECT_EQ(by_rule.code(), Rule::node_cycle);
  EXPECT_EQ(by_rule.path(), "nodes[3]");
  EXPECT_STREQ(by_rule.what(), "nodes[3]: is part of a cycle");
}

TEST(Rules, ClipNameListNamesUnnamedClipsByIndex) {
  Asset asset;
  EXPECT_EQ(clip_name_list(asset), "none");
  asset.clips.resize(3);
  asset.clips[0].name = "Idle";
  asset.clips[2].name = "Walk";
  EXPECT_EQ(clip_name_list(asset), "Idle, #1 (unnamed), Walk");
}

TEST(Rules, NotFiniteNamesTheValueOrTheMatrixEntry) {
  glm::mat4 m(1.0f);
  EXPECT_TRUE(detail::is_finite(m));
  EXPECT_NO_THROW(detail::check_finite(m, "placement"));
  m[3][1] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(detail::is_finite(m));
  try {
    detail::check_finite(m, "placement");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "not_finite");
    EXPECT_STREQ(e.what(), "placement: entry [3][1] is not finite");
  }
  EXPECT_NO_THROW(detail::check_finite(2.5f, "speed"));
  try {
    detail::check_finite(std::numeric_limits<float>::quiet_NaN(), "speed");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "not_finite");
    EXPECT_STREQ(e.what(), "speed: nan is not finite");
  }
}

}  // namespace
}  // namespace gltf_crowd
