// `gltf-crowd bench [asset] --actors N --threads T --frames F [--warmup W] [--crossfade] [--json]`:
// a quick measurement of one configuration of the crowd update (issue 9), the same crowd the
// Google Benchmark suite (bench/crowd_bench.cpp) measures: W untimed warm-up updates, then F
// timed Crowd::update(1/60) calls with oneTBB limited to T threads. Reports the wall time per
// update divided by the actor count, the per-stage CPU time of Crowd::frame_stats() per actor,
// the bytes packed by the last update and its draw count. With `--animation gpu` the crowd
// writes playback records and a headless CrowdRenderer evaluates them in compute passes each
// frame: it reports the CPU time of the update and of CrowdRenderer::animate (upload and
// dispatch; on llvmpipe this includes the passes themselves, which it runs on the CPU), the
// bytes uploaded per frame and the passes' GPU time from a GL timer query.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "gltf_crowd/jobs.hpp"
#include "tools/as_option.hpp"
#include "tools/bench_crowd.hpp"
#include "tools/cli_numbers.hpp"
#include "tools/commands.hpp"
#include "tools/crowd_scene.hpp"

namespace gltf_crowd::tools {
namespace {

struct BenchOptions {
  std::string asset;  // empty = the built-in character
  LoadOptions load;   // --allow-outside-resources
  std::uint32_t actors = 1000;
  std::uint32_t threads = 0;  // 0 = every core oneTBB sees
  std::uint32_t frames = 100;
  std::uint32_t warmup = 10;
  bool crossfade = false;
  bool local_pose = false;
  std::string root_motion;  // root node: name, path or index; empty = no root motion
  std::string layer;        // "", override or additive: one animation layer per actor
  std::string layer_mask;   // the layer's mask: this node (name, path or index) and its descendants; empty = none
  bool json = false;
  std::string animation = "cpu";  // cpu or gpu
  bool records_only = false;      // gpu: no renderer, only Crowd::update's records
};

// The keys both reports start with: the configuration.
nlohmann::ordered_json json_head(const BenchOptions& options, std::uint32_t threads) {
  return {{"asset", options.asset.empty() ? std::string("built-in") : options.asset},
          {"actors", options.actors},
          {"threads", threads},
          {"frames", options.frames},
          {"crossfade", options.crossfade},
          {"local_pose", options.local_pose},
          {"root_motion", options.root_motion},
          {"layer", options.layer},
          {"layer_mask", options.layer_mask}};
}

// RenderStats::animation_pass_ms's fields by name, in pass order.
using PassMilliseconds = RenderStats::AnimationPassMilliseconds;
constexpr std::pair<const char*, double PassMilliseconds::*> kPassFields[] = {
    {"sample", &PassMilliseconds::sample},
    {"weights", &PassMilliseconds::weights},
    {"hierarchy", &PassMilliseconds::hierarchy},
    {"palette", &PassMilliseconds::palette},
    {"instances", &PassMilliseconds::instances}};

// What `--animation gpu` measures per timed frame, summed.
struct GpuMeasurement {
  double update_seconds = 0.0;                        // Crowd::update: clocks and records
  double animate_seconds = 0.0;                       // CrowdRenderer::animate: uploads and dispatches (CPU wall time)
  double gpu_ms = 0.0;                                // the passes, GL_TIME_ELAPSED
  PassMilliseconds pass_ms{0.0, 0.0, 0.0, 0.0, 0.0};  // GL_TIMESTAMP
  std::uint64_t upload_bytes = 0;
};

// The measured crowd: its actors, then what the options add to each. What an option names that
// the asset lacks (a clip to crossfade or layer, a node) is a usage error named by the option.
void populate(Crowd& crowd, const BenchOptions& options) {
  usage_checks([&] {
    populate_bench_crowd(crowd, options.actors, options.crossfade);
    if (options.local_pose) drive_bench_skeletons(crowd);
    if (!options.root_motion.empty())
      crowd.set_root_motion(
          {.node = node_name_option(crowd.asset(), options.root_motion, "--root-motion"), .yaw = true});
    std::optional<std::uint32_t> mask;
    if (!options.layer_mask.empty()) mask = resolve_node_option(crowd.asset(), options.layer_mask, "--layer-mask");
    if (!options.layer.empty())
      add_bench_layers(crowd, options.layer == "additive" ? LayerMode::additive : LayerMode::override, mask);
  });
}

void run_gpu_bench(const BenchOptions& options, std::uint32_t threads) {
  const std::shared_ptr<const Asset> asset = load_crowd_asset(options.asset, options.load);
  require_something_to_draw(*asset, options.asset);  // as render: its timings would measure nothing
  std::optional<HeadlessContext> context;
  if (!options.records_only) {
    context.emplace();
    check_actor_limit(Crowd(asset, {.capacity = 1, .animation = Animation::gpu}), options.actors,
                      PaletteStorage::automatic);
  }
  Crowd crowd(asset, {.capacity = options.actors, .animation = Animation::gpu});
  populate(crowd, options);
  // CPU times come from a renderer that does not time the passes (reading a timer query waits
  // for the GPU); the GPU time from a second one, over as many further frames.
  std::optional<CrowdRenderer> renderer, timed;
  if (context) {
    renderer.emplace(crowd);
    timed.emplace(crowd, CrowdRendererOptions{.time_animation = true});
  }
  for (std::uint32_t f = 0; f < options.warmup; ++f) {
    crowd.update(bench_frame_seconds);
    if (renderer) renderer->animate(crowd);
  }
  GpuMeasurement m;
  for (std::uint32_t f = 0; f < options.frames; ++f) {
    const auto start = std::chrono::steady_clock::now();
    crowd.update(bench_frame_seconds);
    const auto updated = std::chrono::steady_clock::now();
    if (renderer) renderer->animate(crowd);
    const auto animated = std::chrono::steady_clock::now();
    m.update_seconds += std::chrono::duration<double>(updated - start).count();
    m.animate_seconds += std::chrono::duration<double>(animated - updated).count();
    // What a renderer uploads: the records (and placements) that changed.
    m.upload_bytes += renderer ? renderer->stats().upload_bytes : crowd.frame_stats().packed_bytes;
  }
  if (timed) {
    timed->animate(crowd);  // its first call uploads everything
    for (std::uint32_t f = 0; f < options.frames; ++f) {
      crowd.update(bench_frame_seconds);
      timed->animate(crowd);
      // -1 (not measured: a frame that ran no pass) adds nothing.
      const RenderStats& stats = timed->stats();
      m.gpu_ms += std::max(stats.animation_ms, 0.0);
      for (const auto& [name, field] : kPassFields) m.pass_ms.*field += std::max(stats.animation_pass_ms.*field, 0.0);
    }
  }
  const double frames = static_cast<double>(options.frames);
  const double per_actor_us = 1e6 / (frames * static_cast<double>(options.actors));
  const std::string label = options.asset.empty() ? std::string("built-in") : options.asset;
  const std::string device = context ? context->renderer() : std::string("none (--records-only)");
  const bool software = !context || device.find("llvmpipe") != std::string::npos;
  const auto bytes_per_frame = static_cast<std::uint64_t>(static_cast<double>(m.upload_bytes) / frames);
  if (options.json) {
    nlohmann::ordered_json out = json_head(options, threads);
    out["animation"] = "gpu";
    out["us_per_actor"] = m.update_seconds * per_actor_us;
    out["animate_us_per_actor"] = m.animate_seconds * per_actor_us;
    out["upload_bytes_per_frame"] = bytes_per_frame;
    // A software renderer's (or no renderer's) GPU times are absent, not numbers to compare.
    out["gpu_ms_per_frame"] = software ? nlohmann::ordered_json() : nlohmann::ordered_json(m.gpu_ms / frames);
    nlohmann::ordered_json& by_pass = out["gpu_ms_per_frame_by_pass"];
    if (!software)
      for (const auto& [name, field] : kPassFields) by_pass[name] = m.pass_ms.*field / frames;
    out["gpu_time_meaningful"] = !software;
    out["gl_renderer"] = device;
    out["draws"] = crowd.frame_stats().draws;
    fmt::print("{}\n", json_text(out));
    return;
  }
  std::string gpu_time = !context   ? "no GPU time (--records-only)"
                         : software ? "no GPU time (llvmpipe runs the compute passes on the CPU)"
                                    : fmt::format("compute passes {:.3f} ms per frame (", m.gpu_ms / frames);
  if (!software) {
    for (const auto& [name, field] : kPassFields)
      gpu_time += fmt::format("{}{} {:.3f}", name == kPassFields[0].first ? "" : ", ", name, m.pass_ms.*field / frames);
    gpu_time += ")";
  }
  fmt::print(
      "{}: {}, {}{}, animation on the GPU: update {:.4f} us per actor, animate {:.4f} us per "
      "actor (CPU), {} bytes uploaded per frame, {} on {}\n",
      label, count_of(options.actors, "actor"), count_of(options.frames, "frame"),
      options.crossfade ? ", mid-crossfade" : "", m.update_seconds * per_actor_us, m.animate_seconds * per_actor_us,
      bytes_per_frame, gpu_time, device);
}

struct Measurement {
  double update_seconds = 0.0;  // wall time summed over the timed updates
  double sampling_ms = 0.0;     // frame_stats stages summed over the stage_frames updates that follow
  double hierarchy_ms = 0.0;
  double palettes_ms = 0.0;
  double packing_ms = 0.0;
  std::uint32_t stage_frames = 0;  // the updates the stages were summed over
};

// Wall time over `frames` updates without stage timing (what an application that does not ask
// for stage times pays), then the stage times over min(frames, 20) more: a fixed count, so that
// the difference of two runs is the timed frames' alone (scripts/bench_instructions.sh).
Measurement measure(Crowd& crowd, std::uint32_t frames) {
  Measurement m;
  for (std::uint32_t f = 0; f < frames; ++f) {
    const auto start = std::chrono::steady_clock::now();
    crowd.update(bench_frame_seconds);
    m.update_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  crowd.set_stage_timing(true);
  m.stage_frames = std::min(frames, 20u);
  for (std::uint32_t f = 0; f < m.stage_frames; ++f) {
    crowd.update(bench_frame_seconds);
    const FrameStats& s = crowd.frame_stats();
    m.sampling_ms += s.sampling_ms;
    m.hierarchy_ms += s.hierarchy_ms;
    m.palettes_ms += s.palettes_ms;
    m.packing_ms += s.packing_ms;
  }
  return m;
}

// The bytes the packing stage writes per evaluated actor: one 48-byte instance row and the
// padded morph weights of every node stream (palettes are the palette stage's).
std::uint64_t packing_bytes_per_actor(const Crowd& crowd) {
  std::uint64_t bytes = 0;
  for (const NodeStream& s : crowd.node_streams()) bytes += 48 + 4ull * s.weight_stride;
  return bytes;
}

// What a plain memcpy of `bytes` achieves on this thread (bytes per second, the best of five
// rounds of at least 20 ms each), the bound the packing stage is compared with.
double memcpy_bytes_per_second(std::uint64_t bytes) {
  const std::vector<char> source(bytes, 1);
  std::vector<char> target(bytes);
  double best = 0.0;
  for (int round = 0; round < 5; ++round) {
    std::uint64_t copies = 0;
    const auto start = std::chrono::steady_clock::now();
    double seconds = 0.0;
    do {
      std::memcpy(target.data(), source.data(), bytes);
      asm volatile("" : : "r"(target.data()) : "memory");  // the copy is not dead
      ++copies;
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (seconds < 0.02);
    best = std::max(best, static_cast<double>(bytes * copies) / seconds);
  }
  return best;
}

void run_bench(const BenchOptions& options) {
  // Before the crowd exists, so every parallel loop (construction included) obeys the limit.
  const auto available = static_cast<std::uint32_t>(tbb::info::default_concurrency());
  const std::uint32_t threads = options.threads == 0 ? available : std::min(options.threads, available);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  if (options.animation == "gpu") return run_gpu_bench(options, threads);
  if (options.records_only)
    throw UsageError("--records-only", Rule::animation_mode, "measures the GPU path's update: add --animation gpu");

  const std::shared_ptr<const Asset> asset = load_crowd_asset(options.asset, options.load);
  require_something_to_draw(*asset, options.asset);  // as render: its timings would measure nothing
  Crowd crowd(asset, {.capacity = options.actors});
  populate(crowd, options);
  for (std::uint32_t f = 0; f < options.warmup; ++f) crowd.update(bench_frame_seconds);
  const Measurement m = measure(crowd, options.frames);

  const double per_actor_us = 1e3 / (static_cast<double>(options.frames) * static_cast<double>(options.actors));
  const double us_per_actor = m.update_seconds * 1e3 * per_actor_us;
  const double stage_us = 1e3 / (static_cast<double>(m.stage_frames) * static_cast<double>(options.actors));
  const FrameStats& last = crowd.frame_stats();
  const std::string label = options.asset.empty() ? std::string("built-in") : options.asset;
  // Per thread: the stage times are CPU time summed over the workers.
  const std::uint64_t packing_bytes = packing_bytes_per_actor(crowd) * last.actors_evaluated;
  const double packing_rate =
      m.packing_ms > 0.0 ? static_cast<double>(packing_bytes) * m.stage_frames / (m.packing_ms * 1e-3) : 0.0;
  const double memcpy_rate = memcpy_bytes_per_second(std::max<std::uint64_t>(packing_bytes, 1));
  if (options.json) {
    nlohmann::ordered_json out = json_head(options, threads);
    out["us_per_actor"] = us_per_actor;
    out.update(nlohmann::ordered_json{{"stages",
                                       {{"sampling", m.sampling_ms * stage_us},
                                        {"hierarchy", m.hierarchy_ms * stage_us},
                                        {"palettes", m.palettes_ms * stage_us},
                                        {"packing", m.packing_ms * stage_us}}},
                                      {"packed_bytes_per_frame", last.packed_bytes},
                                      {"actors_batched_by_clip", last.actors_batched_by_clip},
                                      {"packing",
                                       {{"instance_and_weight_bytes_per_frame", packing_bytes},
                                        {"bytes_per_second", packing_rate},
                                        {"memcpy_bytes_per_second", memcpy_rate}}},
                                      {"draws", last.draws},
                                      {"affine_kernels", affine_kernel_name()}});
    fmt::print("{}\n", json_text(out));
    return;
  }
  fmt::print(
      "{}: {}, {}, {}{}: {:.3f} us per actor per update "
      "(CPU per actor: sampling {:.3f}, hierarchy {:.3f}, palettes {:.3f}, packing {:.3f}), "
      "{} bytes packed per frame, {}; packing stage {:.2f} GB/s per thread, memcpy of its {} bytes "
      "{:.2f} GB/s; {} affine kernels\n",
      label, count_of(options.actors, "actor"), count_of(threads, "thread"), count_of(options.frames, "frame"),
      options.crossfade ? ", mid-crossfade" : "", us_per_actor, m.sampling_ms * stage_us, m.hierarchy_ms * stage_us,
      m.palettes_ms * stage_us, m.packing_ms * stage_us, last.packed_bytes, count_of(last.draws, "draw"),
      packing_rate * 1e-9, packing_bytes, memcpy_rate * 1e-9, affine_kernel_name());
}

}  // namespace

void register_bench(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* bench =
      app.add_subcommand("bench", "Measure the CPU cost of Crowd::update per actor for one configuration");
  add_load_options(*bench, options->load);
  bench->add_option("asset", options->asset, "glTF 2.0 file (.gltf or .glb); default: the built-in character")
      ->check(non_empty());
  bench
      ->add_option("--actors,-n", options->actors,
                   "number of actors (with --animation gpu also at most what the GPU's palette storage holds: "
                   "checked up front, the limit named in the error)")
      ->capture_default_str()
      ->check(integer_in(1, 1'000'000));
  bench
      ->add_option("--threads", options->threads,
                   "oneTBB worker limit, 0 = all cores (more than the cores available is capped)")
      ->capture_default_str()
      ->check(integer_in(0, 4096));
  bench->add_option("--frames,-f", options->frames, "timed updates of 1/60 s")
      ->capture_default_str()
      ->check(integer_in(1, 10'000'000));
  bench->add_option("--warmup", options->warmup, "untimed updates before the timed ones")
      ->capture_default_str()
      ->check(integer_in(0, 10'000'000));
  bench->add_flag("--crossfade", options->crossfade,
                  "every actor mid-crossfade between two clips for the whole measurement");
  bench->add_flag("--local-pose", options->local_pose,
                  "every actor has an application-driven pose over every node at weight 0.5 (set once; each "
                  "evaluation blends it over the clips)");
  bench
      ->add_option("--root-motion", options->root_motion,
                   "extract root motion (translation x, z and yaw; docs/spec.md §3.10) from this node (a name, path "
                   "or index, docs/spec.md §2.3), e.g. Hips for the built-in character; the cost with none is today's")
      ->check(non_empty());
  CLI::Option* layer =
      bench
          ->add_option("--layer", options->layer,
                       "every actor also plays an animation layer (docs/spec.md §3.11) in this mode: clip (i + 2) "
                       "mod C at weight 1 over its base clip")
          ->check(CLI::IsMember({"override", "additive"}));
  bench
      ->add_option("--layer-mask", options->layer_mask,
                   "mask the layer to this node (a name, path or index, docs/spec.md §2.3) and its descendants, e.g. "
                   "Spine (an upper body)")
      ->check(non_empty())
      ->needs(layer);
  bench
      ->add_option("--animation", options->animation,
                   "where poses are evaluated: cpu (Crowd::update) or gpu (compute passes of a headless "
                   "CrowdRenderer; needs OpenGL 4.3)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "gpu"}));
  bench->add_flag("--records-only", options->records_only,
                  "with --animation gpu: no GL context or renderer, only the update that writes the records "
                  "(the CPU side at any actor count; upload_bytes_per_frame is what a renderer would upload)");
  bench->add_flag(
      "--json", options->json,
      "print one JSON object: asset, actors, threads, frames, crossfade, local_pose, root_motion, layer, "
      "layer_mask, us_per_actor "
      "(wall time per update / actors, stage timing off), actors_batched_by_clip (of the last update's "
      "evaluated actors, those sampled across lanes with their batch's clips), stages {sampling, hierarchy, "
      "palettes, packing} "
      "(CPU us per actor), packed_bytes_per_frame (every byte the last update wrote into the node streams: "
      "palettes, instance rows, morph weights; as render's --stats), packing {instance_and_weight_bytes_per_frame "
      "(the packing stage's share: instance rows and morph weights), bytes_per_second, memcpy_bytes_per_second} "
      "(the packing stage's rate per thread and a plain memcpy's of the same bytes), draws, affine_kernels (the CPU "
      "kernel set: avx512vl, avx2+fma or sse2). With --animation gpu, "
      "instead of stages, packed_bytes_per_frame and packing: "
      "animation, animate_us_per_actor (the renderer's compute passes, wall time), "
      "upload_bytes_per_frame, gpu_ms_per_frame, gpu_ms_per_frame_by_pass {sample, weights, hierarchy, palette, "
      "instances} (both null, absent, on a software renderer or with --records-only), gpu_time_meaningful (false "
      "there) and gl_renderer; no actors_batched_by_clip or affine_kernels, as the update samples nothing on the "
      "CPU there (no clip batches, no affine kernels)");
  bench->footer(
      "Time step: every update advances 1/60 s, a 60 Hz frame (render and studio step "
      "1/30 s).");
  bench->callback([options] { run_bench(*options); });
}

}  // namespace gltf_crowd::tools
