// The pose script interpreter of `gltf-crowd pose --script FILE` (docs/spec.md §8.6): actor
// operations run on a crowd, one JSON line per actor after each; and the pose document that it and
// `pose` without a script print (pose_command.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/gl.hpp"
#include "gltf_crowd/pose.hpp"

namespace gltf_crowd::tools {

// JSON with keys in insertion order; floats printed as the shortest text that reads back to the same float.
using PoseJson =
    nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

// The script's syntax, for `pose --help`.
inline constexpr const char* kPoseScriptHelp =
    R"(Script: one operation per line; blank lines and '#' comments are ignored.
  add [id=ID] [clip=NAME] [time=S] [phase=P] [speed=S] [loop=once|repeat|ping-pong]
      [repetitions=N] [playing=true|false] [at=X,Y,Z]
  select ID CLIP [crossfade=S] [time=S] [phase=P]
  seek ID SECONDS        phase ID P        speed ID S        loop ID MODE [N]
  play ID                pause ID          move ID X Y Z     remove ID
  show ID                hide ID           marker CLIP NAME SECONDS
  local ID NODE [t=X,Y,Z] [r=X,Y,Z,W] [s=X,Y,Z] [weight=W]   (NODE: name, path or index; omitted
      parts are the node's rest TRS)
  unlocal ID [NODE]      morph ID NODE W0,W1,... [weight=W]   unmorph ID NODE
  mask NAME NODE[:W][,NODE[:W]...]   (a bone mask: each node and its descendants at W, default 1;
      W follows the last ':' when a number does, so "mixamorig:Spine" is a node)
  layer ID N [mode=override|additive] [mask=NAME|none] [reference=CLIP[@S]|first] [clip=NAME
      [crossfade=S] [time=S] [phase=P]] [seek=S] [speed=S] [loop=MODE] [weight=W [fade=S]]
      [playing=true|false] [clear=true]   (animation layer N in 1..4, applied in this order)
  update SECONDS
After every operation, one JSON line per actor (slot order): {"step", "line", "op", "actor",
"clip", "time", "phase", "speed", "loop", "repetitions", "playing", "finished", "visible",
"events": [{"clip", "marker", "seconds", "weight", "fraction", "layer"}] (the markers an update
step crossed), "contributors": [{"clip", "clip_index", "seconds", "weight"}], "layers": [{"index",
"clip", "time", "weight", "mode", "mask", "contributors"}] (layers with a clip), "nodes", "skins",
"morph_weights"} with nodes, skins and morph_weights as in --json.)";

// `--animation gpu`: a headless context and a renderer of the crowd, whose compute passes
// evaluate the poses that are printed (CrowdRenderer::read_poses).
struct GpuPoses {
  HeadlessContext context;
  std::optional<CrowdRenderer> renderer;
};

// "nodes", "skins" and "morph_weights" of one pose with its world matrices, appended to `out`:
// every node's local TRS and world matrix, every skin's joint matrices world(joint) · IBM, every
// morphing node's weights.
void append_pose(const Asset& asset, const Pose& pose, std::span<const glm::mat4> world, PoseJson& out);

// The same with the world matrices computed on the CPU, under `placement`.
void append_pose(const Asset& asset, Pose& pose, const glm::mat4& placement, PoseJson& out);

// Runs the script `file` on a crowd of `asset` (poses evaluated by the compute passes with
// `on_gpu`) and prints one JSON line per actor after every step (kPoseScriptHelp). Throws Error
// at "FILE:LINE" for a line that cannot run, and (rule script_open) for a file it cannot read.
void run_pose_script(const std::shared_ptr<const Asset>& asset, const std::string& file, bool on_gpu);

}  // namespace gltf_crowd::tools
