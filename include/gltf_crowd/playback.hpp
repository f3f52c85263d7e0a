// Layer 2, anim: the playback clock of SPEC §3, a pure function of an unbounded elapsed clock.
#pragma once

#include <cstdint>
#include <string_view>

namespace gltf_crowd {

// How a clip's time follows the elapsed clock (SPEC §3).
enum class LoopMode : std::uint8_t { once, repeat, ping_pong };

// "once", "repeat", "ping-pong".
std::string_view to_string(LoopMode mode) noexcept;

// Result of mapping an elapsed clock onto a clip.
struct ClipTime {
  float seconds = 0.0f;   // clip-local time in [0, duration]
  bool finished = false;  // the clock ran past its last traversal
};

// Maps elapsed seconds e (unbounded, negative allowed) onto a clip of `duration_seconds` D.
// repeat: e mod D in [0, D); ping-pong: k = floor(e / D), e mod D for even k, D - (e mod D) for
// odd k; once: clamp(e, 0, D), finished when e >= D (or e <= 0 when `backward`).
// `repetitions` (0 = unbounded) bounds repeat and ping-pong: finished when |e| >= n·D, and then
// the time is the end of the last traversal. D = 0 gives time 0 (once is finished at once).
// Source: SPEC §3 "Time".
ClipTime clip_time(double elapsed_seconds, float duration_seconds, LoopMode loop,
                   std::uint32_t repetitions, bool backward) noexcept;

}  // namespace gltf_crowd
