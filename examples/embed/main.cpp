// gltf-crowd inside an application's own renderer:
//  - the application owns the framebuffer (color + depth renderbuffers), the camera and its own
//    shaders; the crowd draws into whatever framebuffer is bound, depth-tested against what the
//    application drew before it (a ground plane);
//  - a prop (a sword-like box) follows actor 0's hand through Actor::node_world;
//  - the application's GL state is the same after the crowd's draw as before (checked here).
//
//   gltf_crowd_embed [OUT.png] [ASSET HAND_NODE]
//
// Without an asset it uses the built-in character and its "RightHand" joint. A HeadlessContext
// stands in for the application's window context: any current OpenGL 4.3 / 3.3 context works.
#include <algorithm>
#include <array>
#include <cmath>
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

constexpr int kWidth = 800;
constexpr int kHeight = 600;

// The application's flat-colour shader: position only, one colour per draw.
constexpr const char* kVertex = R"(#version 330 core
layout(location = 0) in vec3 position;
uniform mat4 view_projection;
uniform mat4 model;
void main() { gl_Position = view_projection * model * vec4(position, 1.0); }
)";
constexpr const char* kFragment = R"(#version 330 core
uniform vec4 color;
out vec4 frag;
void main() { frag = color; }
)";

GLuint compile(GLenum stage, const char* source) {
  const GLuint shader = glCreateShader(stage);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) throw std::runtime_error("application shader failed to compile");
  return shader;
}

// A unit cube centred at the origin, 36 vertices (non-indexed triangles).
std::vector<float> cube_vertices() {
  const std::array<glm::vec3, 8> c{
      {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}}};
  const int faces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}};
  std::vector<float> out;
  for (const auto& f : faces)
    for (int k : {0, 1, 2, 0, 2, 3})
      for (int axis = 0; axis < 3; ++axis) out.push_back(0.5f * c[f[k]][axis]);
  return out;
}

// The application state that must survive the crowd's draw.
struct AppState {
  GLint program, vao, array_buffer, framebuffer, depth_func, cull_mode, active_texture;
  GLboolean depth_test, cull_face, blend, depth_mask;
  bool operator==(const AppState&) const = default;
};

AppState read_state() {
  AppState s{};
  glGetIntegerv(GL_CURRENT_PROGRAM, &s.program);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &s.vao);
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &s.array_buffer);
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s.framebuffer);
  glGetIntegerv(GL_DEPTH_FUNC, &s.depth_func);
  glGetIntegerv(GL_CULL_FACE_MODE, &s.cull_mode);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &s.active_texture);
  s.depth_test = glIsEnabled(GL_DEPTH_TEST);
  s.cull_face = glIsEnabled(GL_CULL_FACE);
  s.blend = glIsEnabled(GL_BLEND);
  glGetBooleanv(GL_DEPTH_WRITEMASK, &s.depth_mask);
  return s;
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string out = argc > 1 ? argv[1] : "embed.png";
  const bool custom = argc > 3;
  auto asset =
      std::make_shared<const Asset>(custom ? load_asset(argv[2]) : load_asset_from_memory(default_character_glb()));
  const std::string hand = custom ? argv[3] : "RightHand";

  // Nine actors in a 3 × 3 block, spaced by the character's height: 1.5 units apart for the
  // built-in one (1.8 tall), 3.7 for three.js's RobotExpressive (4.5 tall).
  const Bounds rest = rest_bounds(*asset);
  const float height = rest.empty() ? 1.8f : std::max(rest.size().y, 1e-3f);
  const float spacing = height * (1.5f / 1.8f);
  Crowd crowd(asset, {.capacity = 9});
  std::vector<ActorOptions> actors(9);
  for (std::size_t i = 0; i < actors.size(); ++i) {
    if (!asset->clips.empty()) actors[i].clip = asset->clips[(i + 1) % asset->clips.size()].name;
    actors[i].phase = 0.11f * static_cast<float>(i);
    actors[i].transform = glm::translate(
        glm::mat4(1.0f), glm::vec3(static_cast<float>(i % 3) - 1.0f, 0.0f, static_cast<float>(i / 3) - 1.0f) * spacing);
  }
  std::vector<Actor> handles = crowd.add_actors(actors);
  crowd.update(0.7f);

  HeadlessContext context;  // stands in for the application's window context

  // The application's framebuffer: its own color and depth renderbuffers.
  GLuint color = 0, depth = 0, framebuffer = 0;
  glGenRenderbuffers(1, &color);
  glBindRenderbuffer(GL_RENDERBUFFER, color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, kWidth, kHeight);
  glGenRenderbuffers(1, &depth);
  glBindRenderbuffer(GL_RENDERBUFFER, depth);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, kWidth, kHeight);
  glGenFramebuffers(1, &framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("application framebuffer incomplete");

  // The application's program and geometry: a ground plane and a cube for the prop.
  const GLuint program = glCreateProgram();
  glAttachShader(program, compile(GL_VERTEX_SHADER, kVertex));
  glAttachShader(program, compile(GL_FRAGMENT_SHADER, kFragment));
  glLinkProgram(program);
  const std::vector<float> cube = cube_vertices();
  GLuint vao = 0, vbo = 0;
  glGenVertexArrays(1, &vao);
  glBindVertexArray(vao);
  glGenBuffers(1, &vbo);
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(cube.size() * sizeof(float)), cube.data(), GL_STATIC_DRAW);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
  glEnableVertexAttribArray(0);

  // The crowd renderer is created once the application's context exists.
  CrowdRenderer renderer(crowd);

  // The application's camera, framing the crowd whatever the asset's size: from the front, right
  // and above, at the smallest distance at which the eight corners of the box around the actors
  // (Crowd::world_bounds) fit the 45° vertical field of view and the wider horizontal one.
  const Bounds box = crowd.world_bounds();
  const glm::vec3 center = box.center();
  const glm::vec3 forward = -glm::normalize(glm::vec3(2.5f, 1.8f, 5.0f));
  const glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0.0f, 1.0f, 0.0f)));
  const glm::vec3 up = glm::cross(right, forward);
  const float tan_v = std::tan(glm::radians(22.5f)), tan_h = tan_v * float(kWidth) / float(kHeight);
  float distance = 0.0f;
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 p((corner & 1) ? box.max.x : box.min.x, (corner & 2) ? box.max.y : box.min.y,
                      (corner & 4) ? box.max.z : box.min.z);
    const glm::vec3 rel = p - center;
    const float toward = -glm::dot(rel, forward);  // > 0: nearer the camera than the center
    distance = std::max(
        {distance, toward + std::abs(glm::dot(rel, right)) / tan_h, toward + std::abs(glm::dot(rel, up)) / tan_v});
  }
  const float radius = 0.5f * glm::length(box.size());
  const glm::mat4 view = glm::lookAt(center - forward * distance, center, glm::vec3(0.0f, 1.0f, 0.0f));
  const glm::mat4 projection =
      glm::perspective(glm::radians(45.0f), float(kWidth) / float(kHeight), 0.05f * distance, distance + 2.0f * radius);
  const glm::mat4 view_projection = projection * view;

  auto draw_box = [&](const glm::mat4& model, const glm::vec4& rgba) {
    glUniformMatrix4fv(glGetUniformLocation(program, "view_projection"), 1, GL_FALSE, glm::value_ptr(view_projection));
    glUniformMatrix4fv(glGetUniformLocation(program, "model"), 1, GL_FALSE, glm::value_ptr(model));
    glUniform4fv(glGetUniformLocation(program, "color"), 1, glm::value_ptr(rgba));
    glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(cube.size() / 3));
  };

  // Frame: the application draws first, with its own state...
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glViewport(0, 0, kWidth, kHeight);
  glClearColor(0.62f, 0.7f, 0.8f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glUseProgram(program);
  glBindVertexArray(vao);
  const float ground = 2.5f * distance;  // reaches past the camera: no sky below the horizon
  draw_box(glm::scale(glm::translate(glm::mat4(1.0f), {center.x, -0.05f * spacing, center.z}),
                      {ground, 0.1f * spacing, ground}),
           {0.35f, 0.42f, 0.3f, 1.0f});

  // ...then the crowd, into the bound framebuffer, depth-tested against the ground...
  const AppState before = read_state();
  const std::uint32_t draws = renderer.draw(crowd, Camera{view, projection});
  const AppState after = read_state();
  if (!(before == after)) {
    std::fprintf(stderr, "gltf_crowd_embed: the crowd's draw changed the application's GL state\n");
    return 1;
  }

  // ...then the prop in actor 0's hand, with the application's state untouched. The joint's world
  // matrix may carry its skeleton's scale: the prop is sized by the character instead.
  const glm::mat4 hand_world = handles[0].node_world(hand);
  glm::mat4 hand_frame = hand_world;
  for (int axis = 0; axis < 3; ++axis) hand_frame[axis] = glm::vec4(glm::normalize(glm::vec3(hand_world[axis])), 0.0f);
  const float prop_scale = height / 1.8f;  // 0.5 units long on the built-in character
  draw_box(hand_frame * glm::scale(glm::translate(glm::mat4(1.0f), {0.0f, -0.25f * prop_scale, 0.0f}),
                                   glm::vec3(0.03f, 0.5f, 0.03f) * prop_scale),
           {0.9f, 0.85f, 0.2f, 1.0f});

  std::vector<std::uint8_t> rgba(std::size_t{kWidth} * kHeight * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, kWidth, kHeight, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  std::vector<std::uint8_t> top_first(rgba.size());  // GL rows are bottom first
  const std::size_t row = std::size_t{kWidth} * 4;
  for (int y = 0; y < kHeight; ++y)
    std::copy_n(rgba.data() + row * static_cast<std::size_t>(kHeight - 1 - y), row,
                top_first.data() + row * static_cast<std::size_t>(y));
  write_png(out, kWidth, kHeight, top_first);

  const glm::vec3 prop = glm::vec3(hand_world[3]);
  std::printf(
      "%u crowd draws into the application's framebuffer; state kept; prop at (%.3f, %.3f, "
      "%.3f); wrote %s\n",
      draws, prop.x, prop.y, prop.z, out.c_str());

  renderer.destroy();
  glDeleteBuffers(1, &vbo);
  glDeleteVertexArrays(1, &vao);
  glDeleteProgram(program);
  glDeleteFramebuffers(1, &framebuffer);
  glDeleteRenderbuffers(1, &depth);
  glDeleteRenderbuffers(1, &color);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gltf_crowd_embed: %s\n", e.what());
  return 1;
}
