// Layer 2, anim: the key position of every timeline of a compiled clip at one time, located as
// SampleJob and the crowd's batched sampling (kernels.hpp, SampleLanes) both need it.
#pragma once

#include <cstdint>
#include <span>

#include "gltf_crowd/rig.hpp"
#include "gltf_crowd/sampling.hpp"

namespace gltf_crowd {

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
    keys[i] = locate_key(std::span(clip.times.data() + timeline.times_offset, timeline.key_count), seconds, cursor);
  }
}

}  // namespace gltf_crowd
