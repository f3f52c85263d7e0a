#include "tools/bench_crowd.hpp"

#include <cmath>
#include <optional>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

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
    throw Error("--crossfade", Rule::no_clips, "a crossfade needs an asset with at least one clip");
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

void drive_bench_skeletons(Crowd& crowd) {
  const Asset& asset = crowd.asset();
  std::vector<std::uint32_t> nodes;
  std::vector<NodeTransform> locals;
  const glm::quat turn = glm::angleAxis(0.2f, glm::vec3(1.0f, 0.0f, 0.0f));
  for (std::uint32_t n = 0; n < asset.nodes.size(); ++n) {
    const Node& node = asset.nodes[n];
    nodes.push_back(n);
    locals.push_back({node.translation, node.rotation * turn, node.scale});
  }
  for (Actor& actor : crowd.actors()) actor.set_local_pose(nodes, locals, 0.5f);
}

void add_bench_layers(Crowd& crowd, LayerMode mode, std::optional<std::uint32_t> mask_node) {
  const Asset& asset = crowd.asset();
  if (asset.clips.empty()) throw Error("--layer", Rule::no_clips, "a layer needs a clip; the asset has none");
  if (mask_node) crowd.add_mask("bench", std::vector<MaskBranch>{{.index = *mask_node}});
  const std::vector<Actor> actors = crowd.actors();
  for (std::size_t i = 0; i < actors.size(); ++i) {
    ActorLayer layer = actors[i].layer(1);
    layer.set_mode(mode);
    if (mask_node) layer.set_mask("bench");
    SelectClipOptions start;
    start.phase = golden_phase(i, 0.25);
    layer.select_clip(asset.clips[(i + 2) % asset.clips.size()].name, start);
  }
}

}  // namespace gltf_crowd::tools
