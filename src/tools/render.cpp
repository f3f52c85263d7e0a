// `gltf-crowd render`: N actors of one asset on a square grid, each with its own clip, phase and
// speed, advanced T seconds in 1/30 s steps, drawn headless (EGL) with one instanced draw per
// primitive group, then written as a PNG and a JSON of statistics (SPEC §8).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <epoxy/gl.h>
#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/gl.hpp"
#include "tools/commands.hpp"
#include "tools/lod_stats_json.hpp"
#include "tools/rest_bounds.hpp"

namespace gltf_crowd::tools {
namespace {

struct RenderOptions {
  std::string asset;  // empty = the built-in character
  std::uint32_t actors = 100;
  float seconds = 2.0f;
  std::string out = "crowd.png";
  std::string stats;  // empty = no JSON
  std::uint32_t width = 640;
  std::uint32_t height = 480;
  std::uint32_t msaa = 4;
  bool lod = false;                // SPEC §7: authored levels when present, else generated
  float lod_bias = 1.0f;
  std::uint64_t vertex_budget = 0;  // 0 = unlimited
  std::string palette = "auto";     // CrowdRenderer palette storage: storage, texture or auto
  std::string gl = "4.3";           // context: 4.3, 3.3 or es3.0
  bool reference = false;           // draw every actor separately, CPU-skinned (SPEC §6)
};

// Exact 8-bit values, so the PNG's background pixels equal these bytes and tests can find them.
constexpr std::uint8_t background_rgb[3] = {40, 46, 56};
constexpr double frame_seconds = 1.0 / 30.0;
constexpr float vertical_fov_degrees = 40.0f;
constexpr float camera_elevation_degrees = 25.0f;

struct Layout {
  std::vector<glm::mat4> placements;
  Bounds crowd_bounds;  // rest-pose bounds of the whole grid, padded for animation
};

// A square grid spaced by the character's footprint, centred on the origin, characters' rest
// footprints centred on their cells.
Layout grid_layout(const Asset& asset, std::uint32_t count) {
  Bounds character = rest_pose_bounds(asset);
  if (character.empty()) character = Bounds{glm::vec3(-0.5f, 0.0f, -0.5f), glm::vec3(0.5f, 1.0f, 0.5f)};
  const glm::vec3 size = character.size();
  float spacing = 1.25f * std::max(size.x, size.z);
  if (!(spacing > 0.0f)) spacing = std::max(size.y, 1.0f);
  const auto columns = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(count))));
  const std::uint32_t rows = (count + columns - 1) / columns;

  Layout layout;
  const glm::vec3 center = character.center();
  for (std::uint32_t i = 0; i < count; ++i) {
    const float x = (static_cast<float>(i % columns) - 0.5f * static_cast<float>(columns - 1)) * spacing;
    const float z = (static_cast<float>(i / columns) - 0.5f * static_cast<float>(rows - 1)) * spacing;
    const glm::vec3 offset(x - center.x, 0.0f, z - center.z);
    layout.placements.push_back(glm::translate(glm::mat4(1.0f), offset));
    layout.crowd_bounds.add(character.min + offset);
    layout.crowd_bounds.add(character.max + offset);
  }
  // Clips move limbs (and sometimes the root) beyond the rest pose.
  const glm::vec3 pad = 0.1f * size;
  layout.crowd_bounds.min -= pad;
  layout.crowd_bounds.max += pad;
  return layout;
}

// A camera in front (+z, where glTF characters face) and above, looking at the crowd's centre
// from `camera_elevation_degrees`, at the smallest distance at which all eight corners of the
// crowd's box fit in the view.
Camera frame_crowd(const Bounds& box, float aspect) {
  const float elevation = glm::radians(camera_elevation_degrees);
  const glm::vec3 forward(0.0f, -std::sin(elevation), -std::cos(elevation));
  const glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0.0f, 1.0f, 0.0f)));
  const glm::vec3 up = glm::cross(right, forward);
  const glm::vec3 target = box.center();
  const float tan_v = std::tan(glm::radians(vertical_fov_degrees) * 0.5f);
  const float tan_h = tan_v * aspect;

  float distance = 0.0f;
  float nearest = 0.0f;  // largest extent toward the camera
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 p((corner & 1) ? box.max.x : box.min.x, (corner & 2) ? box.max.y : box.min.y,
                      (corner & 4) ? box.max.z : box.min.z);
    const glm::vec3 rel = p - target;
    const float toward = -glm::dot(rel, forward);  // > 0: closer to the camera than the target
    distance = std::max({distance, toward + std::abs(glm::dot(rel, right)) / tan_h,
                         toward + std::abs(glm::dot(rel, up)) / tan_v});
    nearest = std::max(nearest, toward);
  }
  const float radius = 0.5f * glm::length(box.size());
  distance = std::max(distance, 1e-3f);
  Camera camera;
  const glm::vec3 eye = target - forward * distance;
  camera.view = glm::lookAt(eye, target, glm::vec3(0.0f, 1.0f, 0.0f));
  const float near_plane = std::max((distance - nearest) * 0.5f, distance * 1e-3f);
  camera.projection = glm::perspective(glm::radians(vertical_fov_degrees), aspect, near_plane,
                                       distance + 2.0f * radius);
  camera.light_direction = glm::vec3(-0.4f, -1.0f, -0.6f);
  return camera;
}

std::shared_ptr<const Asset> load(const std::string& path) {
  if (path.empty()) {
    const std::vector<std::uint8_t> glb = default_character_glb();
    return std::make_shared<const Asset>(load_asset_from_memory(glb));
  }
  return std::make_shared<const Asset>(load_asset(path));
}

// Actor i plays clip i % clip_count with phase (0.618·i) mod 1 and speed 0.8 + 0.1·(i mod 5).
std::vector<ActorOptions> actor_options(const Asset& asset, const Layout& layout) {
  std::vector<ActorOptions> options(layout.placements.size());
  bool warned = false;
  for (std::size_t i = 0; i < options.size(); ++i) {
    ActorOptions& o = options[i];
    if (!asset.clips.empty()) {
      const std::size_t clip = i % asset.clips.size();
      const std::string& name = asset.clips[clip].name;
      // Clips are chosen by name; an unnamed or duplicate name cannot pick this clip.
      if (asset.find_clip(name) == static_cast<int>(clip)) {
        o.clip = name;
      } else if (!warned) {
        fmt::print(stderr, "gltf-crowd: warning: clip {} has no unique name; its actors play the "
                           "first clip\n", clip);
        warned = true;
      }
    }
    o.phase = static_cast<float>(std::fmod(static_cast<double>(i) * 0.618, 1.0));
    o.speed = 0.8f + 0.1f * static_cast<float>(i % 5);
    o.transform = layout.placements[i];
  }
  return options;
}

// The context `gl` names. Mesa hands out its highest version for any request (PLATFORM.md P4)
// and reads its version overrides once, before the first context, so the tool caps the version
// here to really run on OpenGL 3.3 / ES 3.0; a value already in the environment wins.
GlApi select_api(const std::string& gl) {
  if (gl == "3.3") {
    setenv("MESA_GL_VERSION_OVERRIDE", "3.3", 0);
    return GlApi::gl33_core;
  }
  if (gl == "es3.0") {
    setenv("MESA_GLES_VERSION_OVERRIDE", "3.0", 0);
    return GlApi::gles30;
  }
  return GlApi::gl43_core;
}

PaletteStorage parse_storage(const std::string& name) {
  if (name == "storage") return PaletteStorage::storage_buffer;
  if (name == "texture") return PaletteStorage::texture;
  return PaletteStorage::automatic;
}

void run_render(const RenderOptions& options) {
  const std::shared_ptr<const Asset> asset = load(options.asset);
  const Layout layout = grid_layout(*asset, options.actors);
  LodOptions lod;
  lod.enabled = lod.auto_generate = options.lod;
  lod.vertex_budget = options.vertex_budget;
  Crowd crowd(asset, {.capacity = options.actors, .lod = lod});
  if (options.lod) crowd.set_lod_bias(options.lod_bias);
  crowd.add_actors(actor_options(*asset, layout));
  // The camera also drives LOD: every update classifies against it.
  const Camera camera = frame_crowd(layout.crowd_bounds, static_cast<float>(options.width) /
                                                             static_cast<float>(options.height));
  const LodView view{camera.view, camera.projection, options.width, options.height};

  const auto update_start = std::chrono::steady_clock::now();
  const auto steps = static_cast<std::uint64_t>(std::floor(options.seconds / frame_seconds + 1e-6));
  for (std::uint64_t step = 0; step < steps; ++step) crowd.update(static_cast<float>(frame_seconds), view);
  const double rest = options.seconds - static_cast<double>(steps) * frame_seconds;
  // At least one update, so the streams are packed even for --seconds 0.
  if (rest > 1e-6 || steps == 0) crowd.update(static_cast<float>(std::max(rest, 0.0)), view);
  const double update_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - update_start).count();

  // Declaration order matters: GL objects are deleted before the context goes.
  HeadlessContext context({.api = select_api(options.gl)});
  Framebuffer target({.width = options.width, .height = options.height, .samples = options.msaa});
  std::unique_ptr<CrowdRenderer> instanced;
  std::unique_ptr<ReferenceRenderer> reference;
  if (options.reference) {
    reference = std::make_unique<ReferenceRenderer>(crowd);
  } else {
    instanced = std::make_unique<CrowdRenderer>(crowd, CrowdRendererOptions{
                                                           .palette = parse_storage(options.palette)});
  }
  target.clear(glm::vec4(background_rgb[0] / 255.0f, background_rgb[1] / 255.0f,
                         background_rgb[2] / 255.0f, 1.0f));
  const auto draw_start = std::chrono::steady_clock::now();
  const std::uint32_t draws =
      reference ? reference->draw(crowd, camera) : instanced->draw(crowd, camera);
  const RenderStats& render_stats = reference ? reference->stats() : instanced->stats();
  glFinish();
  const double draw_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - draw_start).count();
  const std::vector<std::uint8_t> pixels = target.read_pixels();
  write_png(options.out, options.width, options.height, pixels);

  const auto groups = crowd.primitive_groups();
  if (!options.stats.empty()) {
    nlohmann::json stats;
    stats["asset"] = options.asset.empty() ? std::string("built-in") : options.asset;
    stats["actors"] = crowd.actor_count();
    stats["draws"] = draws;
    stats["primitive_groups"] = groups.size();
    stats["skinned_groups"] = std::count_if(groups.begin(), groups.end(), [](const auto& g) {
      return g.palette_kind == PaletteKind::skinned;
    });
    nlohmann::json joints = nlohmann::json::array();
    for (const auto& g : groups) joints.push_back(g.joint_count);
    stats["joints_per_group"] = joints;
    nlohmann::json clips = nlohmann::json::array();
    for (const Actor& actor : crowd.actors()) clips.push_back(actor.active_clip());
    stats["clips"] = clips;
    stats["upload_bytes_per_frame"] = render_stats.upload_bytes;
    stats["packed_bytes_per_frame"] = crowd.frame_stats().packed_bytes;
    stats["instances"] = render_stats.instances;
    stats["triangles"] = render_stats.triangles;
    stats["palette"] = reference ? "reference" : palette_storage_name(instanced->palette_storage());
    stats["gl_api"] = options.gl;
    stats["width"] = options.width;
    stats["height"] = options.height;
    stats["msaa"] = options.msaa;
    stats["seconds"] = options.seconds;
    stats["frames"] = steps;
    stats["background"] = {background_rgb[0], background_rgb[1], background_rgb[2], 255};
    stats["update_ms_total"] = update_ms;
    stats["draw_ms"] = draw_ms;
    stats["gl_version"] = context.version();
    stats["gl_renderer"] = context.renderer();
    stats["lod"] = lod_stats_json(crowd.lod_stats());
    std::ofstream file(options.stats);
    file << stats.dump(2) << '\n';
    if (!file) throw Error(options.stats, "write_failed", "could not write the statistics file");
  }
  fmt::print("rendered {} actors with {} draws ({} groups) at {}x{} into {}\n",
             crowd.actor_count(), draws, groups.size(), options.width, options.height,
             options.out);
}

}  // namespace

void register_render(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* render = app.add_subcommand(
      "render", "Render a crowd headless (EGL) to a PNG, with optional JSON statistics");
  render->add_option("asset", options->asset,
                     "glTF 2.0 file (.gltf or .glb); default: the built-in character")
      ->check(CLI::ExistingFile);
  render->add_option("--actors,-n", options->actors, "number of actors")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1'000'000u));
  render->add_option("--seconds,-t", options->seconds,
                     "animation time to advance, in 1/30 s steps")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 1.0e6f));
  render->add_option("--out,-o", options->out, "PNG file to write")->capture_default_str();
  render->add_option("--stats", options->stats, "JSON statistics file to write");
  render->add_option("--width", options->width, "image width in pixels")
      ->capture_default_str()
      ->check(CLI::Range(1u, 16384u));
  render->add_option("--height", options->height, "image height in pixels")
      ->capture_default_str()
      ->check(CLI::Range(1u, 16384u));
  render->add_option("--msaa", options->msaa, "samples per pixel (0 = off; llvmpipe allows 4)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 16u));
  render->add_flag("--lod", options->lod,
                   "levels of detail (SPEC §7): the asset's MSFT_lod levels, else generated ones");
  render->add_option("--lod-bias", options->lod_bias, "coverage multiplier; > 1 keeps detail longer (with --lod)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  render->add_option("--vertex-budget", options->vertex_budget,
                     "maximum submitted index references per frame, 0 = unlimited (with --lod)")
      ->capture_default_str();
  render->add_option("--palette", options->palette,
                     "palette storage of the instanced renderer (SPEC §6): storage (shader storage "
                     "buffers, OpenGL 4.3), texture (RGBA32F textures, OpenGL 3.3 / ES 3.0) or "
                     "auto (by capability)")
      ->capture_default_str()
      ->check(CLI::IsMember({"storage", "texture", "auto"}));
  render->add_option("--gl", options->gl,
                     "context to render with: 4.3 (core), 3.3 (core) or es3.0; on Mesa 3.3 and "
                     "es3.0 cap the version through MESA_GL_VERSION_OVERRIDE / "
                     "MESA_GLES_VERSION_OVERRIDE unless already set")
      ->capture_default_str()
      ->check(CLI::IsMember({"4.3", "3.3", "es3.0"}));
  render->add_flag("--reference", options->reference,
                   "draw every actor separately with CPU-skinned vertices (the correctness "
                   "oracle and separate-draws baseline: groups × actors draws)");
  render->callback([options] { run_render(*options); });
}

}  // namespace gltf_crowd::tools
