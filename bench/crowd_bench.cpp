// CPU cost of Crowd::update (sampling, hierarchy, palettes, packing) per actor, for SPEC §10.
// Run: build/bench/gltf_crowd_bench --benchmark_counters_tabular=true
// Arguments: asset (0 RobotExpressive, 1 CesiumMan, 2 built-in), actors, threads (0 = all),
// crossfade (1 = every actor mid-crossfade).
#include <memory>
#include <thread>

#include <benchmark/benchmark.h>
#include <glm/gtc/matrix_transform.hpp>
#include <tbb/global_control.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"

namespace gltf_crowd {
namespace {

std::shared_ptr<const Asset> bench_asset(int which) {
  static std::shared_ptr<const Asset> cache[3];
  if (!cache[which]) {
    if (which == 2) cache[which] = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
    else
      cache[which] = std::make_shared<const Asset>(load_asset(std::string(GLTF_CROWD_ASSETS_DIR) +
                                                              (which == 0 ? "/threejs/RobotExpressive.glb" : "/khronos/CesiumMan.glb")));
  }
  return cache[which];
}

void BM_Update(benchmark::State& state) {
  const auto asset = bench_asset(static_cast<int>(state.range(0)));
  const auto actors = static_cast<std::size_t>(state.range(1));
  const auto threads = state.range(2) == 0 ? std::thread::hardware_concurrency() : static_cast<unsigned>(state.range(2));
  const bool crossfade = state.range(3) != 0;
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  Crowd crowd(asset, {.capacity = actors});
  std::vector<ActorOptions> options(actors);
  const std::size_t side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(actors))));
  for (std::size_t i = 0; i < actors; ++i) {
    options[i].clip = asset->clips[i % asset->clips.size()].name;
    options[i].phase = static_cast<float>((i * 0.618) - std::floor(i * 0.618));
    options[i].speed = 0.8f + 0.1f * static_cast<float>(i % 5);
    options[i].transform = glm::translate(glm::mat4(1.0f), glm::vec3(i % side, 0, i / side) * 2.0f);
  }
  auto handles = crowd.add_actors(options);
  if (crossfade)
    for (std::size_t i = 0; i < actors; ++i)
      handles[i].select_clip(asset->clips[(i + 1) % asset->clips.size()].name, {.crossfade_seconds = 1e6f});
  for (int i = 0; i < 3; ++i) crowd.update(1.0f / 60.0f);
  double sampling = 0, hierarchy = 0, palettes = 0, packing = 0;
  for (auto _ : state) {
    crowd.update(1.0f / 60.0f);
    const FrameStats& s = crowd.frame_stats();
    sampling += s.sampling_ms;
    hierarchy += s.hierarchy_ms;
    palettes += s.palettes_ms;
    packing += s.packing_ms;
  }
  const double frames = static_cast<double>(state.iterations());
  const double per_actor_us = 1e3 / (frames * static_cast<double>(actors));
  state.counters["us_per_actor"] =
      benchmark::Counter(static_cast<double>(actors), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["sampling_us"] = sampling * per_actor_us;
  state.counters["hierarchy_us"] = hierarchy * per_actor_us;
  state.counters["palettes_us"] = palettes * per_actor_us;
  state.counters["packing_us"] = packing * per_actor_us;
  state.counters["bytes_per_frame"] = static_cast<double>(crowd.frame_stats().packed_bytes);
  state.counters["draws"] = crowd.frame_stats().draws;
  state.counters["threads"] = threads;
}

void arguments(benchmark::internal::Benchmark* b) {
  for (int asset : {0, 1, 2})
    for (int actors : {1, 100, 1000, 10000})
      for (int threads : {1, 0})
        for (int crossfade : {0, 1}) b->Args({asset, actors, threads, crossfade});
}

BENCHMARK(BM_Update)->Apply(arguments)->ArgNames({"asset", "actors", "threads", "crossfade"})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace gltf_crowd

BENCHMARK_MAIN();
