// Generated levels of detail on screen (docs/spec.md §7.2, §7.4; issue 19): for each shared
// skinned character, one actor in mid-walk is drawn at the coverage where each generated level
// takes over under the default thresholds, next to level 0 at the same camera, and the two
// images must agree but for a few percent of the actor's pixels. A second test draws the lowest
// level and level 0 over a walk cycle and counts pixels inside level 0's silhouette that the
// level leaves empty: cracks at joint seams would open there.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "image_compare.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

struct Character {
  const char* name;
  const char* file;  // under ../shared/assets
  const char* clip;  // a walk (or the only clip)
  // Differing pixels at the takeover coverage, of the pixels either image covers: 1.3 × the worst
  // measured (docs/benchmarks.md, "Generated levels against gltfpack, on screen, checked against
  // poses"), 5 % where that is less. Fox's levels differ in colour only (7.1 % of 336 px at level 1,
  // no silhouette pixel): its flat-shaded facets and texture are interpolated across triangles twice
  // as large.
  double takeover_bound = 0.05;
};

// Empty pixels inside level 0's silhouette over the walk, of that interior: 1.3 × the worst
// measured (2.7 %, RiggedFigure's level 2, whose thin limbs lose most at this close-up); a
// level torn at the hips by sloppy clustering left 28 % of RiggedFigure empty, Fox's 10 %.
constexpr double hole_bound = 0.035;

// The skinned characters of ../shared/assets/README.md. SimpleSkin (a flat strip whose levels
// have error 0, so they take over at coverage 10⁶) and RecursiveSkeletons (84 copies of a
// 40-vertex mesh, no character) have no takeover coverage to draw at.
const Character characters[] = {
    {"CesiumMan", "khronos/CesiumMan.glb", ""},       {"Fox", "khronos/Fox.glb", "Walk", 0.093},
    {"RiggedFigure", "khronos/RiggedFigure.glb", ""}, {"RobotExpressive", "threejs/RobotExpressive.glb", "Walking"},
    {"RiggedSimple", "khronos/RiggedSimple.glb", ""},
};

// gtest prints parameters of failing tests with this.
void PrintTo(const Character& c, std::ostream* os) { *os << c.name; }

// A narrow field of view keeps the camera outside the bounding sphere even at coverages above
// 1 (CesiumMan's first level takes over at 3.65): distance = r · cot(10°) / coverage.
const float fov = glm::radians(20.0f);
// Seen from the front right and a little above, so legs and arms do not hide each other.
const glm::vec3 view_direction = glm::normalize(glm::vec3(0.7f, 0.25f, 1.0f));

// The rest-pose sphere coverage is defined on (docs/spec.md §7.3), computed here from the file:
// every level-0 vertex at the nodes' rest transforms, skinned by Σ w · world(joint) · IBM
// (glTF 2.0 §3.7.3) or moved by world(node); centre of their box, largest distance from it.
Sphere rest_sphere(const Crowd& crowd) {
  const Asset& asset = crowd.asset();
  auto world = [&asset](std::uint32_t node) {
    glm::mat4 m = asset.local_matrix(node);
    for (int n = asset.nodes[node].parent; n >= 0; n = asset.nodes[static_cast<std::size_t>(n)].parent)
      m = asset.local_matrix(static_cast<std::uint32_t>(n)) * m;
    return m;
  };
  std::vector<glm::vec3> points;
  for (const PrimitiveGroup& g : crowd.primitive_groups()) {
    if (g.level != 0) continue;
    const Primitive& p = asset.meshes[g.mesh].primitives[g.primitive];
    const std::int32_t skin = asset.nodes[g.source_node].skin;
    std::vector<glm::mat4> joints;
    if (skin >= 0) {
      const Skin& s = asset.skins[static_cast<std::size_t>(skin)];
      for (std::size_t j = 0; j < s.joints.size(); ++j)
        joints.push_back(world(s.joints[j]) * s.inverse_bind_matrices[j]);
    }
    const glm::mat4 rigid = world(g.source_node);
    for (std::size_t v = 0; v < p.vertex_count(); ++v) {
      glm::mat4 m = rigid;
      if (skin >= 0) {
        m = glm::mat4(0.0f);
        for (int k = 0; k < 4; ++k) {
          m += p.weights0[v][k] * joints[p.joints0[v][k]];
          if (!p.joints1.empty()) m += p.weights1[v][k] * joints[p.joints1[v][k]];
        }
      }
      points.push_back(glm::vec3(m * glm::vec4(p.positions[v], 1.0f)));
    }
  }
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(std::numeric_limits<float>::lowest());
  for (const glm::vec3& q : points) lo = glm::min(lo, q), hi = glm::max(hi, q);
  Sphere s{0.5f * (lo + hi), 0.0f};
  for (const glm::vec3& q : points) s.radius = std::max(s.radius, glm::length(q - s.center));
  return s;
}

// A square view of `size` pixels looking at the sphere's centre from where its coverage is
// `coverage`: coverage = r · |P[1][1]| / w_clip (square viewport, bias 1), w_clip = distance.
LodView view_at_coverage(const Sphere& sphere, float coverage, std::uint32_t size) {
  const float p11 = 1.0f / std::tan(0.5f * fov);
  const float distance = sphere.radius * p11 / coverage;
  const glm::vec3 eye = sphere.center + distance * view_direction;
  return {glm::lookAt(eye, sphere.center, glm::vec3(0, 1, 0)),
          glm::perspective(fov, 1.0f, std::max(distance - 2.0f * sphere.radius, 0.01f * distance),
                           distance + 2.0f * sphere.radius),
          size, size};
}

// The crowd drawn by CrowdRenderer into a fresh size × size target cleared to transparent black:
// every drawn pixel has alpha 255 (opaque materials), so alpha is the silhouette.
test::Image draw(const Crowd& crowd, const LodView& view) {
  Framebuffer target({.width = view.width, .height = view.height});
  target.clear(glm::vec4(0.0f));
  CrowdRenderer renderer(crowd);
  renderer.draw(crowd, {.view = view.view, .projection = view.projection});
  return {view.width, view.height, target.read_pixels()};
}

bool covered(const test::Image& image, std::size_t pixel) { return image.rgba[4 * pixel + 3] != 0; }

// How two images of one actor differ, in pixels.
struct Difference {
  std::size_t covered = 0;     // covered in either image
  std::size_t silhouette = 0;  // covered in one, nothing within 1 px covered in the other
  std::size_t colour = 0;      // covered in both, no covered pixel within 1 px in the other within 48/255
  double fraction() const {
    return covered == 0 ? 1.0 : static_cast<double>(silhouette + colour) / static_cast<double>(covered);
  }
};

// Whether `image` has a pixel within 1 px of (x, y) that is covered and, when `colour` is given,
// within 48/255 of it in every colour channel.
bool near_match(const test::Image& image, int x, int y, const std::uint8_t* colour) {
  const int w = static_cast<int>(image.width), h = static_cast<int>(image.height);
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h) continue;
      const std::size_t i = static_cast<std::size_t>((y + dy) * w + x + dx);
      if (!covered(image, i)) continue;
      if (colour == nullptr) return true;
      bool close = true;
      for (std::size_t c = 0; c < 3; ++c) close = close && std::abs(int{image.rgba[4 * i + c]} - int{colour[c]}) <= 48;
      if (close) return true;
    }
  }
  return false;
}

// The rule lets a level's outline move by pixel_error = 1 px at its takeover coverage, and a
// texture or shading feature moves with it, so a pixel differs only when the other image has
// no match within 1 px: no covered pixel (silhouette), or none of a colour within 48/255. The
// level's corners keep level 0's smooth normals, but interpolated across larger triangles they
// light white surfaces up to ~40/255 differently (measured: 17 % of CesiumMan's level-2 pixels
// differ by more than 16/255, 3.5 % by more than 48/255); a wrong texture chart differs by more.
Difference compare(const test::Image& level, const test::Image& reference) {
  Difference d;
  const int w = static_cast<int>(level.width), h = static_cast<int>(level.height);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const auto i = static_cast<std::size_t>(y * w + x);
      const bool a = covered(level, i), b = covered(reference, i);
      if (!a && !b) continue;
      ++d.covered;
      if (a != b) {
        d.silhouette += near_match(a ? reference : level, x, y, nullptr) ? 0 : 1;
      } else if (!near_match(reference, x, y, &level.rgba[4 * i]) || !near_match(level, x, y, &reference.rgba[4 * i])) {
        ++d.colour;
      }
    }
  }
  return d;
}

// Pixels covered by `reference` at least 2 pixels away from its silhouette's edge (every pixel
// within 2 in x and y covered) that `level` leaves empty: a crack or tear inside the body. Edge
// pixels are left out because any simplified outline moves by a pixel there.
std::size_t interior_holes(const test::Image& level, const test::Image& reference, std::size_t& interior) {
  const int w = static_cast<int>(reference.width), h = static_cast<int>(reference.height);
  std::size_t holes = 0;
  interior = 0;
  for (int y = 2; y < h - 2; ++y) {
    for (int x = 2; x < w - 2; ++x) {
      bool inside = true;
      for (int dy = -2; dy <= 2 && inside; ++dy)
        for (int dx = -2; dx <= 2 && inside; ++dx)
          inside = covered(reference, static_cast<std::size_t>((y + dy) * w + x + dx));
      if (!inside) continue;
      ++interior;
      holes += covered(level, static_cast<std::size_t>(y * w + x)) ? 0 : 1;
    }
  }
  return holes;
}

std::shared_ptr<const Asset> load_character(const Character& c) {
  return std::make_shared<const Asset>(load_asset(test::asset_path(c.file)));
}

class LodVisual : public ::testing::TestWithParam<Character> {};

INSTANTIATE_TEST_SUITE_P(Characters, LodVisual, ::testing::ValuesIn(characters),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

// Under the default options (ratios [0.5, 0.25], 1 px of error on a 1080-pixel viewport), the
// actor is placed just below threshold k − 1, where the spec's band rule hands it to a lower
// level, and drawn on a 1080 × 1080 viewport; then LOD is switched off and level 0 is drawn
// from the same camera.
TEST_P(LodVisual, TakeoverCoverageLooksLikeLevel0) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Character& c = GetParam();
  const auto asset = load_character(c);
  Crowd crowd(asset, {.capacity = 1, .lod = {.enabled = true, .auto_generate = true}});
  ASSERT_NE(crowd.lod_model(), nullptr);
  ASSERT_EQ(crowd.lod_model()->source, LodSource::generated);
  const std::vector<float> thresholds = crowd.lod_model()->thresholds;
  const auto levels = crowd.lod_model()->level_count;
  ASSERT_EQ(levels, 3u);
  ASSERT_EQ(thresholds.size(), levels);
  const Sphere sphere = rest_sphere(crowd);
  const auto dir = test::scratch_dir(std::string("lod_visual_takeover_") + c.name);

  HeadlessContext context({.debug = true});
  std::uint32_t previous_level = 0;
  for (std::uint32_t k = 1; k < levels; ++k) {
    // Just below threshold k − 1; the plain band is the first threshold the coverage reaches
    // (docs/spec.md §7.4), so equal thresholds skip a level.
    const float coverage = 0.995f * thresholds[k - 1];
    const auto band = static_cast<std::uint32_t>(
        std::find_if(thresholds.begin(), thresholds.end(), [coverage](float t) { return coverage >= t; }) -
        thresholds.begin());
    if (band >= thresholds.size()) continue;  // culled there: nothing to compare
    const std::uint32_t level = std::min(band, levels - 1);
    if (level == previous_level) continue;
    previous_level = level;

    const LodView view = view_at_coverage(sphere, coverage, 1080);
    // A new actor, first classified when LOD is enabled with the new view: it takes the plain
    // band, without hysteresis from the previous level.
    crowd.set_lod_enabled(false);
    crowd.set_lod_view(view);
    crowd.remove_actors(std::vector<std::string>{"walker"});
    crowd.add_actor({.id = "walker", .clip = c.clip, .phase = 0.3f, .playing = false});
    crowd.set_lod_enabled(true);
    crowd.update(0.0f);
    ASSERT_EQ(crowd.lod_stats().visible_actors, 1u);
    ASSERT_EQ(crowd.lod_stats().levels[level].actors, 1u) << "level " << level << " at coverage " << coverage;
    const test::Image reduced = draw(crowd, view);
    crowd.set_lod_enabled(false);
    crowd.update(0.0f);
    const test::Image original = draw(crowd, view);

    const Difference d = compare(reduced, original);
    std::cout << c.name << " level " << level << " at coverage " << coverage << ": " << d.covered
              << " px covered, silhouette " << d.silhouette << ", colour " << d.colour << " (" << 100.0 * d.fraction()
              << " %)\n";
    // Small at 1080 pixels: Fox's level 2 takes over at 154 covered pixels.
    EXPECT_GT(d.covered, 50u) << "the actor must be on screen";
    EXPECT_LE(d.fraction(), c.takeover_bound)
        << c.name << " level " << level << ": " << d.silhouette << " silhouette and " << d.colour << " colour of "
        << d.covered << " px differ; "
        << test::write_difference(dir, "level" + std::to_string(level), reduced, original, 48);
  }
  EXPECT_GT(previous_level, 0u) << "no generated level is drawn under the default thresholds";
  EXPECT_EQ(context.debug_error_count(), 0u);
}

// The lowest level, forced with thresholds no coverage reaches (decreasing: an equal one would be
// dropped, spec §7.4), against level 0 at 8 times of a walk cycle on a 256 × 256 viewport where
// the actor's sphere spans 90 % of the height.
TEST_P(LodVisual, LowestLevelHasNoCracksWhileWalking) {
  GLTF_CROWD_REQUIRE_ASSETS();
  const Character& c = GetParam();
  const auto asset = load_character(c);
  Crowd crowd(asset,
              {.capacity = 1, .lod = {.enabled = true, .auto_generate = true, .screen_coverage = {1e6f, 1e5f, 1e-6f}}});
  ASSERT_NE(crowd.lod_model(), nullptr);
  ASSERT_EQ(crowd.lod_model()->level_count, 3u);
  const Sphere sphere = rest_sphere(crowd);
  const LodView view = view_at_coverage(sphere, 0.9f, 256);
  Actor actor = crowd.add_actor({.clip = c.clip, .playing = false});
  const std::string clip = actor.active_clip();
  const auto found =
      std::find_if(asset->clips.begin(), asset->clips.end(), [&clip](const Clip& k) { return k.name == clip; });
  ASSERT_NE(found, asset->clips.end());
  const auto dir = test::scratch_dir(std::string("lod_visual_cracks_") + c.name);

  HeadlessContext context({.debug = true});
  std::size_t worst = 0, worst_interior = 1;
  for (int frame = 0; frame < 8; ++frame) {
    actor.seek(found->duration_seconds * static_cast<float>(frame) / 8.0f);
    crowd.set_lod_enabled(true);
    crowd.update(0.0f, view);
    ASSERT_EQ(crowd.lod_stats().levels[2].actors, 1u);
    const test::Image reduced = draw(crowd, view);
    crowd.set_lod_enabled(false);
    crowd.update(0.0f);
    const test::Image original = draw(crowd, view);
    std::size_t interior = 0;
    const std::size_t holes = interior_holes(reduced, original, interior);
    std::cout << c.name << " frame " << frame << ": " << holes << " holes of " << interior << " interior px\n";
    EXPECT_GT(interior, 500u) << "the actor must be on screen";
    if (holes * worst_interior > worst * interior) worst = holes, worst_interior = interior;
    EXPECT_LE(static_cast<double>(holes), hole_bound * static_cast<double>(interior))
        << c.name << " frame " << frame << ": " << holes << " of " << interior << " interior px empty; "
        << test::write_difference(dir, "frame" + std::to_string(frame), reduced, original, 254);
  }
  std::cout << c.name << " worst: " << worst << " of " << worst_interior << "\n";
  EXPECT_EQ(context.debug_error_count(), 0u);
}

}  // namespace
}  // namespace gltf_crowd
