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
#include "tools/as_option.hpp"
#include "tools/commands.hpp"

namespace {

// Exit status of a command line that cannot work as given (docs/spec.md §8); a failure while
// working exits with 1.
constexpr int kUsageStatus = 2;

// CLI11's help, less the value a negated flag sets: "--shadows,--no-shadows", not
// "--shadows,--no-shadows{false}" (the description says what each does).
class Formatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* option, bool positional) const override {
    std::string name = CLI::Formatter::make_option_name(option, positional);
    if (!option->get_fnames().empty())  // a flag with set values: "{...}" is only ever one there
      for (std::size_t open = name.find('{'); open != std::string::npos; open = name.find('{', open))
        name.erase(open, name.find('}', open) - open + 1);
    return name;
  }
};

// The names of `app`'s commands, in the order they were registered.
std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* c : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(c->get_name());
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gltf-crowd: render crowds of independently animated glTF characters with one "
      "instanced draw per primitive group",
      "gltf-crowd"};
  app.formatter(std::make_shared<Formatter>());  // before the commands, which take it over
  app.set_version_flag("--version", "gltf-crowd " GLTF_CROWD_VERSION_STRING);
  app.require_subcommand(1);
  gltf_crowd::tools::register_render(app);
  gltf_crowd::tools::register_info(app);
  gltf_crowd::tools::register_export_default(app);
  gltf_crowd::tools::register_pose(app);
  gltf_crowd::tools::register_lod(app);
  gltf_crowd::tools::register_studio(app);
  gltf_crowd::tools::register_bench(app);
  app.footer(
      "Errors go to stderr as 'gltf-crowd: error: ...'. Exit status: 0 on success, 2 for a command line that "
      "cannot work as given (an unknown option, a bad value, conflicting options, an output that would "
      "overwrite an input, an asset file that cannot be opened, a clip, node or variant the asset lacks), "
      "found before any work; 1 for a failure while working (loading an asset that opens, a pose script's "
      "line, OpenGL, encoding, writing).");
  // CLI11's own errors in the form of the tool's: one line that names the tool.
  app.failure_message([](const CLI::App* root, const CLI::Error& e) {
    const std::vector<CLI::App*> chosen = root->get_subcommands();
    return fmt::format("gltf-crowd: error: {}\nRun 'gltf-crowd{}{} --help' for the options.\n", e.what(),
                       chosen.empty() ? "" : " ", chosen.empty() ? "" : chosen.front()->get_name());
  });
  try {
    app.parse(argc, argv);  // runs the chosen subcommand's callback
  } catch (const CLI::ParseError& e) {
    // A mistyped command reaches CLI11 as a stray argument, and it only says that a subcommand
    // is required: name the word and the commands instead.
    if (e.get_exit_code() != 0 && argc > 1 && argv[1][0] != '-') {  // not --help or --version
      const std::vector<CLI::App*> commands = app.get_subcommands([](CLI::App*) { return true; });
      const auto named = [&](const CLI::App* c) { return c->check_name(argv[1]); };
      if (std::none_of(commands.begin(), commands.end(), named)) {
        fmt::print(stderr, "gltf-crowd: error: '{}' is not a command; the commands are {}\n", argv[1],
                   fmt::join(command_names(app), ", "));
        return kUsageStatus;
      }
    }
    // An unknown option before any command reaches CLI11 as a stray argument too, and it only
    // says that a subcommand is required: name the option, and where a command's options go.
    const std::vector<std::string> stray = app.remaining();
    if (e.get_exit_code() != 0 && app.get_subcommands().empty() && !stray.empty() && stray.front().starts_with('-')) {
      fmt::print(stderr,
                 "gltf-crowd: error: unknown option '{}': gltf-crowd itself takes only --help and --version; a "
                 "command's options follow the command (gltf-crowd COMMAND --help lists them), and the commands "
                 "are {}\n",
                 stray.front(), fmt::join(command_names(app), ", "));
      return kUsageStatus;
    }
    const int status = app.exit(e);  // prints help, the version or the error
    return status == 0 ? 0 : kUsageStatus;
  } catch (const gltf_crowd::tools::UsageError& e) {
    fmt::print(stderr, "gltf-crowd: error: {} [{}]\n", e.what(), e.rule());
    return kUsageStatus;
  } catch (const gltf_crowd::Error& e) {
    fmt::print(stderr, "gltf-crowd: error: {} [{}]\n", e.what(), e.rule());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gltf-crowd: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
