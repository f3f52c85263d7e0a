// What CrowdRenderer and ReferenceRenderer do alike: count and release the GL objects their
// private State owns, and keep their RenderStats per call and per frame. State has `egl_context`
// (the context current at creation) and `for_each_object(fn)` calling fn(gl::Object&) for every
// object.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "gl/gl_object.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gl_renderers.hpp"

namespace gltf_crowd::gl {

// Objects `state` currently owns; 0 for a released renderer.
template <class State>
std::size_t count_objects(const std::unique_ptr<State>& state) noexcept {
  if (!state) return 0;
  std::size_t count = 0;
  state->for_each_object([&count](Object& o) { count += o ? 1 : 0; });
  return count;
}

// Deletes every object when the creating context is still current; otherwise abandons the
// names (deleting them in another context would delete that context's objects).
template <class State>
void release_objects(std::unique_ptr<State>& state) noexcept {
  if (!state) return;
  const bool alive = state->egl_context == nullptr || state->egl_context == current_egl_context();
  state->for_each_object([alive](Object& o) {
    if (alive) {
      o.reset();
    } else {
      o.abandon();
    }
  });
  state.reset();
}

// Throws Error (path "<call>(crowd)", e.g. "CrowdRenderer.draw_velocity(crowd)", rule
// "wrong_crowd") unless `crowd` is the crowd
// the renderer was created for, `own` its link (wherever it was moved): its GPU copies describe
// that crowd's streams and groups. The link, not the address, because moves carry them along.
inline void require_own_crowd(const Crowd& crowd, const std::shared_ptr<const CrowdLink>& own, std::string_view call) {
  if (crowd.link() != own)
    throw Error(std::string(call) + "(crowd)", Rule::wrong_crowd,
                "the crowd differs from the one this renderer was created for");
}

// Starts a call's statistics: its own figures zero, the frame totals kept while the crowd is
// at the frame they sum and restarted when it moved on (RenderStats::frame).
inline void begin_call_stats(RenderStats& stats, const Crowd& crowd) noexcept {
  RenderStats next;
  next.crowd_frame = crowd.frame();
  if (stats.frame_calls > 0 && stats.crowd_frame == next.crowd_frame) {
    next.frame = stats.frame;
    next.frame_calls = stats.frame_calls;
  }
  stats = next;
}

// Ends a call: its figures join its frame's totals.
inline void end_call_stats(RenderStats& stats) noexcept {
  stats.frame += stats;
  ++stats.frame_calls;
}

}  // namespace gltf_crowd::gl
