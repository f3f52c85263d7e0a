// The studio's Dear ImGui control panel: model, crowd, animation, camera, LOD and palette
// controls, the live statistics and the actor table (seed "Explore the Animation Studio").
#pragma once

#include <string>
#include <vector>

#include "tools/studio_scene.hpp"
#include "tools/studio_settings.hpp"

namespace gltf_crowd::tools {

// Panel state that is not a crowd setting.
struct PanelState {
  std::string path_field;  // the model path being typed
  int selected_actor = 0;  // slot order
  float crossfade = 0.4f;  // seconds, for clip changes from the table
  std::string error;       // last failed action, shown until the next one succeeds
};

// Draws the panel as a fixed window at x = `left`, full height, `width` wide. Controls edit
// `settings` (the caller syncs the scene afterwards); table edits go to the scene at once.
void draw_studio_panel(float left, float width, float height, const std::vector<ModelEntry>& models,
                       StudioSettings& settings, StudioScene& scene, PanelState& state);

}  // namespace gltf_crowd::tools
