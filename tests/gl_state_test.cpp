// The GL state contract (gl.hpp, "GL state"): constructing a renderer and drawing with it leave
// the application's GL state as the application set it. The test sets a distinctive,
// non-default value for every piece of state the contract names (and some it promises not to
// touch), reads everything back with glGet* after each renderer call and compares it with what
// it read right after setting it. A second test checks that hostile pixel-unpack state and
// sampler objects of the application do not change what the renderers draw.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <epoxy/gl.h>
#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include "gl_program.hpp"
#include "gl_test_assets.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"

namespace gltf_crowd {
namespace {

constexpr GLuint kUnits = 17;     // texture units read back (the renderers use 0..16)
constexpr GLuint kBindings = 12;  // indexed buffer bindings read back (the renderers draw with 0..10)

// Three quads exercising every path of a draw: all five material textures (units 0..4), a
// skinned BLEND quad (blending, no depth writes, palette) and a morphed double-sided quad
// (morph deltas and weights, culling off).
std::shared_ptr<const Asset> busy_asset() {
  const std::vector<std::uint8_t> white(2 * 2 * 4, 255);
  const nlohmann::json texture = {{"index", 0}};
  const nlohmann::json materials = {
      {{"pbrMetallicRoughness", {{"baseColorTexture", texture}, {"metallicRoughnessTexture", texture}}},
       {"normalTexture", texture},
       {"occlusionTexture", texture},
       {"emissiveTexture", texture},
       {"emissiveFactor", {0.2, 0.2, 0.2}}},
      {{"alphaMode", "BLEND"}, {"pbrMetallicRoughness", {{"baseColorFactor", {0, 1, 0, 0.5}}}}},
      {{"doubleSided", true}, {"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 1}}}}}};
  return test::quad_asset({{.translation = {-1.5f, 0, 0}, .material = 0},
                           {.material = 1, .deform = test::QuadDeform::skinned},
                           {.translation = {-1.0f, -1.2f, 0}, .material = 2, .deform = test::QuadDeform::morphed}},
                          materials, {test::png_bytes(2, 2, white)});
}

// Two actors, the second mirrored (det < 0), so each group mixes windings.
void add_actors(Crowd& crowd) {
  crowd.add_actor({.id = "plain"});
  crowd.add_actor(
      {.id = "mirrored",
       .transform = glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(0, 1.5f, 0)), glm::vec3(-1, 1, 1))});
}

Camera camera() {
  Camera c;
  c.projection = glm::ortho(-4.0f, 4.0f, -3.0f, 3.0f, -10.0f, 10.0f);
  c.light_direction = glm::vec3(0.0f, 0.0f, -1.0f);
  return c;
}

// A trivial linked program of the application's own.
GLuint app_program() {
  return test::link_program("#version 330 core\nvoid main() { gl_Position = vec4(0.0); }\n",
                            "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n");
}

GLuint buffer(GLsizeiptr bytes = 1024) {
  GLuint name = 0;
  glGenBuffers(1, &name);
  glBindBuffer(GL_COPY_READ_BUFFER, name);
  glBufferData(GL_COPY_READ_BUFFER, bytes, nullptr, GL_STATIC_DRAW);
  return name;
}

// Every value of `state` the test sets or the contract names, by name.
using StateValues = std::vector<std::pair<std::string, std::vector<GLint64>>>;

StateValues read_state() {
  StateValues out;
  auto ints = [&out](const std::string& name, GLenum pname, int count = 1) {
    std::array<GLint, 4> v{};
    glGetIntegerv(pname, v.data());
    out.emplace_back(name, std::vector<GLint64>(v.begin(), v.begin() + count));
  };
  auto flag = [&out](const std::string& name, GLenum cap) {
    out.emplace_back(name, std::vector<GLint64>{glIsEnabled(cap)});
  };
  ints("program", GL_CURRENT_PROGRAM);
  ints("vertex array", GL_VERTEX_ARRAY_BINDING);
  ints("array buffer", GL_ARRAY_BUFFER_BINDING);
  ints("element array buffer", GL_ELEMENT_ARRAY_BUFFER_BINDING);
  ints("copy read buffer", GL_COPY_READ_BUFFER_BINDING);
  ints("copy write buffer", GL_COPY_WRITE_BUFFER_BINDING);
  ints("pixel unpack buffer", GL_PIXEL_UNPACK_BUFFER_BINDING);
  ints("pixel pack buffer", GL_PIXEL_PACK_BUFFER_BINDING);
  ints("uniform buffer", GL_UNIFORM_BUFFER_BINDING);
  ints("shader storage buffer", GL_SHADER_STORAGE_BUFFER_BINDING);
  ints("renderbuffer", GL_RENDERBUFFER_BINDING);
  ints("draw framebuffer", GL_DRAW_FRAMEBUFFER_BINDING);
  ints("read framebuffer", GL_READ_FRAMEBUFFER_BINDING);
  ints("viewport", GL_VIEWPORT, 4);
  ints("transform feedback", GL_TRANSFORM_FEEDBACK_BINDING);
  ints("transform feedback buffer", GL_TRANSFORM_FEEDBACK_BUFFER_BINDING);
  GLint64 feedback_buffer = 0;
  glGetInteger64i_v(GL_TRANSFORM_FEEDBACK_BUFFER_BINDING, 0, &feedback_buffer);
  out.emplace_back("transform feedback binding 0", std::vector<GLint64>{feedback_buffer});
  flag("rasterizer discard", GL_RASTERIZER_DISCARD);
  for (const auto& [target, name] :
       {std::pair{GL_UNIFORM_BUFFER_BINDING, "uniform"}, std::pair{GL_SHADER_STORAGE_BUFFER_BINDING, "storage"}}) {
    const GLenum start = target == GL_UNIFORM_BUFFER_BINDING ? GL_UNIFORM_BUFFER_START : GL_SHADER_STORAGE_BUFFER_START;
    const GLenum size = target == GL_UNIFORM_BUFFER_BINDING ? GL_UNIFORM_BUFFER_SIZE : GL_SHADER_STORAGE_BUFFER_SIZE;
    for (GLuint i = 0; i < kBindings; ++i) {
      GLint64 b = 0, s = 0, z = 0;
      glGetInteger64i_v(target, i, &b);
      glGetInteger64i_v(start, i, &s);
      glGetInteger64i_v(size, i, &z);
      out.emplace_back(std::string(name) + " binding " + std::to_string(i), std::vector<GLint64>{b, s, z});
    }
  }
  ints("active texture", GL_ACTIVE_TEXTURE);
  GLint active = 0;
  glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
  for (GLuint u = 0; u < kUnits; ++u) {
    glActiveTexture(GL_TEXTURE0 + u);
    ints("texture unit " + std::to_string(u), GL_TEXTURE_BINDING_2D);
    ints("sampler unit " + std::to_string(u), GL_SAMPLER_BINDING);
  }
  glActiveTexture(static_cast<GLenum>(active));
  flag("depth test", GL_DEPTH_TEST);
  ints("depth func", GL_DEPTH_FUNC);
  ints("depth mask", GL_DEPTH_WRITEMASK);
  flag("cull face", GL_CULL_FACE);
  ints("cull face mode", GL_CULL_FACE_MODE);
  ints("front face", GL_FRONT_FACE);
  flag("blend", GL_BLEND);
  ints("blend src rgb", GL_BLEND_SRC_RGB);
  ints("blend dst rgb", GL_BLEND_DST_RGB);
  ints("blend src alpha", GL_BLEND_SRC_ALPHA);
  ints("blend dst alpha", GL_BLEND_DST_ALPHA);
  ints("blend equation rgb", GL_BLEND_EQUATION_RGB);
  ints("blend equation alpha", GL_BLEND_EQUATION_ALPHA);
  flag("polygon offset fill", GL_POLYGON_OFFSET_FILL);
  std::array<GLfloat, 2> offset{};
  glGetFloatv(GL_POLYGON_OFFSET_FACTOR, &offset[0]);
  glGetFloatv(GL_POLYGON_OFFSET_UNITS, &offset[1]);
  out.emplace_back("polygon offset", std::vector<GLint64>{static_cast<GLint64>(offset[0] * 1000),
                                                          static_cast<GLint64>(offset[1] * 1000)});
  ints("color mask", GL_COLOR_WRITEMASK, 4);
  flag("sample alpha to coverage", GL_SAMPLE_ALPHA_TO_COVERAGE);
  flag("scissor test", GL_SCISSOR_TEST);
  ints("unpack alignment", GL_UNPACK_ALIGNMENT);
  ints("unpack row length", GL_UNPACK_ROW_LENGTH);
  ints("unpack skip rows", GL_UNPACK_SKIP_ROWS);
  ints("unpack skip pixels", GL_UNPACK_SKIP_PIXELS);
  ints("pack alignment", GL_PACK_ALIGNMENT);
  for (GLuint a = 0; a < 10; ++a) {
    std::array<GLfloat, 4> v{};
    glGetVertexAttribfv(a, GL_CURRENT_VERTEX_ATTRIB, v.data());
    std::vector<GLint64> scaled;
    for (GLfloat x : v) scaled.push_back(static_cast<GLint64>(x * 1000));
    out.emplace_back("current vertex attribute " + std::to_string(a), scaled);
  }
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR)) << "reading the state back";
  return out;
}

void expect_same(const StateValues& want, const StateValues& got, const std::string& after) {
  ASSERT_EQ(want.size(), got.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(want[i].second, got[i].second) << want[i].first << " changed by " << after;
  }
}

// The value `name` was read as.
std::vector<GLint64> value(const StateValues& state, const std::string& name) {
  for (const auto& [n, v] : state)
    if (n == name) return v;
  ADD_FAILURE() << "no state " << name;
  return {};
}

// The application's own objects, bound with a distinctive state; deleted at the end.
struct AppState {
  GLuint program = 0, vertex_array = 0, feedback = 0;
  std::vector<GLuint> buffers, textures, samplers;

  AppState() {
    program = app_program();
    glUseProgram(program);
    glGenVertexArrays(1, &vertex_array);
    glBindVertexArray(vertex_array);
    auto own = [this] { return buffers.emplace_back(buffer()); };
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, own());  // recorded in the application's vertex array
    glBindBuffer(GL_ARRAY_BUFFER, own());
    glBindBuffer(GL_COPY_WRITE_BUFFER, own());
    for (GLuint i = 0; i < kBindings; ++i) {
      if (i % 2 == 0) {
        glBindBufferBase(GL_UNIFORM_BUFFER, i, own());
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, i, own(), 256, 512);
      } else {
        glBindBufferRange(GL_UNIFORM_BUFFER, i, own(), 256, 256);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, i, own());
      }
    }
    glBindBuffer(GL_UNIFORM_BUFFER, own());
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, own());
    glBindBuffer(GL_COPY_READ_BUFFER, own());
    glGenTransformFeedbacks(1, &feedback);  // what the skinned-vertex cache's capture replaces
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, feedback);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, own());
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, own());
    for (GLuint u = 0; u < kUnits; ++u) {
      GLuint texture = 0, sampler = 0;
      glGenTextures(1, &texture);
      glGenSamplers(1, &sampler);
      textures.push_back(texture);
      samplers.push_back(sampler);
      glActiveTexture(GL_TEXTURE0 + u);
      glBindTexture(GL_TEXTURE_2D, texture);
      glBindSampler(u, sampler);
    }
    glActiveTexture(GL_TEXTURE11);
    glDisable(GL_DEPTH_TEST);
    glDepthFunc(GL_GREATER);
    glDepthMask(GL_FALSE);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_FRONT);
    glFrontFace(GL_CW);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_DST_COLOR, GL_SRC_COLOR, GL_ONE, GL_ZERO);
    glBlendEquationSeparate(GL_FUNC_SUBTRACT, GL_MAX);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(2.0f, 3.0f);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
    glEnable(GL_SAMPLE_ALPHA_TO_COVERAGE);
    glEnable(GL_RASTERIZER_DISCARD);  // the cache's capture turns it on and off
    glPixelStorei(GL_UNPACK_ALIGNMENT, 8);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 7);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 1);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 2);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, own());
    glPixelStorei(GL_PACK_ALIGNMENT, 2);
    for (GLuint a = 0; a < 10; ++a) glVertexAttrib4f(a, 0.5f + static_cast<float>(a), -2.0f, 3.25f, 0.125f);
  }
  ~AppState() {
    glUseProgram(0);
    glDeleteProgram(program);
    glDeleteVertexArrays(1, &vertex_array);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glDeleteTransformFeedbacks(1, &feedback);
    glDeleteBuffers(static_cast<GLsizei>(buffers.size()), buffers.data());
    glDeleteTextures(static_cast<GLsizei>(textures.size()), textures.data());
    glDeleteSamplers(static_cast<GLsizei>(samplers.size()), samplers.data());
  }
};

class GlStateTest : public ::testing::TestWithParam<PaletteStorage> {};

TEST_P(GlStateTest, RenderersLeaveTheApplicationStateAsItWas) {
  HeadlessContext context;
  Framebuffer target({.width = 64, .height = 48});
  target.clear(glm::vec4(0, 0, 0, 1));
  Crowd crowd(busy_asset(), {.capacity = 2});
  add_actors(crowd);
  crowd.update(0.1f);
  {
    AppState app;
    const StateValues want = read_state();
    // The setup took: spot checks of what the test set.
    EXPECT_EQ(value(want, "depth func"), std::vector<GLint64>{GL_GREATER});
    EXPECT_EQ(value(want, "cull face mode"), std::vector<GLint64>{GL_FRONT});
    EXPECT_EQ(value(want, "active texture"), std::vector<GLint64>{GL_TEXTURE11});
    EXPECT_EQ(value(want, "storage binding 2"), (std::vector<GLint64>{app.buffers[8], 256, 512}));
    EXPECT_EQ(value(want, "texture unit 5"), std::vector<GLint64>{app.textures[5]});

    CrowdRenderer renderer(crowd, {.palette = GetParam()});
    expect_same(want, read_state(), "the CrowdRenderer constructor");
    EXPECT_EQ(renderer.draw(crowd, camera()), crowd.primitive_groups().size());
    expect_same(want, read_state(), "CrowdRenderer::draw");
    crowd.update(0.1f);  // a second frame: partial uploads through the renderer's cache
    renderer.draw(crowd, camera());
    expect_same(want, read_state(), "the second CrowdRenderer::draw");
    crowd.reserve(8);  // the next draw creates larger stream objects
    crowd.add_actor();
    crowd.update(0.1f);
    renderer.draw(crowd, camera());
    expect_same(want, read_state(), "CrowdRenderer::draw after reserve");
    renderer.draw_velocity(crowd, camera(), camera());
    expect_same(want, read_state(), "CrowdRenderer::draw_velocity");
    crowd.add_actor();  // a remapped frame: the previous slots are bound too
    crowd.update(0.1f);
    renderer.draw_velocity(crowd, camera(), camera());
    expect_same(want, read_state(), "the second CrowdRenderer::draw_velocity");

    // The skinned-vertex cache captures by transform feedback (with rasterizer discard on
    // meanwhile) and draws from binding 10 or unit 16.
    CrowdRenderer cached(crowd, {.palette = GetParam(), .skinned_vertex_cache = true});
    expect_same(want, read_state(), "the constructor with skinned_vertex_cache");
    cached.animate(crowd);
    EXPECT_GT(cached.stats().cached_vertices, 0u);
    expect_same(want, read_state(), "CrowdRenderer::animate with skinned_vertex_cache");
    EXPECT_GT(cached.draw_depth(crowd, camera()), 0u);
    expect_same(want, read_state(), "CrowdRenderer::draw_depth with skinned_vertex_cache");
    crowd.add_actor();  // new slot lists: the main pass skins again
    crowd.update(0.1f);
    EXPECT_GT(cached.draw(crowd, camera()), 0u);
    EXPECT_GT(cached.stats().cached_vertices, 0u);
    expect_same(want, read_state(), "CrowdRenderer::draw with skinned_vertex_cache");
    cached.destroy();

    ReferenceRenderer reference(crowd);
    expect_same(want, read_state(), "the ReferenceRenderer constructor");
    EXPECT_GT(reference.draw(crowd, camera()), 0u);
    expect_same(want, read_state(), "ReferenceRenderer::draw");
    EXPECT_GT(reference.draw_velocity(crowd, camera(), camera()), 0u);
    expect_same(want, read_state(), "ReferenceRenderer::draw_velocity");

    renderer.destroy();
    reference.destroy();
    expect_same(want, read_state(), "destroy()");
    EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  }
}

// The pixels of one CrowdRenderer draw and one ReferenceRenderer draw of `crowd`.
std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>> draw_both(const Crowd& crowd, PaletteStorage storage,
                                                                          const Framebuffer& target) {
  std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>> out;
  CrowdRenderer renderer(crowd, {.palette = storage});
  ReferenceRenderer reference(crowd);
  target.clear(glm::vec4(0, 0, 0, 1));
  renderer.draw(crowd, camera());
  out.first = target.read_pixels();
  target.clear(glm::vec4(0, 0, 0, 1));
  reference.draw(crowd, camera());
  out.second = target.read_pixels();
  return out;
}

// Uploads must not read through the application's pixel-unpack state, and data textures must
// not be sampled through its sampler objects: the images equal those drawn from default state.
TEST_P(GlStateTest, ApplicationUploadAndSamplerStateDoesNotChangeTheImage) {
  HeadlessContext context;
  Framebuffer target({.width = 64, .height = 48});
  Crowd crowd(busy_asset(), {.capacity = 2});
  add_actors(crowd);
  crowd.update(0.1f);
  const auto plain = draw_both(crowd, GetParam(), target);
  const auto lit = [](const std::vector<std::uint8_t>& rgba) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < rgba.size(); i += 4) n += rgba[i] > 0 || rgba[i + 1] > 0 || rgba[i + 2] > 0;
    return n;
  };
  ASSERT_GT(lit(plain.first), 100u) << "the quads are drawn";
  GLuint unpack = buffer(64), samplers[10] = {};
  glGenSamplers(10, samplers);
  for (GLuint u = 0; u < 10; ++u) {
    glSamplerParameteri(samplers[u], GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);  // incomplete data textures
    glBindSampler(u, samplers[u]);
  }
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, unpack);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 8);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 7);
  glPixelStorei(GL_UNPACK_SKIP_ROWS, 1);
  glPixelStorei(GL_UNPACK_SKIP_PIXELS, 2);
  glBlendEquation(GL_FUNC_REVERSE_SUBTRACT);
  const auto hostile = draw_both(crowd, GetParam(), target);
  EXPECT_TRUE(plain.first == hostile.first) << "CrowdRenderer image";
  EXPECT_TRUE(plain.second == hostile.second) << "ReferenceRenderer image";
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glDeleteBuffers(1, &unpack);
  glDeleteSamplers(10, samplers);
}

INSTANTIATE_TEST_SUITE_P(Storages, GlStateTest,
                         ::testing::Values(PaletteStorage::storage_buffer, PaletteStorage::texture),
                         [](const auto& test_info) { return std::string(palette_storage_name(test_info.param)); });

}  // namespace
}  // namespace gltf_crowd
