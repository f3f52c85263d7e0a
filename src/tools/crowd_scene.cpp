#include "tools/crowd_scene.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>

#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/error.hpp"
#include "tools/as_option.hpp"
#include "tools/cli_numbers.hpp"
#include "tools/lod_stats_json.hpp"

namespace gltf_crowd::tools {
namespace {

constexpr float vertical_fov_degrees = 40.0f;

// splitmix64: a portable, seedable hash, so a seed picks the same clips on every platform
// (std::uniform_int_distribution is implementation-defined).
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::size_t clip_of(const Asset& asset, const ClipAssignment& assignment, std::size_t actor) {
  switch (assignment.mode) {
    case ClipMode::cycle: return actor % asset.clips.size();
    case ClipMode::single: {
      const int found = asset.find_clip(assignment.clip);
      return found < 0 ? 0 : static_cast<std::size_t>(found);
    }
    case ClipMode::random: return mix((std::uint64_t{assignment.seed} << 32) ^ actor) % asset.clips.size();
  }
  return 0;
}

// "74 nodes, 0 to 73": how many nodes the asset has and their indices, for messages.
std::string nodes_note(const Asset& asset) {
  const std::size_t n = asset.nodes.size();
  return n < 2 ? count_of(n, "node") + (n == 1 ? ", 0" : "") : fmt::format("{}, 0 to {}", count_of(n, "node"), n - 1);
}

// The clip actor_options gives the actor: clip_of's, or the first clip when that one has no
// unique name.
std::size_t played_clip(const Asset& asset, const ClipAssignment& assignment, std::size_t actor) {
  const std::size_t clip = clip_of(asset, assignment, actor);
  return asset.find_clip(asset.clips[clip].name) == static_cast<int>(clip) ? clip : 0;
}

}  // namespace

Asset load_named_asset(const std::string& path, const LoadOptions& options) {
  try {
    return load_asset(path, options);
  } catch (const Error& e) {
    // A file named on the command line that cannot be read is a usage error (exit status 2).
    if (e.path() == path && e.rule() == rule_id(Rule::file_open)) throw UsageError(e);
    if (e.path() == path) throw;  // the file's own errors (file_open, not_gltf) name it already
    std::string message = message_without_path(e);
    // On the command line the resource root is the asset's folder and the option is the way out,
    // not LoadOptions' fields.
    const std::size_t way_out = message.find("; --allow-outside-resources");
    if (e.rule() == rule_id(Rule::uri_outside_root) && way_out != std::string::npos) {
      message = message.substr(0, way_out) + "; --allow-outside-resources allows it";
      constexpr std::string_view kRoot = "outside the resource root ";
      const std::size_t root = message.find(kRoot);
      if (root != std::string::npos) message.replace(root, kRoot.size(), "outside the asset's folder ");
    }
    throw Error(path + ": " + e.path(), e.code(), message);
  }
}

std::uint32_t resolve_node_option(const Asset& asset, std::string_view text, const std::string& path) {
  const std::vector<std::uint32_t> named = asset.find_nodes(text);
  if (named.size() > 1) return asset.resolve_node(text, path);  // throws ambiguous_node, listing them
  if (named.size() == 1) return named.front();
  std::uint32_t index = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
  const bool number = error == std::errc() && end == text.data() + text.size() && !text.empty();
  if (number && index < asset.nodes.size()) return index;
  throw Error(
      path, Rule::unknown_node,
      fmt::format("no node {} \"{}\"{}; {}", text.find('/') == std::string_view::npos ? "named" : "at the path", text,
                  number ? fmt::format(", and no node {} (the asset has {})", index, nodes_note(asset)) : "",
                  closest_node_names(asset, text)));
}

std::string node_name_option(const Asset& asset, std::string_view text, const std::string& path) {
  const std::uint32_t node = resolve_node_option(asset, text, path);
  if (asset.find_node(text) == static_cast<int>(node)) return std::string(text);
  std::string named = asset.node_path(node);
  if (named.empty())
    throw Error(path, Rule::ambiguous_node,
                fmt::format("node {} (\"{}\") has no name or path of its own, and this takes the node by name", node,
                            asset.nodes[node].name));
  return named;
}

std::shared_ptr<const Asset> load_crowd_asset(const std::string& path, const LoadOptions& options) {
  if (path.empty()) {
    const std::vector<std::uint8_t> glb = default_character_glb();
    return std::make_shared<const Asset>(load_asset_from_memory(glb));
  }
  return std::make_shared<const Asset>(load_named_asset(path, options));
}

void require_something_to_draw(const Asset& asset, const std::string& file) {
  if (!asset.drawn_nodes.empty()) return;
  throw Error(
      file, Rule::nothing_to_draw,
      fmt::format("nothing to draw: {} (gltf-crowd info lists what it holds)",
                  asset.meshes.empty() ? "the asset has no meshes"
                  : asset.meshes.size() == 1
                      ? "its one mesh is not on a visible node of the scene"
                      : fmt::format("none of its {} meshes is on a visible node of the scene", asset.meshes.size())));
}

void print_load_warnings(const Asset& asset, const std::string& label, std::size_t shown) {
  if (asset.warnings.empty()) return;
  fmt::print(stderr, "{}: {} loading warning{}{}\n", label, asset.warnings.size(),
             asset.warnings.size() == 1 ? "" : "s",
             asset.warnings.size() > shown ? fmt::format(" (first {}; gltf-crowd info lists all)", shown) : "");
  for (std::size_t i = 0; i < asset.warnings.size() && i < shown; ++i)
    fmt::print(stderr, "  warning: {} [{}] {}\n", asset.warnings[i].path, asset.warnings[i].rule,
               asset.warnings[i].message);
}

Layout grid_layout(const Asset& asset, std::uint32_t count, const ClipAssignment& clips) {
  Bounds character = rest_bounds(asset);
  const bool drawn = !character.empty();
  if (!drawn) character = Bounds{glm::vec3(-0.5f, 0.0f, -0.5f), glm::vec3(0.5f, 1.0f, 0.5f)};
  const glm::vec3 size = character.size();
  float spacing = 1.25f * std::max(size.x, size.z);
  if (!(spacing > 0.0f)) spacing = std::max(size.y, 1.0f);
  const auto columns = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(count))));
  const std::uint32_t rows = columns == 0 ? 0 : (count + columns - 1) / columns;

  Layout layout;
  const glm::vec3 center = character.center();
  std::vector<std::optional<Bounds>> played(asset.clips.size());  // animated_bounds, on first use
  for (std::uint32_t i = 0; i < count; ++i) {
    const float x = (static_cast<float>(i % columns) - 0.5f * static_cast<float>(columns - 1)) * spacing;
    const float z = (static_cast<float>(i / columns) - 0.5f * static_cast<float>(rows - 1)) * spacing;
    const glm::vec3 offset(x - center.x, 0.0f, z - center.z);
    layout.placements.push_back(glm::translate(glm::mat4(1.0f), offset));
    Bounds box = character;
    if (drawn && !asset.clips.empty()) {
      const std::size_t clip = played_clip(asset, clips, i);
      if (!played[clip]) played[clip] = animated_bounds(asset, clip);
      box = *played[clip];
    }
    layout.crowd_bounds.add(box.min + offset);
    layout.crowd_bounds.add(box.max + offset);
  }
  const glm::vec3 margin = 0.05f * layout.crowd_bounds.size();
  layout.crowd_bounds.min -= margin;
  layout.crowd_bounds.max += margin;
  return layout;
}

Camera frame_crowd(const Bounds& box, float aspect, const CameraOrbit& orbit) {
  const float azimuth = glm::radians(orbit.azimuth_degrees);
  const float elevation = glm::radians(orbit.elevation_degrees);
  const glm::vec3 forward(-std::sin(azimuth) * std::cos(elevation), -std::sin(elevation),
                          -std::cos(azimuth) * std::cos(elevation));
  const glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0.0f, 1.0f, 0.0f)));
  const glm::vec3 up = glm::cross(right, forward);
  const float tan_v = std::tan(glm::radians(vertical_fov_degrees) * 0.5f);
  const float tan_h = tan_v * aspect;

  float distance = 0.0f;
  float nearest = 0.0f;  // largest extent toward the camera
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 p((corner & 1) ? box.max.x : box.min.x, (corner & 2) ? box.max.y : box.min.y,
                      (corner & 4) ? box.max.z : box.min.z);
    const glm::vec3 rel = p - box.center();
    const float toward = -glm::dot(rel, forward);  // > 0: closer to the camera than the target
    distance = std::max(
        {distance, toward + std::abs(glm::dot(rel, right)) / tan_h, toward + std::abs(glm::dot(rel, up)) / tan_v});
    nearest = std::max(nearest, toward);
  }
  const float radius = 0.5f * glm::length(box.size());
  distance = std::max(distance, 1e-3f);
  const glm::vec3 target = box.center() + (right * orbit.pan.x + up * orbit.pan.y) * distance;
  distance *= orbit.zoom;
  Camera camera;
  const glm::vec3 eye = target - forward * distance;
  camera.view = glm::lookAt(eye, target, glm::vec3(0.0f, 1.0f, 0.0f));
  const float near_plane = std::max((distance - nearest) * 0.5f, distance * 1e-3f);
  camera.projection =
      glm::perspective(glm::radians(vertical_fov_degrees), aspect, near_plane, distance + 2.0f * radius);
  camera.light_direction = glm::vec3(-0.4f, -1.0f, -0.6f);
  return camera;
}

std::vector<ActorOptions> actor_options(const Asset& asset, const Layout& layout, const ClipAssignment& assignment) {
  std::vector<ActorOptions> options(layout.placements.size());
  bool warned = false;
  for (std::size_t i = 0; i < options.size(); ++i) {
    ActorOptions& o = options[i];
    o.id = fmt::format("actor-{}", i);
    if (!asset.clips.empty()) {
      const std::size_t clip = clip_of(asset, assignment, i);
      const std::string& name = asset.clips[clip].name;
      // Clips are chosen by name; an unnamed or duplicate name cannot pick this clip.
      if (asset.find_clip(name) == static_cast<int>(clip)) {
        o.clip = name;
      } else if (!warned) {
        fmt::print(stderr,
                   "gltf-crowd: warning: clip {} has no unique name; its actors play the "
                   "first clip\n",
                   clip);
        warned = true;
      }
    }
    o.phase = assignment.phase_spread * static_cast<float>(std::fmod(static_cast<double>(i) * 0.618, 1.0));
    o.speed = 1.0f + assignment.speed_spread * (static_cast<float>(i % 5) / 4.0f - 0.5f);
    o.transform = layout.placements[i];
  }
  return options;
}

glm::vec4 pastel_tint(std::uint32_t seed, std::size_t actor) {
  const std::uint64_t bits = mix((std::uint64_t{seed} << 32) ^ (0xC0105ull + actor));
  const auto channel = [bits](int k) {
    return 0.55f + 0.45f * static_cast<float>((bits >> (16 * k)) & 0xFFFFu) / 65535.0f;
  };
  return {channel(0), channel(1), channel(2), 1.0f};
}

void check_appearance(const Asset& asset, const AppearanceAssignment& assignment, const std::string& option) {
  if (assignment.variants && asset.material_variants.empty())
    throw Error(option, Rule::unknown_variant,
                "the asset has no material variants (KHR_materials_variants) to spread over the actors");
}

void apply_appearance(Crowd& crowd, const AppearanceAssignment& assignment) {
  const Asset& asset = crowd.asset();
  std::vector<Actor> actors = crowd.actors();
  for (std::size_t i = 0; i < actors.size(); ++i) {
    actors[i].set_tint(assignment.tints ? pastel_tint(assignment.tint_seed, i) : glm::vec4(1.0f));
    if (assignment.variants && !asset.material_variants.empty())
      actors[i].set_material_variant(asset.material_variants[i % asset.material_variants.size()]);
    else
      actors[i].clear_material_variant();
  }
}

nlohmann::json crowd_stats_json(const Crowd& crowd, const std::string& asset_label, const RenderCounts& frame,
                                const std::string& palette) {
  const auto groups = crowd.primitive_groups();
  nlohmann::json stats;
  stats["asset"] = asset_label;
  stats["actors"] = crowd.actor_count();
  stats["draws"] = frame.draws;
  stats["animation"] = crowd.animation() == Animation::gpu ? "gpu" : "cpu";
  stats["primitive_groups"] = groups.size();
  stats["skinned_groups"] =
      std::count_if(groups.begin(), groups.end(), [](const auto& g) { return g.palette_kind == PaletteKind::skinned; });
  nlohmann::json joints = nlohmann::json::array();
  for (const auto& g : groups) joints.push_back(g.joint_count);
  stats["joints_per_group"] = joints;
  nlohmann::json clips = nlohmann::json::array();
  for (const Actor& actor : crowd.actors()) clips.push_back(actor.active_clip());
  stats["clips"] = clips;
  nlohmann::json tints = nlohmann::json::array(), variants = nlohmann::json::array();
  for (const Actor& actor : crowd.actors()) {
    const glm::vec4 tint = actor.tint();
    tints.push_back({tint.r, tint.g, tint.b, tint.a});
    variants.push_back(actor.material_variant());
  }
  stats["tints"] = tints;
  stats["material_variants"] = variants;
  stats["variant_draws"] = frame.variant_draws;
  // Animation layer 1 of each actor (docs/spec.md §3.11), as the studio's panel sets it.
  nlohmann::json layers = nlohmann::json::array();
  for (const Actor& actor : crowd.actors()) {
    const ActorLayer layer = actor.layer(1);
    layers.push_back({{"clip", layer.active_clip()},
                      {"weight", layer.weight()},
                      {"mode", std::string(to_string(layer.mode()))},
                      {"mask", layer.mask()}});
  }
  stats["layers"] = layers;
  stats["hidden_actors"] = crowd.frame_stats().hidden_actors;
  stats["events"] = crowd.events().size();
  stats["root_motion"] = crowd.root_motion().node;
  stats["upload_bytes_per_frame"] = frame.upload_bytes;
  stats["cached_vertices"] = frame.cached_vertices;  // skinned into the cache by the last frame
  stats["packed_bytes_per_frame"] = crowd.frame_stats().packed_bytes;
  stats["actors_evaluated"] = crowd.frame_stats().actors_evaluated;
  stats["actors_deferred"] = crowd.frame_stats().actors_deferred;
  stats["actors_batched_by_clip"] = crowd.frame_stats().actors_batched_by_clip;
  stats["instances"] = frame.instances;
  stats["triangles"] = frame.triangles;
  stats["palette"] = palette;
  stats["lod"] = lod_stats_json(crowd.lod_stats());
  return stats;
}

std::string json_text(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void check_actor_limit(const Crowd& crowd, std::uint32_t actors, PaletteStorage storage) {
  const CapacityLimit limit = crowd_capacity_limit(crowd, storage);
  if (actors <= limit.actors) return;
  const std::string why = limit.storage == PaletteStorage::storage_buffer
                              ? fmt::format("{} = {} bytes per array / {} bytes per actor in its largest palette array",
                                            limit.limit, limit.limit_value, limit.per_actor)
                              : fmt::format("{} = {} texel rows, one per actor", limit.limit, limit.limit_value);
  throw Error("--actors", Rule::too_many_actors,
              fmt::format("{} exceed the {} this asset fits in {} palettes on this GPU ({})", count_of(actors, "actor"),
                          limit.actors, palette_storage_name(limit.storage), why));
}

}  // namespace gltf_crowd::tools
