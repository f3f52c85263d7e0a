// Static GPU data of an asset's primitives, shared by CrowdRenderer and ReferenceRenderer:
// vertex attributes, index arrays with their vertex arrays, and morph target deltas.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "gl/gl_object.hpp"
#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::gl {

// Byte offsets of one primitive's attribute blocks in its vertex buffer (not interleaved).
struct AttributeLayout {
  std::size_t position = 0, normal = 0, tangent = 0, texcoord0 = 0, texcoord1 = 0, color = 0, joints0 = 0, weights0 = 0,
              joints1 = 0, weights1 = 0;
  bool has_tangent = false;
  bool has_texcoord0 = false;
  bool has_texcoord1 = false;
  bool has_color = false;
  bool has_influences0 = false;
  bool has_influences1 = false;
};

// Where a primitive's morph deltas go: nowhere (the reference path morphs on the CPU), a
// storage buffer, or an RGBA32F texture of `delta_width` texels per row.
enum class DeltaStorage : std::uint8_t { none, buffer, texture };

// One source primitive's vertex data, shared by every group and level that draws it (generated
// levels are index-only, docs/spec.md §7).
struct PrimitiveGpu {
  Object vertices;  // attribute blocks back to back, see layout
  // vec4 deltas, blocks of T × V texels: positions, then normals (if any target has them), then
  // tangents (likewise); delta of target t, vertex v in block k at k·T·V + t·V + v.
  Object morph_deltas;
  AttributeLayout layout;
  GLenum mode = GL_TRIANGLES;
  std::uint32_t vertex_count = 0;
  std::uint32_t target_count = 0;
  std::uint32_t normal_block = 0;   // 0 = no normal deltas
  std::uint32_t tangent_block = 0;  // 0 = no tangent deltas
  std::uint32_t delta_width = 0;    // texels per row of a delta texture
  std::int32_t material = -1;
};

// An index array over one PrimitiveGpu, with the vertex array that binds both.
struct DrawableGpu {
  Object indices;               // uint32
  Object vertex_array;          // attribute formats + element buffer
  std::uint32_t primitive = 0;  // index into the owner's primitives
  std::uint32_t index_count = 0;
};

// Normals to use for `primitive`: its own, or (glTF asks for flat normals when absent)
// area-weighted vertex normals, which keep the shared vertex buffer and look the same on the
// faceted meshes this happens with. Both renderers use this one function.
std::vector<glm::vec3> generated_normals(const Primitive& primitive);

// Uploads one primitive's attributes (normals generated when absent) and, per `deltas`, its
// morph deltas. `max_texture_size` bounds a delta texture: Error "palette_too_large" (path
// `path` + ".targets") names GL_MAX_TEXTURE_SIZE when the deltas need more rows.
PrimitiveGpu upload_primitive(const Primitive& primitive, DeltaStorage deltas, std::int32_t max_texture_size,
                              const std::string& path);

// Uploads `indices` (each < primitive.vertex_count) and a vertex array binding them with the
// primitive's attributes at the locations of shaders.hpp.
DrawableGpu make_drawable(const PrimitiveGpu& primitive, std::span<const std::uint32_t> indices);

// Enables float attribute `location` reading `components` floats at `offset` of the bound
// GL_ARRAY_BUFFER, `stride` bytes apart (0 = tightly packed).
void float_attribute(GLuint location, GLint components, std::size_t offset, GLsizei stride = 0);

// A buffer of `bytes` (at least 16) with GL_DYNAMIC_DRAW storage and undefined contents.
Object make_dynamic_buffer(std::size_t bytes);

// An RGBA32F (or, with `integer`, R32UI) 2D texture of width × height texels with undefined
// contents and NEAREST filtering (texelFetch needs a complete texture; float textures are not
// filterable on ES 3.0).
Object make_data_texture(std::uint32_t width, std::uint32_t height, bool integer = false);

}  // namespace gltf_crowd::gl
