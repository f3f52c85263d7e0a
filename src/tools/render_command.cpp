// `gltf-crowd render`: N actors of one asset on a square grid, each with its own clip, phase and
// speed, advanced T seconds in 1/30 s steps, drawn headless (EGL) with one instanced draw per
// primitive group, then written as a PNG and a JSON of statistics (docs/spec.md §8). The actor count is
// checked against the GPU's palette limits before the crowd is built. With --video it draws
// --frames frames 1 / --fps s apart from time 0 and encodes them (tools/video_writer.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <epoxy/gl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "tools/as_option.hpp"
#include "tools/cli_numbers.hpp"
#include "tools/commands.hpp"
#include "tools/crowd_scene.hpp"
#include "tools/shadow_stage.hpp"
#include "tools/video_writer.hpp"

namespace gltf_crowd::tools {
namespace {

struct RenderOptions {
  std::string asset;  // empty = the built-in character
  LoadOptions load;   // --allow-outside-resources
  std::uint32_t actors = 100;
  float seconds = 2.0f;
  std::string out = "crowd.png";
  std::string stats;  // empty = no JSON
  std::uint32_t width = 640;
  std::uint32_t height = 480;
  std::uint32_t msaa = 4;
  bool lod = false;  // docs/spec.md §7: authored levels when present, else generated
  float lod_bias = 1.0f;
  std::uint64_t vertex_budget = 0;    // 0 = unlimited
  std::optional<float> min_coverage;  // absent: the last threshold culls (docs/spec.md §7)
  std::string palette = "auto";       // CrowdRenderer palette storage: storage, texture or auto
  std::string animation = "cpu";      // where poses are evaluated: cpu or gpu (compute passes)
  std::string gl = "4.3";             // context: 4.3, 3.3 or es3.0
  bool reference = false;             // draw every actor separately, CPU-skinned (docs/spec.md §6)
  bool shadows = true;                // a directional shadow map and a ground plane (docs/spec.md §8)
  bool skinned_vertex_cache = false;  // skin once per frame for both passes (docs/spec.md §6.9)
  std::string tints = "none";         // none or random (pastel, from tint_seed)
  std::uint32_t tint_seed = 1;
  std::string variants = "none";     // none or spread (actor i: variant i mod count)
  std::string video;                 // empty = no video; else frame k shows time k / fps
  std::uint32_t frames = 60;         // video frames, >= 1
  float fps = 30.0f;                 // video frames per second
  std::string video_codec = "auto";  // video encoder (video_format)
  bool write_out = true;             // with --video, the PNG (the last frame) only when --out is given
};

constexpr double frame_seconds = 1.0 / 30.0;

// The context `gl` names. Mesa hands out its highest version for any request (docs/platform.md P4)
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

// Throws Error naming the option when --video cannot be written as asked: a build without
// FFmpeg, an unknown extension or missing encoder (video_format), an odd --width or --height, a
// size the encoder refuses.
// Called before the asset is loaded, so nothing is drawn for a command that must fail.
void check_video_options(const RenderOptions& options) {
  const VideoFormat format = video_format(options.video, options.video_codec);
  // YUV 4:2:0 stores one chroma sample per 2 × 2 pixels; rounding up would silently change
  // the picture the user sized.
  for (const auto& [name, value] : {std::pair{"--width", options.width}, std::pair{"--height", options.height}}) {
    if (value % 2 != 0) {
      throw Error(name, Rule::invalid_size,
                  fmt::format("{} is odd; --video needs an even --width and --height (4:2:0 chroma)", value));
    }
  }
  check_video_size(format, options.width, options.height);
}

// Reads `target`'s colour into `rgba` (width × height × 4 bytes) bottom row first, the order of
// glReadPixels, into the caller's buffer so that a video allocates nothing per frame. A
// multisampled target is first resolved into `resolved` (single-sampled, the same size).
// Leaves GL_PACK_ALIGNMENT at 1 and `resolved` (else `target`) bound for reading.
void read_bottom_up(const Framebuffer& target, const Framebuffer* resolved, std::span<std::uint8_t> rgba) {
  const auto w = static_cast<GLsizei>(target.width()), h = static_cast<GLsizei>(target.height());
  GLint source = 0;
  target.bind();
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &source);
  if (resolved != nullptr) {
    GLint destination = 0;
    resolved->bind();
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &destination);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(source));
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(destination));
  }
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  if (const GLenum error = glGetError(); error != GL_NO_ERROR)
    throw Error("--video", Rule::gl_call_failed, fmt::format("glReadPixels failed (GL error 0x{:04X})", error));
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// "frame k/N" on stderr: rewritten in place on a terminal; in a file or pipe one line per tenth
// of a video of 100 frames or more, so logs and tests stay short.
void report_progress(std::uint64_t done, std::uint64_t total, bool terminal) {
  if (terminal) {
    fmt::print(stderr, "\rframe {}/{}{}", done, total, done == total ? "\n" : "");
  } else if (total >= 100 && (done % (total / 10) == 0 || done == total)) {
    fmt::print(stderr, "frame {}/{}\n", done, total);
  }
}

// The picture's framebuffer. What the GL refuses (GL_MAX_SAMPLES, GL_MAX_RENDERBUFFER_SIZE, or
// storage it cannot allocate: an incomplete framebuffer) is named by the options that asked for
// it, not by FramebufferOptions' fields; a multisampled one suggests --msaa 0, which needs
// 1 / samples of the memory (16384² with the default 4 samples is incomplete on llvmpipe).
std::unique_ptr<Framebuffer> make_picture_target(const RenderOptions& options) {
  try {
    return std::make_unique<Framebuffer>(
        FramebufferOptions{.width = options.width, .height = options.height, .samples = options.msaa});
  } catch (const Error& e) {
    const bool samples =
        e.path() == "FramebufferOptions.samples" || (e.code() == Rule::framebuffer_incomplete && options.msaa > 1);
    throw Error(
        samples ? "--msaa" : "--width/--height", e.code(),
        fmt::format("{} x {} pixels with {} samples: {}{}", options.width, options.height, options.msaa,
                    message_without_path(e), samples ? "; try --msaa 0 (no multisampling) or fewer samples" : ""));
  }
}

// --out, or "" (no output) when --video alone is asked for.
const std::string& picture_out(const RenderOptions& options) {
  static const std::string kNone;
  return options.write_out ? options.out : kNone;
}

// The checks of the options that need no asset or context, each naming its option (UsageError).
void check_render_options(const RenderOptions& options) {
  if (options.write_out) require_extension("--out", options.out, ".png", "render writes a PNG image");
  require_distinct_files({{"asset", options.asset}},
                         {{"--out", picture_out(options)}, {"--video", options.video}, {"--stats", options.stats}});
  // After the check above, which names a clash with the asset itself: `render --stats crowd.glb`
  // without an asset would replace crowd.glb by JSON.
  if (!options.stats.empty()) require_extension("--stats", options.stats, ".json", "render writes JSON statistics");
  // The reference path draws and skins every actor separately: about a millisecond per actor.
  if (options.reference && options.actors > 10'000)
    throw Error("--actors", Rule::too_many_actors,
                fmt::format("{} actors: --reference draws each actor separately, at most 10000", options.actors));
  // What the chosen context cannot do, named by option (the library names its own fields).
  if (options.gl != "4.3" && options.animation == "gpu")
    throw Error("--animation", Rule::gl_version, "gpu needs compute shaders: --gl 4.3");
  if (options.gl != "4.3" && options.palette == "storage")
    throw Error("--palette", Rule::gl_version, "storage needs shader storage buffers: --gl 4.3");
  if (options.gl == "3.3" && options.skinned_vertex_cache)
    throw Error("--skinned-vertex-cache", Rule::gl_version,
                "the cache needs transform feedback objects: --gl 4.3 or es3.0");
  if (!options.video.empty()) check_video_options(options);
}

void run_render(const RenderOptions& options) {
  usage_checks([&] { check_render_options(options); });
  const bool video = !options.video.empty();
  const std::shared_ptr<const Asset> asset = load_crowd_asset(options.asset, options.load);
  require_outputs_spare(asset->external_files,
                        {{"--out", picture_out(options)}, {"--video", options.video}, {"--stats", options.stats}});
  print_load_warnings(*asset, options.asset.empty() ? "built-in character" : options.asset);
  // An error, not a warning: a picture of the empty ground is never what was asked for.
  require_something_to_draw(*asset, options.asset);
  const AppearanceAssignment appearance{
      .tints = options.tints == "random", .tint_seed = options.tint_seed, .variants = options.variants == "spread"};
  usage_checks([&] { check_appearance(*asset, appearance, "--variants"); });
  // Opened before the context: an unwritable path fails before anything is drawn.
  std::optional<VideoWriter> writer;
  if (video)
    writer.emplace(VideoOptions{options.video, options.video_codec, options.width, options.height, options.fps});
  // Declaration order matters: GL objects are deleted before the context goes.
  HeadlessContext context({.api = select_api(options.gl)});
  LodOptions lod;
  lod.enabled = lod.auto_generate = options.lod;
  lod.vertex_budget = options.vertex_budget;
  lod.min_coverage = options.min_coverage;
  Crowd crowd(asset,
              {.capacity = 1, .lod = lod, .animation = options.animation == "gpu" ? Animation::gpu : Animation::cpu});
  if (!options.reference) check_actor_limit(crowd, options.actors, parse_storage(options.palette));
  crowd.reserve(options.actors);
  if (options.lod) crowd.set_lod_bias(options.lod_bias);
  const Layout layout = grid_layout(*asset, options.actors);
  crowd.add_actors(actor_options(*asset, layout));
  apply_appearance(crowd, appearance);
  // The camera also drives LOD: every update classifies against it.
  const Camera camera =
      frame_crowd(layout.crowd_bounds, static_cast<float>(options.width) / static_cast<float>(options.height));
  const LodView view{camera.view, camera.projection, options.width, options.height};

  const std::unique_ptr<Framebuffer> picture = make_picture_target(options);
  const Framebuffer& target = *picture;
  std::unique_ptr<CrowdRenderer> instanced;
  std::unique_ptr<ReferenceRenderer> reference;
  if (options.reference) {
    reference = std::make_unique<ReferenceRenderer>(crowd);
  } else {
    instanced = std::make_unique<CrowdRenderer>(
        crowd, CrowdRendererOptions{.palette = parse_storage(options.palette),
                                    .skinned_vertex_cache = options.skinned_vertex_cache});
  }
  double update_ms = 0.0, draw_ms = 0.0;
  const auto timed_update = [&](double seconds) {
    const auto start = std::chrono::steady_clock::now();
    crowd.update(static_cast<float>(seconds), view);
    update_ms += ms_since(start);
  };
  std::optional<ShadowStage> stage;
  if (options.shadows) stage.emplace(layout.crowd_bounds, camera.light_direction);
  std::uint32_t shadow_draws = 0;
  const auto timed_draw = [&] {
    const auto start = std::chrono::steady_clock::now();
    // The depth pass from the light first: it also brings the GPU streams up to date.
    shadow_draws = !stage ? 0 : reference ? stage->cast(*reference, crowd) : stage->cast(*instanced, crowd);
    const Camera shaded = stage ? stage->shaded(camera) : camera;
    target.clear(glm::vec4(background_rgb[0] / 255.0f, background_rgb[1] / 255.0f, background_rgb[2] / 255.0f, 1.0f));
    if (stage) stage->draw_ground(shaded);
    const std::uint32_t n =
        shadow_draws + (reference ? reference->draw(crowd, shaded) : instanced->draw(crowd, shaded));
    glFinish();
    draw_ms += ms_since(start);
    return n;
  };

  std::uint64_t steps = 0;
  double seconds = options.seconds;
  std::uint32_t draws = 0;
  double encode_ms = 0.0;
  if (video) {
    // Frame k shows time k / fps: the first frame is the crowd at rest time 0 (an update of 0 s
    // packs the streams), each later one advances 1 / fps.
    std::optional<Framebuffer> resolved;
    if (options.msaa > 1)
      resolved.emplace(FramebufferOptions{.width = options.width, .height = options.height, .samples = 0});
    std::vector<std::uint8_t> frame(std::size_t{options.width} * options.height * 4);
    const bool terminal = isatty(STDERR_FILENO) != 0;
    for (std::uint32_t k = 0; k < options.frames; ++k) {
      timed_update(k == 0 ? 0.0 : 1.0 / options.fps);
      draws = timed_draw();
      read_bottom_up(target, resolved ? &*resolved : nullptr, frame);
      const auto start = std::chrono::steady_clock::now();
      writer->write(frame, true);
      encode_ms += ms_since(start);
      report_progress(k + 1, options.frames, terminal);
    }
    const auto start = std::chrono::steady_clock::now();
    writer->finish();
    encode_ms += ms_since(start);
    steps = options.frames;
    seconds = (options.frames - 1) / static_cast<double>(options.fps);
  } else {
    steps = static_cast<std::uint64_t>(std::floor(options.seconds / frame_seconds + 1e-6));
    for (std::uint64_t step = 0; step < steps; ++step) timed_update(frame_seconds);
    const double rest = options.seconds - static_cast<double>(steps) * frame_seconds;
    // At least one update, so the streams are packed even for --seconds 0.
    if (rest > 1e-6 || steps == 0) timed_update(std::max(rest, 0.0));
    draws = timed_draw();
  }
  const RenderStats& render_stats = reference ? reference->stats() : instanced->stats();  // .frame: both passes
  if (options.write_out) write_png(options.out, options.width, options.height, target.read_pixels());

  const auto groups = crowd.primitive_groups();
  if (!options.stats.empty()) {
    nlohmann::json stats =
        crowd_stats_json(crowd, options.asset.empty() ? std::string("built-in") : options.asset, render_stats.frame,
                         reference ? "reference" : palette_storage_name(instanced->palette_storage()));
    stats["gl_api"] = options.gl;
    stats["shadows"] = options.shadows;
    stats["shadow_draws"] = shadow_draws;
    stats["skinned_vertex_cache"] = options.skinned_vertex_cache;  // as the studio's key
    stats["width"] = options.width;
    stats["height"] = options.height;
    stats["msaa"] = options.msaa;
    stats["seconds"] = seconds;
    stats["frames"] = steps;
    stats["background"] = {background_rgb[0], background_rgb[1], background_rgb[2], 255};
    stats["update_ms_total"] = update_ms;
    stats["draw_ms"] = draw_ms;
    if (options.lod) stats["min_coverage"] = crowd.lod_model()->thresholds.back();
    if (video) {
      stats["video"] = {{"path", options.video}, {"codec", writer->codec()}, {"frames", writer->frames()},
                        {"fps", options.fps},    {"width", options.width},   {"height", options.height},
                        {"encode_ms", encode_ms}};
    }
    stats["gl_version"] = context.version();
    stats["gl_renderer"] = context.renderer();
    std::ofstream file(options.stats);
    file << json_text(stats, 2) << '\n';
    if (!file) throw Error(options.stats, Rule::write_failed, "could not write the statistics file");
  }
  if (video) {
    fmt::print("rendered {} with {} ({}) at {}x{}: {} at {} fps into {} ({}){}\n",
               count_of(crowd.actor_count(), "actor"), count_of(draws, "draw"), count_of(groups.size(), "group"),
               options.width, options.height, count_of(writer->frames(), "frame"), options.fps, options.video,
               writer->codec(), options.write_out ? fmt::format(", the last frame into {}", options.out) : "");
  } else {
    fmt::print("rendered {} with {} ({}) at {}x{} into {}\n", count_of(crowd.actor_count(), "actor"),
               count_of(draws, "draw"), count_of(groups.size(), "group"), options.width, options.height, options.out);
  }
  if (options.lod) {
    const LodStats& lod_stats = crowd.lod_stats();
    fmt::print(
        "lod: {} visible, {} culled (outside the view, or below screen coverage {}: "
        "see --min-coverage)\n",
        lod_stats.visible_actors, lod_stats.culled_actors, crowd.lod_model()->thresholds.back());
  }
}

}  // namespace

void register_render(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* render =
      app.add_subcommand("render", "Render a crowd headless (EGL) to a PNG, with optional JSON statistics");
  add_load_options(*render, options->load);
  render->add_option("asset", options->asset, "glTF 2.0 file (.gltf or .glb); default: the built-in character")
      ->check(non_empty());
  render
      ->add_option("--actors,-n", options->actors,
                   "number of actors, at most 1000000 and what the palette storage holds for the "
                   "asset, checked before the crowd is built: storage buffers hold "
                   "GL_MAX_SHADER_STORAGE_BLOCK_SIZE / (48 bytes × the largest skin's joints) "
                   "actors, textures GL_MAX_TEXTURE_SIZE actors; with --reference at most 10000")
      ->capture_default_str()
      ->check(integer_in(1, 1'000'000));
  CLI::Option* seconds =
      render->add_option("--seconds,-t", options->seconds, "animation time to advance, in 1/30 s steps")
          ->capture_default_str()
          ->check(finite_in(0.0, 3600.0));
  CLI::Option* out =
      render->add_option("--out,-o", options->out, "PNG file to write (with --video: the last frame, only when given)")
          ->capture_default_str()
          ->check(output_file());
  CLI::Option* video =
      render
          ->add_option("--video", options->video,
                       std::string("video file to write: --frames frames, 1 / --fps s apart, frame k at animation "
                                   "time k / --fps (from 0; not with --seconds). The extension picks the format: "
                                   ".mp4 (H.264, else MPEG-4 part 2), .webm (VP9), .mkv (VP9, H.264 or MPEG-4 part "
                                   "2); --width and --height must be even") +
                           (video_available() ? ""
                                              : ". UNAVAILABLE in this build: built without FFmpeg "
                                                "(libavcodec-dev, libavformat-dev, libswscale-dev)"))
          ->check(output_file());
  seconds->excludes(video);
  render->add_option("--frames", options->frames, "number of video frames (with --video)")
      ->capture_default_str()
      ->check(integer_in(1, 1'000'000))
      ->needs(video);
  render->add_option("--fps", options->fps, "video frames per second (with --video)")
      ->capture_default_str()
      ->check(finite_in(0.01, 1000.0))
      ->needs(video);
  render
      ->add_option("--video-codec", options->video_codec,
                   "video encoder: auto (the extension's first that this FFmpeg has), libx264, libvpx-vp9 or mpeg4 "
                   "(with --video; the container must take it)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "libx264", "libvpx-vp9", "mpeg4"}))
      ->needs(video);
  render->add_option("--stats", options->stats, "JSON statistics file to write")->check(output_file());
  render->add_option("--width", options->width, "image width in pixels")
      ->capture_default_str()
      ->check(integer_in(1, 16384));
  render->add_option("--height", options->height, "image height in pixels")
      ->capture_default_str()
      ->check(integer_in(1, 16384));
  render->add_option("--msaa", options->msaa, "samples per pixel: 0 (off), 2, 4, 8 or 16 (llvmpipe allows 4)")
      ->capture_default_str()
      ->check(CLI::IsMember({0u, 2u, 4u, 8u, 16u}));
  CLI::Option* lod =
      render->add_flag("--lod", options->lod,
                       "levels of detail (docs/spec.md §7): the asset's MSFT_lod levels, else generated ones; "
                       "actors outside the view or below the smallest screen coverage are culled "
                       "(counts printed)");
  render->add_option("--lod-bias", options->lod_bias, "coverage multiplier; > 1 keeps detail longer (with --lod)")
      ->capture_default_str()
      ->check(finite_above(0.0))
      ->needs(lod);
  render
      ->add_option("--min-coverage", options->min_coverage,
                   "screen coverage (projected size / the image's smaller side) below which an "
                   "actor is culled, instead of the last LOD threshold (0.01 by default); 0 = "
                   "never cull for size (with --lod)")
      ->check(finite_at_least(0.0))
      ->needs(lod);
  render
      ->add_option("--vertex-budget", options->vertex_budget,
                   "maximum submitted index references per frame, 0 = unlimited (with --lod)")
      ->capture_default_str()
      ->check(integer_in(0, ~std::uint64_t{0}))
      ->needs(lod);
  CLI::Option* palette =
      render
          ->add_option("--palette", options->palette,
                       "palette storage of the instanced renderer (docs/spec.md §6): storage (shader storage "
                       "buffers, OpenGL 4.3), texture (RGBA32F textures, OpenGL 3.3 / ES 3.0) or "
                       "auto (by capability)")
          ->capture_default_str()
          ->check(CLI::IsMember({"storage", "texture", "auto"}));
  render
      ->add_option("--gl", options->gl,
                   "context to render with: 4.3 (core), 3.3 (core) or es3.0; on Mesa 3.3 and "
                   "es3.0 cap the version through MESA_GL_VERSION_OVERRIDE / "
                   "MESA_GLES_VERSION_OVERRIDE unless already set")
      ->capture_default_str()
      ->check(CLI::IsMember({"4.3", "3.3", "es3.0"}));
  CLI::Option* animation =
      render
          ->add_option("--animation", options->animation,
                       "where poses are evaluated: cpu (Crowd::update packs every palette) or gpu (compute "
                       "passes of the instanced renderer write them; needs OpenGL 4.3, see --gl)")
          ->capture_default_str()
          ->check(CLI::IsMember({"cpu", "gpu"}));
  CLI::Option* reference = render->add_flag("--reference", options->reference,
                                            "draw every actor separately with CPU-skinned vertices (the correctness "
                                            "oracle and separate-draws baseline: groups × actors draws)");
  render
      ->add_flag("--skinned-vertex-cache", options->skinned_vertex_cache,
                 "skin every vertex once per frame into a cache that the shadow and main passes both read "
                 "(CrowdRendererOptions::skinned_vertex_cache, docs/spec.md §6.9; 48 bytes per vertex per "
                 "actor; cached_vertices in --stats; needs --gl 4.3 or es3.0, not 3.3)")
      ->excludes(reference);
  reference->excludes(palette)->excludes(animation);
  render->add_flag("--shadows,!--no-shadows", options->shadows,
                   "shadows from the directional light on the actors and a ground plane: on by default "
                   "(the default look); one depth pass into a 2048² shadow map (CrowdRenderer::draw_depth: "
                   "one more draw per drawn opaque group, shadow_draws in --stats), sampled with 3 × 3 "
                   "PCF; --no-shadows draws the crowd alone on the clear color (the last of the two given wins)");
  CLI::Option* tints = render
                           ->add_option("--tints", options->tints,
                                        "per-actor base color tints (docs/spec.md §3.12): none, or random (a pastel "
                                        "multiplier per actor, each channel in [0.55, 1], drawn from --tint-seed)")
                           ->capture_default_str()
                           ->check(CLI::IsMember({"none", "random"}));
  CLI::Option* tint_seed = render->add_option("--tint-seed", options->tint_seed, "seed of --tints random")
                               ->capture_default_str()
                               ->check(integer_in(0, 0xFFFFFFFFu))
                               ->needs(tints);
  render
      ->add_option("--variants", options->variants,
                   "material variants (KHR_materials_variants): none (the default materials), or "
                   "spread (actor i gets variant i mod the variant count; an error for an asset "
                   "without variants). Each primitive drawn with k different materials costs k draws")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "spread"}));
  render->footer(
      "Time step: the animation advances in fixed 1/30 s steps (bench uses 1/60 s); with --video, "
      "in steps of 1 / --fps.");
  render->callback([options, out, video, tint_seed] {
    if (tint_seed->count() > 0 && options->tints != "random")
      throw CLI::ValidationError("--tint-seed", "it seeds --tints random; --tints is " + options->tints);
    options->write_out = video->count() == 0 || out->count() > 0;
    run_render(*options);
  });
}

}  // namespace gltf_crowd::tools
