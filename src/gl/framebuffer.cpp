// Offscreen render target: RGBA8 or RG16F + DEPTH24 renderbuffers, optionally multisampled and resolved
// with glBlitFramebuffer into a single-sampled copy before glReadPixels.
#include "gltf_crowd/gl_platform.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gl/gl_object.hpp"

namespace gltf_crowd {

struct Framebuffer::Objects {
  gl::Object framebuffer;  // what draws go to (multisampled when samples > 1)
  gl::Object color;
  gl::Object depth;
  gl::Object resolve_framebuffer;  // single-sampled copy read by read_pixels, MSAA only
  gl::Object resolve_color;
  void* egl_context = nullptr;  // context current at creation, to skip deletes once it died
};

namespace {

const char* status_name(GLenum status) {
  switch (status) {
    case GL_FRAMEBUFFER_UNDEFINED: return "GL_FRAMEBUFFER_UNDEFINED";
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
    case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
    default: return "unknown status";
  }
}

gl::Object make_storage(GLenum format, std::uint32_t samples, std::uint32_t width, std::uint32_t height) {
  gl::Object renderbuffer = gl::make_renderbuffer();
  glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer.name());
  if (samples > 1) {
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, static_cast<GLsizei>(samples), format,
                                     static_cast<GLsizei>(width), static_cast<GLsizei>(height));
    gl::check_gl("glRenderbufferStorageMultisample");
  } else {
    glRenderbufferStorage(GL_RENDERBUFFER, format, static_cast<GLsizei>(width), static_cast<GLsizei>(height));
    gl::check_gl("glRenderbufferStorage");
  }
  return renderbuffer;
}

gl::Object make_target(const gl::Object& color, const gl::Object* depth) {
  gl::Object framebuffer = gl::make_framebuffer();
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer.name());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color.name());
  if (depth != nullptr) {
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth->name());
  }
  gl::check_gl("glFramebufferRenderbuffer");
  GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    throw Error("glCheckFramebufferStatus", Rule::framebuffer_incomplete,
                fmt::format("framebuffer incomplete: {} (0x{:04X})", status_name(status), status));
  }
  return framebuffer;
}

}  // namespace

Framebuffer::Framebuffer(const FramebufferOptions& options)
    : width_(options.width), height_(options.height), samples_(options.samples), color_(options.color) {
  GLint max_size = 0, max_samples = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  gl::check_gl("glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE)");
  auto too_big = [&](std::uint32_t v) { return v == 0 || v > static_cast<std::uint32_t>(max_size); };
  if (too_big(width_) || too_big(height_)) {
    throw Error("FramebufferOptions.width/height", Rule::invalid_size,
                fmt::format("{} x {} is outside 1..{} (GL_MAX_RENDERBUFFER_SIZE)", width_, height_, max_size));
  }
  if (samples_ > static_cast<std::uint32_t>(max_samples)) {
    throw Error("FramebufferOptions.samples", Rule::invalid_size,
                fmt::format("{} samples exceed GL_MAX_SAMPLES = {}", samples_, max_samples));
  }

  auto objects = std::make_unique<Objects>();
  objects->egl_context = gl::current_egl_context();
  const GLenum format = color_ == FramebufferColor::rg16f ? GL_RG16F : GL_RGBA8;
  objects->color = make_storage(format, samples_, width_, height_);
  objects->depth = make_storage(GL_DEPTH_COMPONENT24, samples_, width_, height_);
  objects->framebuffer = make_target(objects->color, &objects->depth);
  if (samples_ > 1) {
    objects->resolve_color = make_storage(format, 0, width_, height_);
    objects->resolve_framebuffer = make_target(objects->resolve_color, nullptr);
  }
  objects_ = std::move(objects);
  bind();
}

Framebuffer::~Framebuffer() { destroy(); }

void Framebuffer::bind() const {
  if (!objects_) throw Error("Framebuffer", Rule::destroyed, "the framebuffer was destroyed");
  glBindFramebuffer(GL_FRAMEBUFFER, objects_->framebuffer.name());
  glViewport(0, 0, static_cast<GLsizei>(width_), static_cast<GLsizei>(height_));
}

void Framebuffer::clear(const glm::vec4& rgba) const {
  bind();
  // Clears obey the write masks; make sure a previous draw's state cannot block them.
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glDepthMask(GL_TRUE);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(rgba.r, rgba.g, rgba.b, rgba.a);
  if (epoxy_is_desktop_gl()) {
    glClearDepth(1.0);
  } else {
    glClearDepthf(1.0f);  // OpenGL ES has only the float variant
  }
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  gl::check_gl("glClear");
}

namespace {

// Reads the (resolved) color of the bound framebuffer as `components` values of `type` per pixel,
// the top row first.
template <class T>
std::vector<T> read_color(GLuint resolve_framebuffer, std::uint32_t width, std::uint32_t height, std::uint32_t samples,
                          GLenum format, GLenum type, std::size_t components) {
  const auto w = static_cast<GLsizei>(width), h = static_cast<GLsizei>(height);
  if (samples > 1) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve_framebuffer);
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    gl::check_gl("glBlitFramebuffer");
    glBindFramebuffer(GL_READ_FRAMEBUFFER, resolve_framebuffer);
  }
  std::vector<T> pixels(std::size_t{width} * height * components);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, format, type, pixels.data());
  gl::check_gl("glReadPixels");

  // GL's row 0 is the bottom one; images start at the top.
  const std::size_t row = std::size_t{width} * components;
  for (std::size_t top = 0, bottom = height - 1; top < bottom; ++top, --bottom)
    std::swap_ranges(pixels.begin() + static_cast<std::ptrdiff_t>(top * row),
                     pixels.begin() + static_cast<std::ptrdiff_t>((top + 1) * row),
                     pixels.begin() + static_cast<std::ptrdiff_t>(bottom * row));
  return pixels;
}

}  // namespace

std::vector<std::uint8_t> Framebuffer::read_pixels() const {
  bind();
  if (color_ != FramebufferColor::rgba8)
    throw Error("Framebuffer.read_pixels", Rule::framebuffer_format,
                "an RG16F framebuffer holds motion vectors: read them with read_motion()");
  auto pixels = read_color<std::uint8_t>(objects_->resolve_framebuffer.name(), width_, height_, samples_, GL_RGBA,
                                         GL_UNSIGNED_BYTE, 4);
  bind();
  return pixels;
}

std::vector<glm::vec2> Framebuffer::read_motion() const {
  bind();
  if (color_ != FramebufferColor::rg16f)
    throw Error("Framebuffer.read_motion", Rule::framebuffer_format,
                "an RGBA8 framebuffer holds an image: read it with read_pixels()");
  // GL_RGBA with GL_FLOAT is the pair every float color buffer can be read with (OpenGL ES
  // allows no other; blue and alpha read 0 and 1).
  const auto values =
      read_color<float>(objects_->resolve_framebuffer.name(), width_, height_, samples_, GL_RGBA, GL_FLOAT, 4);
  bind();
  std::vector<glm::vec2> motion(values.size() / 4);
  for (std::size_t i = 0; i < motion.size(); ++i) motion[i] = {values[4 * i], values[4 * i + 1]};
  return motion;
}

void Framebuffer::destroy() noexcept {
  if (!objects_) return;
  const bool alive = objects_->egl_context == nullptr || objects_->egl_context == gl::current_egl_context();
  for (gl::Object* object : {&objects_->framebuffer, &objects_->resolve_framebuffer, &objects_->color, &objects_->depth,
                             &objects_->resolve_color}) {
    if (alive) {
      object->reset();
    } else {
      object->abandon();
    }
  }
  objects_.reset();
}

}  // namespace gltf_crowd
