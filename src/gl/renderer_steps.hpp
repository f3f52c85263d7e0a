// The steps CrowdRenderer's calls share, each defined in the file of its purpose (named above it);
// group_binding.hpp has the group's inputs.
#pragma once

#include <memory>

#include <epoxy/gl.h>

#include "gl/renderer_state.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl_renderers.hpp"

namespace gltf_crowd::gl {

// renderer_limits.cpp
// The storage `requested` resolves to on the current context, or Error "gl_version".
PaletteStorage choose_storage(PaletteStorage requested);

// crowd_programs.cpp
// The crowd vertex shader's uniform locations in `program` (-1 where it declares none).
CrowdUniforms find_uniforms(GLuint program);
// Points the texture prelude's samplers at their units (program in use).
void set_data_units(GLuint program);
// Links the crowd program of `kind` (the crowd vertex shader, or with `cached` the skinned-vertex
// cache's, with the shading, depth-pass or velocity fragment shader; the velocity pass has its
// own vertex shader) and finds its uniforms; the texture path's samplers are pointed at their
// units.
CrowdProgram make_crowd_program(const CrowdRenderer::State& state, ProgramKind kind, bool cached);
// The program of `kind` (with `cached`, the skinned-vertex cache's), linked on first use.
const CrowdProgram& program_for(CrowdRenderer::State& state, ProgramKind kind, bool cached);

// stream_upload.cpp
// Makes the GPU-side arrays match the crowd's groups and capacity (it grows with reserve).
void sync_layout(CrowdRenderer::State& state, const Crowd& crowd);
// Brings the GPU streams up to date: the changed slots' rows, or the GPU evaluation; with a
// motion history, notes which actors the current set holds.
void prepare_streams(CrowdRenderer::State& state, const Crowd& crowd, bool timed, RenderStats& stats);

// gpu_animation_hook.cpp
// Animation::gpu, for sync_layout: the evaluator (re)built when the streams changed, with texture
// storage its staging buffers, and its targets pointed at the current stream set.
void sync_gpu_animation(CrowdRenderer::State& state, const Crowd& crowd);
// Animation::gpu, for prepare_streams: runs the evaluator, with `timed` its GPU times into `stats`.
// Returns whether the passes rewrote the streams.
bool evaluate_on_gpu(CrowdRenderer::State& state, const Crowd& crowd, bool timed, RenderStats& stats);

// motion_history.cpp
// For sync_layout: the history's stream set grown as the current one; new objects hold no frame.
void reserve_history_streams(CrowdRenderer::State& state, const Crowd& crowd);
// From now on, keep the previous frame (docs/spec.md §6.4); until a second frame is drawn, the
// previous frame is this one.
void keep_previous_frame(CrowdRenderer::State& state, const Crowd& crowd);
// With a motion history, a new crowd frame makes the current stream set the previous one and
// the previous one current (docs/spec.md §6.4): swapping the sets, with what each holds. Runs
// before sync_layout, which points the GPU evaluator's targets at the current set.
void advance_frame(CrowdRenderer::State& state, const Crowd& crowd);
// Whether the velocity pass must map slots to the previous frame's (actors were added or
// removed in between); if so, uploads per slot its actor's previous slot or kNewActor.
bool upload_previous_slots(CrowdRenderer::State& state, const Crowd& crowd);

// skinned_vertex_cache.cpp
// The skinned-vertex cache (docs/spec.md §6.9): its capture program and transform feedback
// object, and the color pass's program reading it.
std::unique_ptr<SkinnedVertexCache> make_skinned_vertex_cache(const CrowdRenderer::State& state);
// Deforms every instance's vertices of every non-empty group once, by transform feedback into
// its SkinnedVertices, when something they depend on changed (the group's instances are
// uploaded: upload_group_instances ran); the texture path then copies the rows into the group's
// texture. Leaves the capture program current.
void refresh_skinned_vertices(CrowdRenderer::State& state, const Crowd& crowd, RenderStats& stats);

}  // namespace gltf_crowd::gl
