// What the studio's controls set (docs/spec.md §8 `studio`), and `--set key=value`, which applies a
// control by name exactly as the panel would, for headless runs and tests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gltf_crowd/gl_renderers.hpp"
#include "tools/crowd_scene.hpp"

namespace gltf_crowd::tools {

// Crowd-wide controls. The scene rebuilds whatever a change invalidates (StudioScene::sync).
struct StudioSettings {
  std::string model;             // asset path; "" = the built-in character
  std::uint32_t actors = 25;     // 1..capacity
  std::uint32_t capacity = 100;  // the actors slider's upper end and the crowd's capacity
  ClipAssignment clips;
  bool animation = true;  // glTF animation playing (false: update(0), state kept)
  bool orbit = true;      // automatic camera orbit
  CameraOrbit camera;
  bool lod = false;          // Auto LOD
  float bias = 1.0f;         // detail bias (> 0)
  std::uint64_t budget = 0;  // vertex budget; 0 = unlimited
  bool update_rate = false;  // animation update-rate LOD (default bands), with Auto LOD
  PaletteStorage palette = PaletteStorage::automatic;
  bool gpu_animation = false;  // poses evaluated by the renderer's compute passes (Animation::gpu)
  // CrowdRendererOptions::skinned_vertex_cache: skin once per frame for the shadow and main
  // passes (docs/spec.md §6.9); rebuilds the renderer when it changes.
  bool skinned_vertex_cache = false;
  // Root motion (docs/spec.md §3.10) of this node (translation x, z and yaw), applied to each
  // actor's placement so walk cycles walk; "" = off.
  std::string root_motion;
  // A directional shadow map and a ground plane (docs/spec.md §8, as `render --shadows`): the
  // default look.
  bool shadows = true;
  // Per-actor tints and material variants (docs/spec.md §3.12), re-applied whenever the actors are
  // re-added or this changes.
  AppearanceAssignment appearance;
};

// A request on one actor of the table: select it, then change its clip (crossfading over
// `crossfade` seconds), speed, pause state or time.
struct ActorEdit {
  std::string actor;  // its id, as the table shows it ("actor-3"); "" = the first
  std::optional<std::string> clip;
  float crossfade = 0.4f;
  std::optional<float> speed;
  std::optional<bool> paused;
  std::optional<float> seek;
  std::optional<bool> visible;
  // Its animation layer 1 (docs/spec.md §3.11): clip ("" empties it), weight, mode, and a mask of
  // a node and its descendants (a node name; "" = none), made once per node as mask "below:NODE".
  std::optional<std::string> layer_clip;
  std::optional<float> layer_weight;
  std::optional<LayerMode> layer_mode;
  std::optional<std::string> layer_mask;
};

// Applies "key=value". Keys, spelled as the command-line options they mirror ('_' reads as '-'):
// model (a path, "built-in" or an asset's file stem found by `resolve_model`), actors, capacity,
// clips (cycle|single|random), clip, seed, phase-spread, speed-spread, playing (on|off), orbit,
// lod (on|off), lod-bias, vertex-budget, update-rate (on|off), palette (storage|texture|auto),
// animation (cpu|gpu: where poses are evaluated), skinned-vertex-cache (on|off), root-motion (a
// node: name, path or index; or none), shadows (on|off), tints (none|random), tint-seed, variants (none|spread),
// azimuth, elevation, zoom; the 0.2.0 keys evaluation, bias, budget and animation=on|off work
// with a deprecation warning on stderr (docs/spec.md §8.2); and the actor table's select (an
// actor id), actor.clip, actor.crossfade, actor.speed, actor.pause, actor.seek, actor.visible
// (on|off), actor.layer.clip, actor.layer.weight, actor.layer.mode (override|additive),
// actor.layer.mask, which fill `edit`. Throws Error (path "--set <key>", rules "set_syntax",
// "set_key", "set_value") and then changes nothing. Names that need the asset (a clip, a node, the
// actor id) are checked against it by check_model_settings (studio_scene.hpp).
void apply_setting(std::string_view assignment, StudioSettings& settings, std::optional<ActorEdit>& edit,
                   const std::function<std::string(std::string_view)>& resolve_model);

}  // namespace gltf_crowd::tools
