// A crowd drawn with the application's own shader: a toon (cel-shaded) look with three flat
// light bands and a rim, instead of CrowdRenderer's metallic-roughness shading. The vertex
// shader is the application's, built on the library's skinning include (crowd_skinning_glsl(),
// the text of gltf_crowd/gltf_crowd_skinning.glsl): gltf_crowd_vertex() gives each vertex
// morphed, skinned and placed, so the application writes only its outputs and the shading.
//
//   gltf_crowd_custom_shader [OUT.png] [ASSET.gltf|ASSET.glb]
//
// Without an asset it uses the built-in character. The per frame sequence: Crowd::update,
// CrowdRenderer::animate (the streams on the GPU), then per primitive group bind_group_inputs
// and the application's glDrawElementsInstanced.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <epoxy/gl.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <gltf_crowd/bounds.hpp>
#include <gltf_crowd/crowd.hpp>
#include <gltf_crowd/default_character.hpp>
#include <gltf_crowd/gl.hpp>

using namespace gltf_crowd;

namespace {

constexpr int kWidth = 960;
constexpr int kHeight = 540;

// After the include: world-space normal and position for the bands and the rim, the actor's
// tint for its colour.
constexpr const char* kToonVertex = R"glsl(
uniform mat4 view_projection;
out vec3 world_normal;
out vec3 world_position;
flat out vec4 tint;
void main() {
  GltfCrowdVertex vertex = gltf_crowd_vertex();
  world_normal = vertex.normal;
  world_position = vertex.position.xyz;
  tint = gltf_crowd_tint(vertex.slot);
  gl_Position = view_projection * vertex.position;
}
)glsl";

// Cel shading: N·L quantised to three bands (shadow, mid, lit), a hard rim where the surface
// turns away from the viewer, no textures.
constexpr const char* kToonFragment = R"glsl(
in vec3 world_normal;
in vec3 world_position;
flat in vec4 tint;
uniform vec4 base_color;  // the material's base colour factor, linear
uniform vec3 to_light;    // unit vector toward the light
uniform vec3 eye;         // viewer position
out vec4 frag_color;
void main() {
  vec3 n = normalize(world_normal);
  if (!gl_FrontFacing) n = -n;
  float lit = max(dot(n, to_light), 0.0);
  float band = lit > 0.6 ? 1.0 : lit > 0.2 ? 0.65 : 0.35;
  float rim = 1.0 - max(dot(n, normalize(eye - world_position)), 0.0);
  vec3 color = base_color.rgb * tint.rgb * band + vec3(step(0.72, rim) * 0.25);
  frag_color = vec4(pow(clamp(color, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);  // roughly sRGB
}
)glsl";

GLuint compile(GLenum stage, const std::string& source) {
  const GLuint shader = glCreateShader(stage);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    std::vector<char> log(4096);
    glGetShaderInfoLog(shader, static_cast<GLsizei>(log.size()), nullptr, log.data());
    glDeleteShader(shader);
    throw std::runtime_error(std::string("shader compile: ") + log.data());
  }
  return shader;
}

// The toon program for the renderer's palette storage: the include's define and text go between
// the version line and the application's vertex code.
GLuint toon_program(PaletteStorage storage) {
  const bool buffers = storage == PaletteStorage::storage_buffer;
  const bool es = !epoxy_is_desktop_gl();
  const std::string version = buffers ? "#version 430 core\n"
                              : es    ? "#version 300 es\nprecision highp float;\nprecision highp int;\n"
                                        "precision highp sampler2D;\n"
                                      : "#version 330 core\n";
  const std::string define = buffers ? "#define GLTF_CROWD_STORAGE_BUFFERS 1\n" : "";
  const GLuint vertex = compile(GL_VERTEX_SHADER, version + define + crowd_skinning_glsl() + kToonVertex);
  const GLuint fragment = compile(GL_FRAGMENT_SHADER, version + kToonFragment);
  const GLuint program = glCreateProgram();
  glAttachShader(program, vertex);
  glAttachShader(program, fragment);
  glLinkProgram(program);
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    glDeleteProgram(program);
    throw std::runtime_error("toon program did not link");
  }
  return program;
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string out = argc > 1 ? argv[1] : "custom_shader.png";
  auto asset =
      std::make_shared<const Asset>(argc > 2 ? load_asset(argv[2]) : load_asset_from_memory(default_character_glb()));

  // A 6 × 6 grid, each actor on its own clip and phase, every other one tinted.
  const glm::vec3 size = animated_bounds(*asset).size();
  const float spacing = 1.25f * std::max(size.x, size.z);
  Crowd crowd(asset, {.capacity = 36});
  std::vector<ActorOptions> actors(36);
  for (std::size_t i = 0; i < actors.size(); ++i) {
    if (!asset->clips.empty()) actors[i].clip = asset->clips[i % asset->clips.size()].name;
    actors[i].phase = 0.17f * static_cast<float>(i % 6);
    actors[i].transform = glm::translate(
        glm::mat4(1.0f), glm::vec3(static_cast<float>(i % 6), 0.0f, static_cast<float>(i / 6)) * spacing);
  }
  std::vector<Actor> handles = crowd.add_actors(actors);
  for (std::size_t i = 1; i < handles.size(); i += 2) handles[i].set_tint({1.0f, 0.75f, 0.6f, 1.0f});
  crowd.update(0.5f);

  HeadlessContext context;
  Framebuffer target({.width = kWidth, .height = kHeight, .samples = 4});
  CrowdRenderer renderer(crowd);
  const GLuint program = toon_program(renderer.palette_storage());

  const glm::vec3 center = glm::vec3(2.5f * spacing, 0.5f * size.y, 2.5f * spacing);
  const float distance = 7.0f * spacing;
  const glm::vec3 eye = center + glm::vec3(0.0f, 0.5f, 1.0f) * distance;
  const glm::mat4 view_projection =
      glm::perspective(glm::radians(40.0f), static_cast<float>(kWidth) / static_cast<float>(kHeight), 0.01f * distance,
                       4.0f * distance) *
      glm::lookAt(eye, center, glm::vec3(0, 1, 0));
  const glm::vec3 to_light = glm::normalize(glm::vec3(0.4f, 1.0f, 0.5f));

  target.clear({0.93f, 0.9f, 0.82f, 1.0f});
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  renderer.animate(crowd);  // this frame's palettes, transforms and morph weights on the GPU
  std::uint32_t draws = 0;
  // Opaque groups first, then blended ones over them, as CrowdRenderer::draw orders them.
  for (const bool blended_pass : {false, true}) {
    for (std::size_t g = 0; g < crowd.primitive_groups().size(); ++g) {
      const GroupInputs in = renderer.bind_group_inputs(crowd, g, program);  // leaves `program` in use
      if (in.instance_count == 0 || in.blended != blended_pass) continue;
      const Material fallback;
      const Material& m = in.material >= 0 ? asset->materials[static_cast<std::size_t>(in.material)] : fallback;
      glUniformMatrix4fv(glGetUniformLocation(program, "view_projection"), 1, GL_FALSE,
                         glm::value_ptr(view_projection));
      glUniform4fv(glGetUniformLocation(program, "base_color"), 1, glm::value_ptr(m.base_color_factor));
      glUniform3fv(glGetUniformLocation(program, "to_light"), 1, glm::value_ptr(to_light));
      glUniform3fv(glGetUniformLocation(program, "eye"), 1, glm::value_ptr(eye));
      if (m.double_sided) {
        glDisable(GL_CULL_FACE);
      } else {
        glEnable(GL_CULL_FACE);
      }
      if (in.blended) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
      } else {
        glDisable(GL_BLEND);
      }
      glDrawElementsInstanced(in.mode, in.index_count, in.index_type, nullptr, in.instance_count);
      ++draws;
    }
  }
  if (glGetError() != GL_NO_ERROR) throw std::runtime_error("a GL call failed");
  glDeleteProgram(program);
  write_png(out, target.width(), target.height(), target.read_pixels());
  std::printf("%zu actors, %u toon draws, wrote %s\n", crowd.actor_count(), draws, out.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gltf_crowd_custom_shader: %s\n", e.what());
  return 1;
}
