// The studio's crowd: the model catalogue, the Crowd and CrowdRenderer built from
// StudioSettings, the per-frame update and draw with their timings, and the statistics JSON.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl_renderers.hpp"
#include "tools/crowd_scene.hpp"
#include "tools/shadow_stage.hpp"
#include "tools/studio_settings.hpp"

namespace gltf_crowd::tools {

// One selectable model.
struct ModelEntry {
  std::string label;  // file stem, or "built-in"
  std::string path;   // "" = the built-in character
};

// The built-in character, then every animated glTF/GLB under `folder` (recursively, sorted by
// path); assets without clips and files that fail to load (with `load`) are left out.
std::vector<ModelEntry> scan_models(const std::filesystem::path& folder, const LoadOptions& load = {});

// Throws Error (path `path`, rule unknown_clip, listing the clips) when `clips` picks one clip by a
// name the asset has not ("" is its first clip).
void check_clip(const Asset& asset, const ClipAssignment& clips, const std::string& path);

// "4 actors: actor-0 to actor-3", the ids the studio gives `count` actors (actor_options), for
// messages.
std::string actor_ids_note(std::size_t count);

// Checks what `--set` names in the model `asset` before the studio opens (docs/spec.md §8.2): the
// clip (--set clip), variants, the root-motion node, and the edit's actor id (select: one of the
// settings' actors), clip, layer clip and layer mask node. A node given by index is replaced by
// its name or path (node_name_option), as the panel shows nodes. Throws Error at "--set <key>"
// (rules unknown_clip, unknown_variant, unknown_node, ambiguous_node, unknown_actor).
void check_model_settings(const Asset& asset, StudioSettings& settings, std::optional<ActorEdit>& edit);

// Timings of the last frame, in milliseconds.
struct FrameTimes {
  double frame = 0.0;   // wall time since the previous frame
  double update = 0.0;  // Crowd::update
  double draw = 0.0;    // CrowdRenderer::draw, CPU side
};

// Owns the crowd and its renderer; needs the window's GL context current for every call.
class StudioScene {
 public:
  // `load` applies to every model sync loads; `first`, when given, is the model of the first
  // sync's settings, already loaded (the studio checks its settings against it first).
  explicit StudioScene(const LoadOptions& load = {}, std::shared_ptr<const Asset> first = nullptr)
      : load_(load), first_(std::move(first)) {}
  // Brings the crowd in line with `settings`: a new model rebuilds crowd and renderer, a new
  // actor count or clip assignment re-adds the actors (ids actor-0, actor-1, ... in slot order),
  // a new palette storage or skinned-vertex cache setting rebuilds the renderer, LOD controls are
  // applied in place. Throws Error when the model does not load, or (path "clip", rule
  // "unknown_clip", listing the clips) when a newly chosen single clip is not one of the model's;
  // the previous crowd is kept. A model switch keeps an unknown clip name, whose actors then play
  // the first clip. A palette storage or cache the context cannot run falls back to the default
  // renderer (automatic storage, no cache) and is reported by renderer_error().
  void sync(const StudioSettings& settings);
  // Advances animation by `seconds` (0 while animation is paused) and classifies LOD for `view`.
  void update(float seconds, const LodView& view);
  // Draws into the bound framebuffer and viewport (with shadows: the depth pass into the
  // shadow map, the ground, then the crowd); returns the number of draws.
  std::uint32_t draw(const Camera& camera);
  // Applies a table edit to the actor with id `edit.actor` (the first actor for "") and returns
  // its slot. Throws Error for an unknown actor (path "select", rule "unknown_actor") or clip.
  std::uint32_t apply(const ActorEdit& edit);

  Crowd& crowd() { return *crowd_; }
  const Crowd& crowd() const { return *crowd_; }
  const Layout& layout() const { return layout_; }
  const CrowdRenderer& renderer() const { return *renderer_; }
  // The last draw()'s statistics, shadow pass included (RenderStats::frame).
  const RenderCounts& frame_stats() const { return renderer_->stats().frame; }
  const std::string& renderer_error() const { return renderer_error_; }
  // Why the GPU animation the settings ask for is off (no compute shaders); empty when it is not.
  const std::string& animation_error() const { return animation_error_; }
  const FrameTimes& times() const { return times_; }
  void set_frame_ms(double ms) { times_.frame = ms; }
  // Level of detail per actor (slot order) from the groups' instance lists; -1 = culled.
  std::vector<int> actor_levels() const;
  // Active clip name → number of actors playing it.
  std::vector<std::pair<std::string, std::uint32_t>> clip_counts() const;
  // crowd_stats_json plus the studio's timings and model.
  nlohmann::json stats_json() const;

 private:
  void add_actors(const StudioSettings& settings);

  LoadOptions load_;
  std::shared_ptr<const Asset> first_;  // the first sync's model, loaded; null once used
  std::unique_ptr<Crowd> crowd_;
  std::unique_ptr<CrowdRenderer> renderer_;
  std::optional<ShadowStage> shadows_;  // with StudioSettings::shadows, fitted to layout_
  Layout layout_;
  std::optional<StudioSettings> built_;  // what the crowd reflects
  std::string renderer_error_;
  std::string animation_error_;
  FrameTimes times_;
  std::uint32_t draws_ = 0;
  RenderStats shadow_stats_;  // the last draw()'s depth pass; zeros without shadows
};

}  // namespace gltf_crowd::tools
