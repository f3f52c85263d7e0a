// Static GPU data of an asset: each source primitive's attributes, indices and morph deltas.
// Uploaded once when a renderer is created.
#include "gl/primitive_upload.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "gl/shaders.hpp"
#include "gltf_crowd/error.hpp"

namespace gltf_crowd::gl {
namespace {

GLenum gl_mode(PrimitiveMode mode) {
  switch (mode) {
    case PrimitiveMode::points: return GL_POINTS;
    case PrimitiveMode::lines: return GL_LINES;
    case PrimitiveMode::line_loop: return GL_LINE_LOOP;
    case PrimitiveMode::line_strip: return GL_LINE_STRIP;
    case PrimitiveMode::triangles: return GL_TRIANGLES;
    case PrimitiveMode::triangle_strip: return GL_TRIANGLE_STRIP;
    case PrimitiveMode::triangle_fan: return GL_TRIANGLE_FAN;
  }
  return GL_TRIANGLES;
}

// Appends `values` to `blob` at a 16-byte aligned offset and returns that offset.
template <class T>
std::size_t append(std::vector<std::uint8_t>& blob, std::span<const T> values) {
  std::size_t offset = (blob.size() + 15) & ~std::size_t{15};
  blob.resize(offset + values.size_bytes());
  if (!values.empty()) std::memcpy(blob.data() + offset, values.data(), values.size_bytes());
  return offset;
}

void uint16_attribute(GLuint location, std::size_t offset) {
  glEnableVertexAttribArray(location);
  glVertexAttribIPointer(location, 4, GL_UNSIGNED_SHORT, 0, reinterpret_cast<const void*>(offset));
}

// Morph deltas as vec4 texels in the block layout of PrimitiveGpu::morph_deltas.
std::vector<glm::vec4> pack_deltas(const Primitive& primitive, PrimitiveGpu& gpu) {
  const std::size_t n = primitive.vertex_count();
  const std::size_t t_count = primitive.targets.size();
  bool normals = false, tangents = false;
  for (const MorphTarget& target : primitive.targets) {
    normals |= !target.normals.empty();
    tangents |= !target.tangents.empty();
  }
  gpu.target_count = static_cast<std::uint32_t>(t_count);
  gpu.normal_block = normals ? 1 : 0;
  gpu.tangent_block = tangents ? 1 + gpu.normal_block : 0;
  const std::size_t blocks = 1 + (normals ? 1 : 0) + (tangents ? 1 : 0);
  std::vector<glm::vec4> deltas(blocks * t_count * n, glm::vec4(0.0f));
  auto put = [&](std::uint32_t block, std::size_t t, const std::vector<glm::vec3>& values) {
    glm::vec4* out = deltas.data() + (block * t_count + t) * n;
    for (std::size_t v = 0; v < values.size() && v < n; ++v) out[v] = glm::vec4(values[v], 0.0f);
  };
  for (std::size_t t = 0; t < t_count; ++t) {
    const MorphTarget& target = primitive.targets[t];
    put(0, t, target.positions);
    if (normals) put(gpu.normal_block, t, target.normals);
    if (tangents) put(gpu.tangent_block, t, target.tangents);
  }
  return deltas;
}

}  // namespace

std::vector<glm::vec3> generated_normals(const Primitive& primitive) {
  std::vector<glm::vec3> normals(primitive.vertex_count(), glm::vec3(0.0f));
  if (primitive.mode == PrimitiveMode::triangles) {
    const auto& p = primitive.positions;
    const auto& i = primitive.indices;
    for (std::size_t t = 0; t + 2 < i.size(); t += 3) {
      glm::vec3 n = glm::cross(p[i[t + 1]] - p[i[t]], p[i[t + 2]] - p[i[t]]);
      normals[i[t]] += n;
      normals[i[t + 1]] += n;
      normals[i[t + 2]] += n;
    }
  }
  for (auto& n : normals) {
    float length = glm::length(n);
    n = length > 0.0f ? n / length : glm::vec3(0.0f, 0.0f, 1.0f);
  }
  return normals;
}

void float_attribute(GLuint location, GLint components, std::size_t offset, GLsizei stride) {
  glEnableVertexAttribArray(location);
  glVertexAttribPointer(location, components, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<const void*>(offset));
}

Object make_dynamic_buffer(std::size_t bytes) {
  Object buffer = make_buffer();
  glBindBuffer(GL_COPY_WRITE_BUFFER, buffer.name());
  glBufferData(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes < 16 ? 16 : bytes), nullptr, GL_DYNAMIC_DRAW);
  check_gl("glBufferData(GL_DYNAMIC_DRAW)");
  return buffer;
}

Object make_data_texture(std::uint32_t width, std::uint32_t height, bool integer) {
  Object texture = make_texture();
  glBindTexture(GL_TEXTURE_2D, texture.name());
  glTexImage2D(GL_TEXTURE_2D, 0, integer ? GL_R32UI : GL_RGBA32F, static_cast<GLsizei>(width),
               static_cast<GLsizei>(height), 0, integer ? GL_RED_INTEGER : GL_RGBA,
               integer ? GL_UNSIGNED_INT : GL_FLOAT, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  check_gl(integer ? "glTexImage2D(GL_R32UI)" : "glTexImage2D(GL_RGBA32F)");
  return texture;
}

PrimitiveGpu upload_primitive(const Primitive& primitive, DeltaStorage deltas, std::int32_t max_texture_size,
                              const std::string& path) {
  PrimitiveGpu gpu;
  gpu.mode = gl_mode(primitive.mode);
  gpu.vertex_count = static_cast<std::uint32_t>(primitive.vertex_count());
  gpu.material = primitive.material;

  std::vector<std::uint8_t> blob;
  std::vector<glm::vec3> normals_storage;
  std::span<const glm::vec3> normals = primitive.normals;
  if (normals.empty()) {
    normals_storage = generated_normals(primitive);
    normals = normals_storage;
  }
  AttributeLayout& l = gpu.layout;
  l.position = append(blob, std::span<const glm::vec3>(primitive.positions));
  l.normal = append(blob, normals);
  l.tangent = append(blob, std::span<const glm::vec4>(primitive.tangents));
  l.texcoord0 = append(blob, std::span<const glm::vec2>(primitive.texcoords0));
  l.texcoord1 = append(blob, std::span<const glm::vec2>(primitive.texcoords1));
  l.color = append(blob, std::span<const glm::vec4>(primitive.colors0));
  l.joints0 = append(blob, std::span<const glm::u16vec4>(primitive.joints0));
  l.weights0 = append(blob, std::span<const glm::vec4>(primitive.weights0));
  l.joints1 = append(blob, std::span<const glm::u16vec4>(primitive.joints1));
  l.weights1 = append(blob, std::span<const glm::vec4>(primitive.weights1));
  l.has_tangent = !primitive.tangents.empty();
  l.has_texcoord0 = !primitive.texcoords0.empty();
  l.has_texcoord1 = !primitive.texcoords1.empty();
  l.has_color = !primitive.colors0.empty();
  l.has_influences0 = !primitive.joints0.empty() && !primitive.weights0.empty();
  l.has_influences1 = !primitive.joints1.empty() && !primitive.weights1.empty();

  gpu.vertices = make_buffer();
  glBindBuffer(GL_ARRAY_BUFFER, gpu.vertices.name());
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(blob.size()), blob.data(), GL_STATIC_DRAW);
  check_gl("glBufferData(GL_ARRAY_BUFFER)");

  if (primitive.targets.empty() || deltas == DeltaStorage::none || gpu.vertex_count == 0) return gpu;
  const std::vector<glm::vec4> packed = pack_deltas(primitive, gpu);
  if (deltas == DeltaStorage::buffer) {
    gpu.morph_deltas = make_buffer();
    glBindBuffer(GL_COPY_WRITE_BUFFER, gpu.morph_deltas.name());
    glBufferData(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(packed.size() * sizeof(glm::vec4)), packed.data(),
                 GL_STATIC_DRAW);
    check_gl("glBufferData(morph deltas)");
    return gpu;
  }
  // Rows of 4096 texels (fewer where GL_MAX_TEXTURE_SIZE is smaller; ES 3.0 guarantees 2048):
  // any length fits in few rows, and small meshes need no more than one.
  const auto width = static_cast<std::uint32_t>(std::min<std::int32_t>(4096, max_texture_size));
  const std::size_t rows = (packed.size() + width - 1) / width;
  if (rows > static_cast<std::size_t>(max_texture_size)) {
    throw Error(path + ".targets", Rule::palette_too_large,
                fmt::format("{} morph delta texels need {} rows of {}, more than "
                            "GL_MAX_TEXTURE_SIZE = {}",
                            packed.size(), rows, width, max_texture_size));
  }
  std::vector<glm::vec4> padded(rows * width, glm::vec4(0.0f));
  std::copy(packed.begin(), packed.end(), padded.begin());
  gpu.delta_width = width;
  gpu.morph_deltas = make_data_texture(width, static_cast<std::uint32_t>(rows));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(rows), GL_RGBA, GL_FLOAT,
                  padded.data());
  check_gl("glTexSubImage2D(morph deltas)");
  glBindTexture(GL_TEXTURE_2D, 0);
  return gpu;
}

DrawableGpu make_drawable(const PrimitiveGpu& primitive, std::span<const std::uint32_t> indices) {
  DrawableGpu drawable;
  drawable.index_count = static_cast<std::uint32_t>(indices.size());
  drawable.vertex_array = make_vertex_array();
  glBindVertexArray(drawable.vertex_array.name());
  glBindBuffer(GL_ARRAY_BUFFER, primitive.vertices.name());
  // Missing optional attributes stay disabled; the renderers set their constant values once
  // per frame (shaders.hpp).
  const AttributeLayout& l = primitive.layout;
  float_attribute(attribute::position, 3, l.position);
  float_attribute(attribute::normal, 3, l.normal);
  if (l.has_tangent) float_attribute(attribute::tangent, 4, l.tangent);
  if (l.has_texcoord0) float_attribute(attribute::texcoord0, 2, l.texcoord0);
  if (l.has_texcoord1) float_attribute(attribute::texcoord1, 2, l.texcoord1);
  if (l.has_color) float_attribute(attribute::color, 4, l.color);
  if (l.has_influences0) {
    uint16_attribute(attribute::joints0, l.joints0);
    float_attribute(attribute::weights0, 4, l.weights0);
  }
  if (l.has_influences1) {
    uint16_attribute(attribute::joints1, l.joints1);
    float_attribute(attribute::weights1, 4, l.weights1);
  }
  drawable.indices = make_buffer();
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, drawable.indices.name());  // recorded in the vertex array
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(indices.size_bytes()), indices.data(), GL_STATIC_DRAW);
  check_gl("glBufferData(GL_ELEMENT_ARRAY_BUFFER)");
  glBindVertexArray(0);
  return drawable;
}

}  // namespace gltf_crowd::gl
