// The built-in character (docs/spec.md §9): a procedurally generated, skinned, multi-primitive humanoid
// with morph targets and named clips, built in memory as a glTF 2.0 binary (GLB), so that the
// main job and the tests run on a fresh machine with no downloads.
//
// With the default parameters the figure is about 1.8 units tall, stands on y = 0, faces +z and
// has its left side at +x. It has 22 joints under one root joint "Hips" (bind pose rotations are
// identity, so each inverse bind matrix is a pure translation), two root-level skinned mesh nodes
// ("Body": 9 primitives; "Head": 2 primitives with the morph targets "Smile" and "Blink"), three
// materials (Body, Skin, Dark) and the clips Idle (3 s), Walking (1.2 s), Running (1.4 s),
// Wave (2 s) and Dance (2.4 s). Every clip loops (first key == last key) and has a LINEAR
// rotation channel per joint plus a hips translation channel; Idle, Wave and Dance also animate
// the morph weights of "Head".
#pragma once

#include <cstdint>
#include <vector>

#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// Parameters of the generated humanoid; `{}` gives the standard built-in character.
// Defaults: segments 8, rings 4, extra_spine_joints 0, keys_per_second 15.
// Per limb tube, vertices ≈ segments × (rings per bone + segments), caps included; joints and
// rotation channels per clip = 22 + extra_spine_joints; keys per channel ≈ keys_per_second ×
// clip duration + 1. Defaults: 1750 vertices, 3424 triangles, about 200 KB of GLB.
struct CharacterParams {
  std::uint32_t segments = 8;            // vertices around each limb ring; values < 3 act as 3
  std::uint32_t rings = 4;               // rings along each bone of a limb; values < 2 act as 2
  std::uint32_t extra_spine_joints = 0;  // joints added to the spine chain (benchmark scaling)
  std::uint32_t keys_per_second = 15;    // keyframe density of the clips; 0 acts as 1
};

// Returns the character as GLB bytes (glTF 2.0 binary container, one BIN chunk, no external
// resources). Deterministic: equal params give identical bytes. Out-of-range params are
// clamped, never rejected; throws gltf_crowd::Error (rule "serialization_failed") only if
// tinygltf's writer fails.
[[nodiscard]] std::vector<std::uint8_t> default_character_glb(const CharacterParams& params = {});

}  // namespace gltf_crowd
GLTF_CROWD_API_END
