// gltf-crowd: the command line tool (docs/spec.md §8). One subcommand per file; see commands.hpp.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/version.hpp"
#include "tools/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "gltf-crowd: render crowds of independently animated glTF characters with one "
      "instanced draw per primitive group",
      "gltf-crowd"};
  app.set_version_flag("--version", "gltf-crowd " GLTF_CROWD_VERSION_STRING);
  app.require_subcommand(1);
  gltf_crowd::tools::register_render(app);
  gltf_crowd::tools::register_info(app);
  gltf_crowd::tools::register_export_default(app);
  gltf_crowd::tools::register_pose(app);
  gltf_crowd::tools::register_lod(app);
  gltf_crowd::tools::register_studio(app);
  gltf_crowd::tools::register_bench(app);
  try {
    app.parse(argc, argv);  // runs the chosen subcommand's callback
  } catch (const CLI::ParseError& e) {
    // A mistyped command reaches CLI11 as a stray argument, and it only says that a subcommand
    // is required: name the word and the commands instead.
    if (e.get_exit_code() != 0 && argc > 1 && argv[1][0] != '-') {  // not --help or --version
      const std::vector<CLI::App*> commands = app.get_subcommands([](CLI::App*) { return true; });
      const auto named = [&](const CLI::App* c) { return c->check_name(argv[1]); };
      if (std::none_of(commands.begin(), commands.end(), named)) {
        std::vector<std::string> names;
        for (const CLI::App* c : commands) names.push_back(c->get_name());
        fmt::print(stderr, "gltf-crowd: error: '{}' is not a command; the commands are {}\n", argv[1],
                   fmt::join(names, ", "));
        return e.get_exit_code();
      }
    }
    return app.exit(e);
  } catch (const gltf_crowd::Error& e) {
    fmt::print(stderr, "gltf-crowd: error: {} [{}]\n", e.what(), e.rule());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gltf-crowd: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
