// Animations → clips (glTF 2.0 §3.11): channels resolved to nodes, keys decoded and validated
// once, so sampling can trust them (STYLE: validate at the boundary, trust inside).
#include <cmath>

#include <fmt/format.h>

#include "asset/accessor.hpp"
#include "asset/build.hpp"

namespace gltf_crowd::detail {
namespace {

std::uint32_t components_for(ChannelPath path, std::uint32_t weight_count) {
  switch (path) {
    case ChannelPath::rotation: return 4;
    case ChannelPath::weights: return weight_count;
    default: return 3;
  }
}

}  // namespace

void build_clips(const tinygltf::Model& model, Asset& asset) {
  asset.clips.resize(model.animations.size());
  for (std::size_t a = 0; a < model.animations.size(); ++a) {
    const tinygltf::Animation& source = model.animations[a];
    Clip& clip = asset.clips[a];
    const std::string path = fmt::format("animations[{}]", a);
    clip.name = source.name;
    for (std::size_t c = 0; c < source.channels.size(); ++c) {
      const tinygltf::AnimationChannel& ch = source.channels[c];
      const std::string cpath = fmt::format("{}.channels[{}]", path, c);
      if (ch.target_node < 0) {
        asset.warnings.push_back(fmt::format("{}: target has no node (path \"{}\"); channel skipped", cpath, ch.target_path));
        continue;
      }
      if (static_cast<std::size_t>(ch.target_node) >= asset.nodes.size())
        throw Error(cpath + ".target.node", "node_index", fmt::format("node {} does not exist", ch.target_node));
      Channel channel;
      channel.node = static_cast<std::uint32_t>(ch.target_node);
      if (ch.target_path == "translation") channel.path = ChannelPath::translation;
      else if (ch.target_path == "rotation") channel.path = ChannelPath::rotation;
      else if (ch.target_path == "scale") channel.path = ChannelPath::scale;
      else if (ch.target_path == "weights") channel.path = ChannelPath::weights;
      else throw Error(cpath + ".target.path", "channel_path", fmt::format("unknown path \"{}\"", ch.target_path));
      const Node& node = asset.nodes[channel.node];
      std::uint32_t weight_count = 0;
      if (channel.path == ChannelPath::weights) {
        if (node.mesh >= 0) {
          const Mesh& mesh = asset.meshes[static_cast<std::size_t>(node.mesh)];
          weight_count = static_cast<std::uint32_t>(mesh.primitives[0].targets.size());
        }
        if (weight_count == 0)
          throw Error(cpath + ".target.node", "weights_without_targets",
                      fmt::format("node {} has no morph targets to animate", channel.node));
      }
      if (ch.sampler < 0 || static_cast<std::size_t>(ch.sampler) >= source.samplers.size())
        throw Error(cpath + ".sampler", "sampler_index", fmt::format("sampler {} does not exist", ch.sampler));
      const tinygltf::AnimationSampler& sampler = source.samplers[static_cast<std::size_t>(ch.sampler)];
      const std::string spath = fmt::format("{}.samplers[{}]", path, ch.sampler);
      if (sampler.interpolation.empty() || sampler.interpolation == "LINEAR") channel.interpolation = Interpolation::linear;
      else if (sampler.interpolation == "STEP") channel.interpolation = Interpolation::step;
      else if (sampler.interpolation == "CUBICSPLINE") channel.interpolation = Interpolation::cubic_spline;
      else throw Error(spath + ".interpolation", "interpolation", fmt::format("unknown \"{}\"", sampler.interpolation));
      const DecodedAccessor input = read_floats(model, sampler.input, spath + ".input");
      if (input.components != 1) throw Error(spath + ".input", "input_type", "keyframe times must be SCALAR");
      const std::string ipath = fmt::format("accessors[{}]", sampler.input);
      for (std::size_t k = 0; k < input.count; ++k) {
        const float t = input.floats[k];
        if (!std::isfinite(t) || t < 0.0f)
          throw Error(ipath, "key_time", fmt::format("{}: time {} of key {} is not finite and >= 0", spath, t, k));
        if (k > 0 && t < input.floats[k - 1])
          throw Error(ipath, "key_time_order",
                      fmt::format("{}: time {} of key {} is before the previous key's {}", spath, t, k, input.floats[k - 1]));
      }
      const DecodedAccessor output = read_floats(model, sampler.output, spath + ".output");
      channel.components = components_for(channel.path, weight_count);
      const std::uint32_t per_key = channel.interpolation == Interpolation::cubic_spline ? 3u : 1u;
      const std::uint64_t expected = std::uint64_t{input.count} * per_key * channel.components;
      const std::uint64_t actual = std::uint64_t{output.count} * output.components;
      const std::uint32_t expected_components = channel.path == ChannelPath::weights ? 1 : channel.components;
      if (output.components != expected_components)
        throw Error(spath + ".output", "output_type",
                    fmt::format("{} components per element, expected {}", output.components, expected_components));
      if (actual != expected)
        throw Error(spath + ".output", "output_count",
                    fmt::format("{} values for {} keys of {} ({}), expected {}", actual, input.count,
                                sampler.interpolation.empty() ? "LINEAR" : sampler.interpolation, ch.target_path, expected));
      for (std::size_t k = 0; k < output.floats.size(); ++k)
        if (!std::isfinite(output.floats[k]))
          throw Error(fmt::format("accessors[{}]", sampler.output), "key_value",
                      fmt::format("{}: value {} is not finite", spath + ".output", k));
      channel.key_count = input.count;
      channel.times_offset = static_cast<std::uint32_t>(clip.times.size());
      channel.values_offset = static_cast<std::uint32_t>(clip.values.size());
      clip.times.insert(clip.times.end(), input.floats.begin(), input.floats.end());
      clip.values.insert(clip.values.end(), output.floats.begin(), output.floats.end());
      clip.duration_seconds = std::max(clip.duration_seconds, input.floats.back());
      clip.channels.push_back(channel);
    }
  }
}

}  // namespace gltf_crowd::detail
