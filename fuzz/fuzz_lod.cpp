// Fuzz target (c): bytes → LOD generation on a small mesh (docs/spec.md §7 "Levels").
//
// The input describes one primitive as the loader would deliver it (finite positions, indices
// below the vertex count, joints below the skin's joint count, weights >= 0), a few ratios and a
// rest-pose offset of one joint. It runs simplify_levels() directly (without poses, and with a
// second pose that moves each vertex by its weight on that joint times the offset) and
// build_lod_model() with auto_generate on a one-mesh asset around the primitive, and aborts (a
// finding) unless:
//  - simplify_levels returns one level per ratio, none longer than the one before it, with a
//    finite error >= 0, every index below the vertex count, whole triangles only, and the
//    original indices for anything that is not a triangle list;
//  - the model has one source with consistent levels and per-level counts, descending
//    thresholds, and finite bounding spheres whenever the positions are of moderate size.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gltf_crowd/lod.hpp"

namespace gltf_crowd::fuzz {
namespace {

constexpr std::uint32_t kJoints = 4;
constexpr float kModerate = 1e6f;  // positions up to this keep every sphere finite

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

void require(bool ok, const char* what) {
  if (!ok) finding(what);
}

float finite_float(FuzzedDataProvider& in, bool& moderate) {
  if (in.ConsumeIntegralInRange(0, 7) != 0) return in.ConsumeFloatingPointInRange(-4.0f, 4.0f);
  const float f = in.ConsumeFloatingPoint<float>();  // any finite float, extremes included
  if (!(std::abs(f) <= kModerate)) moderate = false;
  return std::isfinite(f) ? f : 0.0f;
}

struct Input {
  Primitive primitive;
  std::vector<float> ratios;
  bool preserve_boundary = false;
  glm::vec3 joint_offset{0.0f};
  bool moderate = true;
};

Input read_input(FuzzedDataProvider& in) {
  Input out;
  Primitive& p = out.primitive;
  p.mode = in.ConsumeIntegralInRange(0, 15) == 0 ? static_cast<PrimitiveMode>(in.ConsumeIntegralInRange(0, 6))
                                                 : PrimitiveMode::triangles;
  const std::size_t vertices = in.ConsumeIntegralInRange<std::size_t>(1, 96);
  const bool skinned = in.ConsumeBool();
  const bool normals = in.ConsumeBool();
  // Few distinct coordinates make shared positions (welds) and flat regions likely.
  const bool grid = in.ConsumeBool();
  for (std::size_t v = 0; v < vertices; ++v) {
    glm::vec3 pos;
    for (int c = 0; c < 3; ++c)
      pos[c] = grid ? static_cast<float>(in.ConsumeIntegralInRange(0, 3)) : finite_float(in, out.moderate);
    p.positions.push_back(pos);
    if (normals) p.normals.push_back(glm::vec3(0.0f, 1.0f, 0.0f) * (in.ConsumeBool() ? 1.0f : -1.0f));
    if (skinned) {
      glm::u16vec4 joints;
      glm::vec4 weights;
      for (int k = 0; k < 4; ++k) {
        joints[k] = static_cast<std::uint16_t>(in.ConsumeIntegralInRange<std::uint32_t>(0, kJoints - 1));
        weights[k] = static_cast<float>(in.ConsumeIntegralInRange(0, 4));
      }
      const float sum = weights.x + weights.y + weights.z + weights.w;
      weights = sum > 0.0f ? weights / sum : glm::vec4(1, 0, 0, 0);  // the loader renormalizes
      p.joints0.push_back(joints);
      p.weights0.push_back(weights);
    }
  }
  const std::size_t indices = in.ConsumeIntegralInRange<std::size_t>(0, 3 * 128);
  for (std::size_t i = 0; i < indices && in.remaining_bytes() > 0; ++i)
    p.indices.push_back(in.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(vertices - 1)));
  if (p.mode == PrimitiveMode::triangles) p.indices.resize(p.indices.size() / 3 * 3);
  p.min = p.max = p.positions[0];
  for (const glm::vec3& pos : p.positions) {
    p.min = glm::min(p.min, pos);
    p.max = glm::max(p.max, pos);
  }
  // Ratios strictly decreasing in (0, 1), as validate_lod_options demands.
  float previous = 1.0f;
  for (int n = in.ConsumeIntegralInRange(1, 3); n > 0; --n) {
    const float r = previous * in.ConsumeFloatingPointInRange(0.01f, 0.99f);
    if (!(r > 0.0f)) break;
    out.ratios.push_back(r);
    previous = r;
  }
  if (out.ratios.empty()) out.ratios.push_back(0.5f);
  out.preserve_boundary = in.ConsumeBool();
  for (int c = 0; c < 3; ++c) out.joint_offset[c] = finite_float(in, out.moderate);
  return out;
}

void check_levels(const Primitive& p, const std::vector<SimplifiedLevel>& simplified, std::size_t ratios) {
  require(simplified.size() == ratios, "one index array per ratio");
  std::size_t previous = p.indices.size();
  for (const SimplifiedLevel& s : simplified) {
    const std::vector<std::uint32_t>& level = s.indices;
    require(level.size() <= previous, "a level is longer than the one before it");
    previous = level.size();
    require(std::isfinite(s.error) && s.error >= 0.0f, "a level's error is not finite and >= 0");
    require(level.size() <= p.indices.size(), "a level is longer than the original");
    require(std::all_of(level.begin(), level.end(), [&](std::uint32_t i) { return i < p.vertex_count(); }),
            "a level index is out of range");
    if (p.mode == PrimitiveMode::triangles)
      require(level.size() % 3 == 0, "a level has a partial triangle");
    else
      require(level == p.indices, "a non-triangle-list primitive was reduced");
  }
}

// A one-mesh asset: node 0 draws the primitive (skinned to nodes 1..kJoints when it has joints),
// node 1 sits at `joint_offset`. Derived fields filled as the loader fills them.
Asset make_asset(const Input& input) {
  Asset asset;
  const bool skinned = !input.primitive.joints0.empty();
  const std::uint32_t nodes = skinned ? 1 + kJoints : 1;
  asset.nodes.resize(nodes);
  asset.nodes[0].mesh = 0;
  if (skinned) {
    asset.nodes[0].skin = 0;
    Skin skin;
    for (std::uint32_t j = 1; j < nodes; ++j) {
      asset.nodes[j].parent = 0;
      asset.nodes[0].children.push_back(j);
      skin.joints.push_back(j);
    }
    skin.inverse_bind_matrices.assign(kJoints, glm::mat4(1.0f));
    asset.skins.push_back(skin);
    asset.nodes[1].translation = input.joint_offset;
  }
  asset.meshes.push_back(Mesh{.name = "m", .primitives = {input.primitive}, .weights = {}, .target_names = {}});
  asset.scene_roots = {0};
  asset.drawn_nodes = {0};
  for (std::uint32_t n = 0; n < nodes; ++n) asset.hierarchy_order.push_back(n);
  asset.weight_offsets.assign(nodes, 0);
  asset.weight_counts.assign(nodes, 0);
  return asset;
}

void check_model(const Input& input, const LodModel& model) {
  const Primitive& p = input.primitive;
  // Generated when some level came out smaller, else no levels at all.
  require(model.source == LodSource::generated || (model.source == LodSource::none && model.level_count == 1),
          "levels are generated or absent");
  require(model.sources.size() == 1 && !model.sources[0].levels.empty(), "one source with levels");
  require(model.level_count == model.sources[0].levels.size() && model.level_count <= 1 + input.ratios.size(),
          "level count");
  require(model.level_indices.size() == model.level_count && model.level_triangles.size() == model.level_count,
          "per-level counts");
  require(!model.thresholds.empty(), "thresholds");
  for (std::size_t i = 1; i < model.thresholds.size(); ++i)
    require(model.thresholds[i] <= model.thresholds[i - 1], "thresholds must not rise");
  for (const LodNodeLevel& level : model.sources[0].levels)
    for (const LodPrimitive& lp : level.primitives) {
      require(lp.indices.empty() || lp.indices.size() == lp.index_count, "generated index count");
      require(lp.index_count <= p.indices.size(), "a level is longer than the original");
      require(std::all_of(lp.indices.begin(), lp.indices.end(), [&](std::uint32_t i) { return i < p.vertex_count(); }),
              "a model level index is out of range");
    }
  if (!input.moderate) return;
  const auto finite = [](const Sphere& s) {
    return std::isfinite(s.center.x) && std::isfinite(s.center.y) && std::isfinite(s.center.z) &&
           std::isfinite(s.radius) && s.radius >= 0.0f;
  };
  require(finite(model.rest_sphere) && finite(model.rest_pose_bounds), "bounding spheres must be finite");
}

}  // namespace
}  // namespace gltf_crowd::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gltf_crowd;
  FuzzedDataProvider in(data, size);
  const fuzz::Input input = fuzz::read_input(in);
  fuzz::check_levels(input.primitive, simplify_levels(input.primitive, input.ratios, 0.05f, input.preserve_boundary),
                     input.ratios.size());
  // The pose check: a second pose moves each vertex by its weight on joint 1 times the joint's
  // offset (all of it when unskinned).
  const Primitive& p = input.primitive;
  PoseSamples poses{.positions = p.positions, .pose_count = 2, .tolerance = 0.01f};
  for (std::size_t v = 0; v < p.vertex_count(); ++v) {
    float w = p.joints0.empty() ? 1.0f : 0.0f;
    for (int k = 0; k < 4 && !p.joints0.empty(); ++k)
      if (p.joints0[v][k] == 1) w += p.weights0[v][k];
    poses.positions.push_back(p.positions[v] + w * input.joint_offset);
  }
  fuzz::check_levels(p, simplify_levels(p, input.ratios, 0.05f, input.preserve_boundary, poses), input.ratios.size());
  const Asset asset = fuzz::make_asset(input);
  const LodOptions options{
      .enabled = true, .auto_generate = true, .ratios = input.ratios, .preserve_boundary = input.preserve_boundary};
  fuzz::check_model(input, build_lod_model(asset, options));
  return 0;
}
