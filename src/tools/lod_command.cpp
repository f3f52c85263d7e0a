// `gltf-crowd lod`: generates index-only levels of detail with meshoptimizer and writes them as
// an MSFT_lod glTF (docs/spec.md §7, §8), which loads back with levels of source `authored`.
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/lod.hpp"
#include "tools/as_option.hpp"
#include "tools/cli_numbers.hpp"
#include "tools/commands.hpp"
#include "tools/crowd_scene.hpp"
#include "tools/lod_report.hpp"

namespace gltf_crowd::tools {
namespace {

struct LodCommandOptions {
  std::string asset;
  LoadOptions load;  // --allow-outside-resources
  std::vector<float> ratios{0.5f, 0.25f};
  std::vector<float> screen_coverage;  // empty: the defaults of docs/spec.md §7
  bool preserve_boundary = false;
  float pixel_error = 1.0f;
  float viewport_pixels = 1080.0f;
  std::string out;
};

// The library's option fields as the options that fill them, for usage errors.
constexpr std::pair<std::string_view, std::string_view> kOptionOfField[] = {
    {"lod.ratios", "--ratios"},
    {"lod.screen_coverage", "--screen-coverage"},
    {"lod.pixel_error", "--pixel-error"},
    {"lod.viewport_pixels", "--viewport-pixels"}};

// Checks the level options before loading (usage errors, exit 2, docs/spec.md §8): each value as
// build_lod_model would, and one --screen-coverage threshold per level asked for, the original and
// one per ratio (generated levels; an asset with authored levels is refused anyway).
void check_lod_options(const LodCommandOptions& options, const LodOptions& lod) {
  usage_checks([&] {
    try {
      validate_lod_options(lod);
    } catch (const Error& e) {
      for (const auto& [field, option] : kOptionOfField)
        if (e.path().starts_with(field)) throw Error(std::string(option), e.code(), message_without_path(e));
      throw;
    }
    const std::size_t levels = options.ratios.size() + 1;
    if (!options.screen_coverage.empty() && options.screen_coverage.size() != levels)
      throw Error("--screen-coverage", Rule::lod_screen_coverage_count,
                  fmt::format("{} {} for {} levels: give one threshold per level, the original and one per --ratios "
                              "value",
                              options.screen_coverage.size(),
                              options.screen_coverage.size() == 1 ? "threshold" : "thresholds", levels));
  });
}

void run_lod(const LodCommandOptions& options) {
  require_extension("--out", options.out, ".glb", "lod writes a self-contained GLB");
  require_distinct_files({{"asset", options.asset}}, {{"--out", options.out}});
  const LodOptions lod{.auto_generate = true,
                       .ratios = options.ratios,
                       .preserve_boundary = options.preserve_boundary,
                       .screen_coverage = options.screen_coverage,
                       .pixel_error = options.pixel_error,
                       .viewport_pixels = options.viewport_pixels};
  check_lod_options(options, lod);
  const Asset asset = load_named_asset(options.asset, options.load);
  require_outputs_spare(asset.external_files, {{"--out", options.out}});
  const LodModel model = build_lod_model(asset, lod);
  if (model.source == LodSource::authored)
    throw Error(options.asset, Rule::lod_export_source, "the asset already has MSFT_lod levels");
  if (model.source == LodSource::none)
    throw Error(options.asset, Rule::lod_export_source, "no primitive could be reduced at these ratios");
  const std::vector<std::uint8_t> glb = export_lod_glb(asset, model);
  std::ofstream file(options.out, std::ios::binary);
  file.write(reinterpret_cast<const char*>(glb.data()), static_cast<std::streamsize>(glb.size()));
  if (!file) throw Error(options.out, Rule::write_failed, "could not write the output file");
  fmt::print("wrote {} of {} to {}: indices per actor [{}], screen coverage [{}]\n",
             count_of(model.level_count, "level"), count_of(model.sources.size(), "source node"), options.out,
             fmt::join(model.level_indices, ", "), fmt::join(model.thresholds, ", "));
  print_lod_levels(lod_levels_json(model), 2);
  print_dropped_ratios(model.dropped_ratios, 2);
  print_dropped_levels(dropped_levels_json(model.dropped_levels), 2);
}

}  // namespace

void register_lod(CLI::App& app) {
  auto options = std::make_shared<LodCommandOptions>();
  CLI::App* lod = app.add_subcommand(
      "lod", "Generate index-only levels of detail (meshoptimizer) and write them as an MSFT_lod GLB");
  add_load_options(*lod, options->load);
  lod->add_option("asset", options->asset, "glTF 2.0 file (.gltf or .glb)")->required();
  add_finite_list(lod, "--ratios", options->ratios,
                  "target index ratio of each level, of the original primitive, in (0, 1), decreasing");
  add_finite_list(lod, "--screen-coverage", options->screen_coverage,
                  "coverage threshold per level, one per level (the original and one per ratio), "
                  "decreasing (default: where each level's error reaches --pixel-error pixels)");
  lod->add_option("--pixel-error", options->pixel_error,
                  "default thresholds: a level takes over where its error projects to this many pixels")
      ->capture_default_str()
      ->check(finite_number());
  lod->add_option("--viewport-pixels", options->viewport_pixels,
                  "default thresholds: the smaller side of the viewport they are made for, in pixels")
      ->capture_default_str()
      ->check(finite_number());
  lod->add_flag("--preserve-boundary", options->preserve_boundary, "keep open mesh borders in place");
  lod->add_option("--out,-o", options->out, "GLB file to write")->required()->check(output_file());
  lod->callback([options] { run_lod(*options); });
}

}  // namespace gltf_crowd::tools
