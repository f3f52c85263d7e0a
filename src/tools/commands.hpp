// Subcommands of the gltf-crowd tool (docs/spec.md §8). Each lives in its own file and registers itself
// on the root CLI11 app; its callback runs the command and throws on failure (main reports the
// error on stderr and exits non-zero).
#pragma once

#include <CLI/CLI.hpp>

#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::tools {

// --allow-outside-resources, on every command that loads an asset: its external buffers and
// images may lie outside its folder (LoadOptions::allow_outside_resources, docs/spec.md §2.1).
inline void add_load_options(CLI::App& command, LoadOptions& options) {
  command.add_flag("--allow-outside-resources", options.allow_outside_resources,
                   "read the asset's external buffers and images wherever their URIs lead; by default only files in "
                   "the asset's folder and below load (after .. and symbolic links are resolved)");
}

// `render [asset] --actors N --seconds T --out crowd.png --stats stats.json --width W
// --height H --msaa S [--lod --lod-bias B --vertex-budget V --min-coverage C]
// [--palette storage|texture|auto] [--gl 4.3|3.3|es3.0] [--reference]`: a headless crowd render
// to PNG plus JSON statistics (lod_stats under "lod").
void register_render(CLI::App& app);

// `info <asset> [--json]`: loads and validates an asset and prints its summary (info_command.cpp).
void register_info(CLI::App& app);

// `export-default --out out.glb`: writes the built-in character as GLB (export_default_command.cpp).
void register_export_default(CLI::App& app);

// `pose <asset> [--clip NAME_OR_INDEX --time T] [--json] [--script FILE]`: prints a clip's pose
// or the poses of scripted actors, for comparison with other implementations (pose_command.cpp).
void register_pose(CLI::App& app);

// `lod <asset> --ratios 0.5,0.25 [--screen-coverage ...] [--preserve-boundary] --out out.glb`:
// writes generated levels of detail as an MSFT_lod GLB (lod_command.cpp).
void register_lod(CLI::App& app);

// `studio [asset] [--assets DIR] [--capacity N] [--frames N --screenshot out.png --stats s.json]
// [--set key=value ...]`: the interactive GLFW + Dear ImGui window (studio_command.cpp).
void register_studio(CLI::App& app);

// `bench [asset] --actors N --threads T --frames F [--warmup W] [--crossfade] [--json]`: times
// Crowd::update for one configuration and prints µs per actor, per-stage µs per actor, bytes
// packed per frame and draws (bench_command.cpp).
void register_bench(CLI::App& app);

}  // namespace gltf_crowd::tools
