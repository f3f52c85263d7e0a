// Layer 5, gl, platform part: the headless EGL context, the offscreen framebuffer and the PNG
// writer the tools and tests need, and the count of live GL objects. Nothing here knows about
// crowds; the renderers are in gltf_crowd/gl_renderers.hpp, and gltf_crowd/gl.hpp includes both.
//
// Every call that touches GL needs the context that was current at construction to be current.
// Failures throw Error whose path names the failing EGL/GL call or object (e.g.
// "eglCreateContext") and whose rule is a stable identifier ("egl_call_failed",
// "framebuffer_incomplete", ...). Framebuffer changes GL state as its methods say.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// Which client API and version a HeadlessContext requests. Mesa hands out the highest
// compatible version (a 3.3 request gets 4.5, an ES 3.0 request ES 3.2; docs/platform.md P4), so
// this is a minimum, not a cap.
enum class GlApi : std::uint8_t {
  gl43_core,  // desktop OpenGL 4.3 core: palettes in shader storage buffers
  gl33_core,  // desktop OpenGL 3.3 core: palettes in RGBA32F textures
  gles30,     // OpenGL ES 3.0: palettes in RGBA32F textures
};

// Which EGL platform a HeadlessContext opens its display on.
enum class EglPlatform : std::uint8_t {
  automatic,    // surfaceless when the EGL client offers it, else device
  surfaceless,  // EGL_PLATFORM_SURFACELESS_MESA (Mesa; docs/platform.md §2)
  device,       // EGL_PLATFORM_DEVICE_EXT on the first enumerated device (also vendor drivers)
};

// Options of a HeadlessContext. Defaults: OpenGL 4.3 core, automatic platform, no debug context.
// To cap Mesa at the requested version (to prove 3.3 / ES 3.0 compatibility), set
// MESA_GL_VERSION_OVERRIDE=3.3 or MESA_GLES_VERSION_OVERRIDE=3.0 before the process creates its
// first context: Mesa reads them once per process.
struct HeadlessOptions {
  GlApi api = GlApi::gl43_core;
  EglPlatform platform = EglPlatform::automatic;
  // Request EGL_CONTEXT_OPENGL_DEBUG and install a KHR_debug callback that counts
  // GL_DEBUG_TYPE_ERROR messages (debug_error_count); needs KHR_debug (GL 4.3 / the extension).
  bool debug = false;
};

// A headless EGL context without any surface (EGL_KHR_surfaceless_context, configless through
// EGL_KHR_no_config_context), made current on the calling thread at construction. No display
// server or window is needed; draw into a Framebuffer. Throws Error (rule "egl_call_failed" or
// "egl_extension_missing") naming the EGL call that failed; with debug, rule
// "gl_extension_missing" when the context lacks KHR_debug. Destruction releases and destroys
// the context; an EGL display is terminated when the last HeadlessContext using it goes.
class HeadlessContext {
 public:
  explicit HeadlessContext(const HeadlessOptions& options = {});
  ~HeadlessContext();
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  // Makes this context current on the calling thread. Throws Error on failure.
  void make_current() const;
  GlApi api() const noexcept { return api_; }
  // The platform actually used (never automatic).
  EglPlatform platform() const noexcept { return platform_; }
  // GL_VERSION, GL_RENDERER and GL_SHADING_LANGUAGE_VERSION, read at construction.
  const std::string& version() const noexcept { return version_; }
  const std::string& renderer() const noexcept { return renderer_; }
  const std::string& shading_language_version() const noexcept { return glsl_version_; }
  // Debug contexts: GL_DEBUG_TYPE_ERROR messages received so far, and the first few of their
  // texts (at most 16) for failure messages. Always 0 / empty without HeadlessOptions::debug.
  std::size_t debug_error_count() const noexcept;
  std::vector<std::string> debug_errors() const;

  struct DebugLog;  // what the KHR_debug callback writes, private to the implementation

 private:
  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
  GlApi api_ = GlApi::gl43_core;
  EglPlatform platform_ = EglPlatform::surfaceless;
  std::string version_;
  std::string renderer_;
  std::string glsl_version_;
  std::unique_ptr<DebugLog> debug_log_;  // stable address: the callback's user parameter
};

// What a Framebuffer's color buffer holds.
enum class FramebufferColor : std::uint8_t {
  rgba8,  // 8 bits per RGBA channel (images; read_pixels)
  rg16f,  // two 16-bit floats: motion vectors (CrowdRenderer::draw_velocity; read_motion). On
          // OpenGL ES it needs EXT_color_buffer_half_float or _float, else "framebuffer_incomplete".
};

// Options of a Framebuffer. Defaults: 640 × 480 RGBA8, no multisampling.
struct FramebufferOptions {
  std::uint32_t width = 640;   // pixels, 1..GL_MAX_RENDERBUFFER_SIZE
  std::uint32_t height = 480;  // pixels
  std::uint32_t samples = 0;   // 0 or 1 = single-sampled; more = MSAA, resolved on read
  FramebufferColor color = FramebufferColor::rgba8;
};

// An offscreen render target: RGBA8 or RG16F color + 24-bit depth, optionally multisampled with
// a single-sampled resolve target. Needs a current GL 3.3+ / ES 3.0+ context.
// Throws Error (rule "framebuffer_incomplete", "invalid_size" or "gl_call_failed").
// Unlike the renderers it changes GL state and leaves it changed, as each method says; the
// constructor leaves GL_RENDERBUFFER bound to one of its renderbuffers and calls bind().
class Framebuffer {
 public:
  explicit Framebuffer(const FramebufferOptions& options = {});
  ~Framebuffer();
  Framebuffer(const Framebuffer&) = delete;
  Framebuffer& operator=(const Framebuffer&) = delete;

  // Binds the framebuffer to GL_FRAMEBUFFER (draw and read) and sets the viewport to its full
  // size.
  void bind() const;
  // Binds, then clears color to `rgba` (components in [0, 1]) and depth to 1. Leaves the color
  // and depth write masks on, the scissor test off, and the clear color and depth set.
  void clear(const glm::vec4& rgba) const;
  // Resolves (when multisampled) and reads the color: width × height × 4 bytes, RGBA8, the top
  // row first (image order, ready for write_png). Leaves this framebuffer bound (bind()) and
  // GL_PACK_ALIGNMENT at 1. Needs no GL_PIXEL_PACK_BUFFER bound (else Error "gl_call_failed").
  // Error "framebuffer_format" for an RG16F framebuffer.
  std::vector<std::uint8_t> read_pixels() const;
  // The same for an RG16F framebuffer (Error "framebuffer_format" for RGBA8): width × height
  // (red, green) pairs as floats, the top row first, e.g. draw_velocity's motion per pixel.
  std::vector<glm::vec2> read_motion() const;

  std::uint32_t width() const noexcept { return width_; }
  std::uint32_t height() const noexcept { return height_; }
  std::uint32_t samples() const noexcept { return samples_; }
  FramebufferColor color() const noexcept { return color_; }
  // Deletes every GL object; idempotent. Later calls throw Error (rule "destroyed").
  void destroy() noexcept;

 private:
  struct Objects;
  std::unique_ptr<Objects> objects_;
  std::uint32_t width_ = 0;
  std::uint32_t height_ = 0;
  std::uint32_t samples_ = 0;
  FramebufferColor color_ = FramebufferColor::rgba8;
};

// Writes `rgba` (width × height × 4 bytes, top row first) as a PNG file.
// Throws Error (path = the file, rule "png_write_failed" or "invalid_size").
void write_png(const std::filesystem::path& file, std::uint32_t width, std::uint32_t height,
               std::span<const std::uint8_t> rgba);

// Number of GL objects (buffers, vertex arrays, textures, framebuffers, renderbuffers, shaders,
// programs) that this library has created and not yet deleted, over the whole process. A
// diagnostic for tests: after every CrowdRenderer and Framebuffer is destroyed it is 0.
std::size_t gl_object_count() noexcept;

}  // namespace gltf_crowd
GLTF_CROWD_API_END
