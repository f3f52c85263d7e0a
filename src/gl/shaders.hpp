// GLSL sources of the crowd and reference programs, composed per dialect from one body each: a
// version line (plus precisions for ES), then for the crowd vertex shader the published include
// gltf_crowd/gltf_crowd_skinning.glsl, whose define selects how palettes are fetched (storage
// buffers or texelFetch), then the shared body. The fragment
// shader (materials and lighting) is the same text for every program and dialect, so the
// instanced and the reference images differ only by the vertex data they are given.
#pragma once

#include <cstdint>
#include <string>

#include <epoxy/gl.h>

namespace gltf_crowd::gl {

enum class ShaderDialect : std::uint8_t {
  glsl430,  // desktop OpenGL 4.3 core: storage buffers
  glsl330,  // desktop OpenGL 3.3 core
  essl300,  // OpenGL ES 3.0
};

// Vertex attribute locations shared by every program. Attributes a primitive lacks stay
// disabled with constant values set per frame (tangent (1, 0, 0, 1), texcoords 0, color 1).
namespace attribute {
inline constexpr GLuint position = 0, normal = 1, tangent = 2, texcoord0 = 3, texcoord1 = 4, color = 5, joints0 = 6,
                        weights0 = 7, joints1 = 8, weights1 = 9;
// The reference velocity pass: the vertex's world position in the previous frame.
inline constexpr GLuint previous_position = 10;
}  // namespace attribute

// Texture units: the five material textures, then the texture palette path's data, then the
// shadow map (Camera::shadow), then the previous frame's data of the velocity pass. Each
// sampler has its own unit, since two sampler types on one unit are a draw-time error.
namespace unit {
inline constexpr GLint base_color = 0, metallic_roughness = 1, normal = 2, occlusion = 3, emissive = 4, transforms = 5,
                       palette = 6, instances = 7, morph_deltas = 8, morph_weights = 9, tints = 10, shadow_map = 11,
                       previous_transforms = 12, previous_palette = 13, previous_morph_weights = 14,
                       previous_slots = 15;
// CrowdRendererOptions::skinned_vertex_cache on the texture path: the skinned vertices.
inline constexpr GLint skinned_vertices = 16;
inline constexpr GLint count = 17;
}  // namespace unit

// Storage buffer bindings of the storage_buffer path (std430).
namespace binding {
inline constexpr GLuint transforms = 0, palette = 1, instances = 2, morph_deltas = 3, morph_weights = 4, tints = 5;
inline constexpr GLuint count = 6;
// The velocity pass adds the previous frame's arrays and the slot remap.
inline constexpr GLuint previous_transforms = 6, previous_palette = 7, previous_morph_weights = 8, previous_slots = 9;
inline constexpr GLuint velocity_count = 10;
// CrowdRendererOptions::skinned_vertex_cache: the skinned vertices the color and depth passes read.
inline constexpr GLuint skinned_vertices = 10;
inline constexpr GLuint draw_count = 11;  // bindings any draw pass uses: 0..draw_count-1
// The GPU evaluator's compute passes use bindings 0..compute_count-1 (gpu_animation.hpp).
inline constexpr GLuint compute_count = 16;
}  // namespace binding

// The dialect of the current context for programs without storage buffers: GLSL 330 core on
// desktop OpenGL 3.3+, GLSL ES 300 on OpenGL ES 3.0+. Throws Error (path `who`, rule
// "gl_version") on anything older.
ShaderDialect plain_dialect(const char* who);

// Crowd vertex shader. Storage buffers need glsl430; the texture path takes glsl330 or essl300.
// The version line, GLTF_CROWD_STORAGE_BUFFERS for storage buffers, the published include
// (crowd_skinning_glsl(): data, attributes, morph and skinning), then the outputs the shading
// reads.
std::string crowd_vertex_source(ShaderDialect dialect, bool storage_buffers);

// Reference vertex shader: positions, normals and tangents arrive already in world space.
std::string reference_vertex_source(ShaderDialect dialect);

// The fragment shader of both programs: glTF metallic-roughness, one directional light plus
// ambient, sRGB-encoded output.
std::string fragment_source(ShaderDialect dialect);

// The depth pass's fragment shader (draw_depth): no color output; MASK cutouts and per-instance
// culling as fragment_source, through the same uniform names, so bind_material serves both.
std::string depth_fragment_source(ShaderDialect dialect);
// The depth pass's fragment shader for groups needing neither cutout nor per-instance culling
// (OPAQUE materials, one winding): empty, so nothing keeps the depth test from running early.
std::string opaque_depth_fragment_source(ShaderDialect dialect);

// The velocity pass (draw_velocity, docs/spec.md §6.4). The crowd's vertex shader is the
// published include with GLTF_CROWD_PREVIOUS_FRAME: it deforms each vertex with this frame's and
// with the previous frame's palettes, instance transforms and morph weights
// (gltf_crowd_previous_position, the slot remapped when actors moved) and projects each with its
// camera; the reference's receives both world positions.
// The fragment shader cuts out and culls as depth_fragment_source and writes the motion.
std::string crowd_velocity_vertex_source(ShaderDialect dialect, bool storage_buffers);
std::string reference_velocity_vertex_source(ShaderDialect dialect);
std::string velocity_fragment_source(ShaderDialect dialect);

// The skinned-vertex cache (CrowdRendererOptions::skinned_vertex_cache, docs/spec.md §6.9).
// skin_vertex_source deforms each vertex as crowd_vertex_source does and outputs, for transform
// feedback, skinned_outputs: world position (w = 1), world normal (w = 1 when the instance
// transform mirrors, else 0) and world tangent (w = handedness), 48 bytes per vertex. Its
// fragment shader (skin_fragment_source) never runs: the capture discards rasterization.
// cached_vertex_source feeds the shading and depth-pass fragment shaders from those rows
// instead of skinning: row ((instance − u_skinned_first) × u_vertex_count + gl_VertexID) × 3 of
// the bound piece (the instances from u_skinned_first on), in a storage buffer at
// binding::skinned_vertices or an RGBA32F texture at unit::skinned_vertices wrapped at
// u_skinned_width texels per row.
inline constexpr const char* skinned_outputs[] = {"c_position", "c_normal", "c_tangent"};
std::string skin_vertex_source(ShaderDialect dialect, bool storage_buffers);
std::string skin_fragment_source(ShaderDialect dialect);
std::string cached_vertex_source(ShaderDialect dialect, bool storage_buffers);

}  // namespace gltf_crowd::gl
