// The issue-9 benchmark suite (docs/spec.md §10), Google Benchmark. Run it all with scripts/bench.sh;
// docs/benchmarks.md lists the counters and commands.
//
// BM_Update/asset/actors/threads/crossfade: the CPU cost of Crowd::update (clocks, sampling,
// hierarchy, palettes, packing) on the crowd `gltf-crowd bench` builds (tools/bench_crowd.hpp).
// BM_ControlsThenUpdate/actors/controls: a control on every actor, then Crowd::update, on the same
// RobotExpressive crowd on all cores: controls 0 = update alone, 1 = Actor::set_speed on each actor
// first, 2 = Crowd::set_speed over all of them (docs/spec.md §3.4). Controls mark instead of
// evaluating, so 1 and 2 cost about what 0 does.
// BM_Draw/asset/actors/reference: one frame's draw on a headless EGL context into a 64 × 64
// framebuffer, finished with glFinish: the instanced CrowdRenderer (reference 0, one draw per
// primitive group) against the separate-draws ReferenceRenderer (reference 1, one draw per actor
// per group with CPU-skinned vertices), the "separate scenegraphs" baseline.
// BM_Pass/asset/actors/pass/cache/size: CrowdRenderer's draw (pass 0) against its draw_depth (pass 1)
// and draw_velocity (pass 2, into an RG16F target, every vertex deformed with both frames), the
// streams uploaded before the clock starts (CrowdRenderer::animate), so the passes are compared
// by their draws alone: what a shadow map, depth pre-pass or motion-vector pass adds to a frame.
// With cache 1 (CrowdRendererOptions::skinned_vertex_cache) animate() also skins every vertex
// into the cache, which the passes then read; pass 3 times animate() itself, so cache 1 minus
// cache 0 there is the skinning the cache does once per frame. The target is size × size pixels.
// Each BM_Pass row also has gpu_us_per_actor, the pass's GL_TIME_ELAPSED: the GPU's own time,
// without the submission and the glFinish round trip in the wall time.
//
// Arguments: asset 0 = RobotExpressive, 1 = CesiumMan, 2 = the built-in character; actors;
// threads (0 = all cores); crossfade (1 = every actor mid-crossfade between two clips).
// Times are wall clock (manual time) in µs; every `*_us` counter is µs per actor per frame.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <epoxy/gl.h>
#include <glm/gtc/matrix_transform.hpp>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gl.hpp"
#include "tools/bench_crowd.hpp"

namespace gltf_crowd {
namespace {

using tools::bench_frame_seconds;
using Clock = std::chrono::steady_clock;

constexpr const char* asset_names[3] = {"RobotExpressive", "CesiumMan", "built-in"};

std::shared_ptr<const Asset> bench_asset(int which) {
  static std::shared_ptr<const Asset> cache[3];
  if (!cache[which]) {
    if (which == 2) {
      cache[which] = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
    } else {
      const char* file = which == 0 ? "/threejs/RobotExpressive.glb" : "/khronos/CesiumMan.glb";
      cache[which] = std::make_shared<const Asset>(load_asset(std::string(GLTF_CROWD_ASSETS_DIR) + file));
    }
  }
  return cache[which];
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void BM_Update(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const auto actors = static_cast<std::size_t>(state.range(1));
  const auto available = static_cast<std::size_t>(tbb::info::default_concurrency());
  const std::size_t threads = state.range(2) == 0 ? available : static_cast<std::size_t>(state.range(2));
  const bool crossfade = state.range(3) != 0;
  // Before the crowd exists, so construction and every update obey the limit.
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  Crowd crowd(bench_asset(which), {.capacity = actors});
  tools::populate_bench_crowd(crowd, actors, crossfade);
  for (int i = 0; i < 3; ++i) crowd.update(bench_frame_seconds);

  double wall = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    crowd.update(bench_frame_seconds);
    const double seconds = seconds_since(start);
    state.SetIterationTime(seconds);
    wall += seconds;
  }
  const double frames = static_cast<double>(state.iterations());
  // Stage times over further untimed updates, so that reading the clocks is not in the wall time.
  constexpr int kStageFrames = 20;
  double sampling = 0, hierarchy = 0, palettes = 0, packing = 0;
  crowd.set_stage_timing(true);
  for (int i = 0; i < kStageFrames; ++i) {
    crowd.update(bench_frame_seconds);
    const FrameStats& s = crowd.frame_stats();
    sampling += s.sampling_ms;
    hierarchy += s.hierarchy_ms;
    palettes += s.palettes_ms;
    packing += s.packing_ms;
  }
  const double per_actor_us = 1e3 / (kStageFrames * static_cast<double>(actors));  // ms summed → µs/actor
  state.SetLabel(asset_names[which]);
  state.counters["us_per_actor"] = wall * 1e6 / (frames * static_cast<double>(actors));
  state.counters["sampling_us"] = sampling * per_actor_us;
  state.counters["hierarchy_us"] = hierarchy * per_actor_us;
  state.counters["palettes_us"] = palettes * per_actor_us;
  state.counters["packing_us"] = packing * per_actor_us;
  state.counters["bytes_per_frame"] = static_cast<double>(crowd.frame_stats().packed_bytes);
  state.counters["draws"] = crowd.frame_stats().draws;
  state.counters["threads"] = static_cast<double>(std::min(threads, available));
}

void BM_ControlsThenUpdate(benchmark::State& state) {
  const auto actors = static_cast<std::size_t>(state.range(0));
  const std::int64_t controls = state.range(1);
  Crowd crowd(bench_asset(0), {.capacity = actors});
  tools::populate_bench_crowd(crowd, actors, false);
  std::vector<Actor> handles = crowd.actors();
  for (int i = 0; i < 3; ++i) crowd.update(bench_frame_seconds);
  double wall = 0;
  std::size_t frame = 0;
  for (auto _ : state) {
    const float speed = frame++ % 2 == 0 ? 1.0f : 1.25f;
    const auto start = Clock::now();
    if (controls == 1)
      for (Actor& a : handles) a.set_speed(speed);
    else if (controls == 2)
      crowd.set_speed(handles, speed);
    crowd.update(bench_frame_seconds);
    const double seconds = seconds_since(start);
    state.SetIterationTime(seconds);
    wall += seconds;
  }
  state.SetLabel(asset_names[0]);
  state.counters["us_per_actor"] = wall * 1e6 / (static_cast<double>(state.iterations()) * static_cast<double>(actors));
  state.counters["evaluated"] = crowd.frame_stats().actors_evaluated;
}

// One context for the whole process: creating an EGL display and context per benchmark run
// would be timed by nobody but would slow the suite. Empty when EGL is unavailable.
HeadlessContext* bench_context() {
  static std::unique_ptr<HeadlessContext> context = []() -> std::unique_ptr<HeadlessContext> {
    try {
      return std::make_unique<HeadlessContext>();
    } catch (const Error&) {
      return nullptr;
    }
  }();
  return context.get();
}

// Makes the shared context current, or marks `state` skipped and returns false without one.
bool make_context_current(benchmark::State& state) {
  HeadlessContext* context = bench_context();
  if (context == nullptr) {
    state.SkipWithError("no headless EGL context");
    return false;
  }
  context->make_current();
  return true;
}

// A GL_TIME_ELAPSED query around one run of commands: the GPU's own time, without the
// submission and glFinish round trip that wall time includes. Needs the context current.
class GpuTimer {
 public:
  GpuTimer() { glGenQueries(1, &query_); }
  ~GpuTimer() { glDeleteQueries(1, &query_); }
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  // Runs `commands` inside the query and returns their result; seconds() then waits for it.
  template <class Fn>
  auto run(Fn&& commands) const {
    glBeginQuery(GL_TIME_ELAPSED, query_);
    const auto result = commands();
    glEndQuery(GL_TIME_ELAPSED);
    return result;
  }
  // Seconds of the last run().
  double seconds() const {
    GLuint64 nanoseconds = 0;
    glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &nanoseconds);
    return static_cast<double>(nanoseconds) * 1e-9;
  }

 private:
  GLuint query_ = 0;
};

// Looks at the grid populate_bench_crowd lays out (2 units apart, x and z from 0) from above
// the front, far enough that the whole crowd is in view: the rasterizer sees every actor.
Camera grid_camera(std::size_t actors, float aspect = 1.0f) {
  const float side = 2.0f * std::ceil(std::sqrt(static_cast<float>(actors)));
  const glm::vec3 centre(0.5f * side, 0.0f, 0.5f * side);
  const float distance = 1.5f * side + 4.0f;
  Camera camera;
  camera.view = glm::lookAt(centre + glm::vec3(0.0f, 0.6f, 0.8f) * distance, centre, glm::vec3(0.0f, 1.0f, 0.0f));
  camera.projection = glm::perspective(glm::radians(50.0f), aspect, 0.1f, 4.0f * distance);
  return camera;
}

template <typename Renderer>
void measure_draws(benchmark::State& state, Crowd& crowd, Renderer& renderer, const Framebuffer& target) {
  const Camera camera = grid_camera(crowd.actor_count());
  double draw_wall = 0, submit_wall = 0, update_wall = 0;
  std::uint32_t draws = 0;
  for (auto _ : state) {
    const auto update_start = Clock::now();
    crowd.update(bench_frame_seconds);  // untimed: BM_Update measures it
    update_wall += seconds_since(update_start);
    target.clear(glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
    glFinish();  // the clear is not this frame's draw cost
    const auto start = Clock::now();
    draws = renderer.draw(crowd, camera);
    submit_wall += seconds_since(start);
    glFinish();
    const double seconds = seconds_since(start);
    state.SetIterationTime(seconds);
    draw_wall += seconds;
  }
  const double per_actor_us =
      1e6 / (static_cast<double>(state.iterations()) * static_cast<double>(crowd.actor_count()));
  state.counters["us_per_actor"] = draw_wall * per_actor_us;
  // Until draw() returns: the CPU deformation, uploads and draw calls, before the driver
  // finishes the work queued (on llvmpipe, vertex shading also runs on this thread).
  state.counters["submit_us"] = submit_wall * per_actor_us;
  state.counters["update_us"] = update_wall * per_actor_us;
  state.counters["draws"] = draws;
  state.counters["upload_bytes"] = static_cast<double>(renderer.stats().upload_bytes);
}

void BM_Draw(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const auto actors = static_cast<std::size_t>(state.range(1));
  const bool reference = state.range(2) != 0;
  if (!make_context_current(state)) return;
  Crowd crowd(bench_asset(which), {.capacity = actors});
  tools::populate_bench_crowd(crowd, actors, false);
  crowd.update(bench_frame_seconds);
  // Tiny, so llvmpipe's rasterization does not hide the per-draw and per-vertex CPU cost.
  const Framebuffer target({.width = 64, .height = 64});
  state.SetLabel(std::string(asset_names[which]) + (reference ? " reference" : " instanced"));
  if (reference) {
    ReferenceRenderer renderer(crowd);
    measure_draws(state, crowd, renderer, target);
  } else {
    CrowdRenderer renderer(crowd);
    measure_draws(state, crowd, renderer, target);
  }
}

void BM_Pass(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const auto actors = static_cast<std::size_t>(state.range(1));
  const auto pass = state.range(2);
  const bool cache = state.range(3) != 0;
  const auto size = static_cast<std::uint32_t>(state.range(4));
  if (!make_context_current(state)) return;
  Crowd crowd(bench_asset(which), {.capacity = actors});
  tools::populate_bench_crowd(crowd, actors, false);
  const Framebuffer target(
      {.width = size, .height = size, .color = pass == 2 ? FramebufferColor::rg16f : FramebufferColor::rgba8});
  CrowdRenderer renderer(crowd, {.skinned_vertex_cache = cache});
  const Camera camera = grid_camera(actors);
  if (cache) {
    try {  // the cache may not fit the context's limits (CesiumMan × 1,000 on llvmpipe's 128 MiB blocks)
      renderer.animate(crowd);
    } catch (const Error& e) {
      state.SkipWithError(e.what());
      return;
    }
  }
  const GpuTimer timer;
  double wall = 0, gpu = 0;
  std::uint32_t draws = 0;
  for (auto _ : state) {
    crowd.update(bench_frame_seconds);
    if (pass != 3) renderer.animate(crowd);
    target.clear(glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
    glFinish();  // neither the upload nor the clear is the pass's cost
    const auto start = Clock::now();
    draws = timer.run([&]() -> std::uint32_t {
      switch (pass) {
        case 0: return renderer.draw(crowd, camera);
        case 1: return renderer.draw_depth(crowd, camera);
        case 2: return renderer.draw_velocity(crowd, camera, camera);
        default: renderer.animate(crowd); return 0;
      }
    });
    glFinish();
    const double seconds = seconds_since(start);
    state.SetIterationTime(seconds);
    wall += seconds;
    gpu += timer.seconds();
  }
  constexpr const char* pass_names[4] = {" main", " depth", " velocity", " animate"};
  state.SetLabel(std::string(asset_names[which]) + pass_names[pass] + (cache ? " cached" : ""));
  const double per_actor_us = 1e6 / (static_cast<double>(state.iterations()) * static_cast<double>(actors));
  state.counters["us_per_actor"] = wall * per_actor_us;
  state.counters["gpu_us_per_actor"] = gpu * per_actor_us;
  state.counters["draws"] = draws;
}

// One steady frame as an application runs a crowd animated on the GPU: update (clocks and
// records on the CPU), then draw (uploads, compute passes and instanced draws) into a 1920 × 1080
// target, finished with glFinish. RobotExpressive; with lod 1 its generated levels, min coverage
// 0 so every actor is drawn at the level its coverage picks (framed whole, 100,000 actors each
// cover less than the default 0.01 and would all be culled). llvmpipe skips: a frame of 100,000
// actors takes it minutes.
void BM_GpuFrame(benchmark::State& state) {
  const auto actors = static_cast<std::size_t>(state.range(0));
  const bool lod = state.range(1) != 0;
  if (!make_context_current(state)) return;
  if (bench_context()->renderer().find("llvmpipe") != std::string::npos) {
    state.SkipWithError("llvmpipe: BM_GpuFrame is for a GPU");
    return;
  }
  const LodOptions levels{.enabled = lod, .auto_generate = lod, .min_coverage = 0.0f};
  Crowd crowd(bench_asset(0), {.capacity = actors, .lod = levels, .animation = Animation::gpu});
  tools::populate_bench_crowd(crowd, actors, false);
  constexpr std::uint32_t width = 1920, height = 1080;
  const Framebuffer target({.width = width, .height = height});
  CrowdRenderer renderer(crowd);
  const Camera camera = grid_camera(actors, static_cast<float>(width) / static_cast<float>(height));
  const LodView view{camera.view, camera.projection, width, height};
  crowd.update(bench_frame_seconds, view);  // untimed: the first frame compiles and uploads everything
  renderer.draw(crowd, camera);
  glFinish();
  const GpuTimer timer;
  double update = 0, gpu = 0;
  std::uint32_t draws = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    crowd.update(bench_frame_seconds, view);
    update += seconds_since(start);
    target.clear(glm::vec4(0.0f, 0.0f, 0.0f, 1.0f));
    draws = timer.run([&] { return renderer.draw(crowd, camera); });
    glFinish();
    state.SetIterationTime(seconds_since(start));
    gpu += timer.seconds();
  }
  const double per_frame_ms = 1e3 / static_cast<double>(state.iterations());
  state.counters["update_ms"] = update * per_frame_ms;
  state.counters["gpu_ms"] = gpu * per_frame_ms;  // the draw's compute passes and draws, GL_TIME_ELAPSED
  state.counters["draws"] = draws;
  state.counters["triangles"] = static_cast<double>(crowd.lod_stats().triangles);
  state.SetLabel(lod ? "RobotExpressive generated LOD" : "RobotExpressive");
}

void update_arguments(benchmark::internal::Benchmark* b) {
  for (int asset : {0, 1, 2})
    for (int actors : {1, 100, 1000, 10000})
      for (int threads : {1, 0})
        for (int crossfade : {0, 1}) b->Args({asset, actors, threads, crossfade});
}

// The reference path is O(actors × vertices) CPU skinning plus one draw per actor per group:
// 1,000 actors already take a large fraction of a second per frame on llvmpipe.
void draw_arguments(benchmark::internal::Benchmark* b) {
  for (int asset : {0, 1, 2})
    for (int actors : {1, 100, 1000})
      for (int reference : {0, 1}) b->Args({asset, actors, reference});
}

BENCHMARK(BM_Update)
    ->Apply(update_arguments)
    ->ArgNames({"asset", "actors", "threads", "crossfade"})
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();
BENCHMARK(BM_ControlsThenUpdate)
    ->ArgsProduct({{10000}, {0, 1, 2}})
    ->ArgNames({"actors", "controls"})
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();
BENCHMARK(BM_Draw)
    ->Apply(draw_arguments)
    ->ArgNames({"asset", "actors", "reference"})
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();
BENCHMARK(BM_Pass)
    // size: the square target's side in pixels; 512 keeps llvmpipe's rasterization in proportion,
    // 2048 is a common shadow map.
    ->ArgsProduct({{0, 1, 2}, {100, 1000, 10000}, {0, 1, 2, 3}, {0, 1}, {512, 2048}})
    ->ArgNames({"asset", "actors", "pass", "cache", "size"})
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();

BENCHMARK(BM_GpuFrame)
    ->ArgsProduct({{10000, 100000, 1000000}, {0, 1}})
    ->ArgNames({"actors", "lod"})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace
}  // namespace gltf_crowd

BENCHMARK_MAIN();
