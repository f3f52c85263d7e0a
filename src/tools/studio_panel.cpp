#include "tools/studio_panel.hpp"

#include <algorithm>
#include <cinttypes>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/lod.hpp"
#include "tools/lod_report.hpp"

namespace gltf_crowd::tools {
namespace {

void model_controls(const std::vector<ModelEntry>& models, StudioSettings& settings, PanelState& state) {
  const auto current =
      std::find_if(models.begin(), models.end(), [&](const ModelEntry& m) { return m.path == settings.model; });
  const std::string preview = current != models.end() ? current->label : settings.model;
  if (ImGui::BeginCombo("Model", preview.c_str())) {
    for (const ModelEntry& model : models) {
      if (ImGui::Selectable(model.label.c_str(), model.path == settings.model)) settings.model = model.path;
    }
    ImGui::EndCombo();
  }
  ImGui::InputTextWithHint("##path", "path to .gltf / .glb", &state.path_field);
  ImGui::SameLine();
  if (ImGui::Button("Load") && !state.path_field.empty()) settings.model = state.path_field;
}

void crowd_controls(const Asset& asset, StudioSettings& settings) {
  int actors = static_cast<int>(settings.actors);
  if (ImGui::SliderInt("GPU crowd actors", &actors, 1, static_cast<int>(settings.capacity))) {
    settings.actors = static_cast<std::uint32_t>(std::clamp(actors, 1, static_cast<int>(settings.capacity)));
  }
  int mode = static_cast<int>(settings.clips.mode);
  ImGui::Combo("Clips", &mode, "cycle through clips\0all one clip\0random\0");
  settings.clips.mode = static_cast<ClipMode>(mode);
  if (settings.clips.mode == ClipMode::single && !asset.clips.empty()) {
    if (ImGui::BeginCombo("Clip",
                          settings.clips.clip.empty() ? asset.clips[0].name.c_str() : settings.clips.clip.c_str())) {
      for (const Clip& clip : asset.clips) {
        if (ImGui::Selectable(clip.name.c_str(), clip.name == settings.clips.clip)) settings.clips.clip = clip.name;
      }
      ImGui::EndCombo();
    }
  }
  if (settings.clips.mode == ClipMode::random) {
    int seed = static_cast<int>(settings.clips.seed);
    if (ImGui::InputInt("Seed", &seed)) settings.clips.seed = static_cast<std::uint32_t>(std::max(seed, 0));
  }
  ImGui::SliderFloat("Phase spread", &settings.clips.phase_spread, 0.0f, 1.0f);
  ImGui::SliderFloat("Speed spread", &settings.clips.speed_spread, 0.0f, 2.0f);
  if (ImGui::BeginCombo("Root motion", settings.root_motion.empty() ? "(off)" : settings.root_motion.c_str())) {
    if (ImGui::Selectable("(off)", settings.root_motion.empty())) settings.root_motion.clear();
    for (std::size_t n = 0; n < asset.nodes.size(); ++n) {
      const std::string& name = asset.nodes[n].name;
      if (name.empty() || asset.find_node(name) != static_cast<int>(n)) continue;  // nameless or a repeated name
      if (ImGui::Selectable(name.c_str(), name == settings.root_motion)) settings.root_motion = name;
    }
    ImGui::EndCombo();
  }
  // Appearance (docs/spec.md §3.12): pastel tints per actor, and the model's material variants
  // spread over the actors (greyed out without KHR_materials_variants).
  ImGui::Checkbox("Tints", &settings.appearance.tints);
  ImGui::SameLine();
  ImGui::BeginDisabled(asset.material_variants.empty() && !settings.appearance.variants);
  ImGui::Checkbox("Material variants", &settings.appearance.variants);
  ImGui::EndDisabled();
  ImGui::Checkbox("glTF animation", &settings.animation);
  ImGui::SameLine();
  ImGui::Checkbox("Camera orbit", &settings.orbit);
  ImGui::Checkbox("Shadows", &settings.shadows);
  ImGui::TextDisabled("drag: orbit, right-drag: pan, wheel: zoom");
}

// The selected actor's animation layer 1 (docs/spec.md §3.11): a clip over its own, with a
// weight, a mode and a mask below one node; changes fade over the table's crossfade time.
void layer_controls(const Actor& actor, const Asset& asset, ActorEdit& edit) {
  if (asset.clips.empty()) return;
  const ActorLayer layer = actor.layer(1);
  const std::string& clip = layer.active_clip();
  if (ImGui::BeginCombo("Layer clip", clip.empty() ? "(none)" : clip.c_str())) {
    if (ImGui::Selectable("(none)", clip.empty())) edit.layer_clip = std::string();
    for (const Clip& c : asset.clips)
      if (ImGui::Selectable(c.name.c_str(), c.name == clip)) edit.layer_clip = c.name;
    ImGui::EndCombo();
  }
  if (clip.empty()) return;
  float weight = layer.target_weight();
  if (ImGui::SliderFloat("Layer weight", &weight, 0.0f, 1.0f)) edit.layer_weight = weight;
  int mode = layer.mode() == LayerMode::additive ? 1 : 0;
  if (ImGui::Combo("Layer mode", &mode, "override\0additive\0"))
    edit.layer_mode = mode == 1 ? LayerMode::additive : LayerMode::override;
  const std::string& mask = layer.mask();
  const std::string below = mask.rfind("below:", 0) == 0 ? mask.substr(6) : mask;
  if (ImGui::BeginCombo("Layer mask", below.empty() ? "(whole body)" : below.c_str())) {
    if (ImGui::Selectable("(whole body)", below.empty())) edit.layer_mask = std::string();
    for (std::size_t n = 0; n < asset.nodes.size(); ++n) {
      const std::string& name = asset.nodes[n].name;
      if (name.empty() || asset.find_node(name) != static_cast<int>(n)) continue;  // nameless or a repeated name
      if (ImGui::Selectable(name.c_str(), name == below)) edit.layer_mask = name;
    }
    ImGui::EndCombo();
  }
}

void lod_controls(const StudioScene& scene, StudioSettings& settings) {
  ImGui::Checkbox("Auto LOD", &settings.lod);
  ImGui::SameLine();
  ImGui::Text("  levels: %s", std::string(to_string(scene.crowd().lod_stats().source)).c_str());
  // What each level reached (issue 19): indices per actor, ratio to level 0, geometric error.
  if (const LodModel* model = scene.crowd().lod_model()) {
    for (const auto& level : lod_levels_json(*model)) {
      const std::string error =
          level["error"].is_null() ? "unknown" : fmt::format("{:.2g}", level["error"].get<double>());
      ImGui::TextWrapped("  %u: %" PRIu64 " indices, ratio %.2f, error %s%s", level["level"].get<std::uint32_t>(),
                         level["indices"].get<std::uint64_t>(), level["ratio"].get<double>(), error.c_str(),
                         level["sloppy"].get<bool>() ? " (sloppy)" : "");
    }
  }
  ImGui::SliderFloat("Detail bias", &settings.bias, 0.1f, 8.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  const std::uint64_t step = 500;
  ImGui::InputScalar("Vertex budget", ImGuiDataType_U64, &settings.budget, &step, nullptr, "%" PRIu64);
  ImGui::Checkbox("Update-rate LOD", &settings.update_rate);
  ImGui::SameLine();
  ImGui::TextDisabled("small actors every 2nd / 4th frame");
  int palette = static_cast<int>(settings.palette);
  if (ImGui::Combo("Palette", &palette, "auto\0storage buffers\0textures\0")) {
    settings.palette = static_cast<PaletteStorage>(palette);
  }
  ImGui::Text("palette in use: %s", palette_storage_name(scene.renderer().palette_storage()));
  ImGui::Checkbox("Skinned-vertex cache", &settings.skinned_vertex_cache);
  ImGui::SameLine();
  ImGui::TextDisabled("skin once for the shadow and main passes");
  if (settings.skinned_vertex_cache && scene.renderer_error().empty())
    ImGui::Text("vertices skinned into the cache: %llu",
                static_cast<unsigned long long>(scene.frame_stats().cached_vertices));
  if (!scene.renderer_error().empty()) ImGui::TextWrapped("unavailable: %s", scene.renderer_error().c_str());
  int evaluation = settings.gpu_animation ? 1 : 0;
  if (ImGui::Combo("Animation", &evaluation, "CPU\0GPU (compute)\0")) settings.gpu_animation = evaluation == 1;
  ImGui::Text("poses evaluated on the %s", scene.crowd().animation() == Animation::gpu ? "GPU" : "CPU");
  if (!scene.animation_error().empty()) ImGui::TextWrapped("unavailable: %s", scene.animation_error().c_str());
}

void live_stats(const StudioScene& scene) {
  const Crowd& crowd = scene.crowd();
  const LodStats& lod = crowd.lod_stats();
  const RenderCounts& render = scene.frame_stats();  // the shadow pass included
  ImGui::Text("actors %zu  draws %u  culled %u", crowd.actor_count(), render.draws, lod.culled_actors);
  ImGui::Text("vertices %" PRIu64 "  triangles %" PRIu64, lod.vertices, lod.triangles);
  ImGui::Text("budget demotions %u  satisfied %s", lod.demoted_actors, lod.budget_satisfied ? "yes" : "no");
  for (std::size_t i = 0; i < lod.levels.size(); ++i) {
    ImGui::Text("  level %zu: %u actors, %" PRIu64 " triangles", i, lod.levels[i].actors, lod.levels[i].triangles);
  }
  std::string clips;
  for (const auto& [name, count] : scene.clip_counts())
    clips += (clips.empty() ? "" : ", ") + name + " ×" + std::to_string(count);
  ImGui::TextWrapped("clips: %s", clips.c_str());
  const FrameStats& stages = crowd.frame_stats();
  const FrameTimes& times = scene.times();
  // Wrapped and split, so no figure is cut off at the panel's edge (issue 14).
  ImGui::TextWrapped("frame %.1f ms  update %.2f ms  draw %.2f ms", times.frame, times.update, times.draw);
  ImGui::TextWrapped("sampling %.2f ms  hierarchy %.2f ms", stages.sampling_ms, stages.hierarchy_ms);
  ImGui::TextWrapped("palettes %.2f ms  packing %.2f ms", stages.palettes_ms, stages.packing_ms);
  ImGui::Text("evaluated %u  deferred %u  hidden %u actors", stages.actors_evaluated, stages.actors_deferred,
              stages.hidden_actors);
  ImGui::Text("events %zu (markers crossed by the last update)", crowd.events().size());
  ImGui::Text("upload %" PRIu64 " bytes/frame", render.upload_bytes);
}

void actor_table(StudioScene& scene, PanelState& state) {
  const std::vector<Actor> actors = scene.crowd().actors();
  const std::vector<int> levels = scene.actor_levels();
  state.selected_actor = std::clamp(state.selected_actor, 0, static_cast<int>(actors.size()) - 1);
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter;
  if (ImGui::BeginTable("actors", 6, flags, ImVec2(0.0f, 160.0f))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* name : {"id", "clip", "time", "speed", "playing", "level"}) ImGui::TableSetupColumn(name);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < actors.size(); ++i) {
      const Actor& actor = actors[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable(actor.id().c_str(), static_cast<int>(i) == state.selected_actor,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        state.selected_actor = static_cast<int>(i);
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(actor.active_clip().c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", actor.time());
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", actor.speed());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(actor.playing() ? "yes" : "no");
      ImGui::TableNextColumn();
      if (levels[i] < 0)
        ImGui::TextUnformatted("culled");
      else
        ImGui::Text("%d", levels[i]);
    }
    ImGui::EndTable();
  }
  if (actors.empty()) return;

  // The selected actor's controls, applied through the same path as `--set actor.*`.
  const Actor& actor = actors[state.selected_actor];
  const Asset& asset = scene.crowd().asset();
  ActorEdit edit;
  edit.actor = actor.id();
  edit.crossfade = state.crossfade;
  ImGui::Text("selected: %s", actor.id().c_str());
  if (!asset.clips.empty() && ImGui::BeginCombo("Actor clip", actor.active_clip().c_str())) {
    for (const Clip& clip : asset.clips) {
      if (ImGui::Selectable(clip.name.c_str(), clip.name == actor.active_clip())) edit.clip = clip.name;
    }
    ImGui::EndCombo();
  }
  ImGui::SliderFloat("Crossfade s", &state.crossfade, 0.0f, 2.0f);
  float speed = actor.speed();
  if (ImGui::SliderFloat("Actor speed", &speed, -3.0f, 3.0f)) edit.speed = speed;
  if (ImGui::Button(actor.playing() ? "Pause" : "Play")) edit.paused = actor.playing();
  const int clip = asset.find_clip(actor.active_clip());
  if (clip >= 0) {
    float time = actor.time();
    if (ImGui::SliderFloat("Seek", &time, 0.0f, asset.clips[clip].duration_seconds, "%.2f s")) edit.seek = time;
  }
  bool visible = actor.visible();
  if (ImGui::Checkbox("Visible", &visible)) edit.visible = visible;
  layer_controls(actor, asset, edit);
  if (edit.clip || edit.speed || edit.paused || edit.seek || edit.visible || edit.layer_clip || edit.layer_weight ||
      edit.layer_mode || edit.layer_mask) {
    try {
      scene.apply(edit);
      state.error.clear();
    } catch (const Error& e) {
      state.error = e.what();
    }
  }
}

}  // namespace

void draw_studio_panel(float left, float width, float height, const std::vector<ModelEntry>& models,
                       StudioSettings& settings, StudioScene& scene, PanelState& state) {
  ImGui::SetNextWindowPos(ImVec2(left, 0.0f));
  ImGui::SetNextWindowSize(ImVec2(width, height));
  ImGui::Begin("gltf-crowd studio", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
  ImGui::PushItemWidth(-130.0f);
  model_controls(models, settings, state);
  if (!state.error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.4f, 1.0f), "%s", state.error.c_str());
  if (ImGui::CollapsingHeader("Crowd", ImGuiTreeNodeFlags_DefaultOpen)) crowd_controls(scene.crowd().asset(), settings);
  if (ImGui::CollapsingHeader("Level of detail", ImGuiTreeNodeFlags_DefaultOpen)) lod_controls(scene, settings);
  if (ImGui::CollapsingHeader("Live", ImGuiTreeNodeFlags_DefaultOpen)) live_stats(scene);
  if (ImGui::CollapsingHeader("Actors", ImGuiTreeNodeFlags_DefaultOpen)) actor_table(scene, state);
  ImGui::PopItemWidth();
  ImGui::End();
}

}  // namespace gltf_crowd::tools
