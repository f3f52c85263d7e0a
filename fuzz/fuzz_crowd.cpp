// Fuzz target (b): bytes → a sequence of crowd operations on a small character (small_character.hpp)
// (add/remove batches, select_clip with crossfades, seek, set_phase, set_speed, set_loop,
// play/pause, set_transform, update, reserve, node_world, destroy, animation layers and bone
// masks, and the LOD controls: options
// at construction, set_lod_view, update with a view, set_lod_enabled, set_lod_bias,
// set_lod_vertex_budget; set_update_rate with fuzzed policies), with extreme and non-finite
// numbers, empty viewports, singular projections, unknown clips, odd ids and stale handles.
//
// After every operation it checks what docs/spec.md §3 and §5 promise, and aborts (a finding) when:
//  - an operation throws anything but gltf_crowd::Error, or throws for valid input, or accepts
//    invalid input (the oracle below mirrors the documented rules);
//  - an Error left any observable state changed (count, ids, playback, packed bytes);
//  - slots are not dense in the order swap-removal predicts, contributor weights do not sum to
//    1, a time leaves [0, D], or packed data is not finite while every placement is bounded;
//  - without an active LOD view a level-0 group does not draw every live slot; with one, an
//    actor draws at two levels of one node, LodStats disagree with the groups, or a satisfied
//    budget is exceeded.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <tbb/global_control.h>

#include "asset/checks.hpp"
#include "crowd_model.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/lod.hpp"
#include "small_character.hpp"

namespace gltf_crowd::fuzz {
namespace {

constexpr std::size_t kMaxOps = 256;
constexpr std::size_t kMaxFuzzCapacity = 32;     // bounds memory and per-op snapshot cost
constexpr std::size_t kMaxCapacity = 1'000'000;  // documented bound of Crowd's constructor
constexpr std::size_t kMaxIdLength = 256;

// A crowd of at most 32 actors (kMaxFuzzCapacity) updates on the calling thread; without this
// limit each crowd's arena still woke oneTBB's workers, which then spun on the CPU the fuzzer runs on.
const tbb::global_control kOneThread(tbb::global_control::max_allowed_parallelism, 1);

const std::shared_ptr<const Asset>& character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(small_character_glb()));
  return asset;
}

// Mostly the edges of the float range, else any bit pattern.
float any_float(FuzzedDataProvider& in) {
  static constexpr float kEdges[] = {0.0f,
                                     -0.0f,
                                     1.0f,
                                     -1.0f,
                                     0.5f,
                                     1.0f / 60.0f,
                                     -1.0f / 60.0f,
                                     7.25f,
                                     1e-45f,
                                     1e-30f,
                                     1e6f,
                                     -1e6f,
                                     1e30f,
                                     -1e30f,
                                     FLT_MAX,
                                     -FLT_MAX,
                                     std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(),
                                     std::numeric_limits<float>::quiet_NaN()};
  if (in.ConsumeBool()) return in.PickValueInArray(kEdges);
  return std::bit_cast<float>(in.ConsumeIntegral<std::uint32_t>());
}

struct Placement {
  glm::mat4 matrix{1.0f};
  bool bounded = true;  // entries small enough that packing cannot overflow
};

Placement any_placement(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 2)) {
    case 0: {  // a sane TRS, possibly singular (scale 0) or mirrored (negative scale)
      const glm::vec3 t(in.ConsumeFloatingPointInRange(-100.0f, 100.0f),
                        in.ConsumeFloatingPointInRange(-100.0f, 100.0f),
                        in.ConsumeFloatingPointInRange(-100.0f, 100.0f));
      const float angle = in.ConsumeFloatingPointInRange(-7.0f, 7.0f);
      const float scale = in.ConsumeFloatingPointInRange(-10.0f, 10.0f);
      return {glm::scale(glm::rotate(glm::translate(glm::mat4(1.0f), t), angle, glm::vec3(0, 1, 0)), glm::vec3(scale)),
              true};
    }
    case 1: return {glm::mat4(1.0f), true};
    default: {
      Placement p;
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
          p.matrix[c][r] = any_float(in);
          if (!(std::abs(p.matrix[c][r]) <= 1e3f)) p.bounded = false;
        }
      return p;
    }
  }
}

using detail::is_finite;

std::string any_id(FuzzedDataProvider& in, const CrowdModel& model) {
  if (!model.ids.empty() && in.ConsumeBool())
    return model.ids[in.ConsumeIntegralInRange<std::size_t>(0, model.ids.size() - 1)];
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0: return "";
    case 1: return "a";
    case 2: return "b";
    case 3: return "actor-0";
    case 4: return "actor-1";
    case 5: return std::string(kMaxIdLength, 'x');
    case 6: return std::string(kMaxIdLength + 1, 'y');
    default: return std::string("z\0z", 3);
  }
}

std::string any_clip(FuzzedDataProvider& in) {
  const Asset& asset = *character();
  const std::size_t pick = in.ConsumeIntegralInRange<std::size_t>(0, asset.clips.size() + 2);
  if (pick < asset.clips.size()) return asset.clips[pick].name;
  return pick == asset.clips.size() ? "" : (pick == asset.clips.size() + 1 ? "Nope" : "idle");
}

// Mostly a real mode, sometimes a value outside the enum.
LoopMode any_loop(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange(0, 15) == 0) return static_cast<LoopMode>(in.ConsumeIntegral<std::uint8_t>());
  return in.PickValueInArray({LoopMode::once, LoopMode::repeat, LoopMode::ping_pong});
}

bool valid_loop(LoopMode mode) {
  return mode == LoopMode::once || mode == LoopMode::repeat || mode == LoopMode::ping_pong;
}

// A usable camera most of the time; otherwise arbitrary matrices, a singular projection or an
// empty viewport.
LodView any_view(FuzzedDataProvider& in) {
  LodView v;
  const int kind = in.ConsumeIntegralInRange(0, 3);
  if (kind == 2) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) {
        v.view[c][r] = any_float(in);
        v.projection[c][r] = any_float(in);
      }
  } else {
    const glm::vec3 eye(in.ConsumeFloatingPointInRange(-60.0f, 60.0f), in.ConsumeFloatingPointInRange(-5.0f, 20.0f),
                        in.ConsumeFloatingPointInRange(-60.0f, 60.0f));
    v.view = glm::lookAt(eye, glm::vec3(0, 1, 0), glm::vec3(0, 1, 0));
    const float near = in.ConsumeFloatingPointInRange(0.01f, 1.0f);
    v.projection =
        glm::perspective(in.ConsumeFloatingPointInRange(0.05f, 3.0f), in.ConsumeFloatingPointInRange(0.1f, 10.0f), near,
                         near * in.ConsumeFloatingPointInRange(2.0f, 1e4f));
    if (kind == 3) v.projection[in.ConsumeIntegralInRange(0, 3)] = glm::vec4(0.0f);  // singular
  }
  v.width = in.PickValueInArray<std::uint32_t>({512, 1, 2, 4096, 0, std::numeric_limits<std::uint32_t>::max()});
  v.height = in.ConsumeBool() ? v.width : in.PickValueInArray<std::uint32_t>({512, 1, 0, 300});
  return v;
}

// The rules of validate_lod_view (lod.hpp), restated: a singular projection has no y scale or a
// determinant that is 0 or NaN (overflowing cofactors).
bool valid_view(const LodView& v) {
  return is_finite(v.view) && is_finite(v.projection) && v.projection[1][1] != 0.0f &&
         std::abs(glm::determinant(v.projection)) > 0.0f && v.width > 0 && v.height > 0;
}

// LOD options: none, sensible generated levels, or fuzzed fields that may break a rule.
LodOptions any_lod_options(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 2)) {
    case 0: return {};
    case 1: return {.enabled = in.ConsumeBool(), .auto_generate = true};
    default: {
      LodOptions o{.enabled = in.ConsumeBool(), .auto_generate = in.ConsumeBool()};
      o.ratios.clear();
      for (int n = in.ConsumeIntegralInRange(0, 3); n > 0; --n)
        o.ratios.push_back(in.ConsumeBool() ? any_float(in) : in.ConsumeProbability<float>());
      o.preserve_boundary = in.ConsumeBool();
      for (int n = in.ConsumeIntegralInRange(0, 4); n > 0; --n)
        o.screen_coverage.push_back(in.ConsumeBool() ? any_float(in) : in.ConsumeProbability<float>());
      o.hysteresis = in.ConsumeBool() ? any_float(in) : in.ConsumeProbability<float>();
      o.vertex_budget = in.ConsumeIntegralInRange<std::uint64_t>(0, 4000);
      return o;
    }
  }
}

// The rules of validate_lod_options (lod.hpp), restated.
bool valid_lod_options(const LodOptions& o) {
  for (std::size_t i = 0; i < o.ratios.size(); ++i)
    if (!(o.ratios[i] > 0.0f && o.ratios[i] < 1.0f) || (i > 0 && !(o.ratios[i] < o.ratios[i - 1]))) return false;
  for (std::size_t i = 0; i < o.screen_coverage.size(); ++i)
    if (!(o.screen_coverage[i] > 0.0f && std::isfinite(o.screen_coverage[i])) ||
        (i > 0 && o.screen_coverage[i] > o.screen_coverage[i - 1]))
      return false;
  return o.hysteresis >= 0.0f && o.hysteresis < 1.0f;
}

// An update-rate LOD policy whose thresholds and periods may break a rule.
UpdateRateOptions any_update_rate(FuzzedDataProvider& in) {
  UpdateRateOptions o;
  o.enabled = in.ConsumeBool();
  o.coverage.clear();
  o.periods.clear();
  const int n = in.ConsumeIntegralInRange(0, 3);
  for (int i = 0; i < n; ++i) o.coverage.push_back(in.ConsumeBool() ? any_float(in) : in.ConsumeProbability<float>());
  const int m = in.ConsumeBool() ? n : in.ConsumeIntegralInRange(0, 3);
  for (int i = 0; i < m; ++i) o.periods.push_back(in.ConsumeIntegralInRange<std::uint32_t>(0, 70));
  return o;
}

// The rules of Crowd::set_update_rate (crowd.hpp), restated.
bool valid_update_rate(const UpdateRateOptions& o) {
  if (o.coverage.size() != o.periods.size()) return false;
  for (std::size_t i = 0; i < o.coverage.size(); ++i)
    if (!(std::isfinite(o.coverage[i]) && o.coverage[i] > 0.0f) || (i > 0 && !(o.coverage[i] < o.coverage[i - 1])) ||
        o.periods[i] < 1 || o.periods[i] > 64)
      return false;
  return true;
}

std::uint32_t any_repetitions(FuzzedDataProvider& in) {
  return in.ConsumeBool() ? in.ConsumeIntegralInRange<std::uint32_t>(0, 3) : in.ConsumeIntegral<std::uint32_t>();
}

// One fuzz input's run: the crowd, the oracle's model of it, and the handles handed out.
class Run {
 public:
  Run(std::size_t capacity, const LodOptions& lod) : crowd_(character(), {.capacity = capacity, .lod = lod}) {
    model_.capacity = capacity;
    lod_enabled_ = lod.enabled;
    lod_configured_ = lod.enabled || lod.auto_generate;
  }

  void step(FuzzedDataProvider& in) {
    const std::string before = snapshot(crowd_);
    const int op = in.ConsumeIntegralInRange(0, 21);
    try {
      const bool should_throw = apply(op, in);
      require(!should_throw, "op %d accepted input it must reject", op);
    } catch (const Error& e) {
      require(expected_error_, "op %d threw for valid input: %s [%s]", op, e.what(), e.rule().c_str());
      require(snapshot(crowd_) == before, "op %d threw (%s) but changed state", op, e.what());
    }
    check_invariants();
  }

 private:
  // Performs op; returns whether it should have thrown (it returned normally instead).
  // Sets expected_error_ first so a throw can be judged.
  bool apply(int op, FuzzedDataProvider& in) {
    expected_error_ = model_.destroyed;
    switch (op) {
      case 0: return add(in);
      case 1: return remove(in);
      case 2: return reserve(in);
      case 3: {
        const float delta = any_float(in);
        expected_error_ |= !std::isfinite(delta);
        crowd_.update(delta);
        return expected_error_;
      }
      case 4: {
        crowd_.destroy();  // idempotent; every later call must be a no-op or an Error
        model_.destroyed = true;
        model_.ids.clear();
        return false;
      }
      case 13: {
        const float delta = any_float(in);
        const LodView view = any_view(in);
        expected_error_ |= !std::isfinite(delta) || !valid_view(view);
        crowd_.update(delta, view);
        lod_view_set_ = true;
        return expected_error_;
      }
      case 14: {
        const LodView view = any_view(in);
        expected_error_ |= !valid_view(view);
        crowd_.set_lod_view(view);
        lod_view_set_ = true;
        return expected_error_;
      }
      case 15: {
        const bool enabled = in.ConsumeBool();
        try {
          crowd_.set_lod_enabled(enabled);
        } catch (const Error& e) {
          // How many levels generation yields is known only once they are built, so a
          // screen_coverage of another count is rejected here (lod_screen_coverage_count).
          if (e.rule() == rule_id(Rule::lod_screen_coverage_count)) expected_error_ = true;
          throw;
        }
        lod_enabled_ = enabled;
        lod_configured_ |= enabled;
        return expected_error_;
      }
      case 16: {
        const float bias = any_float(in);
        expected_error_ |= !(bias > 0.0f && std::isfinite(bias));
        crowd_.set_lod_bias(bias);
        return expected_error_;
      }
      case 17: {
        const std::uint64_t budget =
            in.ConsumeBool() ? in.ConsumeIntegralInRange<std::uint64_t>(0, 4000) : in.ConsumeIntegral<std::uint64_t>();
        crowd_.set_lod_vertex_budget(budget);
        return expected_error_;
      }
      case 18: {
        const UpdateRateOptions policy = any_update_rate(in);
        expected_error_ |= !valid_update_rate(policy);
        const UpdateRateOptions before = crowd_.update_rate();
        try {
          crowd_.set_update_rate(policy);
        } catch (const Error&) {
          require(crowd_.update_rate().enabled == before.enabled && crowd_.update_rate().coverage == before.coverage &&
                      crowd_.update_rate().periods == before.periods,
                  "set_update_rate threw but changed the policy");
          throw;
        }
        return expected_error_;
      }
      case 21: return add_mask(in);
      default: return actor_op(op, in);
    }
  }

  // Crowd::add_mask with fuzzed names, nodes and weights (docs/spec.md §3.11).
  bool add_mask(FuzzedDataProvider& in) {
    const std::string name = in.PickValueInArray<const char*>({"upper", "legs", "", "upper"});
    std::vector<MaskBranch> branches(in.ConsumeIntegralInRange<std::size_t>(0, 3));
    bool valid = !name.empty() && !masks_.contains(name);
    for (MaskBranch& b : branches) {
      b.node = in.PickValueInArray<const char*>({"Spine", "Neck", "LeftUpperLeg", "Nope"});
      b.weight = in.ConsumeBool() ? in.ConsumeFloatingPointInRange(0.0f, 1.0f) : any_float(in);
      b.descendants = in.ConsumeBool();
      valid = valid && b.node != "Nope" && b.weight >= 0.0f && b.weight <= 1.0f;
    }
    expected_error_ |= !valid;
    crowd_.add_mask(name, branches);
    masks_.insert(name);
    return expected_error_;
  }

  // An animation layer by index; 0 and kMaxLayers + 1 must throw "layer_index".
  ActorLayer any_layer(const Actor& actor, FuzzedDataProvider& in) {
    const auto index = in.ConsumeIntegralInRange<std::uint32_t>(0, kMaxLayers + 1);
    expected_error_ |= index == 0 || index > kMaxLayers;
    return actor.layer(index);
  }

  // A layer's playback controls, the base layer's rules (case 5 to 10).
  bool layer_playback_op(const Actor& actor, FuzzedDataProvider& in) {
    const int kind = in.ConsumeIntegralInRange(0, 5);
    ActorLayer layer = any_layer(actor, in);
    const Asset& asset = *character();
    switch (kind) {
      case 0: {
        const std::string name = any_clip(in);
        SelectClipOptions o{.crossfade_seconds = any_float(in), .time = std::nullopt, .phase = any_float(in)};
        const int clip = asset.find_clip(name);
        expected_error_ |=
            clip < 0 || !std::isfinite(o.crossfade_seconds) || o.crossfade_seconds < 0.0f || !std::isfinite(o.phase) ||
            (clip >= 0 && !std::isfinite(o.phase * asset.clips[static_cast<std::size_t>(clip)].duration_seconds));
        layer.select_clip(name, o);
        return expected_error_;
      }
      case 1: {
        const float seconds = any_float(in);
        expected_error_ |= !std::isfinite(seconds);
        layer.seek(seconds);
        return expected_error_;
      }
      case 2: {
        const float speed = any_float(in);
        expected_error_ |= !std::isfinite(speed);
        layer.set_speed(speed);
        return expected_error_;
      }
      case 3: {
        const LoopMode mode = any_loop(in);
        expected_error_ |= !valid_loop(mode);
        layer.set_loop(mode, any_repetitions(in));
        return expected_error_;
      }
      case 4: in.ConsumeBool() ? layer.play() : layer.pause(); return expected_error_;
      default: layer.clear(); return expected_error_;
    }
  }

  // A layer's weight fade, mode, mask and additive reference.
  bool layer_blend_op(const Actor& actor, FuzzedDataProvider& in) {
    const int kind = in.ConsumeIntegralInRange(0, 3);
    ActorLayer layer = any_layer(actor, in);
    switch (kind) {
      case 0: {
        const float weight = in.ConsumeBool() ? in.ConsumeFloatingPointInRange(0.0f, 1.0f) : any_float(in);
        const float fade = any_float(in);
        expected_error_ |= !(weight >= 0.0f && weight <= 1.0f) || !std::isfinite(fade) || fade < 0.0f;
        layer.set_weight(weight, fade);
        return expected_error_;
      }
      case 1: {
        const auto mode = in.ConsumeIntegralInRange<std::uint8_t>(0, 2);
        expected_error_ |= mode > 1;
        layer.set_mode(static_cast<LayerMode>(mode));
        return expected_error_;
      }
      case 2: {
        const std::string name = in.PickValueInArray<const char*>({"", "upper", "legs", "nope"});
        expected_error_ |= !name.empty() && !masks_.contains(name);
        layer.set_mask(name);
        return expected_error_;
      }
      default: {
        const std::string clip = in.ConsumeBool() ? std::string() : any_clip(in);
        const float seconds = any_float(in);
        const int index = character()->find_clip(clip);
        const float duration = index < 0 ? 0.0f : character()->clips[static_cast<std::size_t>(index)].duration_seconds;
        expected_error_ |=
            !clip.empty() && (index < 0 || !std::isfinite(seconds) || seconds < 0.0f || seconds > duration);
        layer.set_additive_reference(clip, seconds);
        return expected_error_;
      }
    }
  }

  bool add(FuzzedDataProvider& in) {
    const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 4);
    std::vector<ActorOptions> options(n);
    std::vector<std::string> batch;
    bool invalid = model_.ids.size() + n > model_.capacity;
    bool bounded = true;
    const Asset& asset = *character();
    for (ActorOptions& o : options) {
      o.id = any_id(in, model_);
      o.clip = any_clip(in);
      if (in.ConsumeBool()) o.time = any_float(in);
      o.phase = any_float(in);
      o.speed = any_float(in);
      o.loop = any_loop(in);
      o.repetitions = any_repetitions(in);
      o.playing = in.ConsumeBool();
      const Placement placement = any_placement(in);
      o.transform = placement.matrix;
      bounded &= placement.bounded;
      const int clip = o.clip.empty() ? 0 : asset.find_clip(o.clip);
      invalid |=
          o.id.size() > kMaxIdLength || model_.contains(o.id) ||
          (!o.id.empty() && std::find(batch.begin(), batch.end(), o.id) != batch.end()) || clip < 0 ||
          (o.time && !std::isfinite(*o.time)) || !std::isfinite(o.speed) || !std::isfinite(o.phase) ||
          (clip >= 0 && !std::isfinite(o.phase * asset.clips[static_cast<std::size_t>(clip)].duration_seconds)) ||
          !valid_loop(o.loop) || !is_finite(o.transform);
      batch.push_back(o.id);
    }
    expected_error_ |= invalid;
    const std::vector<Actor> added = crowd_.add_actors(options);
    require(added.size() == n, "add_actors returned %zu handles for %zu options", added.size(), n);
    for (const Actor& a : added) {
      require(!model_.contains(a.id()), "add_actors produced a colliding id");
      handles_.push_back({a, a.id(), model_.add(a.id())});
    }
    if (!bounded) unbounded_ = true;
    if (handles_.size() > 64) handles_.erase(handles_.begin(), handles_.begin() + 32);
    return expected_error_;
  }

  bool remove(FuzzedDataProvider& in) {
    std::vector<std::string> ids(in.ConsumeIntegralInRange<std::size_t>(0, 4));
    for (std::string& id : ids) id = any_id(in, model_);
    std::size_t expected = 0;
    if (!model_.destroyed)
      for (const std::string& id : ids) expected += model_.remove(id) ? 1 : 0;
    const std::size_t removed = crowd_.remove_actors(ids);
    require(removed == expected, "remove_actors removed %zu, expected %zu", removed, expected);
    return expected_error_;
  }

  bool reserve(FuzzedDataProvider& in) {
    const std::size_t n = in.PickValueInArray<std::size_t>(
        {0, 1, 4, kMaxFuzzCapacity, kMaxCapacity + 1, std::numeric_limits<std::size_t>::max()});
    expected_error_ |= n == 0 || n > kMaxCapacity;
    crowd_.reserve(n);
    if (!expected_error_) model_.capacity = std::max(model_.capacity, n);
    return expected_error_;
  }

  bool actor_op(int op, FuzzedDataProvider& in) {
    if (handles_.empty()) return expected_error_ = false;  // nothing to call
    const Handle& h = handles_[in.ConsumeIntegralInRange<std::size_t>(0, handles_.size() - 1)];
    Actor actor = h.actor;
    expected_error_ |= !model_.live(h.id, h.incarnation);
    const Asset& asset = *character();
    const float duration = expected_error_ ? 0.0f : clip_duration(actor);
    switch (op) {
      case 5: {
        const std::string name = any_clip(in);
        SelectClipOptions o{.crossfade_seconds = any_float(in), .time = std::nullopt, .phase = any_float(in)};
        if (in.ConsumeBool()) o.time = any_float(in);
        const int clip = asset.find_clip(name);
        expected_error_ |=
            clip < 0 || !std::isfinite(o.crossfade_seconds) || o.crossfade_seconds < 0.0f ||
            (o.time && !std::isfinite(*o.time)) || !std::isfinite(o.phase) ||
            (clip >= 0 && !std::isfinite(o.phase * asset.clips[static_cast<std::size_t>(clip)].duration_seconds));
        actor.select_clip(name, o);
        return expected_error_;
      }
      case 6: {
        const float seconds = any_float(in);
        expected_error_ |= !std::isfinite(seconds);
        actor.seek(seconds);
        return expected_error_;
      }
      case 7: {
        const float phase = any_float(in);
        expected_error_ |= !std::isfinite(phase) || !std::isfinite(phase * duration);
        actor.set_phase(phase);
        return expected_error_;
      }
      case 8: {
        const float speed = any_float(in);
        expected_error_ |= !std::isfinite(speed);
        actor.set_speed(speed);
        return expected_error_;
      }
      case 9: {
        const LoopMode mode = any_loop(in);
        expected_error_ |= !valid_loop(mode);
        actor.set_loop(mode, any_repetitions(in));
        return expected_error_;
      }
      case 10: in.ConsumeBool() ? actor.play() : actor.pause(); return expected_error_;
      case 11: {
        const Placement p = any_placement(in);
        expected_error_ |= !is_finite(p.matrix);
        actor.set_transform(p.matrix);
        if (!p.bounded) unbounded_ = true;
        return expected_error_;
      }
      case 19: return layer_playback_op(actor, in);
      case 20: return layer_blend_op(actor, in);
      default: {
        if (in.ConsumeBool()) {  // read-back, which must throw on a stale handle and only then
          (void)actor.id();
          (void)actor.active_clip();
          (void)actor.phase();
          (void)actor.speed();
          (void)actor.loop();
          (void)actor.repetitions();
          (void)actor.playing();
          (void)actor.finished();
          (void)actor.morph_weights();
          (void)actor.transform();
          return expected_error_;
        }
        const auto node = in.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(asset.nodes.size()));
        expected_error_ |= node >= asset.nodes.size();
        const glm::mat4 world = actor.node_world(node);
        require(unbounded_ || is_finite(world), "node_world(%u) is not finite", node);
        return expected_error_;
      }
    }
  }

  float clip_duration(const Actor& actor) const {
    const int clip = character()->find_clip(actor.active_clip());
    return clip < 0 ? 0.0f : character()->clips[static_cast<std::size_t>(clip)].duration_seconds;
  }

  void check_invariants() {
    if (model_.destroyed) {
      require(crowd_.destroyed() && crowd_.actor_count() == 0 && crowd_.primitive_groups().empty() &&
                  crowd_.node_streams().empty(),
              "a destroyed crowd still holds data");
      return;
    }
    const std::size_t n = crowd_.actor_count();
    require(n == model_.ids.size() && crowd_.capacity() == model_.capacity,
            "count %zu / capacity %zu differ from the model", n, crowd_.capacity());
    const std::vector<Actor> actors = crowd_.actors();
    for (std::size_t slot = 0; slot < n; ++slot) {
      const Actor& a = actors[slot];
      require(a.id() == model_.ids[slot], "slot %zu holds the wrong actor", slot);
      const float duration = clip_duration(a);
      require(a.time() >= 0.0f && a.time() <= duration, "time %g outside [0, %g]", a.time(), duration);
      float sum = 0.0f;
      for (const Contributor& c : a.contributors()) {
        require(c.weight >= 0.0f && c.weight <= 1.0f, "contributor weight %g", c.weight);
        sum += c.weight;
      }
      require(character()->clips.empty() || std::abs(sum - 1.0f) < 1e-4f, "contributor weights sum to %g", sum);
      for (std::uint32_t i = 1; i <= kMaxLayers; ++i) {
        const ActorLayer layer = a.layer(i);
        require(layer.weight() >= 0.0f && layer.weight() <= 1.0f, "layer %u weight %g", i, layer.weight());
        float layer_sum = 0.0f;
        for (const Contributor& c : layer.contributors()) layer_sum += c.weight;
        require(layer.contributors().empty() || std::abs(layer_sum - 1.0f) < 1e-4f, "layer %u weights sum to %g", i,
                layer_sum);
      }
    }
    // Serials name actors: one per slot, never two alike (docs/spec.md §5.8).
    std::vector<std::uint64_t> serials(crowd_.actor_serials().begin(), crowd_.actor_serials().end());
    require(serials.size() == n, "%zu serials for %zu actors", serials.size(), n);
    std::sort(serials.begin(), serials.end());
    require(
        std::adjacent_find(serials.begin(), serials.end()) == serials.end() && (serials.empty() || serials.front() > 0),
        "actor serials repeat or start at 0");
    check_groups(n);
    if (unbounded_) return;
    for (const NodeStream& s : crowd_.node_streams()) {
      require(std::all_of(s.transforms.begin(), s.transforms.begin() + static_cast<std::ptrdiff_t>(n * 3), finite4),
              "non-finite instance transform");
      require(std::all_of(s.palette.begin(), s.palette.begin() + static_cast<std::ptrdiff_t>(live_palette_rows(s, n)),
                          finite4),
              "non-finite palette");
      require(std::all_of(s.weights.begin(), s.weights.begin() + static_cast<std::ptrdiff_t>(n * s.weight_stride),
                          [](float w) { return std::isfinite(w); }),
              "non-finite morph weight");
    }
  }

  // Groups and LodStats (docs/spec.md §5, §7): without an active view every level-0 group draws every
  // slot in order; with one, each slot draws at most one level per source node.
  void check_groups(std::size_t n) const {
    const LodStats& stats = crowd_.lod_stats();
    require(stats.visible_actors + stats.culled_actors + crowd_.frame_stats().hidden_actors == n,
            "LodStats count %u + %u actors (+ hidden), not %zu", stats.visible_actors, stats.culled_actors, n);
    std::uint64_t per_level = 0;
    for (const LodLevelStats& level : stats.levels) per_level += level.actors;
    require(per_level == stats.visible_actors, "LodStats levels hold %llu actors, %u visible",
            static_cast<unsigned long long>(per_level), stats.visible_actors);
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> level_of;  // (source node, slot)
    for (const PrimitiveGroup& g : crowd_.primitive_groups()) {
      require(g.instance_count == g.instances.size(), "instance_count differs from instances");
      for (std::size_t i = 0; i < g.instances.size(); ++i) {
        require(g.instances[i] < n && (i == 0 || g.instances[i] > g.instances[i - 1]), "group instances out of order");
        const auto [it, added] = level_of.emplace(std::pair(g.source_node, g.instances[i]), g.level);
        require(added || it->second == g.level, "slot %u draws node %u at two levels", g.instances[i], g.source_node);
      }
      if (!(lod_configured_ && lod_enabled_ && lod_view_set_))
        require(g.instance_count == (g.level == 0 ? n : 0), "inactive LOD: group at level %u draws %u of %zu actors",
                g.level, g.instance_count, n);
    }
    if (stats.vertex_budget && stats.budget_satisfied)
      require(stats.vertices <= *stats.vertex_budget, "a satisfied budget is exceeded");
  }

  static bool finite4(const glm::vec4& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
  }

  struct Handle {
    Actor actor;
    std::string id;
    std::uint64_t incarnation;
  };

  Crowd crowd_;
  CrowdModel model_;
  std::vector<Handle> handles_;
  std::set<std::string> masks_;  // added with add_mask
  bool expected_error_ = false;
  bool unbounded_ = false;  // an accepted placement was extreme: overflow to inf is then legitimate
  // LOD is active (docs/spec.md §7) once levels exist, it is enabled, and a view was set.
  bool lod_enabled_ = false;
  bool lod_configured_ = false;
  bool lod_view_set_ = false;
};

}  // namespace
}  // namespace gltf_crowd::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gltf_crowd;
  FuzzedDataProvider in(data, size);
  // Capacity: mostly a small valid one; sometimes 0 or too large, which must throw.
  const std::size_t capacity = in.PickValueInArray<std::size_t>(
      {1, 2, 3, 8, fuzz::kMaxFuzzCapacity, 0, fuzz::kMaxCapacity + 1, std::numeric_limits<std::size_t>::max()});
  if (capacity == 0 || capacity > fuzz::kMaxCapacity) {
    try {
      Crowd crowd(fuzz::character(), {.capacity = capacity});
      fuzz::require(false, "capacity %zu was accepted", capacity);
    } catch (const Error& e) {
      fuzz::require(e.rule() == rule_id(Rule::capacity_range), "capacity %zu: rule %s", capacity, e.rule().c_str());
    }
    return 0;
  }
  const LodOptions lod = fuzz::any_lod_options(in);
  if (!fuzz::valid_lod_options(lod)) {
    try {
      Crowd crowd(fuzz::character(), {.capacity = capacity, .lod = lod});
      fuzz::require(false, "invalid LOD options were accepted");
    } catch (const Error& e) {
      fuzz::require(e.path().rfind("lod.", 0) == 0, "LOD options: path %s", e.path().c_str());
    }
    return 0;
  }
  std::optional<fuzz::Run> run;
  try {
    run.emplace(capacity, lod);
  } catch (const Error& e) {
    // Valid options, but screen_coverage does not give one threshold per level built.
    fuzz::require(e.rule() == rule_id(Rule::lod_screen_coverage_count) && !lod.screen_coverage.empty(),
                  "valid LOD options were rejected: %s [%s]", e.what(), e.rule().c_str());
    return 0;
  }
  for (std::size_t op = 0; op < fuzz::kMaxOps && in.remaining_bytes() > 0; ++op) run->step(in);
  return 0;
}
