// The crowd fuzz target's character: the built-in humanoid's structure at a fraction of its
// cost. Every input builds a crowd, which compiles the rig and, with LOD, generates levels and
// bounds: ~80 ms under ASan for the smallest default_character_glb, ~9 ms for this one
// (docs/benchmarks.md "fuzz_crowd: executions per minute"). Header-only.
//
// Like the built-in character (docs/spec.md §9) it has one skin shared by two root-level mesh
// nodes, "Body" (two primitives, two materials) and "Head" (one primitive, morph targets "Smile"
// and "Blink"), joints "Hips" (root), "Spine", "Neck" and "LeftUpperLeg", and LINEAR clips "Idle",
// "Walking" and "Wave" that animate different nodes (Idle and Wave also the head's weights). The
// clips are short (≤ 0.5 s) and the primitives flat grids of ≤ 18 triangles, which the level
// generator can reduce.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <glm/glm.hpp>

#include "../tests/test_documents.hpp"
#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::fuzz {

// Appends to `d` a skinned grid of nx × ny quads in the z = 0 plane spanning [x0, x1] × [y0, y1],
// as the attributes and indices of one primitive; row r of vertices is bound to two joints by
// `bind(r)` = {joint a, joint b, weight of b}. Returns the primitive's JSON.
template <typename Bind>
nlohmann::json small_grid(test::Document& d, float x0, float x1, float y0, float y1, int nx, int ny, Bind bind,
                          int material) {
  std::vector<float> positions, normals, weights;
  std::vector<std::uint8_t> joints;
  for (int r = 0; r <= ny; ++r) {
    const auto [a, b, w] = bind(r);
    for (int c = 0; c <= nx; ++c) {
      positions.insert(positions.end(), {x0 + (x1 - x0) * static_cast<float>(c) / static_cast<float>(nx),
                                         y0 + (y1 - y0) * static_cast<float>(r) / static_cast<float>(ny), 0.0f});
      normals.insert(normals.end(), {0.0f, 0.0f, 1.0f});
      joints.insert(joints.end(), {a, b, 0, 0});
      weights.insert(weights.end(), {1.0f - w, w, 0.0f, 0.0f});
    }
  }
  std::vector<std::uint16_t> indices;
  const auto at = [nx](int c, int r) { return static_cast<std::uint16_t>(r * (nx + 1) + c); };
  for (int r = 0; r < ny; ++r)
    for (int c = 0; c < nx; ++c)
      indices.insert(indices.end(),
                     {at(c, r), at(c + 1, r), at(c + 1, r + 1), at(c, r), at(c + 1, r + 1), at(c, r + 1)});
  const std::size_t n = positions.size() / 3;
  const int position =
      d.add_accessor(d.add_view(positions), 5126, n, "VEC3", {{"min", {x0, y0, 0}}, {"max", {x1, y1, 0}}});
  return {{"attributes",
           {{"POSITION", position},
            {"NORMAL", d.add_floats(normals, 3, "VEC3")},
            {"JOINTS_0", d.add_accessor(d.add_view(joints), 5121, n, "VEC4")},
            {"WEIGHTS_0", d.add_floats(weights, 4, "VEC4")}}},
          {"indices", d.add_accessor(d.add_view(indices), 5123, indices.size(), "SCALAR")},
          {"material", material}};
}

// The character as GLB bytes (see the file comment).
inline std::vector<std::uint8_t> small_character_glb() {
  test::Document d;
  struct Row {
    std::uint8_t a, b;
    float weight_b;
  };
  // Joints 0 Hips (y 1), 1 Spine (y 1.3), 2 Neck (y 1.6), 3 LeftUpperLeg (x 0.1, y 1).
  const nlohmann::json torso = small_grid(
      d, -0.2f, 0.2f, 1.0f, 1.6f, 3, 3,
      [](int r) {
        return std::array<Row, 4>{{{0, 1, 0}, {0, 1, 0.5f}, {1, 2, 0}, {1, 2, 0.5f}}}[static_cast<std::size_t>(r)];
      },
      0);
  const nlohmann::json leg = small_grid(
      d, 0.0f, 0.2f, 0.2f, 1.0f, 2, 3,
      [](int r) {
        return std::array<Row, 4>{{{3, 0, 0}, {3, 0, 0}, {3, 0, 0.25f}, {3, 0, 0.5f}}}[static_cast<std::size_t>(r)];
      },
      1);
  nlohmann::json head = small_grid(
      d, -0.1f, 0.1f, 1.6f, 1.9f, 2, 2,
      [](int) {
        return Row{2, 2, 0};
      },
      2);
  // Smile pushes the middle row forward, Blink lowers the top row.
  std::vector<float> smile(27, 0.0f), blink(27, 0.0f);
  for (int c = 0; c < 3; ++c) {
    smile[static_cast<std::size_t>((3 + c) * 3 + 2)] = 0.05f;
    blink[static_cast<std::size_t>((6 + c) * 3 + 1)] = -0.02f;
  }
  head["targets"] = {
      {{"POSITION", d.add_accessor(d.add_view(smile), 5126, 9, "VEC3", {{"min", {0, 0, 0}}, {"max", {0, 0, 0.05f}}})}},
      {{"POSITION",
        d.add_accessor(d.add_view(blink), 5126, 9, "VEC3", {{"min", {0, -0.02f, 0}}, {"max", {0, 0, 0}}})}}};
  std::vector<float> ibms;
  for (const glm::vec3 at : {glm::vec3(0, 1, 0), glm::vec3(0, 1.3f, 0), glm::vec3(0, 1.6f, 0), glm::vec3(0.1f, 1, 0)})
    ibms.insert(ibms.end(), {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -at.x, -at.y, -at.z, 1});
  const int ibm = d.add_floats(ibms, 16, "MAT4");

  // Clips: per channel key times, then outputs (rotations about z, translations, weights).
  nlohmann::json samplers = nlohmann::json::array();
  const auto sampler = [&](const std::vector<float>& times, const std::vector<float>& values, std::size_t width,
                           const char* type) {
    const int input = d.add_accessor(d.add_view(times), 5126, times.size(), "SCALAR",
                                     {{"min", {times.front()}}, {"max", {times.back()}}});
    samplers.push_back({{"input", input},
                        {"output", d.add_accessor(d.add_view(values), 5126, values.size() / width, type)},
                        {"interpolation", "LINEAR"}});
    return samplers.size() - 1;
  };
  const auto turn = [](std::initializer_list<float> angles) {
    std::vector<float> q;
    for (const float a : angles) q.insert(q.end(), {0.0f, 0.0f, std::sin(a / 2), std::cos(a / 2)});
    return q;
  };
  nlohmann::json animations = nlohmann::json::array();
  const auto clip = [&](const char* name, const nlohmann::json& channels) {
    animations.push_back({{"name", name}, {"samplers", samplers}, {"channels", channels}});
    samplers = nlohmann::json::array();
  };
  const auto channel = [](std::size_t s, int node, const char* path) {
    return nlohmann::json{{"sampler", s}, {"target", {{"node", node}, {"path", path}}}};
  };
  clip("Idle", {channel(sampler({0, 0.25f, 0.5f}, turn({0, 0.2f, 0}), 4, "VEC4"), 1, "rotation"),
                channel(sampler({0, 0.5f}, {0, 1, 0, 0, 1.05f, 0}, 3, "VEC3"), 0, "translation"),
                channel(sampler({0, 0.25f, 0.5f}, {0, 0, 1, 0.5f, 0, 0}, 1, "SCALAR"), 5, "weights")});
  clip("Walking", {channel(sampler({0, 0.2f, 0.4f}, turn({-0.5f, 0.5f, -0.5f}), 4, "VEC4"), 3, "rotation"),
                   channel(sampler({0, 0.4f}, turn({0.1f, -0.1f}), 4, "VEC4"), 2, "rotation")});
  clip("Wave", {channel(sampler({0, 0.2f}, turn({0, 0.4f}), 4, "VEC4"), 1, "rotation"),
                channel(sampler({0, 0.1f, 0.2f}, {0, 1, 0, 0, 0, 0}, 1, "SCALAR"), 5, "weights")});

  d.json["nodes"] = {{{"name", "Hips"}, {"translation", {0, 1, 0}}, {"children", {1, 3}}},
                     {{"name", "Spine"}, {"translation", {0, 0.3f, 0}}, {"children", {2}}},
                     {{"name", "Neck"}, {"translation", {0, 0.3f, 0}}},
                     {{"name", "LeftUpperLeg"}, {"translation", {0.1f, 0, 0}}},
                     {{"name", "Body"}, {"mesh", 0}, {"skin", 0}},
                     {{"name", "Head"}, {"mesh", 1}, {"skin", 0}}};
  d.json["scene"] = 0;
  d.json["scenes"] = {{{"nodes", {0, 4, 5}}}};
  d.json["skins"] = {{{"joints", {0, 1, 2, 3}}, {"inverseBindMatrices", ibm}}};
  d.json["materials"] = {{{"name", "Body"}}, {{"name", "Skin"}}, {{"name", "Dark"}}};
  d.json["meshes"] = {{{"name", "Body"}, {"primitives", {torso, leg}}},
                      {{"name", "Head"},
                       {"primitives", {head}},
                       {"weights", {0, 0}},
                       {"extras", {{"targetNames", {"Smile", "Blink"}}}}}};
  d.json["animations"] = animations;
  return d.glb();
}

}  // namespace gltf_crowd::fuzz
