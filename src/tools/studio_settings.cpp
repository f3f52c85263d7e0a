#include "tools/studio_settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::tools {
namespace {

[[noreturn]] void bad_value(std::string_view key, std::string_view value, std::string_view expected) {
  throw Error("--set " + std::string(key), Rule::set_value,
              "'" + std::string(value) + "' is not " + std::string(expected));
}

bool parse_switch(std::string_view key, std::string_view value) {
  if (value == "on" || value == "true" || value == "1") return true;
  if (value == "off" || value == "false" || value == "0") return false;
  bad_value(key, value, "on or off");
}

std::uint64_t parse_count(std::string_view key, std::string_view value, std::uint64_t min, std::uint64_t max) {
  std::uint64_t n = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (error != std::errc() || end != value.data() + value.size() || n < min || n > max) {
    bad_value(key, value, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return n;
}

float parse_number(std::string_view key, std::string_view value, float min, float max) {
  // std::from_chars for float is missing from GCC 12's libstdc++ in some configurations; stof
  // with a full-length check is equivalent here.
  std::size_t used = 0;
  float x = 0.0f;
  try {
    x = std::stof(std::string(value), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || !std::isfinite(x) || x < min || x > max) {
    bad_value(key, value, fmt::format("a number in [{}, {}]", min, max));  // shortest: 0.001, not 0.001000
  }
  return x;
}

// A key renamed to match the command-line option it mirrors still works, with a warning on stderr.
void deprecated(std::string_view key, std::string_view value, std::string_view replacement) {
  fmt::print(stderr, "gltf-crowd: warning: --set {}={} is deprecated; use --set {}\n", key, value, replacement);
}

}  // namespace

void apply_setting(std::string_view assignment, StudioSettings& settings, std::optional<ActorEdit>& edit,
                   const std::function<std::string(std::string_view)>& resolve_model) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw Error("--set " + std::string(assignment), Rule::set_syntax, "expected key=value");
  }
  // Keys are spelled as the options they mirror (tint-seed as render --tint-seed); '_' reads as
  // '-', so the first spellings (tint_seed) still work.
  const std::string_view typed = assignment.substr(0, eq);  // errors and warnings name it as given
  std::string key_text(typed);
  std::replace(key_text.begin(), key_text.end(), '_', '-');
  const std::string_view key = key_text;
  const std::string_view value = assignment.substr(eq + 1);
  StudioSettings s = settings;  // all or nothing
  std::optional<ActorEdit> e = edit;
  auto actor_edit = [&]() -> ActorEdit& {
    if (!e) e = ActorEdit{};
    return *e;
  };
  if (key == "model") {
    s.model = resolve_model(value);
  } else if (key == "actors") {
    s.actors = static_cast<std::uint32_t>(parse_count(typed, value, 1, 1'000'000));
    if (s.actors > s.capacity) {
      throw Error("--set actors", Rule::set_value,
                  std::to_string(s.actors) + " actors exceed the crowd's capacity of " + std::to_string(s.capacity) +
                      ": raise it with --capacity (or --set capacity=N before actors)");
    }
  } else if (key == "capacity") {
    s.capacity = static_cast<std::uint32_t>(parse_count(typed, value, 1, 1'000'000));
    s.actors = std::min(s.actors, s.capacity);
  } else if (key == "clips") {
    if (value == "cycle")
      s.clips.mode = ClipMode::cycle;
    else if (value == "single")
      s.clips.mode = ClipMode::single;
    else if (value == "random")
      s.clips.mode = ClipMode::random;
    else
      bad_value(typed, value, "cycle, single or random");
  } else if (key == "clip") {
    s.clips.clip = value;
    s.clips.mode = ClipMode::single;
  } else if (key == "seed") {
    s.clips.seed = static_cast<std::uint32_t>(parse_count(typed, value, 0, 0xFFFFFFFFu));
  } else if (key == "phase-spread") {
    s.clips.phase_spread = parse_number(typed, value, 0.0f, 1.0f);
  } else if (key == "speed-spread") {
    s.clips.speed_spread = parse_number(typed, value, 0.0f, 2.0f);
  } else if (key == "playing") {
    s.animation = parse_switch(typed, value);
  } else if (key == "animation" && (value == "on" || value == "off" || value == "true" || value == "false" ||
                                    value == "1" || value == "0")) {  // its meaning in 0.2.0: playing
    s.animation = parse_switch(typed, value);
    deprecated(typed, value, fmt::format("playing={}", value));
  } else if (key == "orbit") {
    s.orbit = parse_switch(typed, value);
  } else if (key == "lod") {
    s.lod = parse_switch(typed, value);
  } else if (key == "lod-bias" || key == "bias") {
    s.bias = parse_number(typed, value, 1e-3f, 1e3f);
    if (key == "bias") deprecated(typed, value, fmt::format("lod-bias={}", value));
  } else if (key == "vertex-budget" || key == "budget") {
    s.budget = parse_count(typed, value, 0, ~std::uint64_t{0});
    if (key == "budget") deprecated(typed, value, fmt::format("vertex-budget={}", value));
  } else if (key == "update-rate") {
    s.update_rate = parse_switch(typed, value);
  } else if (key == "palette") {
    if (value == "storage")
      s.palette = PaletteStorage::storage_buffer;
    else if (value == "texture")
      s.palette = PaletteStorage::texture;
    else if (value == "auto")
      s.palette = PaletteStorage::automatic;
    else
      bad_value(typed, value, "storage, texture or auto");
  } else if (key == "skinned-vertex-cache") {
    s.skinned_vertex_cache = parse_switch(typed, value);
  } else if (key == "animation" || key == "evaluation") {  // cpu or gpu, as render --animation
    if (value != "cpu" && value != "gpu") bad_value(typed, value, "cpu or gpu");
    s.gpu_animation = value == "gpu";
    if (key == "evaluation") deprecated(typed, value, fmt::format("animation={}", value));
  } else if (key == "shadows") {
    s.shadows = parse_switch(typed, value);
  } else if (key == "root-motion") {
    s.root_motion = value == "none" ? std::string() : std::string(value);
  } else if (key == "tints") {
    if (value != "none" && value != "random") bad_value(typed, value, "none or random");
    s.appearance.tints = value == "random";
  } else if (key == "tint-seed") {
    s.appearance.tint_seed = static_cast<std::uint32_t>(parse_count(typed, value, 0, 0xFFFFFFFFu));
  } else if (key == "variants") {
    if (value != "none" && value != "spread") bad_value(typed, value, "none or spread");
    s.appearance.variants = value == "spread";
  } else if (key == "azimuth") {
    s.camera.azimuth_degrees = parse_number(typed, value, -3600.0f, 3600.0f);
  } else if (key == "elevation") {
    s.camera.elevation_degrees = parse_number(typed, value, -89.0f, 89.0f);
  } else if (key == "zoom") {
    s.camera.zoom = parse_number(typed, value, 0.05f, 20.0f);
  } else if (key == "select") {
    if (value.empty()) bad_value(typed, value, "an actor id as the table shows it, such as actor-3");
    actor_edit().actor = std::string(value);
  } else if (key == "actor.clip") {
    actor_edit().clip = std::string(value);
  } else if (key == "actor.crossfade") {
    actor_edit().crossfade = parse_number(typed, value, 0.0f, 60.0f);
  } else if (key == "actor.speed") {
    actor_edit().speed = parse_number(typed, value, -100.0f, 100.0f);
  } else if (key == "actor.pause") {
    actor_edit().paused = parse_switch(typed, value);
  } else if (key == "actor.seek") {
    actor_edit().seek = parse_number(typed, value, 0.0f, 1e6f);
  } else if (key == "actor.visible") {
    actor_edit().visible = parse_switch(typed, value);
  } else if (key == "actor.layer.clip") {
    actor_edit().layer_clip = std::string(value);
  } else if (key == "actor.layer.weight") {
    actor_edit().layer_weight = parse_number(typed, value, 0.0f, 1.0f);
  } else if (key == "actor.layer.mode") {
    if (value != "override" && value != "additive") bad_value(typed, value, "override or additive");
    actor_edit().layer_mode = value == "additive" ? LayerMode::additive : LayerMode::override;
  } else if (key == "actor.layer.mask") {
    actor_edit().layer_mask = value == "none" ? std::string() : std::string(value);
  } else {
    throw Error(
        "--set " + std::string(typed), Rule::set_key,
        "unknown key; known: model, actors, capacity, clips, clip, seed, phase-spread, speed-spread, playing, "
        "orbit, lod, lod-bias, vertex-budget, update-rate, palette, animation, skinned-vertex-cache, root-motion, "
        "shadows, tints, tint-seed, variants, azimuth, elevation, zoom, select, actor.clip, actor.crossfade, "
        "actor.speed, actor.pause, actor.seek, actor.visible, actor.layer.clip, actor.layer.weight, "
        "actor.layer.mode, actor.layer.mask");
  }
  settings = std::move(s);
  edit = std::move(e);
}

}  // namespace gltf_crowd::tools
