// Layer 5, gl, renderers: CrowdRenderer turns a Crowd's packed arrays into one instanced draw
// per non-empty primitive group (docs/spec.md §4–§6); ReferenceRenderer draws the same crowd one
// actor at a time with CPU-skinned vertices as the correctness oracle. The context, framebuffer
// and PNG writer are in gltf_crowd/gl_platform.hpp; gltf_crowd/gl.hpp includes both.
//
// This header declares Crowd without including gltf_crowd/crowd.hpp: include that to build one.
//
// Palette storage (docs/spec.md §6): shader storage buffers on OpenGL 4.3+, else RGBA32F textures read
// with texelFetch (OpenGL 3.3 core, OpenGL ES 3.0); both run the same GLSL body, the published
// include gltf_crowd/gltf_crowd_skinning.glsl (crowd_skinning_glsl()) selecting the fetch code
// per dialect (GLSL 430 core, 330 core, 300 es), and the same material code:
// glTF metallic-roughness with base color, metallic-roughness, normal, occlusion and emissive
// textures (TEXCOORD_0/1, the samplers' filters and wraps, KHR_texture_transform), vertex colors,
// OPAQUE / MASK / BLEND (blended groups after all others), double-sided, one directional light
// plus ambient; per actor, a base color tint and a KHR_materials_variants material (docs/spec.md
// §3.12, §5.11).
//
// GL state: the renderers' constructors and draw() save the state they change and restore it
// before returning (also when they throw), one set of queries per call (about 70 glGet*), so
// the application finds its state as it left it (CrowdRenderer::bind_group_inputs alone leaves
// its bindings for the application's draw):
//  - the current program and vertex array (with it, its element array buffer); the
//    GL_ARRAY_BUFFER, GL_COPY_WRITE_BUFFER and GL_PIXEL_UNPACK_BUFFER bindings;
//  - CrowdRenderer with storage buffers: the generic GL_SHADER_STORAGE_BUFFER binding and the
//    indexed bindings 0..5, 0..9 with draw_velocity, 0..10 with the skinned-vertex cache
//    (buffer, offset and size);
//  - with the skinned-vertex cache: the bound transform feedback object, the generic
//    GL_TRANSFORM_FEEDBACK_BUFFER binding and GL_RASTERIZER_DISCARD;
//  - the active texture unit and, on units 0..16, the GL_TEXTURE_2D binding and sampler object;
//  - depth test, function and write mask; the color write mask (draw_depth turns it off);
//    face culling, cull face mode and front face;
//    blending, blend functions and equations (RGB and alpha);
//  - GL_UNPACK_ALIGNMENT, _ROW_LENGTH, _SKIP_ROWS and _SKIP_PIXELS;
//  - the current values of generic vertex attributes 2..5 (the constant tangent, texture
//    coordinates and color of primitives without them).
// A saved binding of an object the call deleted (the renderer's own, left bound by
// bind_group_inputs and replaced when the crowd grew) is restored as 0.
// While a call runs, uploads and texture reads ignore the application's unpack buffer, pixel
// store values and sampler objects (GL's defaults are set), and draws use depth test GL_LESS,
// back-face culling, and for BLEND materials GL_SRC_ALPHA / GL_ONE_MINUS_SRC_ALPHA with
// GL_FUNC_ADD. Not touched, so the application's values apply to the draws: the bound
// framebuffer and viewport (draws go there), scissor, stencil, color mask (in draw()), polygon mode and
// offset, sample alpha-to-coverage, sRGB conversion, uniform buffer bindings and all other
// state. destroy() only deletes the renderer's own objects, none of which is bound after a call
// returns, so it changes no binding. Framebuffer changes GL state as its methods say.
//
// Every call that touches GL needs the context that was current at construction to be current.
// Failures throw Error whose path names the failing EGL/GL call or object (e.g.
// "eglCreateContext", "node_streams[node 3].palette") and whose rule is a stable identifier
// ("egl_call_failed", "shader_compile", "palette_too_large", ...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <glm/glm.hpp>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/pose.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

class Crowd;        // gltf_crowd/crowd.hpp
struct CrowdLink;   // gltf_crowd/crowd.hpp: identifies a crowd across moves
struct NodeStream;  // gltf_crowd/crowd.hpp

// Shadows from Camera's directional light (docs/spec.md §6): a depth texture drawn with
// draw_depth from the light's view (ShadowMap makes one), sampled by both renderers' shading
// with 3 × 3 percentage-closer filtering. The texture must be a 2D depth texture with
// GL_TEXTURE_COMPARE_MODE = GL_COMPARE_REF_TO_TEXTURE, GL_LEQUAL and GL_LINEAR filters. Fragments
// outside the map are lit. Default: no shadows.
struct ShadowSampling {
  std::uint32_t depth_texture = 0;  // GL texture name; 0 = no shadows
  std::uint32_t size = 0;           // its side in texels (the filter's step); 0 = no shadows
  glm::mat4 view_projection{1.0f};  // projection × view of the light camera it was drawn with
  // World units a receiver is pushed along its normal before the lookup, against shadow acne
  // (self-shadowing from the map's finite resolution): about 1.5 texels of the map in world
  // units (ShadowMap::sampling()).
  float normal_offset = 0.0f;
};

// What the application supplies per frame. Matrices are glm's (column-major, right-handed,
// clip z in [-1, 1]); a projection whose [3][3] is 0 is perspective (the viewer sits at the
// view's origin), otherwise orthographic (the viewer is infinitely far along the view's +z).
// light_direction is the world-space direction the light travels (from the light toward the
// scene); it need not be normalized. Colors are linear RGB: light_color is the irradiance of
// the directional light on a surface facing it, ambient_color a constant ambient term.
// Defaults: identity matrices, light from above-front-left, white light, ambient 0.3.
struct Camera {
  glm::mat4 view{1.0f};
  glm::mat4 projection{1.0f};
  glm::vec3 light_direction{-0.4f, -1.0f, -0.5f};
  glm::vec3 light_color{1.0f};
  glm::vec3 ambient_color{0.3f};
  ShadowSampling shadow;  // the directional light's shadow map; none by default
};

// What renderer calls issued and uploaded (docs/spec.md §6.4): of one call (RenderStats'
// own fields) or summed over a frame's calls (RenderStats::frame).
struct RenderCounts {
  std::uint32_t draws = 0;         // draw calls issued
  std::uint32_t instances = 0;     // Σ instance_count over drawn groups (actors × groups)
  std::uint64_t triangles = 0;     // Σ triangle_count × instance_count
  std::uint64_t upload_bytes = 0;  // bytes sent with glBufferSubData / glTexSubImage2D
  // CrowdRenderer: the draws material variants added (docs/spec.md §5.11): a group whose
  // instances select k > 1 different materials (Actor::set_material_variant) draws k times, once
  // per material, adding k - 1 here; `draws` includes them. Counted in each pass that draws
  // them: draw_depth and draw_velocity skip BLEND materials. 0 for ReferenceRenderer.
  std::uint32_t variant_draws = 0;
  // CrowdRendererOptions::skinned_vertex_cache: vertices (instances × primitive vertices, summed
  // over groups) morphed, skinned and written into the cache; 0 when the passes reused it.
  std::uint64_t cached_vertices = 0;

  // Adds every field of `other`.
  RenderCounts& operator+=(const RenderCounts& other) noexcept {
    draws += other.draws;
    instances += other.instances;
    triangles += other.triangles;
    upload_bytes += other.upload_bytes;
    variant_draws += other.variant_draws;
    cached_vertices += other.cached_vertices;
    return *this;
  }
};

// Output of a renderer's last call (draw, draw_depth, draw_velocity; CrowdRenderer::animate
// too): RenderCounts' fields are that call's alone. A frame's first pass uploads what the others
// then reuse, so `frame` sums every call since the crowd's frame changed (docs/spec.md §6.4):
// after draw_depth then draw, upload_bytes is draw's (often 0), frame.upload_bytes both.
struct RenderStats : RenderCounts {
  RenderCounts frame;             // Σ over the calls of Crowd::frame() == crowd_frame
  std::uint32_t frame_calls = 0;  // the calls `frame` sums, this one included
  std::uint64_t crowd_frame = 0;  // Crowd::frame() at this call
  // Animation::gpu with CrowdRendererOptions::time_animation: GPU milliseconds of the compute
  // passes (GL_TIME_ELAPSED); -1 when not measured.
  double animation_ms = -1.0;
  // The same passes one by one, in milliseconds summed over the batches (GL_TIMESTAMP at each
  // pass's end; docs/spec.md §8.5): where the GPU time goes. -1 each when not measured;
  // `weights` is 0 for an asset without morph targets.
  struct AnimationPassMilliseconds {
    double sample = -1.0;     // clip sampling and crossfade blending, one invocation per (actor, node)
    double weights = -1.0;    // morph weights, one per (actor, weight)
    double hierarchy = -1.0;  // local to model, one per actor
    double palette = -1.0;    // joint palettes, one per (actor, joint) per skin
    double instances = -1.0;  // instance transforms and drawn morph weights, one per actor per stream
  } animation_pass_ms;
};

// Where CrowdRenderer keeps palettes, instance transforms, slot lists, morph deltas and morph
// weights (docs/spec.md §6).
enum class PaletteStorage : std::uint8_t {
  automatic,       // storage_buffer on desktop OpenGL 4.3+, else texture
  storage_buffer,  // std430 shader storage buffers (desktop OpenGL 4.3+, GLSL 430)
  texture,         // RGBA32F textures read with texelFetch (OpenGL 3.3 core / ES 3.0, GLSL
                   // 330 / 300 es): texel row = instance slot, 3 texels per joint and per
                   // instance transform, so capacity and 3 × joints must fit GL_MAX_TEXTURE_SIZE
};

// "storage", "texture" or "auto": the names the tool and statistics use.
const char* palette_storage_name(PaletteStorage storage) noexcept;

// Options of a CrowdRenderer. Default: automatic palette storage, no GPU timing.
struct CrowdRendererOptions {
  PaletteStorage palette = PaletteStorage::automatic;
  // For a crowd with Animation::gpu: time the compute passes of every draw() or animate() into
  // RenderStats::animation_ms. Waits for the GPU to finish them (a stall: for benchmarks);
  // llvmpipe runs them on the CPU, so its figure says nothing about a GPU. Inside the
  // application's own GL_TIME_ELAPSED query (queries do not nest) nothing is timed (-1).
  bool time_animation = false;
  // Keep the previous frame's node streams from the start (docs/spec.md §6.4), for an
  // application's own motion-vector shader drawn through bind_group_inputs
  // (GLTF_CROWD_PREVIOUS_FRAME). The first draw_velocity turns this on in any case. Doubles the
  // streams' GPU memory.
  bool previous_frame = false;
  // Skin once per frame, reuse in every pass (docs/spec.md §6.9): each group's instances'
  // vertices are morphed, skinned and placed once, by transform feedback, into a cache of 48
  // bytes per vertex per instance (world position, normal, tangent), and draw() and draw_depth()
  // read them from there instead of deforming again. The cache is rebuilt by the first
  // animate(), draw() or draw_depth() after the streams, the slot lists or the groups changed
  // (RenderStats::cached_vertices counts it), so a frame's shadow map, depth pre-pass and main
  // pass skin once between them. draw_velocity and bind_group_inputs deform as without it.
  // Memory: Σ over groups of instances × the primitive's vertices × 48 bytes (twice that on the
  // texture path: the captured buffer and its texture copy), all vertices even for a level of
  // detail that draws fewer; it grows by half again when outgrown and never shrinks, but is
  // sized anew when a group draws a primitive of another vertex count. The passes read a
  // group's cache in pieces, buffers of at most GL_MAX_SHADER_STORAGE_BLOCK_SIZE bytes and under
  // 2 GiB (texture path: textures of 2,048 × 2,048 texels), one draw per piece: a group past one
  // piece costs one more draw per piece in draw() and draw_depth(). An instance larger than a
  // piece throws "palette_too_large" from the call that would fill the cache. Needs desktop
  // OpenGL 4.0 or OpenGL ES 3.0, else the constructor throws "gl_version". Default off: a single
  // pass per frame gains nothing from it.
  bool skinned_vertex_cache = false;
};

// How many actors a CrowdRenderer can hold for one crowd on the current context.
struct CapacityLimit {
  std::size_t actors = 0;                                   // largest capacity whose per-actor storage fits; 0 = none
  PaletteStorage storage = PaletteStorage::storage_buffer;  // the storage asked about, resolved
  const char* limit = "";         // "GL_MAX_SHADER_STORAGE_BLOCK_SIZE" or "GL_MAX_TEXTURE_SIZE"
  std::uint64_t limit_value = 0;  // that limit: bytes per block, or texels per side
  std::uint64_t per_actor = 0;    // storage buffers: bytes of one actor in the largest array;
                                  // textures: texel rows of one actor (1)
};

// The capacity past which CrowdRenderer throws "palette_too_large" for `crowd`'s node streams
// with `storage` (automatic: what the renderer would choose), so a tool can refuse an actor
// count before building a large crowd. Storage buffers keep each array of a stream (48 bytes of
// transform, 48 × joints of palette unless shared, 16 per 4 morph weights, per actor) in one
// block of at most GL_MAX_SHADER_STORAGE_BLOCK_SIZE bytes: actors = that / the largest array's
// bytes per actor. Textures keep one texel row per actor: actors = GL_MAX_TEXTURE_SIZE, or 0
// when a row (3 × joints texels) is wider than that. It depends on the asset's streams only, not
// on the crowd's capacity or actors: a crowd of capacity 1 answers for any size. Needs a current
// context; throws Error "gl_version" as CrowdRenderer does when the context cannot run `storage`.
CapacityLimit crowd_capacity_limit(const Crowd& crowd, PaletteStorage storage = PaletteStorage::automatic);

// The crowd vertex shader's instance fetch, morph and skinning code as GLSL text: the contents
// of the installed gltf_crowd/gltf_crowd_skinning.glsl, embedded at build time (the library
// never reads files at run time) and the very text CrowdRenderer's own vertex shader is built
// from. GLSL has no #include: an application's vertex shader is its #version line, on OpenGL ES
// the precision statements, `#define GLTF_CROWD_STORAGE_BUFFERS 1` when the renderer's
// palette_storage() is storage_buffer (GLSL 430; without it the texture path, GLSL 330 core or
// 300 es), then this text, then its own code. The file's header lists the storage buffer
// bindings, texture units, attribute locations, uniforms and functions (docs/spec.md §6.8);
// CrowdRenderer::bind_group_inputs sets them. Static storage, never null, NUL-terminated.
const char* crowd_skinning_glsl() noexcept;

// What an application's draw of one primitive group needs after
// CrowdRenderer::bind_group_inputs: glDrawElementsInstanced(mode, index_count, index_type,
// nullptr, instance_count) draws every instance of the group (element buffer offset 0).
struct GroupInputs {
  std::uint32_t mode = 0;           // GL primitive mode: GL_TRIANGLES, GL_TRIANGLE_STRIP, ...
  std::int32_t index_count = 0;     // indices per instance (the group's level of detail)
  std::uint32_t index_type = 0;     // GL_UNSIGNED_INT
  std::int32_t instance_count = 0;  // the group's instances; 0: nothing to draw this frame
  std::int32_t material = -1;       // the primitive's Asset::materials index; -1 = glTF default
  bool blended = false;             // that material is BLEND: draw it after the opaque groups
};

// One actor's pose as the GPU evaluated it (CrowdRenderer::read_poses).
struct GpuPose {
  // Every node's local TRS in asset order (a node no contributor animates: its rest TRS; an
  // authored matrix is not decomposed) and the morph weights (Asset::weight_offsets layout).
  Pose local;
  std::vector<glm::mat4> world;  // every node's world matrix, placement included
};

// The instanced GL backend for one Crowd (docs/spec.md §4–§6). Construction picks the palette storage,
// uploads each source primitive's vertex, index and morph delta data and the materials'
// textures, and allocates per-node stream storage for the crowd's capacity. In the vertex
// shader: morph (POSITION/NORMAL/TANGENT deltas × the actor's weights), then skin (Σ wᵢ ·
// paletteᵢ over up to 8 influences), then the instance transform; normals use the cofactor
// matrix (right for non-uniform scale), tangents w = 0.
// Throws Error: rule "gl_version" (the current context cannot run the requested storage: the
// storage buffer path needs desktop OpenGL 4.3, the texture path OpenGL 3.3 core or ES 3.0),
// "palette_too_large" (a stream's buffer exceeds GL_MAX_SHADER_STORAGE_BLOCK_SIZE, or the
// capacity, 3 × joints, the weights or the morph deltas exceed GL_MAX_TEXTURE_SIZE; the message
// names the limit; never a per-actor fallback), "shader_compile" / "program_link" (with the
// driver log), "gl_call_failed". Nothing stays allocated after a throw. The constructor and
// draw() leave the application's GL state as it was ("GL state" above).
//
// GPU animation (docs/architecture.md "GPU animation"): for a crowd whose animation() is
// Animation::gpu, the renderer uploads the rig and every clip's tracks once, and each draw()
// uploads only the changed PlaybackRecords (64 bytes per actor) and placements, then runs
// compute passes that sample every contributor (glTF 2.0 Appendix C), blend them with the CPU
// path's rules, run the hierarchy and write the palettes, instance transforms and morph weights
// where the draw reads them, in either palette storage (textures are filled from the passes'
// buffers on the GPU). Results equal the CPU path's to float rounding (docs/benchmarks.md gives
// the measured bound). Needs desktop OpenGL 4.3 with 16 storage buffer bindings, else Error
// "gl_version" naming the missing capability (never a fallback); instances then choose their
// winding per instance in the fragment shader. The GL state list above then also covers the
// program and indexed storage bindings 0..15.
class CrowdRenderer {
 public:
  explicit CrowdRenderer(const Crowd& crowd, const CrowdRendererOptions& options = {});
  ~CrowdRenderer();
  CrowdRenderer(const CrowdRenderer&) = delete;
  CrowdRenderer& operator=(const CrowdRenderer&) = delete;

  // Uploads slots [0, actor_count) of every node stream once (and the tints of slots whose
  // appearance changed: Crowd::appearance_generations), then issues one glDrawElementsInstanced
  // per primitive group with instance_count > 0 into the currently bound framebuffer and
  // viewport, or, when the group's actors select k > 1 materials through material variants, one
  // per material (k draws, RenderStats::variant_draws counts the k − 1 extra; docs/spec.md §5.11)
  // and, with skinned_vertex_cache, one per piece of the cache those instances lie in (§6.9);
  // each instance multiplies its base color by its slot's tint (Crowd::tints): opaque and MASK groups first, then BLEND
  // groups (blending on, depth writes off), each in primitive_groups() order. Depth test on; back faces culled unless
  // double-sided, with the winding flipped for instances whose transform has det < 0 (by
  // glFrontFace when a group's instances agree, else per instance in the fragment shader).
  // All that state is the application's again on return ("GL state" above).
  // Returns the number of draws issued. `crowd` must be the crowd given at construction or,
  // once that crowd was moved, the crowd it was moved into (the renderer follows moves as Actor
  // handles do; the moved-from object is not it): else Error, rule "wrong_crowd". A destroyed
  // crowd or renderer draws nothing and returns 0. Grows the stream storage when the crowd's
  // capacity grew (Error "palette_too_large" past a limit).
  std::uint32_t draw(const Crowd& crowd, const Camera& camera);

  // The depth-only pass for shadow maps and depth pre-passes: the same palettes, instance
  // transforms, morphs and culling as draw(), one glDrawElementsInstanced per non-empty opaque
  // or MASK group (or per material and cache piece, as draw(); BLEND groups write no depth in
  // draw() and are skipped), with the color write
  // mask off and no shading: only MASK materials sample their base color alpha to cut out.
  // camera.view and camera.projection place it (a light's view for a shadow map); the lighting
  // fields are ignored. Draws into the bound framebuffer and viewport, depth test GL_LESS; the
  // color mask is the application's again on return, as the rest of "GL state" above. Brings
  // the streams up to date as draw() does, so either pass may come first in a frame; with
  // Animation::gpu the second pass of a frame runs no compute passes when nothing changed in
  // between (RenderStats::animation_ms is then -1). Returns the number of draws; errors as
  // draw(). Builds its program on first use (Error "shader_compile" / "program_link").
  std::uint32_t draw_depth(const Crowd& crowd, const Camera& camera);

  // Motion vectors (docs/spec.md §6.4) for temporal anti-aliasing and motion blur: per pixel,
  // where the surface seen there was in the previous frame, written as
  //   motion = uv(this frame) − uv(previous frame)
  // in texture coordinates of the target ([0, 1] across its width and height; the previous
  // frame's pixel of uv is at uv − motion) into the red and green channels of the bound
  // framebuffer's first color attachment, meant to be RG16F (Framebuffer with
  // FramebufferColor::rg16f; an RGBA8 target clamps the motion to [0, 1], and a multisampled
  // one averages it with the background at silhouettes when resolved: draw motion single-sampled).
  // The previous position of each vertex is deformed with the
  // previous frame's palettes, instance transforms and morph weights and projected with
  // `previous_camera`, this one's with this frame's and `camera`, so the motion of actors,
  // their animation and the camera all count; only view and projection of both cameras are
  // read. An actor that did not exist in the previous frame moves with the camera only.
  // A frame is one Crowd::update (Crowd::frame()): the previous frame is what the renderer's
  // last pass of an earlier frame drew. The renderer keeps it from the first draw_velocity on,
  // double-buffering every node stream (their GPU memory doubles) and swapping the two sets
  // when the crowd's frame moves, so no array is copied; until a second frame has been drawn,
  // the previous frame is this one (motion from the camera only). Passes, depth test, culling
  // and cutouts as draw_depth (opaque and MASK groups, GL_LESS with depth writes: clear the
  // depth buffer or use the velocity target's own before it); the color mask is the
  // application's. The GL state list above then also covers storage bindings 6..15 and
  // texture units 12..15. Returns the number of draws; errors as draw(), and "gl_version"
  // when storage buffer palettes have fewer than 10 vertex shader storage blocks. Builds its
  // program on first use.
  std::uint32_t draw_velocity(const Crowd& crowd, const Camera& camera, const Camera& previous_camera);

  // What draw() does before its draws: uploads the changed slots (Animation::cpu) or the changed
  // records and placements followed by the compute passes (Animation::gpu), so the GPU streams
  // hold the crowd's current poses; with CrowdRendererOptions::skinned_vertex_cache also the
  // slot lists and the cache's skinning, so the frame's passes only read. stats() then counts its
  // uploads, RenderStats::cached_vertices and no draws. Errors as draw().
  void animate(const Crowd& crowd);

  // Binds the inputs of primitive group `group` (an index into crowd.primitive_groups()) for
  // the application's own `program`, whose vertex shader is built on crowd_skinning_glsl() for
  // this renderer's palette_storage(), and returns what its draw call needs; the application
  // then sets its own uniforms and state and draws (examples/custom_shader, docs/spec.md §6.8).
  // Makes `program` current (glUseProgram) and sets the include's uniforms in it (joint count,
  // weight quads, skinned flag, influences, morph target count, vertex count and delta blocks,
  // instance offset 0, delta width; on the texture path the data samplers' units), binds the
  // group's vertex array (with its element buffer) and the group's storage buffers on indexed
  // bindings 0..5 (glBindBufferBase: the generic GL_SHADER_STORAGE_BUFFER binding too) or data
  // textures on units 5..10 (no sampler objects there), and sets the constant values of absent
  // attributes (tangent (1, 0, 0, 1), texture coordinates 0, color 1). Unlike every other call
  // it leaves these bindings in place for the application's draw: the one call that does not
  // restore GL state; everything else (active texture unit, unpack state, blending, depth,
  // culling, framebuffer) is as the application set it. Uploads the group's slot list when it changed and reads
  // the streams as they are: animate(crowd) (or draw) must run first in the frame to bring them
  // up to date, for Animation::cpu and Animation::gpu alike. The instances are the group's slots
  // in PrimitiveGroup::instances order, all with the primitive's own material (`material`):
  // material variants (Actor::set_material_variant) are not applied, the application picks
  // materials itself. Once the renderer keeps the previous frame (draw_velocity ran, or
  // CrowdRendererOptions::previous_frame), it binds that frame's data too, on bindings 6..9 or
  // units 12..15, and sets u_remap_slots, for a shader built with GLTF_CROWD_PREVIOUS_FRAME;
  // before it has drawn a second frame, the previous frame is this one.
  // stats() is unchanged. Errors: "wrong_crowd" as draw(); `group` past
  // primitive_groups() is Error "group_index" (path "bind_group_inputs.group"); a destroyed
  // crowd or renderer binds nothing and returns instance_count 0; "gl_call_failed" when GL
  // reports an error (a `program` that is not a linked program object).
  GroupInputs bind_group_inputs(const Crowd& crowd, std::size_t group, std::uint32_t program);

  // The GPU copies of the node streams, read back for slots [0, actor_count()) as a
  // NodeStream array of the crowd's layout (a sharing stream's palette is empty): what the
  // draws read after the last draw() or animate(). For tests and inspection: waits for the GPU.
  // Texture storage with Animation::cpu needs desktop OpenGL (glGetTexImage), else Error
  // "gl_version". Errors as draw().
  std::vector<NodeStream> read_node_streams(const Crowd& crowd);

  // The previous frame's node streams as draw_velocity reads them, laid out as
  // read_node_streams() for the slots of that frame (actors added or removed since are not
  // remapped); empty until the renderer holds a previous frame (the second frame drawn after
  // the first draw_velocity). Texture storage needs desktop OpenGL (glGetTexImage), else Error
  // "gl_version". Errors as draw().
  std::vector<NodeStream> read_previous_node_streams(const Crowd& crowd);

  // Animation::gpu: every live actor's pose (slot order) evaluated by the same compute passes
  // over a rig of every asset node, read back: for tools that print poses (`pose --animation
  // gpu`) and tests. Builds that second evaluator on first use; waits for the GPU. Error
  // "animation_mode" for a crowd with Animation::cpu (use Actor::local_pose and node_world),
  // else errors as draw().
  std::vector<GpuPose> read_poses(const Crowd& crowd);

  // The storage in use: storage_buffer or texture, never automatic.
  PaletteStorage palette_storage() const noexcept { return storage_; }
  // Statistics of the last call, and the totals of its frame (RenderStats::frame).
  const RenderStats& stats() const noexcept { return stats_; }
  // GL objects this renderer currently owns.
  std::size_t object_count() const noexcept;

  // Deletes every GL object this renderer created; idempotent. Needs the creating context
  // current; if that EGL context is no longer current (already destroyed), the names are
  // dropped without GL calls, since they died with it.
  void destroy() noexcept;
  bool destroyed() const noexcept { return state_ == nullptr; }

  struct State;                    // GPU objects, private to the implementation
  enum class Pass : std::uint8_t;  // color, depth or velocity, private to the implementation

 private:
  std::uint32_t draw_pass(const Crowd& crowd, const Camera& camera, Pass pass, const Camera* previous_camera);
  std::vector<NodeStream> read_streams(const Crowd& crowd, bool previous_frame);

  std::shared_ptr<const CrowdLink> crowd_;  // identifies the crowd, following its moves
  PaletteStorage storage_ = PaletteStorage::storage_buffer;
  bool time_animation_ = false;
  std::unique_ptr<State> state_;
  RenderStats stats_;
};

// The reference path (docs/spec.md §6): every actor drawn separately, the "separate scenegraphs"
// baseline and the oracle the instanced images are compared with. Per actor and primitive
// group, every vertex is morphed with Actor::morph_weights() and skinned on the CPU with joint
// matrices built from Actor::node_world and the skin's inverse bind matrices (glTF 2.0 §3.7.3:
// v' = Σ wᵢ · world(jointᵢ) · IBMᵢ · v; rigid groups: world(node) · v), uploaded into one
// dynamic vertex buffer and drawn with a plain, non-instanced shader that shares the crowd
// shader's material and lighting code. It reads nothing of the crowd's packed palettes.
// Runs on any context CrowdRenderer runs on. Throws Error like CrowdRenderer ("gl_version",
// "shader_compile", "program_link", "gl_call_failed"). The constructor and draw() leave the
// application's GL state as it was ("GL state" above).
class ReferenceRenderer {
 public:
  explicit ReferenceRenderer(const Crowd& crowd);
  ~ReferenceRenderer();
  ReferenceRenderer(const ReferenceRenderer&) = delete;
  ReferenceRenderer& operator=(const ReferenceRenderer&) = delete;

  // Draws, for each primitive group (opaque and MASK first, then BLEND, as CrowdRenderer) and
  // each slot in its instance list, that actor's deformed primitive with the material its
  // Actor::material_variant() selects and its Actor::tint() (read from the actor, not from the
  // crowd's packed tints): one glDrawElements per actor per group, so RobotExpressive's 19
  // groups cost 19 × N draws. Returns the number of
  // draws. Errors and no-ops as CrowdRenderer::draw, plus "reference_deform" for a primitive
  // whose joint indices exceed its skin (the loader rejects such files). O(actors × vertices)
  // CPU work per frame.
  std::uint32_t draw(const Crowd& crowd, const Camera& camera);

  // CrowdRenderer::draw_depth's pass drawn this way, one draw per actor per opaque or MASK
  // group: the oracle for the instanced depth pass and the shadows it casts.
  std::uint32_t draw_depth(const Crowd& crowd, const Camera& camera);

  // CrowdRenderer::draw_velocity's pass drawn this way: every vertex is deformed on the CPU
  // twice, with the actor's node worlds and morph weights of this frame and of the previous one
  // (the values the renderer's last pass of an earlier Crowd::frame() read, kept per actor from
  // the first draw_velocity on), and drawn with both positions. The finite difference of two
  // frames of the reference path: the oracle for the instanced motion vectors.
  std::uint32_t draw_velocity(const Crowd& crowd, const Camera& camera, const Camera& previous_camera);

  // Statistics of the last call, and the totals of its frame (RenderStats::frame).
  const RenderStats& stats() const noexcept { return stats_; }
  // GL objects this renderer currently owns.
  std::size_t object_count() const noexcept;
  // As CrowdRenderer::destroy.
  void destroy() noexcept;
  bool destroyed() const noexcept { return state_ == nullptr; }

  struct State;                    // GPU objects and CPU scratch, private to the implementation
  enum class Pass : std::uint8_t;  // color, depth or velocity, private to the implementation

 private:
  std::uint32_t draw_pass(const Crowd& crowd, const Camera& camera, Pass pass, const Camera* previous_camera);

  std::shared_ptr<const CrowdLink> crowd_;  // identifies the crowd, following its moves
  std::unique_ptr<State> state_;
  RenderStats stats_;
};

}  // namespace gltf_crowd
GLTF_CROWD_API_END
