// Animations → clips (glTF 2.0 §3.11): channels resolved to nodes, keys decoded and validated
// once, so sampling can trust them (validate at the boundary, trust inside).
// Key times must be finite, >= 0 and non-decreasing (glTF 2.0 §3.11 asks for increasing; docs/spec.md
// §2.7); the duration is the last key time over every sampler, including samplers only skipped
// channels use (docs/spec.md §1).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "asset/accessor.hpp"
#include "asset/build.hpp"
#include "asset/checks.hpp"

namespace gltf_crowd::detail {
namespace {

std::uint32_t components_for(ChannelPath path, std::uint32_t weight_count) {
  switch (path) {
    case ChannelPath::rotation: return 4;
    case ChannelPath::weights: return weight_count;
    default: return 3;
  }
}

// One animation sampler with its validated key times.
struct SamplerKeys {
  Interpolation interpolation = Interpolation::linear;
  std::string interpolation_name;
  DecodedAccessor times;
  // Keys in the file when they all share one time and were collapsed to one key (0 otherwise).
  std::uint32_t collapsed_from = 0;
};

SamplerKeys read_sampler(const tinygltf::AnimationSampler& sampler, AccessorReader& accessors, const std::string& spath,
                         std::vector<Warning>& warnings) {
  SamplerKeys keys;
  keys.interpolation_name = sampler.interpolation.empty() ? "LINEAR" : sampler.interpolation;
  if (keys.interpolation_name == "LINEAR")
    keys.interpolation = Interpolation::linear;
  else if (keys.interpolation_name == "STEP")
    keys.interpolation = Interpolation::step;
  else if (keys.interpolation_name == "CUBICSPLINE")
    keys.interpolation = Interpolation::cubic_spline;
  else
    throw Error(spath + ".interpolation", Rule::interpolation, fmt::format("unknown \"{}\"", sampler.interpolation));
  keys.times = accessors.read_floats(sampler.input, spath + ".input");
  if (keys.times.components != 1) throw Error(spath + ".input", Rule::input_type, "keyframe times must be SCALAR");
  const std::string ipath = fmt::format("accessors[{}]", sampler.input);
  std::vector<float>& t = keys.times.floats;
  // An input accessor without a bufferView holds zeros (glTF 2.0 §3.6.2.1): every key at one
  // time. Sampling such a sampler is a step at that time, so it is kept as a single key holding
  // the last key's value (what a time past every key samples), with a warning.
  if (t.size() > 1 && std::isfinite(t[0]) && t[0] >= 0.0f &&
      std::all_of(t.begin(), t.end(), [&](float v) { return v == t[0]; })) {
    warnings.push_back(make_warning(
        spath + ".input", Rule::key_times_equal,
        fmt::format("all {} key times are {}; kept as one key with the last key's value", t.size(), t[0])));
    keys.collapsed_from = keys.times.count;
    keys.times.count = 1;
    t.resize(1);
    if (keys.interpolation == Interpolation::cubic_spline) keys.interpolation = Interpolation::linear;
  }
  std::size_t repeats = 0, first_repeat = 0;  // keys with their previous key's time; the first such key
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (!std::isfinite(t[k]) || t[k] < 0.0f)
      throw Error(ipath, Rule::key_time, fmt::format("{}: time {} of key {} is not finite and >= 0", spath, t[k], k));
    if (k > 0 && t[k] < t[k - 1])
      throw Error(ipath, Rule::key_time_order,
                  fmt::format("{}: time {} of key {} is below the previous key's {}", spath, t[k], k, t[k - 1]));
    if (k > 0 && t[k] == t[k - 1] && repeats++ == 0) first_repeat = k;
  }
  // Equal neighbours (the specification asks for increasing times) have one sensible reading, a
  // step at that time (docs/spec.md §2.7), which three.js and Blender use too: loaded, with one warning.
  if (repeats > 0)
    warnings.push_back(make_warning(
        spath + ".input", Rule::key_times_repeated,
        fmt::format("key {} has key {}'s time {}{}; sampled as a step at the repeated time", first_repeat,
                    first_repeat - 1, t[first_repeat],
                    repeats > 1 ? fmt::format(" ({} keys repeat their previous key's time)", repeats) : "")));
  if (keys.interpolation == Interpolation::cubic_spline && t.size() < 2)
    throw Error(spath + ".input", Rule::cubic_spline_keys, "CUBICSPLINE needs at least 2 keys");
  return keys;
}

ChannelPath channel_path(const std::string& name, const std::string& cpath) {
  if (name == "translation") return ChannelPath::translation;
  if (name == "rotation") return ChannelPath::rotation;
  if (name == "scale") return ChannelPath::scale;
  if (name == "weights") return ChannelPath::weights;
  throw Error(cpath + ".target.path", Rule::channel_path, fmt::format("unknown path \"{}\"", name));
}

// One marker of extras.markers, or a warning naming why it is skipped.
void add_marker(std::string name, const tinygltf::Value& time, float duration, const std::string& path,
                std::vector<ClipMarker>& markers, std::vector<Warning>& warnings) {
  if (name.empty()) {
    warnings.push_back(make_warning(path, Rule::marker_skipped, "the marker has no name (a non-empty string)"));
    return;
  }
  if (!time.IsNumber()) {
    warnings.push_back(
        make_warning(path, Rule::marker_skipped, fmt::format("marker \"{}\" has no numeric time", name)));
    return;
  }
  const double seconds = time.GetNumberAsDouble();
  if (!(std::isfinite(seconds) && seconds >= 0.0 && seconds <= duration)) {
    warnings.push_back(
        make_warning(path, Rule::marker_skipped,
                     fmt::format("marker \"{}\" at {} s is outside the clip's [0, {}] s", name, seconds, duration)));
    return;
  }
  markers.push_back({std::move(name), static_cast<float>(seconds)});
}

// extras.markers of one animation (docs/spec.md §2.7): an array of {"name", "time"} objects, or an
// object mapping each name to a time or an array of times. There is no standard form; a bad entry
// is skipped with a warning rather than refusing an asset whose animation plays fine.
std::vector<ClipMarker> read_markers(const tinygltf::Value& extras, float duration, const std::string& apath,
                                     std::vector<Warning>& warnings) {
  std::vector<ClipMarker> markers;
  if (!extras.IsObject() || !extras.Has("markers")) return markers;
  const tinygltf::Value& list = extras.Get("markers");
  const std::string path = apath + ".extras.markers";
  if (list.IsArray()) {
    for (std::size_t i = 0; i < list.ArrayLen(); ++i) {
      const tinygltf::Value& entry = list.Get(static_cast<int>(i));
      const std::string epath = fmt::format("{}[{}]", path, i);
      if (!entry.IsObject()) {
        warnings.push_back(make_warning(epath, Rule::marker_skipped, "must be an object {\"name\", \"time\"}"));
        continue;
      }
      const tinygltf::Value& name = entry.Get("name");
      add_marker(name.IsString() ? name.Get<std::string>() : std::string(), entry.Get("time"), duration, epath, markers,
                 warnings);
    }
  } else if (list.IsObject()) {
    for (const std::string& name : list.Keys()) {
      const tinygltf::Value& time = list.Get(name);
      const std::string epath = fmt::format("{}.{}", path, name);
      if (!time.IsArray()) {
        add_marker(name, time, duration, epath, markers, warnings);
        continue;
      }
      for (std::size_t i = 0; i < time.ArrayLen(); ++i)
        add_marker(name, time.Get(static_cast<int>(i)), duration, fmt::format("{}[{}]", epath, i), markers, warnings);
    }
  } else {
    warnings.push_back(make_warning(path, Rule::marker_skipped, "must be an array or an object; markers ignored"));
  }
  std::stable_sort(markers.begin(), markers.end(),
                   [](const ClipMarker& a, const ClipMarker& b) { return a.seconds < b.seconds; });
  return markers;
}

}  // namespace

void build_clips(const tinygltf::Model& model, AccessorReader& accessors,
                 const std::vector<std::vector<std::size_t>>& kept_channels, Asset& asset) {
  asset.clips.resize(model.animations.size());
  // targeted[node * 4 + path] = 1 + the last animation with a channel there: one array for all
  // animations, so the duplicate check costs O(channels), not O(animations × nodes).
  std::vector<std::size_t> targeted(asset.nodes.size() * 4, 0);
  for (std::size_t a = 0; a < model.animations.size(); ++a) {
    const tinygltf::Animation& source = model.animations[a];
    Clip& clip = asset.clips[a];
    const std::string path = fmt::format("animations[{}]", a);
    clip.name = source.name;
    std::vector<SamplerKeys> samplers;
    for (std::size_t s = 0; s < source.samplers.size(); ++s) {
      samplers.push_back(
          read_sampler(source.samplers[s], accessors, fmt::format("{}.samplers[{}]", path, s), asset.warnings));
      clip.duration_seconds = std::max(clip.duration_seconds, samplers.back().times.floats.back());
    }
    for (std::size_t c = 0; c < source.channels.size(); ++c) {
      const tinygltf::AnimationChannel& ch = source.channels[c];
      const std::size_t json_index = a < kept_channels.size() && c < kept_channels[a].size() ? kept_channels[a][c] : c;
      const std::string cpath = fmt::format("{}.channels[{}]", path, json_index);
      if (ch.target_node < 0 || static_cast<std::size_t>(ch.target_node) >= asset.nodes.size())
        throw Error(cpath + ".target.node", Rule::node_index, fmt::format("node {} does not exist", ch.target_node));
      if (ch.sampler < 0 || static_cast<std::size_t>(ch.sampler) >= samplers.size())
        throw Error(cpath + ".sampler", Rule::sampler_index, fmt::format("sampler {} does not exist", ch.sampler));
      Channel channel;
      channel.node = static_cast<std::uint32_t>(ch.target_node);
      channel.path = channel_path(ch.target_path, cpath);
      std::size_t& last = targeted[std::size_t{channel.node} * 4 + static_cast<std::size_t>(channel.path)];
      if (last == a + 1)
        throw Error(cpath + ".target", Rule::channel_duplicate_target,
                    fmt::format("another channel of this animation already animates nodes[{}].{}", channel.node,
                                ch.target_path));
      last = a + 1;
      const Node& node = asset.nodes[channel.node];
      std::uint32_t weight_count = 0;
      if (channel.path == ChannelPath::weights) {
        if (node.mesh >= 0)
          weight_count = static_cast<std::uint32_t>(
              asset.meshes[static_cast<std::size_t>(node.mesh)].primitives[0].targets.size());
        if (weight_count == 0)
          throw Error(cpath + ".target.node", Rule::weights_without_targets,
                      fmt::format("node {} has no morph targets to animate", channel.node));
      }
      const SamplerKeys& keys = samplers[static_cast<std::size_t>(ch.sampler)];
      const tinygltf::AnimationSampler& sampler = source.samplers[static_cast<std::size_t>(ch.sampler)];
      const std::string spath = fmt::format("{}.samplers[{}]", path, ch.sampler);
      channel.interpolation = keys.interpolation;
      DecodedAccessor output = accessors.read_floats(sampler.output, spath + ".output");
      channel.components = components_for(channel.path, weight_count);
      // The file's layout: a collapsed sampler's output still holds every original key.
      const std::uint32_t file_keys = keys.collapsed_from != 0 ? keys.collapsed_from : keys.times.count;
      const bool file_cubic = keys.interpolation_name == "CUBICSPLINE";
      const std::uint32_t per_key = file_cubic ? 3u : 1u;
      const std::uint64_t expected = std::uint64_t{file_keys} * per_key * channel.components;
      const std::uint64_t actual = std::uint64_t{output.count} * output.components;
      const std::uint32_t expected_components = channel.path == ChannelPath::weights ? 1 : channel.components;
      if (output.components != expected_components)
        throw Error(spath + ".output", Rule::output_type,
                    fmt::format("{} components per element, expected {}", output.components, expected_components));
      if (actual != expected)
        throw Error(spath + ".output", Rule::output_count,
                    fmt::format("{} values for {} keys of {} ({}), expected {}", actual, file_keys,
                                keys.interpolation_name, ch.target_path, expected));
      for (std::size_t k = 0; k < output.floats.size(); ++k)
        if (!std::isfinite(output.floats[k]))
          throw Error(fmt::format("accessors[{}]", sampler.output), Rule::key_value,
                      fmt::format("{}: value {} is not finite", spath + ".output", k));
      if (keys.collapsed_from != 0) {
        // Keep the last key's value (the middle element of a CUBICSPLINE triple).
        const std::size_t first = (std::size_t{file_keys - 1} * per_key + (file_cubic ? 1 : 0)) * channel.components;
        output.floats.erase(output.floats.begin(), output.floats.begin() + static_cast<std::ptrdiff_t>(first));
        output.floats.resize(channel.components);
      }
      channel.key_count = keys.times.count;
      channel.times_offset = static_cast<std::uint32_t>(clip.times.size());
      channel.values_offset = static_cast<std::uint32_t>(clip.values.size());
      clip.times.insert(clip.times.end(), keys.times.floats.begin(), keys.times.floats.end());
      clip.values.insert(clip.values.end(), output.floats.begin(), output.floats.end());
      clip.channels.push_back(channel);
    }
    clip.markers = read_markers(source.extras, clip.duration_seconds, path, asset.warnings);
  }
}

}  // namespace gltf_crowd::detail
