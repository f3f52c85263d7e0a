// The crowd that `gltf-crowd bench` and bench/crowd_bench.cpp measure. Both build it here, so a
// quick measurement of one configuration and the Google Benchmark suite time the same work.
// Depends on the GPU-free core only (the suite links this file on its own).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "gltf_crowd/crowd.hpp"

namespace gltf_crowd::tools {

// Δ of one measured update, seconds (a 60 Hz frame).
inline constexpr float bench_frame_seconds = 1.0f / 60.0f;

// Adds `actors` actors to the empty `crowd` (capacity >= actors): actor i plays clip i mod C
// (C = the asset's clip count; none: rest pose) from phase (0.618·i) mod 1 at speed
// 0.8 + 0.1·(i mod 5), placed on a square grid 2 units apart, so actors sample different keys.
// With `crossfade`, every actor then starts a crossfade of 10⁶ scaled seconds towards clip
// (i + 1) mod C (the same clip when C = 1: two samples of it) at the opposite phase, and the
// crowd is advanced once by half that fade: every actor's incoming weight is then 0.4–0.6 and
// moves by only 10⁻⁶ per 1/60 s frame, so it stays mid-fade (two clips sampled and blended)
// for any realistic number of measured frames. Throws Error (path "--crossfade", rule
// "no_clips") for a crossfade on an asset without clips, and whatever add_actors throws.
void populate_bench_crowd(Crowd& crowd, std::size_t actors, bool crossfade);

// Gives every actor an application-driven pose over every node of the asset (docs/spec.md §3.8):
// its rest TRS turned by 0.2 rad about x, at weight 0.5, so each evaluation blends a whole
// skeleton over the clips, the costliest case of the override path.
void drive_bench_skeletons(Crowd& crowd);

// Gives every actor an animation layer 1 (docs/spec.md §3.11) in `mode` ("override" or
// "additive") playing clip (i + 2) mod C from phase (0.382·i) mod 1 at weight 1, masked by the
// node `mask_node` and its descendants when given (e.g. an upper body: "Spine"'s index). Throws
// Error (path "--layer", rule "no_clips") on an asset without clips.
void add_bench_layers(Crowd& crowd, LayerMode mode, std::optional<std::uint32_t> mask_node);

}  // namespace gltf_crowd::tools
