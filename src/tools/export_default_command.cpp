// `gltf-crowd export-default --out out.glb`: writes the built-in character (docs/spec.md §9) as a GLB,
// so it can be inspected with `gltf-crowd info` or checked with the Khronos glTF-Validator.
#include <fstream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/error.hpp"
#include "tools/cli_numbers.hpp"
#include "tools/commands.hpp"

namespace gltf_crowd::tools {
namespace {

void run_export_default(const std::string& out) {
  require_extension("--out", out, ".glb", "export-default writes a self-contained GLB");
  const std::vector<std::uint8_t> glb = default_character_glb();
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(glb.data()), static_cast<std::streamsize>(glb.size()));
  file.close();
  if (!file) throw Error(out, Rule::write_failed, "could not write the output file");
  fmt::print("wrote the built-in character to {} ({} bytes)\n", out, glb.size());
}

}  // namespace

void register_export_default(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand("export-default", "Write the built-in character as a GLB file");
  command->add_option("--out,-o", *out, "GLB file to write")->required()->check(output_file());
  command->callback([out] { run_export_default(*out); });
}

}  // namespace gltf_crowd::tools
