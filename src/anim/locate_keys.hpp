// Layer 2, anim: the key position of every timeline of a compiled clip at one time, located as
// SampleJob and the crowd's batched sampling (kernels.hpp, SampleLanes) both need it.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <span>

#include "gltf_crowd/rig.hpp"
#include "gltf_crowd/sampling.hpp"

namespace gltf_crowd {

// locate_key (sampling.hpp), inline: the crowd locates every timeline of every contributor in
// every update, and out of line its 16-byte result went through memory.
inline KeyPosition find_key(std::span<const float> times, float seconds, std::uint16_t& cursor) noexcept {
  assert(!times.empty());
  const auto last = static_cast<std::uint32_t>(times.size() - 1);
  if (!(seconds > times[0]) || last == 0) {
    // At or before the first key; at a repeated first time its last key holds (a step, docs/spec.md §2.7).
    std::uint32_t k = 0;
    while (k < last && times[k + 1] == seconds) ++k;
    return {k, k, 0.0f, 0.0f};
  }
  if (seconds >= times[last]) {
    cursor = static_cast<std::uint16_t>(std::min<std::uint32_t>(last, 0xFFFF));
    return {last, last, 0.0f, 0.0f};
  }
  // times[0] < seconds < times[last]: find k with times[k] <= seconds < times[k + 1], so of equal
  // times the last key (a step there) and an interval above 0.
  std::uint32_t k = cursor;
  if (k < last && times[k] <= seconds) {
    // The next key or the same, without a branch: steady playback crosses keys in no pattern a
    // predictor learns across a batch (the benchmarks journal at fbbf183, "The due pass across the
    // workers; the next key without a branch"). k stays below last, as seconds < times[last].
    k += seconds >= times[k + 1] ? 1u : 0u;
    if (seconds >= times[k + 1])
      k = static_cast<std::uint32_t>(std::upper_bound(times.begin() + k + 1, times.end(), seconds) - times.begin()) - 1;
  } else if (k > 0 && k <= last && times[k - 1] <= seconds && seconds < times[k]) {
    --k;  // the previous key: steady backward playback
  } else {
    k = static_cast<std::uint32_t>(std::upper_bound(times.begin(), times.end(), seconds) - times.begin()) - 1;
  }
  cursor = static_cast<std::uint16_t>(std::min<std::uint32_t>(k, 0xFFFF));
  const float interval = times[k + 1] - times[k];
  return {k, k + 1, (seconds - times[k]) / interval, interval};
}

// keys[i] = locate_key of timeline i at `seconds`, with cursors[i] as its hint (updated) for the
// first cursors.size() timelines; later timelines search. keys: clip.timelines.size() entries.
inline void locate_keys(const ClipTracks& clip, float seconds, std::span<std::uint16_t> cursors,
                        KeyPosition* keys) noexcept {
  for (std::size_t i = 0; i < clip.timelines.size(); ++i) {
    std::uint16_t no_hint = 0;
    std::uint16_t& cursor = i < cursors.size() ? cursors[i] : no_hint;
    const Timeline& timeline = clip.timelines[i];
    if (timeline.key_count == 1) {  // one key, as on the constant channels' timeline: nothing to locate
      keys[i] = {0, 0, 0.0f, 0.0f};
      continue;
    }
    keys[i] = find_key(std::span(clip.times.data() + timeline.times_offset, timeline.key_count), seconds, cursor);
  }
}

}  // namespace gltf_crowd
