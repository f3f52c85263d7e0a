// Errors of a library call made for one command-line option, named by that option, and errors of
// the command line itself (UsageError).
#pragma once

#include <string>
#include <string_view>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::tools {

// A command line that cannot work as given, found by the tool's own checks of its options before
// any work (docs/spec.md §8): main reports it as CLI11's own errors, with exit status 2, where a
// failure while working (loading, GL, encoding) exits with 1.
class UsageError : public Error {
 public:
  using Error::Error;
  explicit UsageError(const Error& e) : Error(e) {}
};

// Runs `checks`, checks of the options made before any work; an Error they throw is a UsageError.
template <typename Checks>
void usage_checks(Checks&& checks) {
  try {
    checks();
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e);
  }
}

// An Error's message without the "path: " its what() starts with, for thrown again under a
// command-line option's name.
inline std::string message_without_path(const Error& e) { return std::string(e.what()).substr(e.path().size() + 2); }

// Runs `step`; an Error it throws is thrown again under `option`, with its rule and its message
// less the library's path: the user typed the option, not the API field it fills
// ("--root-motion: no node named "Nope"", not "root_motion.node: ...").
template <typename Step>
void as_option(std::string_view option, Step&& step) {
  try {
    step();
  } catch (const Error& e) {
    throw Error(std::string(option), e.code(), message_without_path(e));
  }
}

}  // namespace gltf_crowd::tools
