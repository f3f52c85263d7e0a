// Animation layers (docs/spec.md §3.11): the ActorLayer controls, the crowd's bone masks and the
// reference poses of additive layers. Every control works on a copy of the layer, validated and
// changed there, and stores it only when nothing threw, so an error leaves the actor as it was;
// then it marks the actor's pose pending, as the base layer's controls do. layer_blend.cpp
// evaluates the layers, events.cpp advances their clocks and weights.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "crowd/state.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/jobs.hpp"

namespace gltf_crowd {
namespace {

// The mask name list an "unknown_mask" error shows.
std::string mask_name_list(const Crowd::State& st) {
  if (st.masks.empty()) return "none (Crowd::add_mask adds them)";
  std::string out;
  for (const LayerMask& m : st.masks) out += (out.empty() ? "\"" : ", \"") + m.name + "\"";
  return out;
}

// `clip` sampled at `seconds` over the rest pose, per asset node, through the full rig.
AdditiveReference sample_reference(const Crowd::State& st, std::uint32_t clip, float seconds) {
  const Rig& rig = st.full.rig;
  const std::size_t n = rig.node_count();
  std::vector<glm::vec3> t(rig.rest_translation), s(rig.rest_scale);
  std::vector<glm::quat> r(rig.rest_rotation);
  std::vector<float> w(rig.rest_weights);
  std::vector<KeyPosition> keys(st.full.max_timelines);
  SampleJob{&rig, &st.full.clips[clip], seconds, {}, keys, {}, 0, true, RigPose{t, r, s, w}}.run();
  AdditiveReference ref{clip, seconds, {}, {}, {}, std::move(w)};
  ref.translations.resize(st.asset.nodes.size());
  ref.scales.resize(st.asset.nodes.size());
  ref.inverse_rotations.resize(st.asset.nodes.size());
  for (std::size_t a = 0; a < n; ++a) {
    const std::uint32_t node = rig.asset_node[a];
    ref.translations[node] = t[a];
    ref.scales[node] = s[a];
    ref.inverse_rotations[node] = glm::conjugate(glm::normalize(r[a]));
  }
  return ref;
}

// The index of the reference pose of (clip, seconds), built on first use.
std::uint32_t reference_index(Crowd::State& st, std::uint32_t clip, float seconds) {
  for (std::uint32_t i = 0; i < st.references.size(); ++i)
    if (st.references[i].clip == clip && st.references[i].seconds == seconds) return i;
  st.references.push_back(sample_reference(st, clip, seconds));
  ++st.layer_tables_generation;
  return static_cast<std::uint32_t>(st.references.size() - 1);
}

// Every clip's time-0 reference, which additive layers without a set reference subtract: built
// once, the first time a layer needs them, so a later crossfade to any clip finds its own.
void ensure_first_key_references(Crowd::State& st) {
  if (!st.first_key_reference.empty()) return;
  std::vector<std::uint32_t> refs(st.asset.clips.size());
  for (std::uint32_t c = 0; c < refs.size(); ++c) refs[c] = reference_index(st, c, 0.0f);
  st.first_key_reference = std::move(refs);
}

const LayerState& default_layer() {
  static const LayerState none;
  return none;
}

}  // namespace

std::string_view to_string(LayerMode mode) noexcept { return mode == LayerMode::additive ? "additive" : "override"; }

ActorLayer Actor::layer(std::uint32_t index) const {
  slot();  // a stale handle throws here, not at the layer's first use
  if (index == 0 || index > kMaxLayers)
    throw Error("layer.index", Rule::layer_index,
                fmt::format("layer {} does not exist: layers are 1..{} (0 is the base layer: the actor's own "
                            "controls)",
                            index, kMaxLayers));
  return ActorLayer(*this, index);
}

namespace {

// The layer's state, or the default of a layer never used.
const LayerState& layer_of(const Crowd::State& st, std::uint32_t slot, std::uint32_t index) {
  const std::vector<LayerState>& layers = st.layers[slot];
  return index <= layers.size() ? layers[index - 1] : default_layer();
}

}  // namespace

// What ActorLayer's controls and getters reach of its actor and crowd (a friend of both).
struct LayerAccess {
  static Crowd::State& state(const ActorLayer& handle, std::uint32_t& slot) {
    Crowd& crowd = handle.actor_.crowd();
    slot = handle.actor_.slot();
    return *crowd.state_;
  }
  static std::uint32_t index(const ActorLayer& handle) noexcept { return handle.index_; }
};

namespace {

// The one path of every ActorLayer control (see the file comment).
template <typename Change>
void change_layer(const ActorLayer& handle, Change change) {
  std::uint32_t slot = 0;
  Crowd::State& st = LayerAccess::state(handle, slot);
  const std::uint32_t index = LayerAccess::index(handle);
  LayerState layer = layer_of(st, slot, index);
  change(st, layer);
  if (layer.mode == LayerMode::additive && layer.reference == kNoReference) ensure_first_key_references(st);
  std::vector<LayerState>& layers = st.layers[slot];
  if (layers.size() < index) {
    if (layers.empty()) ++st.layered;
    layers.resize(index);
    size_layer_records(st);
  }
  layers[index - 1] = layer;
  mark_pending(st, slot);
}

// Reads the layer's state for a getter.
template <typename Read>
decltype(auto) read_layer(const ActorLayer& handle, Read read) {
  std::uint32_t slot = 0;
  const Crowd::State& st = LayerAccess::state(handle, slot);
  return read(st, layer_of(st, slot, LayerAccess::index(handle)));
}

}  // namespace

void ActorLayer::select_clip(std::string_view name, const SelectClipOptions& options) {
  change_layer(*this,
               [&](Crowd::State& st, LayerState& l) { control_select_clip(st.asset, l.playback, name, options); });
}

void ActorLayer::seek(float seconds) {
  change_layer(*this, [&](Crowd::State& st, LayerState& l) { control_seek(st.asset, l.playback, seconds); });
}

void ActorLayer::set_phase(float phase) {
  change_layer(*this, [&](Crowd::State& st, LayerState& l) { control_set_phase(st.asset, l.playback, phase); });
}

void ActorLayer::set_speed(float speed) {
  change_layer(*this, [&](Crowd::State& st, LayerState& l) { control_set_speed(st.asset, l.playback, speed); });
}

void ActorLayer::set_loop(LoopMode mode, std::uint32_t repetitions) {
  change_layer(*this,
               [&](Crowd::State& st, LayerState& l) { control_set_loop(st.asset, l.playback, mode, repetitions); });
}

void ActorLayer::play() {
  change_layer(*this, [&](Crowd::State& st, LayerState& l) { control_play(st.asset, l.playback); });
}

void ActorLayer::pause() {
  change_layer(*this, [](Crowd::State&, LayerState& l) { l.playback.paused = true; });
}

void ActorLayer::clear() {
  change_layer(*this, [](Crowd::State&, LayerState& l) {
    l.playback.count = 0;
    l.playback.finished = false;
    l.playback.fade_seconds = l.playback.fade_progress = 0.0;
  });
}

void ActorLayer::set_weight(float weight, float fade_seconds) {
  change_layer(*this, [&](Crowd::State&, LayerState& l) {
    if (!(weight >= 0.0f && weight <= 1.0f))  // NaN fails too
      throw Error("set_weight.weight", Rule::blend_weight, fmt::format("weight {} is not in [0, 1]", weight));
    detail::check_finite(fade_seconds, "set_weight.fade_seconds");
    if (fade_seconds < 0.0f)
      throw Error("set_weight.fade_seconds", Rule::negative,
                  fmt::format("fade of {} s; it must be >= 0", fade_seconds));
    l.weight_from = l.weight;
    l.weight_target = weight;
    l.fade_seconds = fade_seconds;
    l.fade_progress = 0.0;
    if (fade_seconds == 0.0f) l.weight = weight;
  });
}

void ActorLayer::set_mask(std::string_view name) {
  change_layer(*this, [&](Crowd::State& st, LayerState& l) {
    if (name.empty()) {
      l.mask = kNoMask;
      return;
    }
    for (std::uint32_t i = 0; i < st.masks.size(); ++i)
      if (st.masks[i].name == name) {
        l.mask = i;
        return;
      }
    throw Error("set_mask.name", Rule::unknown_mask,
                fmt::format("no mask named \"{}\"; the crowd's masks: {}", name, mask_name_list(st)));
  });
}

void ActorLayer::set_mode(LayerMode mode) {
  change_layer(*this, [&](Crowd::State&, LayerState& l) {
    if (mode != LayerMode::override && mode != LayerMode::additive)
      throw Error("set_mode.mode", Rule::layer_mode, fmt::format("{} is not a LayerMode", static_cast<int>(mode)));
    l.mode = mode;
  });
}

void ActorLayer::set_additive_reference(std::string_view clip, float seconds) {
  change_layer(*this, [&](Crowd::State& st, LayerState& l) {
    if (clip.empty()) {
      l.reference = kNoReference;
      return;
    }
    const int index = st.asset.find_clip(clip);
    if (index < 0)
      throw Error("set_additive_reference.clip", Rule::unknown_clip,
                  fmt::format("no clip named \"{}\"; available: {}", clip, clip_name_list(st.asset)));
    detail::check_finite(seconds, "set_additive_reference.seconds");
    const float duration = st.asset.clips[static_cast<std::size_t>(index)].duration_seconds;
    if (seconds < 0.0f || seconds > duration)
      throw Error("set_additive_reference.seconds", Rule::reference_time,
                  fmt::format("{} s is outside clip \"{}\"'s [0, {}] s", seconds, clip, duration));
    l.reference = reference_index(st, static_cast<std::uint32_t>(index), seconds);
  });
}

const std::string& ActorLayer::active_clip() const {
  return read_layer(*this, [](const Crowd::State& st, const LayerState& l) -> const std::string& {
    static const std::string none;
    return l.playback.count == 0 ? none : st.asset.clips[l.playback.contributors[0].clip].name;
  });
}

float ActorLayer::time() const {
  return read_layer(*this,
                    [](const Crowd::State& st, const LayerState& l) { return active_time(st.asset, l.playback); });
}

float ActorLayer::speed() const {
  return read_layer(*this, [](const Crowd::State&, const LayerState& l) { return l.playback.speed; });
}

LoopMode ActorLayer::loop() const {
  return read_layer(*this, [](const Crowd::State&, const LayerState& l) { return l.playback.loop; });
}

bool ActorLayer::playing() const {
  return read_layer(*this, [](const Crowd::State&, const LayerState& l) {
    return l.playback.count > 0 && !l.playback.paused && !l.playback.finished;
  });
}

bool ActorLayer::finished() const {
  return read_layer(*this, [](const Crowd::State&, const LayerState& l) { return l.playback.finished; });
}

std::vector<Contributor> ActorLayer::contributors() const {
  return read_layer(*this,
                    [](const Crowd::State& st, const LayerState& l) { return contributors_of(st.asset, l.playback); });
}

float ActorLayer::weight() const {
  return read_layer(*this, [](const Crowd::State&, const LayerState& l) { return l.weight; });
}

float ActorLayer::target_weight() const {
  return read_layer(*this, [](const Crowd::State&, const LayerState& l) { return l.weight_target; });
}

LayerMode ActorLayer::mode() const {
  return read_layer(*this, [](const Crowd::State&, const LayerState& l) { return l.mode; });
}

const std::string& ActorLayer::mask() const {
  return read_layer(*this, [](const Crowd::State& st, const LayerState& l) -> const std::string& {
    static const std::string none;
    return l.mask == kNoMask ? none : st.masks[l.mask].name;
  });
}

void Crowd::add_mask(std::string_view name, std::span<const MaskBranch> branches) {
  State& st = live();
  const Asset& asset = *asset_;
  if (name.empty()) throw Error("add_mask.name", Rule::mask_name, "a mask needs a name");
  for (const LayerMask& m : st.masks)
    if (m.name == name) throw Error("add_mask.name", Rule::mask_name, fmt::format("the crowd has a mask \"{}\"", name));
  LayerMask mask{std::string(name), std::vector<float>(asset.nodes.size(), 0.0f)};
  std::vector<std::uint32_t> stack;
  for (std::size_t i = 0; i < branches.size(); ++i) {
    const MaskBranch& b = branches[i];
    std::uint32_t node = 0;
    if (!b.index) {
      node = asset.resolve_node(b.node, fmt::format("add_mask.branches[{}].node", i));
    } else if (!b.node.empty()) {
      throw Error(fmt::format("add_mask.branches[{}].index", i), Rule::ambiguous_node,
                  fmt::format("the branch names node {} and \"{}\": give one", *b.index, b.node));
    } else if ((node = *b.index) >= asset.nodes.size()) {
      throw Error(fmt::format("add_mask.branches[{}].index", i), Rule::node_index,
                  fmt::format("node {} does not exist ({} nodes)", node, asset.nodes.size()));
    }
    if (!(b.weight >= 0.0f && b.weight <= 1.0f))
      throw Error(fmt::format("add_mask.branches[{}].weight", i), Rule::blend_weight,
                  fmt::format("weight {} is not in [0, 1]", b.weight));
    stack.assign(1, node);
    while (!stack.empty()) {  // the asset's hierarchy is a forest (checked at load)
      const std::uint32_t n = stack.back();
      stack.pop_back();
      mask.weights[n] = b.weight;
      if (b.descendants)
        for (std::uint32_t child : asset.nodes[n].children) stack.push_back(child);
    }
  }
  st.masks.push_back(std::move(mask));
  ++st.layer_tables_generation;
}

void size_layer_records(Crowd::State& st) {
  if (st.animation == Animation::gpu && st.layered > 0) {
    st.layer_records.resize(st.capacity * kMaxLayers);
  } else {
    st.layer_records.clear();
    st.layer_records.shrink_to_fit();
  }
}

void write_layer_records(Crowd::State& st, std::uint32_t slot) noexcept {
  LayerRecord* out = st.layer_records.data() + std::size_t{slot} * kMaxLayers;
  const std::vector<LayerState>& layers = st.layers[slot];
  for (std::uint32_t i = 0; i < kMaxLayers; ++i) {
    LayerRecord& r = out[i];
    r = {};
    if (i >= layers.size()) continue;
    const LayerState& l = layers[i];
    const Playback& p = l.playback;
    r.weight = l.weight;
    r.mode = static_cast<std::uint32_t>(l.mode);
    r.mask = l.mask;
    r.reference = l.reference;
    if (p.count == 0 || !(l.weight > 0.0f)) continue;
    r.count = p.count;
    for (std::uint32_t c = 0; c < p.count; ++c) {
      r.clips[c / 2] |= (p.contributors[c].clip & 0xFFFFu) << (16 * (c % 2));
      r.seconds[c] = contributor_time(st.asset, p, p.contributors[c]).seconds;
      r.weights[c] = p.contributors[c].weight;
    }
  }
}

std::span<const LayerRecord> Crowd::layer_records() const noexcept {
  if (!state_) return {};
  flush_pending(*state_);
  if (state_->layer_records.empty()) return {};
  return std::span(state_->layer_records).first(state_->size() * kMaxLayers);
}

std::size_t Crowd::mask_count() const noexcept { return state_ ? state_->masks.size() : 0; }

std::span<const float> Crowd::mask_weights_at(std::size_t index) const noexcept {
  if (!state_ || index >= state_->masks.size()) return {};
  return state_->masks[index].weights;
}

std::span<const AdditiveReference> Crowd::additive_references() const noexcept {
  if (!state_) return {};
  return state_->references;
}

std::span<const std::uint32_t> Crowd::first_key_references() const noexcept {
  if (!state_) return {};
  return state_->first_key_reference;
}

std::uint64_t Crowd::layer_tables_generation() const noexcept { return state_ ? state_->layer_tables_generation : 0; }

std::span<const float> Crowd::mask_weights(std::string_view name) const noexcept {
  if (!state_) return {};
  for (const LayerMask& m : state_->masks)
    if (m.name == name) return m.weights;
  return {};
}

}  // namespace gltf_crowd
