// `gltf-crowd studio`: the interactive crowd window (GLFW + Dear ImGui, docs/spec.md §8). The crowd fills
// the left of the window, the control panel (studio_panel.cpp) the right. With --frames the
// studio runs that many fixed 1/30 s frames, optionally writes a screenshot of the last one and
// its statistics, and exits: the headless path tests and README images use (under xvfb-run).
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gl.hpp"
#include "tools/as_option.hpp"
#include "tools/cli_numbers.hpp"
#include "tools/commands.hpp"
#include "tools/crowd_scene.hpp"
#include "tools/studio_panel.hpp"
#include "tools/studio_scene.hpp"
#include "tools/studio_settings.hpp"

namespace gltf_crowd::tools {
namespace {

struct StudioOptions {
  std::string asset;       // "" = RobotExpressive from the catalogue, else built-in
  std::string assets_dir;  // "" = ../shared/assets when present
  LoadOptions load;        // --allow-outside-resources
  std::uint32_t capacity = 100;
  std::uint32_t frames = 0;  // 0 = interactive
  std::string screenshot;
  std::string stats;
  std::vector<std::string> sets;
  std::uint32_t width = 1280;
  std::uint32_t height = 720;
};

constexpr float frame_seconds = 1.0f / 30.0f;
constexpr float orbit_degrees_per_second = 12.0f;

// GLFW and its window, released in reverse order of creation.
struct Window {
  GLFWwindow* handle = nullptr;
  Window(std::uint32_t width, std::uint32_t height) {
    if (glfwInit() != GLFW_TRUE) {
      throw Error("studio", Rule::no_display,
                  "GLFW could not initialise (no display? run under xvfb-run for headless use)");
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);  // storage-buffer palettes need 4.3
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    handle = glfwCreateWindow(static_cast<int>(width), static_cast<int>(height), "gltf-crowd studio", nullptr, nullptr);
    if (handle == nullptr) {
      glfwTerminate();
      throw Error("studio", Rule::no_window, "GLFW could not create an OpenGL 4.3 core window");
    }
    glfwMakeContextCurrent(handle);
  }
  ~Window() {
    glfwDestroyWindow(handle);
    glfwTerminate();
  }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
};

// Dear ImGui with its GLFW and OpenGL 3 backends, for the lifetime of a window.
struct Gui {
  explicit Gui(GLFWwindow* window) {
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // never write imgui.ini into the working directory
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
  }
  ~Gui() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  Gui(const Gui&) = delete;
  Gui& operator=(const Gui&) = delete;
};

// Mouse orbit (left drag), pan (right drag) and zoom (wheel) over the crowd, not the panel.
void mouse_camera(CameraOrbit& camera) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantCaptureMouse) return;
  if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
    camera.azimuth_degrees -= 0.3f * io.MouseDelta.x;
    camera.elevation_degrees = std::clamp(camera.elevation_degrees + 0.3f * io.MouseDelta.y, -80.0f, 80.0f);
  }
  if (ImGui::IsMouseDown(ImGuiMouseButton_Right)) {
    camera.pan += glm::vec2(-io.MouseDelta.x, io.MouseDelta.y) * 0.002f;
  }
  if (io.MouseWheel != 0.0f) camera.zoom = std::clamp(camera.zoom * std::pow(0.9f, io.MouseWheel), 0.05f, 20.0f);
}

// The back buffer's `width` × `height` pixels, top row first, read before the swap.
std::vector<std::uint8_t> read_back_buffer(int width, int height) {
  std::vector<std::uint8_t> bottom_up(static_cast<std::size_t>(width) * height * 4);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  std::vector<std::uint8_t> rgba(bottom_up.size());
  const std::size_t row = static_cast<std::size_t>(width) * 4;
  for (int y = 0; y < height; ++y) {
    std::copy_n(bottom_up.begin() + static_cast<std::ptrdiff_t>(row * (height - 1 - y)), row,
                rgba.begin() + static_cast<std::ptrdiff_t>(row * y));
  }
  return rgba;
}

std::string resolve_model(const std::vector<ModelEntry>& models, std::string_view name) {
  if (name == "built-in") return "";
  for (const ModelEntry& model : models) {
    if (model.label == name) return model.path;
  }
  return std::string(name);
}

void run_studio(const StudioOptions& options) {
  if (!options.screenshot.empty())
    require_extension("--screenshot", options.screenshot, ".png", "studio writes a PNG image");
  require_distinct_files({{"asset", options.asset}},
                         {{"--screenshot", options.screenshot}, {"--stats", options.stats}});
  if (!options.stats.empty()) require_extension("--stats", options.stats, ".json", "studio writes JSON statistics");
  std::filesystem::path assets_dir = options.assets_dir;
  if (assets_dir.empty() && std::filesystem::is_directory("../shared/assets")) assets_dir = "../shared/assets";
  const std::vector<ModelEntry> models = scan_models(assets_dir, options.load);
  const auto resolve = [&](std::string_view name) { return resolve_model(models, name); };

  StudioSettings settings;
  settings.capacity = options.capacity;
  settings.actors = std::min(settings.actors, settings.capacity);
  // The seed's default model: RobotExpressive when the catalogue has it, else the built-in one.
  const std::string robot = resolve("RobotExpressive");
  settings.model = !options.asset.empty() ? options.asset : robot == "RobotExpressive" ? "" : robot;
  std::optional<ActorEdit> edit;
  usage_checks([&] {
    for (const std::string& set : options.sets) apply_setting(set, settings, edit, resolve);
  });
  // What the settings name in the model, before the window: a usage error is one with or without
  // a display. Headless runs keep this model (a window's later ones: --stats is checked again).
  std::shared_ptr<const Asset> first = load_crowd_asset(settings.model, options.load);
  usage_checks([&] { check_model_settings(*first, settings, edit); });
  require_outputs_spare(first->external_files, {{"--screenshot", options.screenshot}, {"--stats", options.stats}});

  Window window(options.width, options.height);
  glfwSwapInterval(options.frames > 0 ? 0 : 1);
  Gui gui(window.handle);
  // After the GL context, so its renderer is destroyed while it is current.
  StudioScene scene(options.load, std::move(first));
  scene.sync(settings);
  StudioSettings synced = settings;
  PanelState panel;
  if (edit) panel.selected_actor = static_cast<int>(scene.apply(*edit));

  const bool headless = options.frames > 0;
  double simulated = 0.0;
  double update_total = 0.0;
  std::uint32_t frame = 0;
  int window_w = 0, window_h = 0, fb_w = 0, fb_h = 0, crowd_w = 0;
  float panel_left = 0.0f, panel_width = 0.0f;
  auto last = std::chrono::steady_clock::now();
  while (!glfwWindowShouldClose(window.handle) && (!headless || frame < options.frames)) {
    glfwPollEvents();
    const auto now = std::chrono::steady_clock::now();
    const float wall = std::chrono::duration<float>(now - last).count();
    last = now;
    scene.set_frame_ms(1000.0 * wall);
    const float dt = headless ? frame_seconds : std::min(wall, 0.1f);

    glfwGetWindowSize(window.handle, &window_w, &window_h);
    glfwGetFramebufferSize(window.handle, &fb_w, &fb_h);
    panel_width = std::min(440.0f, 0.45f * static_cast<float>(window_w));
    panel_left = static_cast<float>(window_w) - panel_width;
    crowd_w = std::max(
        1, static_cast<int>(panel_left * static_cast<float>(fb_w) / static_cast<float>(std::max(window_w, 1))));

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    mouse_camera(settings.camera);
    if (settings.orbit) settings.camera.azimuth_degrees += orbit_degrees_per_second * dt;
    draw_studio_panel(panel_left, panel_width, static_cast<float>(window_h), models, settings, scene, panel);
    try {
      scene.sync(settings);
      synced = settings;
    } catch (const std::exception& e) {
      panel.error = e.what();
      settings = synced;  // the controls snap back to what is shown
    }
    ImGui::Render();

    const Camera camera =
        frame_crowd(scene.layout().crowd_bounds, static_cast<float>(crowd_w) / static_cast<float>(std::max(fb_h, 1)),
                    settings.camera);
    scene.update(settings.animation ? dt : 0.0f,
                 LodView{camera.view, camera.projection, static_cast<std::uint32_t>(crowd_w),
                         static_cast<std::uint32_t>(std::max(fb_h, 1))});
    simulated += settings.animation ? dt : 0.0f;
    update_total += scene.times().update;

    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDisable(GL_SCISSOR_TEST);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(background_rgb[0] / 255.0f, background_rgb[1] / 255.0f, background_rgb[2] / 255.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glViewport(0, 0, crowd_w, fb_h);
    scene.draw(camera);
    glViewport(0, 0, fb_w, fb_h);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frame;
    if (headless && frame == options.frames && !options.screenshot.empty()) {
      write_png(options.screenshot, static_cast<std::uint32_t>(fb_w), static_cast<std::uint32_t>(fb_h),
                read_back_buffer(fb_w, fb_h));
    }
    glfwSwapBuffers(window.handle);
  }

  nlohmann::json stats = scene.stats_json();
  if (!options.stats.empty()) {
    require_outputs_spare(scene.crowd().asset().external_files, {{"--stats", options.stats}});
    stats["gl_api"] = "glfw";
    nlohmann::json labels = nlohmann::json::array();
    for (const ModelEntry& model : models) labels.push_back(model.label);
    stats["models"] = labels;
    stats["width"] = crowd_w;
    stats["height"] = fb_h;
    stats["window"] = {fb_w, fb_h};
    stats["viewport"] = {0, 0, crowd_w, fb_h};  // x, y (top-left origin), width, height
    stats["panel"] = {crowd_w, 0, fb_w - crowd_w, fb_h};
    stats["msaa"] = 0;
    stats["seconds"] = simulated;
    stats["frames"] = frame;
    stats["background"] = {background_rgb[0], background_rgb[1], background_rgb[2], 255};
    stats["update_ms_total"] = update_total;
    stats["gl_version"] = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    stats["gl_renderer"] = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    std::ofstream file(options.stats);
    file << json_text(stats, 2) << '\n';
    if (!file) throw Error(options.stats, Rule::write_failed, "could not write the statistics file");
  }
  const nlohmann::json& lod = stats["lod"];
  fmt::print("studio: {}, {}, lod source {}, {} demoted, budget satisfied {}, {}\n",
             count_of(stats["actors"].get<std::size_t>(), "actor"),
             count_of(stats["draws"].get<std::uint32_t>(), "draw"), lod["source"].get<std::string>(),
             lod["demoted_actors"].get<std::uint32_t>(), lod["budget_satisfied"].get<bool>(), count_of(frame, "frame"));
}

}  // namespace

void register_studio(CLI::App& app) {
  auto options = std::make_shared<StudioOptions>();
  CLI::App* studio =
      app.add_subcommand("studio",
                         "Interactive crowd window (GLFW + Dear ImGui) with controls, live statistics and "
                         "an actor table; --frames runs it headless for screenshots and tests");
  add_load_options(*studio, options->load);
  studio
      ->add_option("asset", options->asset,
                   "glTF 2.0 file to open; default: RobotExpressive from --assets, else the "
                   "built-in character")
      ->check(non_empty());
  studio
      ->add_option("--assets", options->assets_dir,
                   "folder whose animated glTF/GLB files fill the model menu (default: "
                   "../shared/assets when present)")
      ->check(CLI::ExistingDirectory);
  studio->add_option("--capacity", options->capacity, "crowd capacity: the actors slider's maximum")
      ->capture_default_str()
      ->check(integer_in(1, 1'000'000));
  CLI::Option* frames =
      studio->add_option("--frames", options->frames, "run this many 1/30 s frames, then exit (0 = interactive)")
          ->capture_default_str()
          ->check(integer_in(0, 0xFFFFFFFFu));
  studio
      ->add_option("--screenshot", options->screenshot, "PNG of the whole window after the last frame (with --frames)")
      ->check(output_file())
      ->needs(frames);
  studio
      ->add_option("--stats", options->stats,
                   "JSON statistics at exit (render's keys plus models, window, viewport, "
                   "panel, frame_ms, update_ms, stage_ms, clip_counts)")
      ->check(output_file());
  studio
      ->add_option(
          "--set", options->sets,
          "key=value applied as if the control were used, in order; a key that mirrors an option is spelled "
          "as it (animation=cpu|gpu as render --animation; '_' reads as '-'): model, actors, capacity, clips, "
          "clip, seed, phase-spread, speed-spread, tints, tint-seed, variants, playing (on|off), orbit, lod, "
          "lod-bias, vertex-budget, update-rate, palette, animation (cpu|gpu), skinned-vertex-cache, root-motion "
          "(a node: its name, path or index; or none), shadows, azimuth, elevation, zoom, select, actor.clip, "
          "actor.crossfade, actor.speed, actor.pause, actor.seek, actor.visible, actor.layer.clip, "
          "actor.layer.weight, actor.layer.mode, actor.layer.mask (a node, or none)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  studio->add_option("--width", options->width, "window width")->capture_default_str()->check(integer_in(320, 8192));
  studio->add_option("--height", options->height, "window height")->capture_default_str()->check(integer_in(240, 8192));
  studio->footer(
      "Time step: with --frames every frame advances a fixed 1/30 s (as render; bench "
      "uses 1/60 s); interactively, the wall time since the last frame (at most 0.1 s).");
  studio->callback([options] {
    if (!options->screenshot.empty() && options->frames == 0)
      throw CLI::ValidationError("--screenshot",
                                 "it is written after the last of --frames, and --frames 0 is interactive");
    run_studio(*options);
  });
}

}  // namespace gltf_crowd::tools
