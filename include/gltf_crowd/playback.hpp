// Layer 2, anim: the playback clock of docs/spec.md §3, a pure function of an unbounded elapsed clock.
//
// An actor's clip does not store its time; it stores an elapsed clock e (seconds, any sign) that
// update(Δ) advances by Δ·speed. The clip time and the finished flag are derived from e by the
// rules below, so seeking, changing speed or changing the loop mode never has to rewrite history.
#pragma once

#include <cstdint>
#include <string_view>

#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// How a clip's time follows the elapsed clock (docs/spec.md §3).
enum class LoopMode : std::uint8_t { once, repeat, ping_pong };

// "once", "repeat", "ping-pong".
std::string_view to_string(LoopMode mode) noexcept;

// Result of mapping an elapsed clock onto a clip.
struct ClipTime {
  float seconds = 0.0f;   // clip-local time in [0, duration]
  bool finished = false;  // the clock ran past its last traversal
};

// Maps elapsed seconds e (unbounded, negative allowed) onto a clip of `duration_seconds` D >= 0
// (docs/spec.md §3 "Time"):
//  - repeat: e mod D in [0, D); an exact multiple of D gives 0, negative e wraps backward.
//  - ping-pong: traversal k = floor(e / D); e mod D for even k, D - (e mod D) for odd k. The
//    result is symmetric in e (t(-e) = t(e)), so the direction of play only moves the start.
//  - once: clamp(e, 0, D); finished when e >= D, or e <= 0 when `backward` (negative speed).
//  - `repetitions` n > 0 bounds repeat and ping-pong: finished when |e| >= n·D, and the time is
//    then the end of the last traversal, i.e. the limit of t as |e| rises to n·D: D for repeat
//    with e > 0 and for ping-pong with odd n; 0 for repeat with e < 0 and for ping-pong with
//    even n. (For ping-pong with e < 0 and odd n, the end of the last traversal is D, not 0: the
//    held pose is the one the clip reached, never a jump.) Ignored by once.
//  - D = 0: time 0; once is finished at once, and so is a bounded repeat or ping-pong.
// Never fails; non-finite e is the caller's bug (the public API rejects non-finite inputs).
ClipTime clip_time(double elapsed_seconds, float duration_seconds, LoopMode loop, std::uint32_t repetitions,
                   bool backward) noexcept;

// The elapsed clock from which a finished clip restarts (docs/spec.md §3: "play() on a finished actor
// restarts from the start (from D for negative speed)"): D for once played backward, else 0.
// Repeat and ping-pong restart at 0 in both directions: it is where their repetitions are
// counted from, repeat at e = 0⁻ already shows D, and ping-pong is symmetric in e.
double restart_elapsed(float duration_seconds, LoopMode loop, bool backward) noexcept;

// A finished clock e clamped to where the clip finished (once: [0, D]; bounded repeat and
// ping-pong: [-n·D, n·D]; unbounded: unchanged), so that a later change of speed or loop resumes
// from the held pose instead of first waiting out the overshoot of the last update.
double settle_elapsed(double elapsed_seconds, float duration_seconds, LoopMode loop,
                      std::uint32_t repetitions) noexcept;

}  // namespace gltf_crowd
GLTF_CROWD_API_END
