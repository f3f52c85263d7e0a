// GaitSet (docs/spec.md §15.5): the idle, walk and run clips of a character, chosen by name and
// measured speed, the speed bands between them, and the playback rate that matches an agent.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gait.hpp"

namespace gltf_crowd {
namespace {

// Speed bands, fractions of the walk clip's ground speed (idle) and of the geometric mean of the
// walk and run ground speeds, at which both clips play equally far from their own speed (run).
constexpr float kStopFraction = 0.075f;
constexpr float kStartFraction = 0.15f;
constexpr float kRunHysteresis = 1.1f;

bool name_has(std::string_view name, std::string_view word) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  return std::search(name.begin(), name.end(), word.begin(), word.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != name.end();
}

bool runs(std::string_view name) { return name_has(name, "run") || name_has(name, "jog"); }

// Among the clips that `accept`, the one of the shortest name, then the lowest index.
template <typename Accept>
std::optional<std::uint32_t> shortest_name(const Asset& asset, Accept accept) {
  std::optional<std::uint32_t> best;
  for (std::uint32_t c = 0; c < asset.clips.size(); ++c) {
    if (accept(c) && (!best || asset.clips[c].name.size() < asset.clips[*best].name.size())) best = c;
  }
  return best;
}

std::uint32_t named_clip(const Asset& asset, const std::string& name, const char* role) {
  const int clip = asset.find_clip(name);
  if (clip < 0) {
    throw Error(fmt::format("GaitOptions::clips.{}", role), Rule::unknown_clip,
                fmt::format("no clip named \"{}\"; available: {}", name, clip_name_list(asset)));
  }
  return static_cast<std::uint32_t>(clip);
}

std::string clip_label(const Asset& asset, std::uint32_t clip) {
  const std::string& name = asset.clips[clip].name;
  return name.empty() ? fmt::format("#{} (unnamed)", clip) : fmt::format("\"{}\"", name);
}

void check_option(float value, bool ok, const char* field, const char* rule_text) {
  if (!std::isfinite(value) || !ok) {
    throw Error(fmt::format("GaitOptions::{}", field), Rule::gait_option,
                fmt::format("{} is not {}", value, rule_text));
  }
}

void check_speed(float value, const char* path) {
  detail::check_finite(value, path);
  if (value < 0.0f) throw Error(path, Rule::negative, fmt::format("{} is negative", value));
}

}  // namespace

GaitSet::GaitSet(const Asset& asset, const Locomotion& locomotion, const GaitOptions& options) : options_(options) {
  check_option(options.scale, options.scale > 0.0f, "scale", "a finite scale > 0");
  check_option(options.min_rate, options.min_rate > 0.0f, "min_rate", "a finite rate > 0");
  check_option(options.max_rate, options.max_rate >= options.min_rate, "max_rate", "a finite rate >= min_rate");
  const auto& clips = locomotion.clips;
  const auto moves = [&](std::uint32_t c) { return c < clips.size() && clips[c].locomotion; };
  const auto name = [&](std::uint32_t c) -> const std::string& { return asset.clips[c].name; };

  // Walk: a locomotion clip named walk (not run or jog), else the slowest locomotion clip named
  // neither run, jog, idle nor stand.
  std::optional<std::uint32_t> walk;
  if (!options.clips.walk.empty()) {
    walk = named_clip(asset, options.clips.walk, "walk");
    if (!moves(*walk)) {
      throw Error("GaitOptions::clips.walk", Rule::gait_no_locomotion,
                  fmt::format("clip {} does not move over the ground ({} model units/s measured)",
                              clip_label(asset, *walk), *walk < clips.size() ? clips[*walk].ground_speed : 0.0f));
    }
  } else {
    walk =
        shortest_name(asset, [&](std::uint32_t c) { return moves(c) && name_has(name(c), "walk") && !runs(name(c)); });
    const bool walk_named = walk.has_value();
    for (std::uint32_t c = 0; !walk_named && c < asset.clips.size(); ++c) {
      if (!moves(c) || runs(name(c)) || name_has(name(c), "idle") || name_has(name(c), "stand")) continue;
      if (!walk || clips[c].ground_speed < clips[*walk].ground_speed) walk = c;
    }
    if (!walk) {
      throw Error("GaitOptions::clips.walk", Rule::gait_no_locomotion,
                  fmt::format("no clip moves over the ground, so none can walk; clips: {}", clip_name_list(asset)));
    }
  }

  // Run: named run or jog and faster than the walk.
  std::optional<std::uint32_t> run;
  if (!options.clips.run.empty()) {
    run = named_clip(asset, options.clips.run, "run");
    if (!(moves(*run) && clips[*run].ground_speed > clips[*walk].ground_speed)) {
      throw Error("GaitOptions::clips.run", Rule::gait_speeds,
                  fmt::format("run clip {} ({} model units/s) is not faster than walk clip {} ({} model units/s)",
                              clip_label(asset, *run), *run < clips.size() ? clips[*run].ground_speed : 0.0f,
                              clip_label(asset, *walk), clips[*walk].ground_speed));
    }
  } else {
    run = shortest_name(asset, [&](std::uint32_t c) {
      return moves(c) && runs(name(c)) && clips[c].ground_speed > clips[*walk].ground_speed;
    });
  }

  // Idle: named idle, else stand.
  std::optional<std::uint32_t> idle;
  if (!options.clips.idle.empty()) {
    idle = named_clip(asset, options.clips.idle, "idle");
  } else {
    idle = shortest_name(asset, [&](std::uint32_t c) { return c != *walk && name_has(name(c), "idle"); });
    if (!idle) idle = shortest_name(asset, [&](std::uint32_t c) { return c != *walk && name_has(name(c), "stand"); });
  }

  const auto table = [&](std::uint32_t c) {
    Table t;
    t.clip = c;
    t.duration = clips[c].duration_seconds;
    t.ground_speed = clips[c].ground_speed * options.scale;
    t.distance.reserve(clips[c].distance.size());
    for (const float d : clips[c].distance) t.distance.push_back(d * options.scale);
    return t;
  };
  walk_ = table(*walk);
  has_run_ = run.has_value();
  run_ = has_run_ ? table(*run) : walk_;
  has_idle_ = idle.has_value();
  if (has_idle_) {
    idle_.clip = *idle;
    idle_.duration = asset.clips[*idle].duration_seconds;
  } else {
    idle_ = walk_;
  }

  bands_.stop = kStopFraction * walk_.ground_speed;
  bands_.start = kStartFraction * walk_.ground_speed;
  const float between = std::sqrt(walk_.ground_speed * run_.ground_speed);
  bands_.run_up = has_run_ ? between * kRunHysteresis : std::numeric_limits<float>::infinity();
  bands_.run_down = has_run_ ? between / kRunHysteresis : std::numeric_limits<float>::infinity();
}

std::uint32_t GaitSet::clip(Gait gait) const noexcept {
  return gait == Gait::idle ? idle_.clip : gait == Gait::run ? run_.clip : walk_.clip;
}

float GaitSet::ground_speed(Gait gait) const noexcept {
  return gait == Gait::idle ? 0.0f : gait == Gait::run ? run_.ground_speed : walk_.ground_speed;
}

bool GaitSet::choose(GaitState& state, float speed) const {
  check_speed(speed, "speed");
  Gait next = state.gait;
  switch (state.gait) {
    case Gait::idle:
      if (speed > bands_.start) next = speed > bands_.run_up ? Gait::run : Gait::walk;
      break;
    case Gait::walk: next = speed < bands_.stop ? Gait::idle : speed > bands_.run_up ? Gait::run : Gait::walk; break;
    case Gait::run: next = speed < bands_.stop ? Gait::idle : speed < bands_.run_down ? Gait::walk : Gait::run; break;
  }
  const bool changed = next != state.gait;
  state.gait = next;
  return changed;
}

float GaitSet::rate(Gait gait, float speed, float clip_seconds, float dt) const {
  check_speed(speed, "speed");
  check_speed(clip_seconds, "clip_seconds");
  check_speed(dt, "dt");
  if (gait == Gait::idle) return has_idle_ ? 1.0f : 0.0f;
  const Table& table = gait == Gait::run ? run_ : walk_;
  float rate = speed / table.ground_speed;
  if (options_.matching == RateMatching::phase && dt > 0.0f) rate = matched_rate(table, speed, clip_seconds, dt);
  return std::clamp(rate, options_.min_rate, options_.max_rate);
}

// The clip time t1 where the clip's ground distance has grown by speed × dt from clip_seconds
// (over as many loops as it takes), as the rate (t1 - clip_seconds) / dt.
float GaitSet::matched_rate(const Table& table, float speed, float clip_seconds, float dt) const noexcept {
  const std::vector<float>& d = table.distance;
  const std::size_t n = d.size() - 1;
  const double cycle = d[n];
  const double start = std::min(static_cast<double>(clip_seconds), static_cast<double>(table.duration));
  const double step = table.duration / static_cast<double>(n);
  const auto i = std::min(static_cast<std::size_t>(start / step), n - 1);
  const double from = d[i] + (d[i + 1] - d[i]) * (start / step - static_cast<double>(i));
  const double target = from + static_cast<double>(speed) * dt;
  const double loops = std::floor(target / cycle);
  const double rest = target - loops * cycle;
  const auto j = static_cast<std::size_t>(
      std::clamp<std::ptrdiff_t>(std::upper_bound(d.begin(), d.end(), static_cast<float>(rest)) - d.begin() - 1, 0,
                                 static_cast<std::ptrdiff_t>(n - 1)));
  const double within = std::clamp((rest - d[j]) / (d[j + 1] - d[j]), 0.0, 1.0);
  const double end = loops * table.duration + (static_cast<double>(j) + within) * step;
  return static_cast<float>((end - start) / dt);
}

}  // namespace gltf_crowd
