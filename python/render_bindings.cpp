// The module's rendering part (docs/spec.md §16): Camera, frame_crowd, Renderer (a headless EGL
// context, an offscreen framebuffer, a CrowdRenderer and the tools' shadow stage, drawing as
// `gltf-crowd render` does) and write_png. Drawing and reading back run without the GIL.
#include <array>
#include <cstdint>
#include <memory>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/gl.hpp"
#include "tools/crowd_scene.hpp"
#include "tools/shadow_stage.hpp"

namespace gltf_crowd::python {
namespace {

using Background = std::array<std::uint8_t, 3>;

// The box `render` frames and fits its shadow map to, as its grid layout computes it: every
// actor's active clip's animated_bounds (rest_bounds without clips) through its placement, grown
// by 5 % of its size on every side. A crowd that draws nothing gets a 2 × 2 × 2 box on y = 0.
Bounds scene_bounds(const Crowd& crowd) {
  const Asset& asset = crowd.asset();
  std::vector<std::optional<Bounds>> clips(asset.clips.size());
  std::optional<Bounds> rest;
  Bounds all;
  for (const Actor& actor : crowd.actors()) {
    const std::vector<Contributor> contributors = actor.contributors();
    std::optional<Bounds>& box = contributors.empty() ? rest : clips[contributors.front().clip];
    if (!box) box = contributors.empty() ? rest_bounds(asset) : animated_bounds(asset, contributors.front().clip);
    if (box->empty()) continue;
    const glm::mat4& placement = actor.transform();
    for (int corner = 0; corner < 8; ++corner) {
      const glm::vec4 p(corner & 1 ? box->max.x : box->min.x, corner & 2 ? box->max.y : box->min.y,
                        corner & 4 ? box->max.z : box->min.z, 1.0f);
      all.add(glm::vec3(placement * p));
    }
  }
  if (all.empty()) all = Bounds{glm::vec3(-1.0f, 0.0f, -1.0f), glm::vec3(1.0f, 2.0f, 1.0f)};
  const glm::vec3 margin = 0.05f * all.size();
  all.min -= margin;
  all.max += margin;
  return all;
}

// A crowd drawn headless into an image, with `render`'s look (docs/spec.md §8.1, §16).
class Renderer {
 public:
  Renderer(const Crowd& crowd, std::uint32_t width, std::uint32_t height, std::uint32_t samples, bool shadows,
           PaletteStorage palette, std::optional<Bounds> bounds)
      : context_(std::make_unique<HeadlessContext>()), crowd_(&crowd), shadows_(shadows), bounds_(bounds) {
    target_ = std::make_unique<Framebuffer>(FramebufferOptions{.width = width, .height = height, .samples = samples});
    renderer_ = std::make_unique<CrowdRenderer>(crowd, CrowdRendererOptions{.palette = palette});
  }
  ~Renderer() { close(); }
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // GL objects go while their context is current, then the context.
  void close() noexcept {
    if (!context_) return;
    try {
      context_->make_current();
    } catch (const Error&) {  // current on another thread: the objects die with the context
    }
    stage_.reset();
    renderer_.reset();
    target_.reset();
    context_.reset();
  }

  const Bounds& bounds() {
    live();
    if (!bounds_) bounds_ = scene_bounds(*crowd_);
    return *bounds_;
  }

  Camera camera(const tools::CameraOrbit& orbit) {
    return tools::frame_crowd(bounds(), static_cast<float>(target_->width()) / static_cast<float>(target_->height()),
                              orbit);
  }

  // What `render` draws for one frame, read back top row first.
  std::vector<std::uint8_t> render(const std::optional<Camera>& requested, const Background& background) {
    const Camera camera = requested ? *requested : this->camera({});
    context_->make_current();
    if (shadows_ && !stage_) stage_.emplace(bounds(), camera.light_direction);
    shadow_draws_ = stage_ ? stage_->cast(*renderer_, *crowd_) : 0;
    const Camera shaded = stage_ ? stage_->shaded(camera) : camera;
    target_->clear(glm::vec4(static_cast<float>(background[0]) / 255.0f, static_cast<float>(background[1]) / 255.0f,
                             static_cast<float>(background[2]) / 255.0f, 1.0f));
    if (stage_) stage_->draw_ground(shaded);
    renderer_->draw(*crowd_, shaded);
    return target_->read_pixels();
  }

  py::dict stats() const {
    const RenderCounts& frame = live().stats().frame;
    py::dict d;
    d["draws"] = frame.draws;
    d["shadow_draws"] = shadow_draws_;
    d["instances"] = frame.instances;
    d["triangles"] = frame.triangles;
    d["upload_bytes"] = frame.upload_bytes;
    d["variant_draws"] = frame.variant_draws;
    return d;
  }

  const HeadlessContext& context() const {
    live();
    return *context_;
  }
  CrowdRenderer& live() const {
    if (!context_) throw Error("Renderer", Rule::destroyed, "the renderer was closed");
    return *renderer_;
  }
  std::uint32_t width() const { return target_ ? target_->width() : 0; }
  std::uint32_t height() const { return target_ ? target_->height() : 0; }

 private:
  std::unique_ptr<HeadlessContext> context_;
  std::unique_ptr<Framebuffer> target_;
  std::unique_ptr<CrowdRenderer> renderer_;
  std::optional<tools::ShadowStage> stage_;  // built at the first render, for its camera's light
  const Crowd* crowd_;
  bool shadows_;
  std::optional<Bounds> bounds_;
  std::uint32_t shadow_draws_ = 0;
};

tools::CameraOrbit orbit(float azimuth_degrees, float elevation_degrees, float zoom, const FloatArray& pan) {
  if (pan.ndim() != 1 || pan.shape(0) != 2) throw py::value_error("pan: 2 numbers were expected");
  return {azimuth_degrees, elevation_degrees, zoom, glm::vec2(pan.at(0), pan.at(1))};
}

// A NumPy array that owns `pixels`: height × width × 4.
py::array_t<std::uint8_t> image_array(std::vector<std::uint8_t> pixels, std::uint32_t width, std::uint32_t height) {
  auto* owned = new std::vector<std::uint8_t>(std::move(pixels));
  const py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<std::uint8_t>*>(p); });
  return py::array_t<std::uint8_t>({static_cast<py::ssize_t>(height), static_cast<py::ssize_t>(width), py::ssize_t{4}},
                                   owned->data(), owner);
}

const char* const kOrbitDoc =
    "azimuth_degrees turns about +y (0: in front, on +z), elevation_degrees is the height above the horizon "
    "(-90, 90), zoom multiplies the distance (< 1 is closer), pan moves the target along the view's right and up "
    "in units of the framing distance.";

}  // namespace

void bind_render(py::module_& m) {
  py::enum_<PaletteStorage>(m, "PaletteStorage", "Where the renderer keeps palettes (docs/spec.md §6.2).")
      .value("automatic", PaletteStorage::automatic, "Storage buffers on OpenGL 4.3, else textures.")
      .value("storage_buffer", PaletteStorage::storage_buffer, "std430 shader storage buffers.")
      .value("texture", PaletteStorage::texture, "RGBA32F textures read with texelFetch.");

  py::class_<Camera>(m, "Camera",
                     "View, projection and light (C++ gltf_crowd::Camera; docs/spec.md §6.4): matrices 4 x 4 "
                     "(clip z in [-1, 1]); light_direction is the direction the light travels; colors linear RGB.")
      .def(py::init([](const std::optional<FloatArray>& view, const std::optional<FloatArray>& projection,
                       const FloatArray& light_direction, const FloatArray& light_color,
                       const FloatArray& ambient_color) {
             Camera c;
             if (view) c.view = to_mat4(*view, "Camera.view");
             if (projection) c.projection = to_mat4(*projection, "Camera.projection");
             c.light_direction = to_vec3(light_direction, "Camera.light_direction");
             c.light_color = to_vec3(light_color, "Camera.light_color");
             c.ambient_color = to_vec3(ambient_color, "Camera.ambient_color");
             return c;
           }),
           py::kw_only(), py::arg("view") = py::none(), py::arg("projection") = py::none(),
           py::arg("light_direction") = std::array<float, 3>{-0.4f, -1.0f, -0.5f},
           py::arg("light_color") = std::array<float, 3>{1.0f, 1.0f, 1.0f},
           py::arg("ambient_color") = std::array<float, 3>{0.3f, 0.3f, 0.3f},
           "A camera; view and projection default to identity.")
      .def_property(
          "view", [](const Camera& c) { return to_numpy(c.view); },
          [](Camera& c, const FloatArray& a) { c.view = to_mat4(a, "Camera.view"); }, "World to view, 4 x 4.")
      .def_property(
          "projection", [](const Camera& c) { return to_numpy(c.projection); },
          [](Camera& c, const FloatArray& a) { c.projection = to_mat4(a, "Camera.projection"); },
          "View to clip, 4 x 4.")
      .def_property(
          "light_direction", [](const Camera& c) { return to_numpy(c.light_direction); },
          [](Camera& c, const FloatArray& a) { c.light_direction = to_vec3(a, "Camera.light_direction"); },
          "The direction the light travels, world space (3).")
      .def_property(
          "light_color", [](const Camera& c) { return to_numpy(c.light_color); },
          [](Camera& c, const FloatArray& a) { c.light_color = to_vec3(a, "Camera.light_color"); },
          "Irradiance of the light on a surface facing it, linear RGB.")
      .def_property(
          "ambient_color", [](const Camera& c) { return to_numpy(c.ambient_color); },
          [](Camera& c, const FloatArray& a) { c.ambient_color = to_vec3(a, "Camera.ambient_color"); },
          "Constant ambient term, linear RGB.");

  m.def(
      "frame_crowd",
      [](const Bounds& box, float aspect, float azimuth_degrees, float elevation_degrees, float zoom,
         const FloatArray& pan) {
        return tools::frame_crowd(box, aspect, orbit(azimuth_degrees, elevation_degrees, zoom, pan));
      },
      py::arg("box"), py::arg("aspect"), py::kw_only(), py::arg("azimuth_degrees") = 0.0f,
      py::arg("elevation_degrees") = 25.0f, py::arg("zoom") = 1.0f, py::arg("pan") = std::array<float, 2>{0.0f, 0.0f},
      (std::string("The Camera `gltf-crowd render` frames its crowd with: looking at the box's centre, at the "
                   "smallest distance at which its eight corners fit a 40-degree vertical field of view of width / "
                   "height `aspect`. ") +
       kOrbitDoc)
          .c_str());

  py::class_<Renderer>(m, "Renderer",
                       "Draws a Crowd headless (EGL; Mesa's llvmpipe without a GPU) into images, as `gltf-crowd "
                       "render` does (docs/spec.md §8.1, §16): its own OpenGL 4.3 context, an offscreen framebuffer "
                       "of width x height with `samples` per pixel, a CrowdRenderer (one instanced draw per "
                       "primitive group) and, with shadows, a 2048^2 shadow map and a ground plane. Keeps the crowd "
                       "alive. Not for two threads at once.")
      .def(py::init([](const Crowd& crowd, std::uint32_t width, std::uint32_t height, std::uint32_t samples,
                       bool shadows, PaletteStorage palette, std::optional<Bounds> bounds) {
             return std::make_unique<Renderer>(crowd, width, height, samples, shadows, palette, bounds);
           }),
           py::arg("crowd"), py::kw_only(), py::arg("width") = 640, py::arg("height") = 480, py::arg("samples") = 4,
           py::arg("shadows") = true, py::arg("palette") = PaletteStorage::automatic, py::arg("bounds") = py::none(),
           py::keep_alive<1, 2>(),
           "`bounds`: the scene box the default camera frames and the shadow map covers; None: the crowd's at the "
           "first use (bounds()). Errors: EGL and GL failures ('egl_call_failed', 'gl_version', ...), "
           "'invalid_size', 'framebuffer_incomplete' (too many samples).")
      .def("bounds", &Renderer::bounds,
           "The scene box, fixed at its first use: `bounds` if given, else as `render`'s layout computes it: every "
           "actor's active clip's animated bounds (rest bounds without clips) through its placement, grown by 5% "
           "of its size on every side.")
      .def(
          "camera",
          [](Renderer& r, float azimuth_degrees, float elevation_degrees, float zoom, const FloatArray& pan) {
            return r.camera(orbit(azimuth_degrees, elevation_degrees, zoom, pan));
          },
          py::kw_only(), py::arg("azimuth_degrees") = 0.0f, py::arg("elevation_degrees") = 25.0f,
          py::arg("zoom") = 1.0f, py::arg("pan") = std::array<float, 2>{0.0f, 0.0f},
          (std::string("frame_crowd(bounds(), width / height, ...): the default camera. ") + kOrbitDoc).c_str())
      .def(
          "render",
          [](Renderer& r, const std::optional<Camera>& camera, const Background& background) {
            r.live();
            std::vector<std::uint8_t> pixels;
            {
              py::gil_scoped_release release;
              pixels = r.render(camera, background);
            }
            return image_array(std::move(pixels), r.width(), r.height());
          },
          py::arg("camera") = py::none(),
          py::arg("background") =
              Background{tools::background_rgb[0], tools::background_rgb[1], tools::background_rgb[2]},
          "Draws the crowd as it is (call Crowd.update first) with `camera` (None: camera()) and returns the image: "
          "a (height, width, 4) uint8 RGBA array, the top row first. With shadows, the depth pass from the light "
          "comes first, the shadow map fitted once, at the first render, to bounds() and that camera's light. "
          "`background`: the clear color, RGB bytes. Releases the GIL.")
      .def("stats", &Renderer::stats,
           "The last render's counts over its passes (RenderStats.frame): draws (shadow_draws of them the depth "
           "pass's), instances, triangles, upload_bytes, variant_draws.")
      .def(
          "gl_version", [](const Renderer& r) { return r.context().version(); }, "GL_VERSION of the context.")
      .def(
          "gl_renderer", [](const Renderer& r) { return r.context().renderer(); }, "GL_RENDERER ('llvmpipe ...').")
      .def(
          "palette_storage", [](const Renderer& r) { return r.live().palette_storage(); },
          "The PaletteStorage in use (never automatic).")
      .def("width", &Renderer::width, "Image width in pixels (0 once closed).")
      .def("height", &Renderer::height, "Image height in pixels (0 once closed).")
      .def("close", &Renderer::close, "Frees the GL objects and the context now; later calls raise Error 'destroyed'.");

  m.def(
      "write_png",
      [](const std::filesystem::path& path, const ImageArray& image) {
        const auto [width, height] = image_size(image, "write_png.image");
        const std::span<const std::uint8_t> rgba(image.data(), static_cast<std::size_t>(image.size()));
        py::gil_scoped_release release;
        write_png(path, width, height, rgba);
      },
      py::arg("path"), py::arg("image"),
      "Writes a (height, width, 4) uint8 RGBA image, the top row first, as a PNG file. Errors: 'png_write_failed' "
      "(path: the file).");
}

}  // namespace gltf_crowd::python
