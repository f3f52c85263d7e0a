// Oracle of the crowd fuzz target: the slot order docs/spec.md §5 predicts, a byte snapshot of all
// observable crowd state, and the abort that turns a broken promise into a fuzz finding.
// tests/misuse_test.cpp uses the same snapshot, so that the fuzzer and the misuse tests hold
// the library to one definition of "an error changes nothing".
#pragma once

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "gltf_crowd/crowd.hpp"

namespace gltf_crowd::fuzz {

// Prints the message and aborts (libFuzzer then saves the input) unless `ok`.
[[gnu::format(printf, 2, 3)]] inline void require(bool ok, const char* format, ...) {
  if (ok) return;
  std::va_list args;
  va_start(args, format);
  std::fputs("fuzz invariant broken: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::abort();
}

// Ids in slot order. Removal moves the last actor into the hole (docs/spec.md §5 "compacts slots").
// Each added actor gets an incarnation number, so handles to a removed and re-added id are
// known to be stale.
struct CrowdModel {
  std::size_t capacity = 0;
  bool destroyed = false;
  std::vector<std::string> ids;
  std::map<std::string, std::uint64_t> incarnation;  // of live ids
  std::uint64_t next_incarnation = 0;

  bool contains(const std::string& id) const { return incarnation.contains(id); }
  bool live(const std::string& id, std::uint64_t n) const {
    const auto it = incarnation.find(id);
    return !destroyed && it != incarnation.end() && it->second == n;
  }
  std::uint64_t add(const std::string& id) {
    ids.push_back(id);
    incarnation[id] = next_incarnation;
    return next_incarnation++;
  }
  bool remove(const std::string& id) {
    if (!incarnation.erase(id)) return false;
    auto it = std::find(ids.begin(), ids.end(), id);
    *it = ids.back();
    ids.pop_back();
    return true;
  }
};

// Live palette rows of `s` for `n` actors: none when the stream skins with another stream's
// palette (NodeStream::palette_stream), whose own `palette` is then empty.
inline std::size_t live_palette_rows(const NodeStream& s, std::size_t n) {
  return s.palette.empty() ? 0 : n * 3 * s.joint_count;
}

// Appends the object representation of `count` values of `data`.
template <typename T>
void append_bytes(std::string& out, const T* data, std::size_t count) {
  out.append(reinterpret_cast<const char*>(data), count * sizeof(T));
}

// Every observable value of the crowd as bytes (NaN-safe to compare): count, capacity, ids,
// each actor's playback, layers and placement, the live part of every packed stream, the group
// instance lists and LodStats.
inline std::string snapshot(const Crowd& crowd) {
  std::string out;
  if (crowd.destroyed()) return "destroyed";
  const std::size_t n = crowd.actor_count();
  const std::size_t capacity = crowd.capacity();
  append_bytes(out, &n, 1);
  append_bytes(out, &capacity, 1);
  for (const Actor& a : crowd.actors()) {
    out += a.id();
    out += '\0';
    out += a.active_clip();
    out += '\0';
    const float numbers[] = {a.time(), a.speed()};
    append_bytes(out, numbers, 2);
    const std::uint32_t flags[] = {static_cast<std::uint32_t>(a.loop()), a.repetitions(), a.playing(), a.finished()};
    append_bytes(out, flags, 4);
    const std::vector<Contributor> contributors = a.contributors();
    append_bytes(out, contributors.data(), contributors.size());
    const std::vector<float> weights = a.morph_weights();
    append_bytes(out, weights.data(), weights.size());
    append_bytes(out, &a.transform(), 1);
    for (std::uint32_t i = 1; i <= kMaxLayers; ++i) {  // animation layers (docs/spec.md §3.11)
      const ActorLayer layer = a.layer(i);
      out += layer.active_clip();
      out += '\0';
      out += layer.mask();
      out += '\0';
      const float layer_numbers[] = {layer.time(), layer.speed(), layer.weight(), layer.target_weight()};
      append_bytes(out, layer_numbers, 4);
      const std::uint32_t layer_flags[] = {static_cast<std::uint32_t>(layer.loop()), layer.playing(), layer.finished(),
                                           static_cast<std::uint32_t>(layer.mode())};
      append_bytes(out, layer_flags, 4);
      const std::vector<Contributor> layer_contributors = layer.contributors();
      append_bytes(out, layer_contributors.data(), layer_contributors.size());
    }
  }
  for (const NodeStream& s : crowd.node_streams()) {
    append_bytes(out, s.transforms.data(), n * 3);
    append_bytes(out, s.palette.data(), live_palette_rows(s, n));
    append_bytes(out, s.weights.data(), n * s.weight_stride);
  }
  for (const PrimitiveGroup& g : crowd.primitive_groups()) append_bytes(out, g.instances.data(), g.instances.size());
  const LodStats& lod = crowd.lod_stats();
  const std::uint64_t lod_numbers[] = {lod.visible_actors, lod.culled_actors,   lod.draw_count,
                                       lod.triangles,      lod.vertices,        lod.vertex_budget.value_or(0),
                                       lod.demoted_actors, lod.budget_satisfied};
  append_bytes(out, lod_numbers, std::size(lod_numbers));
  for (const LodLevelStats& level : lod.levels) append_bytes(out, &level.actors, 1);
  return out;
}

}  // namespace gltf_crowd::fuzz
