// Motion vectors (docs/spec.md §6.4): CrowdRenderer::draw_velocity with both palette storages
// and with the GPU evaluator. The expected motion comes from the projection of a known
// translation: an orthographic camera maps a world translation d to the same motion
// ½ · (P · V · (d, 0)).xy in texture coordinates at every pixel the actor covers. The parity
// with ReferenceRenderer::draw_velocity on real assets is in reference_parity_test.cpp.
#include <cmath>
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <epoxy/gl.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <gtest/gtest.h>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"
#include "gl_program.hpp"

namespace gltf_crowd {
namespace {

constexpr std::uint32_t width = 96;
constexpr std::uint32_t height = 96;
constexpr glm::vec2 kEmpty{9.0f, 9.0f};  // cleared into the target: no surface was drawn there

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

// The character (1.8 units tall, on y = 0) seen from the front, orthographically.
Camera front_camera() {
  Camera camera;
  camera.view = glm::lookAt(glm::vec3(0.0f, 1.0f, 6.0f), glm::vec3(0.0f, 1.0f, 0.0f), glm::vec3(0.0f, 1.0f, 0.0f));
  camera.projection = glm::ortho(-2.0f, 2.0f, -2.0f, 2.0f, 0.1f, 20.0f);
  return camera;
}

// The motion one draw_velocity writes into a fresh RG16F target cleared to kEmpty.
template <class Renderer>
std::vector<glm::vec2> draw_motion(Renderer& renderer, const Crowd& crowd, const Camera& camera,
                                   const Camera& previous_camera) {
  Framebuffer target({.width = width, .height = height, .color = FramebufferColor::rg16f});
  target.clear(glm::vec4(kEmpty, 0.0f, 0.0f));
  renderer.draw_velocity(crowd, camera, previous_camera);
  return target.read_motion();
}

// How many covered pixels there are, and how many of them differ from `expected` by more than
// `tolerance` in either component.
struct MotionCheck {
  std::size_t covered = 0;
  std::size_t wrong = 0;
  glm::vec2 first_wrong{0.0f};
};

MotionCheck check_motion(const std::vector<glm::vec2>& motion, glm::vec2 expected, float tolerance) {
  MotionCheck check;
  for (const glm::vec2& m : motion) {
    if (m == kEmpty) continue;
    ++check.covered;
    if (std::abs(m.x - expected.x) > tolerance || std::abs(m.y - expected.y) > tolerance) {
      if (check.wrong++ == 0) check.first_wrong = m;
    }
  }
  return check;
}

struct Mode {
  const char* name;
  PaletteStorage storage;
  Animation animation;
  GlApi api = GlApi::gl43_core;
};

// gtest prints parameters of failing tests with this.
void PrintTo(const Mode& mode, std::ostream* os) { *os << mode.name; }

class MotionVectors : public ::testing::TestWithParam<Mode> {};

INSTANTIATE_TEST_SUITE_P(Paths, MotionVectors,
                         ::testing::Values(Mode{"storage", PaletteStorage::storage_buffer, Animation::cpu},
                                           Mode{"texture", PaletteStorage::texture, Animation::cpu},
                                           Mode{"gpu_storage", PaletteStorage::storage_buffer, Animation::gpu},
                                           Mode{"gpu_texture", PaletteStorage::texture, Animation::gpu},
                                           Mode{"es_texture", PaletteStorage::texture, Animation::cpu, GlApi::gles30}),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

// Half floats keep 11 significant bits: motions below 0.5 are stored within 2.5e-4.
constexpr float kTolerance = 1e-3f;

TEST_P(MotionVectors, ATranslatedActorMovesByItsProjectedTranslation) {
  const Mode& mode = GetParam();
  HeadlessContext context({.api = mode.api, .debug = true});
  Crowd crowd(character(), {.capacity = 2, .animation = mode.animation});
  Actor actor = crowd.add_actor({.clip = "Idle", .playing = false});
  crowd.update(0.0f);
  CrowdRenderer renderer(crowd, {.palette = mode.storage});
  const Camera camera = front_camera();
  const glm::mat4 view_projection = camera.projection * camera.view;

  // The first draw_velocity has no earlier frame: nothing moves.
  MotionCheck first = check_motion(draw_motion(renderer, crowd, camera, camera), glm::vec2(0.0f), 0.0f);
  EXPECT_GT(first.covered, 300u);
  EXPECT_EQ(first.wrong, 0u) << "first wrong motion " << first.first_wrong.x << ", " << first.first_wrong.y;

  // One frame later the actor stands `d` further: every covered pixel moved by d's projection.
  const glm::vec3 d(0.3f, -0.2f, 0.5f);
  actor.set_transform(glm::translate(glm::mat4(1.0f), d));
  crowd.update(0.0f);
  const glm::vec2 expected = 0.5f * glm::vec2(view_projection * glm::vec4(d, 0.0f));
  ASSERT_GT(glm::length(expected), 0.05f);
  MotionCheck moved = check_motion(draw_motion(renderer, crowd, camera, camera), expected, kTolerance);
  EXPECT_GT(moved.covered, 300u);
  EXPECT_EQ(moved.wrong, 0u) << "expected " << expected.x << ", " << expected.y << "; first wrong "
                             << moved.first_wrong.x << ", " << moved.first_wrong.y;

  // A frame where nothing moves: the previous frame is the last one, not the first.
  crowd.update(0.0f);
  MotionCheck still = check_motion(draw_motion(renderer, crowd, camera, camera), glm::vec2(0.0f), kTolerance);
  EXPECT_GT(still.covered, 300u);
  EXPECT_EQ(still.wrong, 0u) << "first wrong motion " << still.first_wrong.x << ", " << still.first_wrong.y;

  // Only the camera moves, by e: the scene moves by −e on screen. Two passes in one frame (a
  // depth pass first) keep the same previous frame.
  const glm::vec3 e(-0.25f, 0.1f, 0.0f);
  Camera moved_camera = camera;
  moved_camera.view = camera.view * glm::translate(glm::mat4(1.0f), -e);
  crowd.update(0.0f);
  {
    Framebuffer depth_target({.width = width, .height = height});
    depth_target.clear(glm::vec4(0.0f));
    renderer.draw_depth(crowd, moved_camera);
  }
  const glm::vec2 camera_motion = 0.5f * glm::vec2(view_projection * glm::vec4(-e, 0.0f));
  MotionCheck panned = check_motion(draw_motion(renderer, crowd, moved_camera, camera), camera_motion, kTolerance);
  EXPECT_GT(panned.covered, 300u);
  EXPECT_EQ(panned.wrong, 0u) << "expected " << camera_motion.x << ", " << camera_motion.y << "; first wrong "
                              << panned.first_wrong.x << ", " << panned.first_wrong.y;
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// An actor added in this frame has no previous frame: it moves with the camera only, while the
// actor moved into a removed actor's slot keeps its own motion.
TEST_P(MotionVectors, ActorsAddedAndMovedBetweenFramesKeepTheirOwnMotion) {
  const Mode& mode = GetParam();
  HeadlessContext context({.api = mode.api, .debug = true});
  Crowd crowd(character(), {.capacity = 4, .animation = mode.animation});
  // Three actors side by side; the first will be removed, which moves the last into its slot.
  std::vector<Actor> actors;
  for (int i = 0; i < 3; ++i) {
    actors.push_back(crowd.add_actor(
        {.id = "actor" + std::to_string(i),
         .clip = "Idle",
         .playing = false,
         .transform = glm::translate(glm::mat4(1.0f), glm::vec3(1.2f * static_cast<float>(i - 1), 0, 0))}));
  }
  crowd.update(0.0f);
  CrowdRenderer renderer(crowd, {.palette = mode.storage});
  const Camera camera = front_camera();
  draw_motion(renderer, crowd, camera, camera);

  ASSERT_TRUE(crowd.remove_actor("actor0"));  // actor2 moves into slot 0
  const glm::vec3 d(0.0f, 0.3f, 0.0f);
  actors[2].set_transform(glm::translate(glm::mat4(1.0f), glm::vec3(1.2f, 0, 0) + d));
  crowd.add_actor({.id = "newcomer",
                   .clip = "Idle",
                   .playing = false,
                   .transform = glm::translate(glm::mat4(1.0f), glm::vec3(-1.2f, 0, 0))});
  crowd.update(0.0f);
  const std::vector<glm::vec2> motion = draw_motion(renderer, crowd, camera, camera);
  // Columns: the newcomer left (x < 1/3 of the width), actor1 in the middle, actor2 right.
  const glm::vec2 expected = 0.5f * glm::vec2(camera.projection * camera.view * glm::vec4(d, 0.0f));
  std::size_t left = 0, middle = 0, right = 0, wrong = 0;
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      const glm::vec2 m = motion[std::size_t{y} * width + x];
      if (m == kEmpty) continue;
      const bool is_right = x > 2 * width / 3, is_left = x < width / 3;
      (is_left ? left : is_right ? right : middle) += 1;
      const glm::vec2 want = is_right ? expected : glm::vec2(0.0f);
      wrong += glm::length(m - want) > kTolerance ? 1 : 0;
    }
  }
  EXPECT_GT(left, 100u);
  EXPECT_GT(middle, 100u);
  EXPECT_GT(right, 100u);
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// The previous frame's node streams are the arrays the last frame drew, kept without a copy.
TEST_P(MotionVectors, PreviousStreamsAreTheLastFramesStreams) {
  const Mode& mode = GetParam();
  if (mode.api == GlApi::gles30) GTEST_SKIP() << "reading textures back needs desktop OpenGL (glGetTexImage)";
  HeadlessContext context;
  Crowd crowd(character(), {.capacity = 3, .animation = mode.animation});
  for (int i = 0; i < 3; ++i) crowd.add_actor({.clip = "Walking", .phase = 0.3f * static_cast<float>(i)});
  crowd.update(0.1f);
  CrowdRenderer renderer(crowd, {.palette = mode.storage});
  const Camera camera = front_camera();
  draw_motion(renderer, crowd, camera, camera);
  EXPECT_TRUE(renderer.read_previous_node_streams(crowd).empty()) << "no earlier frame yet";
  const std::vector<NodeStream> first = renderer.read_node_streams(crowd);

  crowd.update(0.1f);
  draw_motion(renderer, crowd, camera, camera);
  const std::vector<NodeStream> previous = renderer.read_previous_node_streams(crowd);
  const std::vector<NodeStream> second = renderer.read_node_streams(crowd);
  ASSERT_EQ(previous.size(), first.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(previous[i].transforms, first[i].transforms) << "stream " << i;
    EXPECT_EQ(previous[i].palette, first[i].palette) << "stream " << i;
    EXPECT_EQ(previous[i].weights, first[i].weights) << "stream " << i;
  }
  EXPECT_NE(second.front().palette, first.front().palette) << "the clock moved: the palette did too";

  // A plain draw of the next frame swaps the sets too; the third frame's current set was the
  // first's, brought up to date.
  crowd.update(0.1f);
  {
    Framebuffer target({.width = width, .height = height});
    target.clear(glm::vec4(0.0f));
    renderer.draw(crowd, camera);
  }
  const std::vector<NodeStream> after = renderer.read_previous_node_streams(crowd);
  ASSERT_EQ(after.size(), second.size());
  for (std::size_t i = 0; i < second.size(); ++i) EXPECT_EQ(after[i].palette, second[i].palette) << "stream " << i;
  if (mode.animation == Animation::cpu) {
    const std::vector<NodeStream> third = renderer.read_node_streams(crowd);
    for (std::size_t i = 0; i < third.size(); ++i) {
      EXPECT_EQ(third[i].palette, crowd.node_streams()[i].palette) << "stream " << i;
      EXPECT_EQ(third[i].transforms, crowd.node_streams()[i].transforms) << "stream " << i;
    }
  }
}

// An application's own motion-vector shader, built on the published include with
// GLTF_CROWD_PREVIOUS_FRAME and drawn through bind_group_inputs on a renderer that keeps the
// previous frame from the start (CrowdRendererOptions::previous_frame, never calling
// draw_velocity), writes the motion draw_velocity writes, also across a frame that removed and
// added actors (the slot remap).
constexpr const char* kMotionVertex = R"glsl(
uniform mat4 view_projection;
uniform mat4 previous_view_projection;
out vec4 clip;
out vec4 previous_clip;
void main() {
  GltfCrowdVertex vertex = gltf_crowd_vertex();
  clip = view_projection * vertex.position;
  previous_clip = previous_view_projection * gltf_crowd_previous_position(vertex.slot, vertex.position);
  gl_Position = clip;
}
)glsl";
constexpr const char* kMotionFragment = R"glsl(
in vec4 clip;
in vec4 previous_clip;
out vec2 motion;
void main() { motion = 0.5 * (clip.xy / clip.w - previous_clip.xy / previous_clip.w); }
)glsl";

TEST_P(MotionVectors, AnApplicationsShaderReadsThePreviousFrameThroughBindGroupInputs) {
  const Mode& mode = GetParam();
  HeadlessContext context({.api = mode.api, .debug = true});
  Crowd crowd(character(), {.capacity = 4, .animation = mode.animation});
  for (int i = 0; i < 3; ++i) {
    crowd.add_actor({.id = "actor" + std::to_string(i),
                     .clip = "Walking",
                     .phase = 0.3f * static_cast<float>(i),
                     .transform = glm::translate(glm::mat4(1.0f), glm::vec3(1.2f * static_cast<float>(i - 1), 0, 0))});
  }
  crowd.update(0.1f);
  CrowdRenderer renderer(crowd, {.palette = mode.storage, .previous_frame = true});
  const bool buffers = renderer.palette_storage() == PaletteStorage::storage_buffer;
  const std::string version = buffers ? "#version 430 core\n"
                              : !epoxy_is_desktop_gl()
                                  ? "#version 300 es\nprecision highp float;\nprecision highp int;\n"
                                    "precision highp sampler2D;\n"
                                  : "#version 330 core\n";
  const GLuint program =
      test::link_program(version + (buffers ? "#define GLTF_CROWD_STORAGE_BUFFERS 1\n" : "") +
                             "#define GLTF_CROWD_PREVIOUS_FRAME 1\n" + crowd_skinning_glsl() + kMotionVertex,
                         version + kMotionFragment);
  const Camera camera = front_camera();
  Camera previous_camera = camera;
  const auto draw_own = [&] {
    Framebuffer target({.width = width, .height = height, .color = FramebufferColor::rg16f});
    target.clear(glm::vec4(kEmpty, 0.0f, 0.0f));
    renderer.animate(crowd);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    for (std::size_t g = 0; g < crowd.primitive_groups().size(); ++g) {
      const GroupInputs inputs = renderer.bind_group_inputs(crowd, g, program);
      if (inputs.instance_count == 0 || inputs.blended) continue;
      const glm::mat4 view_projection = camera.projection * camera.view;
      const glm::mat4 previous_view_projection = previous_camera.projection * previous_camera.view;
      glUniformMatrix4fv(glGetUniformLocation(program, "view_projection"), 1, GL_FALSE,
                         glm::value_ptr(view_projection));
      glUniformMatrix4fv(glGetUniformLocation(program, "previous_view_projection"), 1, GL_FALSE,
                         glm::value_ptr(previous_view_projection));
      glDrawElementsInstanced(inputs.mode, inputs.index_count, inputs.index_type, nullptr, inputs.instance_count);
    }
    glDisable(GL_DEPTH_TEST);
    glBindVertexArray(0);
    return target.read_motion();
  };
  const auto differing = [](const std::vector<glm::vec2>& a, const std::vector<glm::vec2>& b) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const bool covered = a[i] != kEmpty;
      count += covered != (b[i] != kEmpty) || (covered && glm::length(a[i] - b[i]) > kTolerance) ? 1 : 0;
    }
    return count;
  };
  draw_own();  // the first frame: the previous frame is this one

  crowd.update(0.1f);  // the clock moves every actor's pose
  previous_camera.view = camera.view * glm::translate(glm::mat4(1.0f), glm::vec3(0.1f, 0.0f, 0.0f));
  std::vector<glm::vec2> own = draw_own();
  std::vector<glm::vec2> velocity = draw_motion(renderer, crowd, camera, previous_camera);
  EXPECT_GT(check_motion(velocity, glm::vec2(0.0f), kTolerance).wrong, 300u) << "nothing moved";
  EXPECT_LE(differing(own, velocity), own.size() / 200);

  ASSERT_TRUE(crowd.remove_actor("actor0"));
  crowd.add_actor(
      {.id = "newcomer", .clip = "Running", .transform = glm::translate(glm::mat4(1.0f), glm::vec3(-1.2f, 0, 0))});
  crowd.update(0.1f);
  own = draw_own();
  velocity = draw_motion(renderer, crowd, camera, previous_camera);
  EXPECT_LE(differing(own, velocity), own.size() / 200);
  glDeleteProgram(program);
  EXPECT_EQ(context.debug_error_count(), 0u) << (context.debug_errors().empty() ? "" : context.debug_errors().front());
}

// A renderer that keeps the previous frame from construction has none before its first pass:
// the frame the crowd advanced to before it was never drawn.
TEST(PreviousFrame, ARendererHasNoPreviousFrameBeforeItsFirstPass) {
  HeadlessContext context;
  Crowd crowd(character(), {.capacity = 2});
  crowd.add_actor({.clip = "Walking"});
  crowd.update(0.1f);
  CrowdRenderer renderer(crowd, {.previous_frame = true});
  crowd.update(0.1f);
  renderer.animate(crowd);
  EXPECT_TRUE(renderer.read_previous_node_streams(crowd).empty());
  const std::vector<NodeStream> first = renderer.read_node_streams(crowd);
  crowd.update(0.1f);
  renderer.animate(crowd);
  const std::vector<NodeStream> previous = renderer.read_previous_node_streams(crowd);
  ASSERT_EQ(previous.size(), first.size());
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(previous[i].palette, first[i].palette) << "stream " << i;
}

TEST(MotionTarget, ReadingTheOtherFormatIsAnError) {
  HeadlessContext context;
  Framebuffer motion({.width = 8, .height = 8, .color = FramebufferColor::rg16f});
  motion.clear(glm::vec4(0.25f, -0.5f, 0.0f, 0.0f));
  const std::vector<glm::vec2> values = motion.read_motion();
  ASSERT_EQ(values.size(), 64u);
  EXPECT_EQ(values.front(), glm::vec2(0.25f, -0.5f));  // a float target keeps signs and fractions
  try {
    motion.read_pixels();
    ADD_FAILURE() << "read_pixels of an RG16F framebuffer";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "framebuffer_format");
  }
  Framebuffer image({.width = 8, .height = 8});
  try {
    image.read_motion();
    ADD_FAILURE() << "read_motion of an RGBA8 framebuffer";
  } catch (const Error& e) {
    EXPECT_EQ(e.rule(), "framebuffer_format");
  }
}

}  // namespace
}  // namespace gltf_crowd
