#include "tools/bench_crowd.hpp"

#include <cmath>
#include <optional>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::tools {
namespace {

// Long enough that no measured run finishes it; half of it is skipped before measuring.
constexpr float fade_seconds = 1.0e6f;

float golden_phase(std::size_t i, double offset) {
  return static_cast<float>(std::fmod(static_cast<double>(i) * 0.618 + offset, 1.0));
}

}  // namespace

void populate_bench_crowd(Crowd& crowd, std::size_t actors, bool crossfade) {
  const Asset& asset = crowd.asset();
  const std::size_t clips = asset.clips.size();
  if (crossfade && clips == 0)
    throw Error("bench.crossfade", Rule::no_clips, "a crossfade needs an asset with at least one clip");
  const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(actors))));
  std::vector<ActorOptions> options(actors);
  for (std::size_t i = 0; i < actors; ++i) {
    if (clips > 0) options[i].clip = asset.clips[i % clips].name;
    options[i].phase = golden_phase(i, 0.0);
    options[i].speed = 0.8f + 0.1f * static_cast<float>(i % 5);
    options[i].transform = glm::translate(
        glm::mat4(1.0f), glm::vec3(static_cast<float>(i % side), 0.0f, static_cast<float>(i / side)) * 2.0f);
  }
  std::vector<Actor> handles = crowd.add_actors(options);
  if (!crossfade) return;
  for (std::size_t i = 0; i < actors; ++i) {
    SelectClipOptions fade;
    fade.crossfade_seconds = fade_seconds;
    fade.phase = golden_phase(i, 0.5);
    handles[i].select_clip(asset.clips[(i + 1) % clips].name, fade);
  }
  // Fade progress is |Δ·speed| with speeds 0.8–1.2, so this lands every actor at 40–60 %.
  crowd.update(0.5f * fade_seconds);
}

}  // namespace gltf_crowd::tools
