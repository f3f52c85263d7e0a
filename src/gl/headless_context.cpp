// A headless EGL context (docs/platform.md §2): EGL_PLATFORM_SURFACELESS_MESA, or the first
// EGL_PLATFORM_DEVICE_EXT device where Mesa's surfaceless platform is missing (vendor drivers),
// opened through eglGetPlatformDisplayEXT (libepoxy cannot resolve the EGL 1.5 core entry point
// before a display exists, pitfall P1); a configless context (EGL_KHR_no_config_context) and no
// surface: rendering goes into a Framebuffer. Debug contexts count KHR_debug error messages.
#include "gltf_crowd/gl_platform.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <fmt/format.h>

namespace gltf_crowd {

struct HeadlessContext::DebugLog {
  static constexpr std::size_t kept_texts = 16;
  mutable std::mutex mutex;  // drivers may call back from their own threads
  std::size_t errors = 0;
  std::vector<std::string> texts;
};

namespace {

// A platform display is one per process and eglTerminate is not reference counted, so
// terminating it while another HeadlessContext lives would destroy that context too.
std::mutex display_mutex;
std::map<EGLDisplay, int> display_users;

const char* egl_error_name(EGLint error) {
  switch (error) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "unknown EGL error";
  }
}

[[noreturn]] void throw_egl(const char* call, const std::string& detail = {}) {
  EGLint error = eglGetError();
  throw Error(call, Rule::egl_call_failed,
              fmt::format("{} failed: {} (0x{:04X}){}{}", call, egl_error_name(error), error,
                          detail.empty() ? "" : "; ", detail));
}

bool has_extension(const char* list, std::string_view name) {
  if (list == nullptr) return false;
  std::string_view rest(list);
  while (!rest.empty()) {
    std::size_t end = rest.find(' ');
    if (rest.substr(0, end) == name) return true;
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return false;
}

std::string gl_string(GLenum which) {
  const GLubyte* text = glGetString(which);
  return text == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(text));
}

void GLAPIENTRY debug_callback(GLenum /*source*/, GLenum type, GLuint id, GLenum /*severity*/, GLsizei length,
                               const GLchar* message, const void* user) {
  if (type != GL_DEBUG_TYPE_ERROR) return;
  auto* log = static_cast<HeadlessContext::DebugLog*>(const_cast<void*>(user));
  std::lock_guard lock(log->mutex);
  ++log->errors;
  if (log->texts.size() < HeadlessContext::DebugLog::kept_texts) {
    log->texts.push_back(fmt::format(
        "[{}] {}", id, length >= 0 ? std::string(message, static_cast<std::size_t>(length)) : std::string(message)));
  }
}

// Routes the current context's KHR_debug messages to `log`; synchronous, so an error message
// arrives inside the GL call that caused it.
void install_debug_callback(HeadlessContext::DebugLog* log) {
  const bool desktop = epoxy_is_desktop_gl();
  const int version = epoxy_gl_version();
  const bool core = desktop ? version >= 43 : version >= 32;
  if (!core && !epoxy_has_gl_extension("GL_KHR_debug")) {
    throw Error("glDebugMessageCallback", Rule::gl_extension_missing, "the debug context lacks KHR_debug");
  }
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  if (core) {
    glDebugMessageCallback(debug_callback, log);
  } else {
    glDebugMessageCallbackKHR(debug_callback, log);  // ES before 3.2: the suffixed entry point
  }
}

void release_display(EGLDisplay display) {
  std::lock_guard lock(display_mutex);
  if (--display_users[display] == 0) {
    display_users.erase(display);
    eglTerminate(display);
  }
}

void require_client_extension(const char* client_extensions, const char* needed) {
  if (!has_extension(client_extensions, needed)) {
    throw Error("eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS)", Rule::egl_extension_missing,
                fmt::format("the EGL client lacks {} (client extensions: {})", needed,
                            client_extensions ? client_extensions : "none"));
  }
}

// The display of `platform` (surfaceless or device), not yet initialized.
EGLDisplay open_display(EglPlatform platform, const char* client_extensions) {
  require_client_extension(client_extensions, "EGL_EXT_platform_base");
  if (platform == EglPlatform::surfaceless) {
    require_client_extension(client_extensions, "EGL_MESA_platform_surfaceless");
    EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display == EGL_NO_DISPLAY) throw_egl("eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA)");
    return display;
  }
  require_client_extension(client_extensions, "EGL_EXT_platform_device");
  // EGL_EXT_device_base is EGL_EXT_device_enumeration and EGL_EXT_device_query in one; NVIDIA's
  // driver through libglvnd lists only it.
  if (!has_extension(client_extensions, "EGL_EXT_device_base"))
    require_client_extension(client_extensions, "EGL_EXT_device_enumeration");
  // Resolved here rather than through libepoxy, whose resolver may look for the extension among
  // the current display's extensions instead of the client's.
  const auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  if (query_devices == nullptr) {
    throw Error("eglGetProcAddress", Rule::egl_extension_missing, "the EGL client has no eglQueryDevicesEXT");
  }
  EGLDeviceEXT device = nullptr;
  EGLint count = 0;
  if (query_devices(1, &device, &count) != EGL_TRUE) throw_egl("eglQueryDevicesEXT");
  if (count < 1) {
    throw Error("eglQueryDevicesEXT", Rule::egl_call_failed, "eglQueryDevicesEXT found no device");
  }
  EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
  if (display == EGL_NO_DISPLAY) throw_egl("eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT)");
  return display;
}

}  // namespace

HeadlessContext::HeadlessContext(const HeadlessOptions& options) : api_(options.api) {
  const char* client_extensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  platform_ = options.platform;
  if (platform_ == EglPlatform::automatic) {
    platform_ = has_extension(client_extensions, "EGL_MESA_platform_surfaceless") ? EglPlatform::surfaceless
                                                                                  : EglPlatform::device;
  }
  EGLDisplay display = open_display(platform_, client_extensions);
  {
    std::lock_guard lock(display_mutex);
    EGLint major = 0, minor = 0;
    if (eglInitialize(display, &major, &minor) != EGL_TRUE) throw_egl("eglInitialize");
    ++display_users[display];
  }
  display_ = display;

  try {
    if (!has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_no_config_context")) {
      throw Error("eglQueryString(EGL_EXTENSIONS)", Rule::egl_extension_missing,
                  "the EGL display lacks EGL_KHR_no_config_context");
    }
    const bool es = options.api == GlApi::gles30;
    if (eglBindAPI(es ? EGL_OPENGL_ES_API : EGL_OPENGL_API) != EGL_TRUE) throw_egl("eglBindAPI");

    std::vector<EGLint> attributes;
    auto add = [&](EGLint key, EGLint value) { attributes.insert(attributes.end(), {key, value}); };
    switch (options.api) {
      case GlApi::gl43_core:
        add(EGL_CONTEXT_MAJOR_VERSION, 4);
        add(EGL_CONTEXT_MINOR_VERSION, 3);
        break;
      case GlApi::gl33_core:
        add(EGL_CONTEXT_MAJOR_VERSION, 3);
        add(EGL_CONTEXT_MINOR_VERSION, 3);
        break;
      case GlApi::gles30:
        add(EGL_CONTEXT_MAJOR_VERSION, 3);
        add(EGL_CONTEXT_MINOR_VERSION, 0);
        break;
    }
    if (!es) add(EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    if (options.debug) add(EGL_CONTEXT_OPENGL_DEBUG, EGL_TRUE);  // EGL 1.5: any client API
    attributes.push_back(EGL_NONE);

    EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes.data());
    if (context == EGL_NO_CONTEXT) {
      throw_egl("eglCreateContext",
                es ? "requested OpenGL ES 3.0"
                   : fmt::format("requested OpenGL {} core", options.api == GlApi::gl43_core ? "4.3" : "3.3"));
    }
    context_ = context;
    make_current();
    version_ = gl_string(GL_VERSION);
    renderer_ = gl_string(GL_RENDERER);
    glsl_version_ = gl_string(GL_SHADING_LANGUAGE_VERSION);
    if (options.debug) {
      debug_log_ = std::make_unique<DebugLog>();
      install_debug_callback(debug_log_.get());
    }
  } catch (...) {
    if (context_ != nullptr) {
      if (eglGetCurrentContext() == context_) {
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      }
      eglDestroyContext(display, context_);
    }
    release_display(display);
    throw;
  }
}

HeadlessContext::~HeadlessContext() {
  if (display_ == nullptr) return;
  if (eglGetCurrentContext() == context_) {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }
  eglDestroyContext(display_, context_);
  release_display(display_);
}

std::size_t HeadlessContext::debug_error_count() const noexcept {
  if (!debug_log_) return 0;
  std::lock_guard lock(debug_log_->mutex);
  return debug_log_->errors;
}

std::vector<std::string> HeadlessContext::debug_errors() const {
  if (!debug_log_) return {};
  std::lock_guard lock(debug_log_->mutex);
  return debug_log_->texts;
}

void HeadlessContext::make_current() const {
  if (eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) != EGL_TRUE) {
    throw_egl("eglMakeCurrent");
  }
}

}  // namespace gltf_crowd
