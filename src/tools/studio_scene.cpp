#include "tools/studio_scene.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <utility>

#include <epoxy/gl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/error.hpp"
#include "tools/lod_report.hpp"

namespace gltf_crowd::tools {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Throws unknown_clip at `path` unless the asset has a clip named `name`.
void check_clip_name(const Asset& asset, const std::string& name, const std::string& path) {
  if (asset.find_clip(name) < 0)
    throw Error(path, Rule::unknown_clip,
                fmt::format("no clip named \"{}\"; available: {}", name, clip_name_list(asset)));
}

bool same_actors(const StudioSettings& a, const StudioSettings& b) {
  return a.actors == b.actors && a.clips.mode == b.clips.mode && a.clips.clip == b.clips.clip &&
         a.clips.seed == b.clips.seed && a.clips.phase_spread == b.clips.phase_spread &&
         a.clips.speed_spread == b.clips.speed_spread;
}

}  // namespace

void check_clip(const Asset& asset, const ClipAssignment& clips, const std::string& path) {
  if (clips.mode == ClipMode::single && !clips.clip.empty()) check_clip_name(asset, clips.clip, path);
}

std::string actor_ids_note(std::size_t count) {
  if (count == 0) return "no actors";
  if (count == 1) return "1 actor: actor-0";
  return fmt::format("{} actors: actor-0 to actor-{}", count, count - 1);
}

void check_model_settings(const Asset& asset, StudioSettings& settings, std::optional<ActorEdit>& edit) {
  check_clip(asset, settings.clips, "--set clip");
  check_appearance(asset, settings.appearance, "--set variants");
  if (!settings.root_motion.empty())
    settings.root_motion = node_name_option(asset, settings.root_motion, "--set root-motion");
  if (!edit) return;
  bool listed = edit->actor.empty();  // "" selects the first actor
  for (std::uint32_t i = 0; i < settings.actors && !listed; ++i) listed = edit->actor == fmt::format("actor-{}", i);
  if (!listed)
    throw Error("--set select", Rule::unknown_actor,
                fmt::format("no actor has the id '{}' ({})", edit->actor, actor_ids_note(settings.actors)));
  if (edit->clip) check_clip_name(asset, *edit->clip, "--set actor.clip");
  if (edit->layer_clip && !edit->layer_clip->empty())
    check_clip_name(asset, *edit->layer_clip, "--set actor.layer.clip");
  if (edit->layer_mask && !edit->layer_mask->empty())
    edit->layer_mask = node_name_option(asset, *edit->layer_mask, "--set actor.layer.mask");
}

std::vector<ModelEntry> scan_models(const std::filesystem::path& folder, const LoadOptions& load) {
  std::vector<ModelEntry> models{{"built-in", ""}};
  std::error_code error;
  if (folder.empty() || !std::filesystem::is_directory(folder, error)) return models;
  std::vector<std::filesystem::path> files;
  // Unreadable entries are skipped (their error codes), never thrown: one folder without
  // permission must not close the studio.
  std::filesystem::recursive_directory_iterator it(folder, std::filesystem::directory_options::skip_permission_denied,
                                                   error);
  for (const std::filesystem::recursive_directory_iterator end; !error && it != end; it.increment(error)) {
    const std::string ext = it->path().extension().string();
    std::error_code status;
    if (it->is_regular_file(status) && (ext == ".gltf" || ext == ".glb")) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      if (load_asset(file, load).clips.empty()) continue;  // the menu excludes static assets
    } catch (const std::exception&) {
      continue;  // unloadable files cannot be selected either
    }
    models.push_back({file.stem().string(), file.string()});
  }
  return models;
}

void StudioScene::sync(const StudioSettings& settings) {
  const bool new_model = !built_ || built_->model != settings.model;
  // Everything that can throw comes before anything changes.
  std::shared_ptr<const Asset> asset;
  if (new_model) asset = first_ ? std::exchange(first_, nullptr) : load_crowd_asset(settings.model, load_);
  if (asset) print_load_warnings(*asset, settings.model.empty() ? "built-in character" : settings.model);
  const bool new_clip = !built_ || built_->clips.clip != settings.clips.clip;
  if (new_clip) check_clip(new_model ? *asset : crowd_->asset(), settings.clips, "clip");
  // Variants asked of a model without them are an error (at start, or when turned on); a model
  // switch keeps the setting and spreads whatever variants the new model has (none: defaults).
  if (settings.appearance.variants && (!built_ || (!new_model && !built_->appearance.variants)))
    check_appearance(new_model ? *asset : crowd_->asset(), settings.appearance, "--set variants");
  if (new_model) {
    renderer_.reset();  // it refers to the old crowd
    LodOptions lod;
    lod.enabled = settings.lod;
    lod.auto_generate = true;  // so Auto LOD has levels for assets without MSFT_lod
    crowd_ = std::make_unique<Crowd>(std::move(asset),
                                     CrowdOptions{.capacity = settings.capacity, .lod = lod, .time_stages = true});
  } else if (crowd_->capacity() < settings.capacity) {
    crowd_->reserve(settings.capacity);
  }
  if (new_model || !same_actors(*built_, settings)) {
    add_actors(settings);
    apply_appearance(*crowd_, settings.appearance);
  } else if (built_->appearance != settings.appearance) {
    apply_appearance(*crowd_, settings.appearance);
  }
  if (new_model || built_->palette != settings.palette ||
      built_->skinned_vertex_cache != settings.skinned_vertex_cache) {
    renderer_.reset();
    renderer_error_.clear();
    try {
      renderer_ = std::make_unique<CrowdRenderer>(
          *crowd_,
          CrowdRendererOptions{.palette = settings.palette, .skinned_vertex_cache = settings.skinned_vertex_cache});
    } catch (const Error& e) {
      renderer_error_ = e.what();
      renderer_ = std::make_unique<CrowdRenderer>(*crowd_);
    }
  }
  const Animation animation = settings.gpu_animation ? Animation::gpu : Animation::cpu;
  if (crowd_->animation() != animation) {
    animation_error_.clear();
    crowd_->set_animation(animation);
    try {
      renderer_->animate(*crowd_);  // builds the evaluator now, so a missing capability shows here
    } catch (const Error& e) {
      animation_error_ = e.what();
      crowd_->set_animation(Animation::cpu);
    }
  }
  if (new_model || built_->root_motion != settings.root_motion)
    crowd_->set_root_motion({.node = settings.root_motion, .yaw = true, .apply_to_placement = true});
  crowd_->set_lod_enabled(settings.lod);
  crowd_->set_lod_bias(settings.bias);
  crowd_->set_lod_vertex_budget(settings.budget);
  if (crowd_->update_rate().enabled != settings.update_rate) {
    UpdateRateOptions rate;
    rate.enabled = settings.update_rate;
    crowd_->set_update_rate(rate);
  }
  if (!settings.shadows) {
    shadows_.reset();
  } else if (!shadows_ || new_model || !same_actors(*built_, settings)) {
    shadows_.reset();
    shadows_.emplace(layout_.crowd_bounds, Camera{}.light_direction);
  }
  built_ = settings;
}

void StudioScene::add_actors(const StudioSettings& settings) {
  std::vector<std::string> ids;
  for (const Actor& actor : crowd_->actors()) ids.push_back(actor.id());
  crowd_->remove_actors(ids);
  layout_ = grid_layout(crowd_->asset(), settings.actors, settings.clips);
  crowd_->add_actors(actor_options(crowd_->asset(), layout_, settings.clips));
}

void StudioScene::update(float seconds, const LodView& view) {
  const auto start = std::chrono::steady_clock::now();
  crowd_->update(seconds, view);
  times_.update = elapsed_ms(start);
}

std::uint32_t StudioScene::draw(const Camera& camera) {
  const auto start = std::chrono::steady_clock::now();
  std::uint32_t shadow_draws = 0;
  Camera shaded = camera;
  shadow_stats_ = {};
  if (shadows_) {
    GLint framebuffer = 0, viewport[4] = {};
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);
    glGetIntegerv(GL_VIEWPORT, viewport);
    shadow_draws = shadows_->cast(*renderer_, *crowd_);
    shadow_stats_ = renderer_->stats();
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer));
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    shaded = shadows_->shaded(camera);
    shadows_->draw_ground(shaded);
  }
  draws_ = shadow_draws + renderer_->draw(*crowd_, shaded);
  times_.draw = elapsed_ms(start);
  return draws_;
}

std::uint32_t StudioScene::apply(const ActorEdit& edit) {
  const std::vector<Actor> actors = crowd_->actors();
  const auto found = std::find_if(actors.begin(), actors.end(),
                                  [&](const Actor& a) { return edit.actor.empty() || a.id() == edit.actor; });
  if (found == actors.end()) {
    throw Error("select", Rule::unknown_actor,
                fmt::format("no actor has the id '{}' ({})", edit.actor, actor_ids_note(actors.size())));
  }
  Actor actor = *found;
  if (edit.clip) {
    SelectClipOptions options;
    options.crossfade_seconds = edit.crossfade;
    actor.select_clip(*edit.clip, options);
  }
  if (edit.speed) actor.set_speed(*edit.speed);
  if (edit.seek) actor.seek(*edit.seek);
  if (edit.paused) *edit.paused ? actor.pause() : actor.play();
  if (edit.visible) actor.set_visible(*edit.visible);
  ActorLayer layer = actor.layer(1);
  if (edit.layer_mode) layer.set_mode(*edit.layer_mode);
  if (edit.layer_mask) {
    const std::string name = edit.layer_mask->empty() ? std::string() : "below:" + *edit.layer_mask;
    if (!name.empty() && crowd_->mask_weights(name).empty())
      crowd_->add_mask(name, std::vector<MaskBranch>{{*edit.layer_mask}});
    layer.set_mask(name);
  }
  if (edit.layer_clip) {
    if (edit.layer_clip->empty()) {
      layer.clear();
    } else {
      SelectClipOptions options;
      options.crossfade_seconds = edit.crossfade;
      layer.select_clip(*edit.layer_clip, options);
    }
  }
  if (edit.layer_weight) layer.set_weight(*edit.layer_weight, edit.crossfade);
  return static_cast<std::uint32_t>(found - actors.begin());  // actors() is in slot order
}

std::vector<int> StudioScene::actor_levels() const {
  std::vector<int> levels(crowd_->actor_count(), -1);
  for (const PrimitiveGroup& group : crowd_->primitive_groups()) {
    for (std::uint32_t slot : group.instances) levels[slot] = static_cast<int>(group.level);
  }
  return levels;
}

std::vector<std::pair<std::string, std::uint32_t>> StudioScene::clip_counts() const {
  std::map<std::string, std::uint32_t> counts;
  for (const Actor& actor : crowd_->actors()) ++counts[actor.active_clip()];
  return {counts.begin(), counts.end()};
}

nlohmann::json StudioScene::stats_json() const {
  const std::string label = built_->model.empty() ? std::string("built-in") : built_->model;
  nlohmann::json stats =
      crowd_stats_json(*crowd_, label, frame_stats(), palette_storage_name(renderer_->palette_storage()));
  const FrameStats& stages = crowd_->frame_stats();
  stats["shadows"] = shadows_.has_value();
  stats["shadow_draws"] = shadow_stats_.draws;
  stats["skinned_vertex_cache"] = built_->skinned_vertex_cache && renderer_error_.empty();
  stats["frame_ms"] = times_.frame;
  stats["update_ms"] = times_.update;
  stats["draw_ms"] = times_.draw;
  stats["stage_ms"] = {{"sampling", stages.sampling_ms},
                       {"hierarchy", stages.hierarchy_ms},
                       {"palettes", stages.palettes_ms},
                       {"packing", stages.packing_ms}};
  nlohmann::json clip_counts_json = nlohmann::json::object();
  for (const auto& [name, count] : clip_counts()) clip_counts_json[name] = count;
  stats["clip_counts"] = clip_counts_json;
  if (const LodModel* model = crowd_->lod_model()) stats["lod_levels"] = lod_levels_json(*model);
  return stats;
}

}  // namespace gltf_crowd::tools
