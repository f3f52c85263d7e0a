// Errors of a library call made for one command-line option, named by that option.
#pragma once

#include <string>
#include <string_view>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd::tools {

// Runs `step`; an Error it throws is thrown again under `option`, with its rule and its message
// less the library's path: the user typed the option, not the API field it fills
// ("--root-motion: no node named "Nope"", not "root_motion.node: ...").
template <typename Step>
void as_option(std::string_view option, Step&& step) {
  try {
    step();
  } catch (const Error& e) {
    throw Error(std::string(option), e.rule(), std::string(e.what()).substr(e.path().size() + 2));
  }
}

}  // namespace gltf_crowd::tools
