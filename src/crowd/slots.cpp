// Actors and slots (docs/spec.md §5): adding validates a whole batch before anything changes,
// then assigns stable keys and dense slots, and marks the new actors pending (mark_pending);
// removal moves the last slot into the hole.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "crowd/state.hpp"

namespace gltf_crowd {

std::vector<Actor> Crowd::add_actors(std::span<const ActorOptions> options) {
  State& st = live();
  const Asset& asset = *asset_;
  if (st.size() + options.size() > st.capacity)
    throw Error("add_actors", Rule::capacity_exceeded,
                fmt::format("{} actors + {} new exceed capacity {}", st.size(), options.size(), st.capacity));
  // Validate everything first; nothing changes on error.
  std::vector<std::string> ids(options.size());
  std::vector<std::uint32_t> clips(options.size(), 0);
  std::vector<std::uint32_t> variants(options.size(), kNoVariant);
  std::unordered_map<std::string, std::size_t> batch_ids;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const ActorOptions& o = options[i];
    const std::string path = fmt::format("add_actors[{}]", i);
    if (o.id.size() > kMaxIdLength)
      throw Error(path + ".id", Rule::id_length, fmt::format("id of {} bytes exceeds {}", o.id.size(), kMaxIdLength));
    if (!o.id.empty()) {
      if (st.key_of_id.contains(o.id))
        throw Error(path + ".id", Rule::duplicate_id, fmt::format("id \"{}\" is already used", o.id));
      if (!batch_ids.emplace(o.id, i).second)
        throw Error(path + ".id", Rule::duplicate_id, fmt::format("id \"{}\" appears twice in the batch", o.id));
    }
    if (!o.clip.empty()) {
      const int clip = asset.find_clip(o.clip);
      if (clip < 0)
        throw Error(path + ".clip", Rule::unknown_clip,
                    fmt::format("no clip named \"{}\"; available: {}", o.clip, clip_name_list(asset)));
      clips[i] = static_cast<std::uint32_t>(clip);
    }
    if (o.time) detail::check_finite(*o.time, path + ".time");
    detail::check_finite(o.speed, path + ".speed");
    if (o.loop != LoopMode::once && o.loop != LoopMode::repeat && o.loop != LoopMode::ping_pong)
      throw Error(path + ".loop", Rule::loop_mode, fmt::format("{} is not a loop mode", static_cast<int>(o.loop)));
    // A finite phase whose time overflows would make the clock infinite and every time NaN.
    const float duration = asset.clips.empty() ? 0.0f : asset.clips[clips[i]].duration_seconds;
    if (!std::isfinite(o.phase) || !std::isfinite(o.phase * duration))
      detail::throw_not_finite(path + ".phase", fmt::format("phase {} × duration {} s", o.phase, duration));
    detail::check_finite(o.transform, path + ".transform");
    const std::string actor =
        o.id.empty() ? fmt::format("actor {} of the batch", i) : fmt::format("actor \"{}\"", o.id);
    check_tint(o.tint, path + ".tint", actor);
    variants[i] = variant_index(asset, o.material_variant, path + ".material_variant", actor);
  }
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (!options[i].id.empty()) {
      ids[i] = options[i].id;
      continue;
    }
    do ids[i] = fmt::format("actor-{}", st.next_auto_id++);
    while (st.key_of_id.contains(ids[i]) || batch_ids.contains(ids[i]));
  }
  // Commit.
  std::vector<Actor> handles;
  handles.reserve(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    const ActorOptions& o = options[i];
    std::uint32_t key;
    if (!st.free_keys.empty()) {
      key = st.free_keys.back();
      st.free_keys.pop_back();
    } else {
      key = static_cast<std::uint32_t>(st.key_slot.size());
      st.key_slot.push_back(kNoSlot);
      st.key_generation.push_back(0);
    }
    const auto slot = static_cast<std::uint32_t>(st.size());
    st.key_slot[key] = slot;
    st.slot_key.push_back(key);
    st.serials.push_back(++st.next_serial);
    st.ids.push_back(ids[i]);
    st.key_of_id.emplace(ids[i], key);
    st.lod.add_actor(key);
    Playback p;
    p.speed = o.speed;
    p.loop = o.loop;
    p.repetitions = o.repetitions;
    p.paused = !o.playing;
    if (!asset.clips.empty()) {
      const float duration = asset.clips[clips[i]].duration_seconds;
      switch_clip(asset, p, clips[i], o.time ? *o.time : o.phase * duration);
    }
    st.playback.push_back(p);
    st.placements.push_back(o.transform);
    st.overrides.emplace_back();
    st.layers.emplace_back();
    st.hidden[slot] = 0;
    set_appearance(st, slot, o.tint, variants[i]);
    st.root.pending[slot] = {};
    // Evaluated by the next update, or the first read of packed rows, with every row written.
    mark_pending(st, slot, kPendingRows);
    handles.push_back(Actor(link_, key, st.key_generation[key]));
  }
  st.events.clear();  // they point into ids, which may have moved
  if (!options.empty()) ++st.membership_generation;
  refresh_instances(st);
  return handles;
}

Actor Crowd::add_actor(const ActorOptions& options) { return add_actors(std::span(&options, 1)).front(); }

std::size_t Crowd::remove_actors(std::span<const std::string> ids) {
  State& st = live();
  flush_pending(st);  // a moved slot's rows are copied as they are
  std::size_t removed = 0;
  for (const std::string& id : ids) {
    const auto it = st.key_of_id.find(id);
    if (it == st.key_of_id.end()) continue;
    const std::uint32_t key = it->second;
    const std::uint32_t slot = st.key_slot[key];
    const auto last = static_cast<std::uint32_t>(st.size() - 1);
    st.hidden_count -= st.hidden[slot];
    if (slot != last) {  // move the last actor into the hole: one copy per stream
      const std::uint32_t moved_key = st.slot_key[last];
      st.slot_key[slot] = moved_key;
      st.key_slot[moved_key] = slot;
      st.serials[slot] = st.serials[last];
      st.ids[slot] = std::move(st.ids[last]);
      st.playback[slot] = st.playback[last];
      st.placements[slot] = st.placements[last];
      st.overridden -= st.overrides[slot].empty() ? 0u : 1u;  // the removed actor's go
      if (!st.overrides[slot].empty() || !st.overrides[last].empty()) ++st.overrides_generation;
      std::swap(st.overrides[slot], st.overrides[last]);
      st.layered -= st.layers[slot].empty() ? 0u : 1u;  // the removed actor's go
      std::swap(st.layers[slot], st.layers[last]);
      st.stale[slot] = st.stale[last];
      st.hidden[slot] = st.hidden[last];
      move_appearance(st, last, slot);
      st.root.pending[slot] = st.root.pending[last];
      st.packed_frame[slot] = st.packed_frame[last];
      st.packed_generation[slot] = st.generation + 1;  // its rows moved: upload them again
      st.placement_generation[slot] = st.generation + 1;
      const std::size_t tw = asset_->total_weights;
      std::copy_n(st.weights.begin() + last * tw, tw, st.weights.begin() + slot * tw);
      if (st.animation == Animation::gpu) {
        st.records[slot] = st.records[last];
        st.tails[slot] = st.tails[last];
        if (!st.layer_records.empty())
          std::copy_n(st.layer_records.begin() + std::size_t{last} * kMaxLayers, kMaxLayers,
                      st.layer_records.begin() + std::size_t{slot} * kMaxLayers);
      }
      for (NodeStream& s : st.streams) {
        if (st.animation == Animation::gpu) break;  // no rows: the records moved
        std::copy_n(s.transforms.begin() + last * 3, 3, s.transforms.begin() + slot * 3);
        if (!s.palette.empty()) {
          const std::size_t pj = std::size_t{s.joint_count} * 3;
          std::copy_n(s.palette.begin() + last * pj, pj, s.palette.begin() + slot * pj);
        }
        std::copy_n(s.weights.begin() + last * s.weight_stride, s.weight_stride,
                    s.weights.begin() + slot * s.weight_stride);
      }
    }
    st.slot_key.pop_back();
    st.serials.pop_back();
    st.ids.pop_back();
    st.playback.pop_back();
    if (slot == last && !st.overrides[last].empty()) {
      --st.overridden;
      ++st.overrides_generation;
    }
    if (slot == last && !st.layers[last].empty()) --st.layered;
    st.placements.pop_back();
    st.overrides.pop_back();
    st.layers.pop_back();
    st.key_of_id.erase(it);
    st.key_slot[key] = kNoSlot;
    ++st.key_generation[key];
    st.free_keys.push_back(key);
    st.hidden[last] = 0;
    ++removed;
  }
  if (removed > 0) {
    st.events.clear();  // their slots and ids moved
    ++st.generation;
    ++st.membership_generation;
    refresh_instances(st);
  }
  return removed;
}

bool Crowd::remove_actor(std::string_view id) {
  const std::string ids[1] = {std::string(id)};
  return remove_actors(ids) == 1;
}

std::optional<Actor> Crowd::find_actor(std::string_view id) const {
  const State& st = live();
  const auto it = st.key_of_id.find(std::string(id));
  if (it == st.key_of_id.end()) return std::nullopt;
  return Actor(link_, it->second, st.key_generation[it->second]);
}

std::uint64_t Crowd::frame() const noexcept { return state_ ? state_->frames : 0; }

std::span<const std::uint64_t> Crowd::actor_serials() const noexcept {
  return state_ ? std::span<const std::uint64_t>(state_->serials) : std::span<const std::uint64_t>();
}

std::uint64_t Crowd::membership_generation() const noexcept { return state_ ? state_->membership_generation : 0; }

std::vector<Actor> Crowd::actors() const {
  const State& st = live();
  std::vector<Actor> out;
  out.reserve(st.size());
  for (std::uint32_t key : st.slot_key) out.push_back(Actor(link_, key, st.key_generation[key]));
  return out;
}

}  // namespace gltf_crowd
