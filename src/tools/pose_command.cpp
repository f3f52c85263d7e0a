// `gltf-crowd pose <asset> [--clip NAME_OR_INDEX --time T] [--json] [--script FILE]`: prints
// poses, so that sampling, blending, hierarchy and skinning can be compared with other glTF
// implementations (docs/spec.md §3, §4).
//  - Without --script: one clip sampled directly at T (no wrapping: Appendix C clamps to the
//    keys), or the rest pose without --clip. Every node's local TRS and world matrix, every
//    skin's joint matrices world(joint) · IBM, every morphing node's weights.
//  - With --script: runs actor operations on a crowd of the asset and prints, after every step,
//    one JSON line per actor with its playback state and pose (world includes its placement).
#include <charconv>
#include <cstdint>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "asset/checks.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl.hpp"
#include "gltf_crowd/pose.hpp"
#include "gltf_crowd/sampling.hpp"
#include "tools/as_option.hpp"
#include "tools/cli_numbers.hpp"
#include "tools/commands.hpp"
#include "tools/crowd_scene.hpp"
#include "tools/pose_script.hpp"

namespace gltf_crowd::tools {
namespace {

struct PoseOptions {
  std::string asset;
  LoadOptions load;  // --allow-outside-resources
  std::string clip;
  float time = 0.0f;
  bool json = false;
  std::string script;
  std::string animation = "cpu";  // gpu: poses read back from CrowdRenderer's compute passes
};

// A clip by name, else by index.
std::uint32_t resolve_clip(const Asset& asset, const std::string& name_or_index) {
  const int by_name = asset.find_clip(name_or_index);
  if (by_name >= 0) return static_cast<std::uint32_t>(by_name);
  std::size_t index = 0;
  const char* end = name_or_index.data() + name_or_index.size();
  const auto [ptr, ec] = std::from_chars(name_or_index.data(), end, index);
  if (ec == std::errc() && ptr == end && !name_or_index.empty() && index < asset.clips.size())
    return static_cast<std::uint32_t>(index);
  throw UsageError(
      "--clip", Rule::unknown_clip,
      fmt::format("no clip named or numbered \"{}\"; available: {}", name_or_index, clip_name_list(asset)));
}

void print_text(const Asset& asset, const PoseJson& doc) {
  const auto vec = [](const PoseJson& a) {
    std::string s;
    for (const auto& x : a) s += fmt::format("{}{:.6g}", s.empty() ? "" : " ", x.get<float>());
    return s;
  };
  if (doc["clip"].is_null())
    fmt::print("rest pose\n");
  else
    fmt::print("clip {} \"{}\" at {} s\n", doc["clip_index"].get<std::uint32_t>(), doc["clip"].get<std::string>(),
               doc["time"].get<float>());
  for (const auto& n : doc["nodes"]) {
    fmt::print("node {} \"{}\"\n  T {}\n  R {}  (x y z w)\n  S {}\n  world {}  (column-major)\n",
               n["index"].get<std::size_t>(), n["name"].get<std::string>(), vec(n["translation"]), vec(n["rotation"]),
               vec(n["scale"]), vec(n["world"]));
  }
  for (const auto& s : doc["skins"]) {
    const std::size_t k = s["index"].get<std::size_t>();
    fmt::print("skin {}: {}, world(joint) · IBM (column-major)\n", k, count_of(s["joint_matrices"].size(), "joint"));
    for (std::size_t j = 0; j < s["joint_matrices"].size(); ++j)
      fmt::print("  joint {} (node {}) {}\n", j, asset.skins[k].joints[j], vec(s["joint_matrices"][j]));
  }
  for (const auto& m : doc["morph_weights"])
    fmt::print("morph weights of node {}: {}\n", m["node"].get<std::size_t>(), vec(m["weights"]));
}

// One actor of a GPU-animated crowd, paused at the clip time (loop once: the time clamps to
// [0, duration], and sampling clamps to the keys, as sampled directly), read back.
void run_single_gpu(const std::shared_ptr<const Asset>& asset, const PoseOptions& o) {
  detail::check_finite(o.time, "--time");
  const std::uint32_t clip = resolve_clip(*asset, o.clip);
  // Actors select clips by name; an unnamed clip, or one sharing its name with an earlier clip,
  // would silently pose another clip.
  if (asset->find_clip(asset->clips[clip].name) != static_cast<int>(clip))
    throw UsageError(
        "--clip", Rule::unknown_clip,
        fmt::format("clip {} has no name of its own (\"{}\" is clip {}'s), and actors select clips by name: "
                    "use --animation cpu",
                    clip, asset->clips[clip].name, asset->find_clip(asset->clips[clip].name)));
  Crowd crowd(asset, {.capacity = 1, .animation = Animation::gpu});
  ActorOptions actor;
  actor.clip = asset->clips[clip].name;
  actor.time = o.time;
  actor.loop = LoopMode::once;
  actor.playing = false;
  crowd.add_actor(actor);
  GpuPoses gpu;
  gpu.renderer.emplace(crowd);
  const GpuPose pose = gpu.renderer->read_poses(crowd).at(0);
  PoseJson doc;
  doc["clip"] = asset->clips[clip].name;
  doc["clip_index"] = clip;
  doc["time"] = o.time;
  append_pose(*asset, pose.local, pose.world, doc);
  if (o.json)
    fmt::print("{}\n", json_text(doc));
  else
    print_text(*asset, doc);
}

void run_single(const Asset& asset, const PoseOptions& o) {
  AssetPose posed(asset);
  PoseJson doc;
  if (o.clip.empty()) {
    doc["clip"] = nullptr;
    doc["time"] = nullptr;
  } else {
    detail::check_finite(o.time, "--time");
    const std::uint32_t clip = resolve_clip(asset, o.clip);
    posed.set_clip(clip, o.time);
    doc["clip"] = asset.clips[clip].name;
    doc["clip_index"] = clip;
    doc["time"] = o.time;
  }
  Pose pose = posed.local_pose();
  append_pose(asset, pose, glm::mat4(1.0f), doc);
  if (o.json)
    fmt::print("{}\n", json_text(doc));
  else
    print_text(asset, doc);
}

void run_pose(const PoseOptions& o) {
  if (o.animation == "gpu" && o.clip.empty() && o.script.empty())
    throw UsageError("--animation", Rule::animation_mode, "gpu prints a clip's pose: give --clip (or --script)");
  auto asset = std::make_shared<const Asset>(load_named_asset(o.asset, o.load));
  if (!o.script.empty()) return run_pose_script(asset, o.script, o.animation == "gpu");
  if (o.animation == "gpu") return run_single_gpu(asset, o);
  run_single(*asset, o);
}

}  // namespace

void register_pose(CLI::App& app) {
  auto options = std::make_shared<PoseOptions>();
  CLI::App* pose = app.add_subcommand(
      "pose", "Print a clip's pose (or the rest pose) for checking against other glTF implementations");
  add_load_options(*pose, options->load);
  pose->add_option("asset", options->asset, "glTF 2.0 file (.gltf or .glb)")->required();
  CLI::Option* clip =
      pose->add_option("--clip", options->clip, "clip name, or index when no clip has that name")->check(non_empty());
  pose->add_option("--time", options->time, "clip time in seconds, sampled directly: no wrapping, clamped to the keys")
      ->needs(clip)
      ->check(finite_number());
  CLI::Option* json = pose->add_flag(
      "--json", options->json,
      "print JSON: {\"clip\", \"clip_index\", \"time\", \"nodes\": [{\"index\", \"name\", \"translation\": [3], "
      "\"rotation\": [x, y, z, w], \"scale\": [3], \"world\": [16 column-major]}], \"skins\": [{\"index\", "
      "\"joint_matrices\": [[16], ...] = world(joint) · IBM}], \"morph_weights\": [{\"node\", \"weights\"}]}");
  CLI::Option* script =
      pose->add_option("--script", options->script, "run actor operations from FILE and print JSON lines (see below)")
          ->check(CLI::ExistingFile)
          ->excludes(clip);
  pose->add_option("--animation", options->animation,
                   "cpu, or gpu: the poses are evaluated by the instanced renderer's compute passes on a "
                   "headless OpenGL 4.3 context and read back (local TRS, world matrices; joint matrices = "
                   "those worlds · IBM); needs --clip or --script")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "gpu"}));
  script->excludes(json);  // a script always prints JSON lines
  pose->footer(kPoseScriptHelp);
  pose->callback([options] { run_pose(*options); });
}

}  // namespace gltf_crowd::tools
