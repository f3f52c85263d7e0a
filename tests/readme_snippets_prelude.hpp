// What README.md's C++ snippets use without declaring it, for the translation unit that
// cmake/readme_snippets.cmake makes of them: each snippet is the body of run() in a class
// deriving from Context, so these names are in scope as they would be in the reader's program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <epoxy/gl.h>
#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "gltf_crowd/jobs.hpp"

namespace gltf_crowd::readme {

struct Context {
  // What the first snippet sets up and the later ones use.
  std::shared_ptr<const Asset> asset;
  Crowd& crowd;
  CrowdRenderer& renderer;
  Camera camera;
  float delta_seconds = 1.0f / 60.0f;
  // An actor of the crowd: `robot` (poses, layers), `actor` (root motion).
  Actor& robot;
  Actor& actor;
  // Your own shaders.
  GLuint my_program = 0;
  // Application-driven poses.
  std::vector<std::uint32_t> skeleton_nodes;
  std::vector<NodeTransform> ragdoll_transforms;
  std::uint32_t face_node = 0;
  std::vector<float> smile_weights;
  // Shadows and motion vectors: the application's target and cameras.
  Framebuffer& target;
  glm::vec4 background{0.0f, 0.0f, 0.0f, 1.0f};
  Camera previous_camera;
  // The animation runtime without a crowd: which clip, when, and the evaluation's stamp.
  std::size_t clip = 0;
  float seconds = 0.0f;
  std::uint32_t stamp = 1;

  // The application's sound player, in the events snippet.
  template <class... Args>
  void play_sound(const Args&...) {}
};

// One ```cpp block of README.md: its text, and a function that runs it in a Context.
struct ReadmeSnippet {
  std::string_view text;
  void (*run)(Context& context);
};

// Every block, in README order (defined in the generated readme_snippets.cpp).
std::span<const ReadmeSnippet> snippets();

}  // namespace gltf_crowd::readme
