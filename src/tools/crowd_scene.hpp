// The crowd scene `render` and `studio` share: loading, the grid layout, per-actor clip, phase
// and speed assignment, camera framing and the statistics JSON, so both tools show the same
// crowd and report the same keys.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/gl_renderers.hpp"

namespace gltf_crowd::tools {

// Exact 8-bit clear colour, so tests can tell background pixels from drawn ones.
inline constexpr std::uint8_t background_rgb[3] = {40, 46, 56};

// load_asset(path, options) for a command: an error names the file as well as the offending object
// ("a.glb: glb.length: ..."), since the library's Error::path() is the object's JSON path alone. A
// `path` that cannot be opened (file_open) is a UsageError: the command line names no asset.
Asset load_named_asset(const std::string& path, const LoadOptions& options = {});

// The built-in character for an empty path, else the asset at `path` (load_named_asset).
std::shared_ptr<const Asset> load_crowd_asset(const std::string& path, const LoadOptions& options = {});

// The node `text` names on the command line or in a pose script (docs/spec.md §2.3): the one node
// whose name or path it is (Asset::find_nodes), else, for a decimal number below the node count,
// the node of that index. Throws Error at `path`: ambiguous_node (each match) or unknown_node (the
// closest names first).
std::uint32_t resolve_node_option(const Asset& asset, std::string_view text, const std::string& path);

// As resolve_node_option, for the options the library takes by name alone (root motion): `text`
// itself when it is a name or path, else the path of the node it indexes (Asset::node_path); an
// index whose node no name or path names alone is an Error at `path` (ambiguous_node).
std::string node_name_option(const Asset& asset, std::string_view text, const std::string& path);

// Throws Error (path `file`, rule nothing_to_draw) when the asset draws nothing (Asset::drawn_nodes
// is empty), saying whether it has no meshes or only meshes off the scene: a crowd of it would
// show nothing whatever the options (render, bench; docs/spec.md §8.1).
void require_something_to_draw(const Asset& asset, const std::string& file);

// Prints to stderr how many loading warnings `asset` has and the first `shown` of them
// ("warning: <path> [<rule>] <message>"); nothing for a clean asset. `info` lists them all.
void print_load_warnings(const Asset& asset, const std::string& label, std::size_t shown = 5);

struct Layout {
  std::vector<glm::mat4> placements;
  Bounds crowd_bounds;  // what the actors draw over their clips, with a margin (grid_layout)
};

// Where the camera looks from, relative to the default framing (front, 25° above).
struct CameraOrbit {
  float azimuth_degrees = 0.0f;     // about +y; 0 = in front (+z, where glTF characters face)
  float elevation_degrees = 25.0f;  // above the horizon, in (-90, 90)
  float zoom = 1.0f;                // distance multiplier; < 1 moves closer
  glm::vec2 pan{0.0f};              // target offset along the view's right and up, in units of
                                    // the framing distance
};

// A camera looking at the crowd's centre from `orbit`'s direction, at the smallest distance at
// which all eight corners of `box` fit the view (times orbit.zoom).
Camera frame_crowd(const Bounds& box, float aspect, const CameraOrbit& orbit = {});

// How actors get their clips.
enum class ClipMode : std::uint8_t {
  cycle,   // actor i plays clip i mod clip_count
  single,  // every actor plays ClipAssignment::clip
  random,  // a clip drawn per actor from ClipAssignment::seed
};

// Per-actor clip, phase and speed. The defaults are `render`'s: cycling clips, phase
// (0.618·i) mod 1 and speed 0.8 + 0.1·(i mod 5).
struct ClipAssignment {
  ClipMode mode = ClipMode::cycle;
  std::string clip;           // for ClipMode::single; "" = the first clip
  std::uint32_t seed = 1;     // for ClipMode::random
  float phase_spread = 1.0f;  // phase = phase_spread × ((0.618·i) mod 1)
  float speed_spread = 0.4f;  // speed = 1 + speed_spread × ((i mod 5) / 4 − 0.5)
};

// A square grid of `count` cells spaced by the character's rest-pose footprint, centred on the
// origin. crowd_bounds is the union of every actor's animated_bounds for the clip `clips` gives
// it (rest_bounds without clips) at its placement, grown by 5% of its size on every side so that
// geometry on the box's faces stays off the image border.
Layout grid_layout(const Asset& asset, std::uint32_t count, const ClipAssignment& clips = {});

// Options of actors 0..N−1 for `layout`'s placements, with ids "actor-0" .. "actor-<N−1>" (the
// same after the studio re-adds its actors). Clips are chosen by name, so a clip without a
// unique name falls back to the first clip (with one warning on stderr).
std::vector<ActorOptions> actor_options(const Asset& asset, const Layout& layout,
                                        const ClipAssignment& assignment = {});

// Per-actor appearance (docs/spec.md §3.12), spread over the crowd by `render --tints/--variants`
// and the studio's tints / variants settings.
struct AppearanceAssignment {
  bool tints = false;  // true: actor i gets pastel_tint(tint_seed, i); false: white
  std::uint32_t tint_seed = 1;
  bool variants = false;  // true: actor i gets material variant i mod the asset's variant count
  bool operator==(const AppearanceAssignment&) const = default;
};

// A pastel linear RGB tint (alpha 1) for actor `actor`: each channel in [0.55, 1], drawn from
// `seed` with the same portable hash as ClipMode::random, so a seed gives the same tints everywhere.
glm::vec4 pastel_tint(std::uint32_t seed, std::size_t actor);

// Throws Error (path `option`, rule "unknown_variant") when `assignment` spreads variants over an
// asset without KHR_materials_variants.
void check_appearance(const Asset& asset, const AppearanceAssignment& assignment, const std::string& option);

// Sets every actor's tint and material variant (in slot order) as `assignment` says: white and
// no variant for what it leaves off. check_appearance first.
void apply_appearance(Crowd& crowd, const AppearanceAssignment& assignment);

// The statistics both tools write: asset, actors, draws, primitive_groups, skinned_groups,
// joints_per_group, animation ("cpu" or "gpu"), clips (per actor), tints (per actor, RGBA), material_variants
// (per actor, "" = none), variant_draws, upload_bytes_per_frame, cached_vertices, packed_bytes_per_frame,
// instances, triangles, palette and lod (docs/spec.md §7 lod_stats). The renderer's figures are
// `frame`'s, the last frame's totals over every pass (RenderStats::frame: the shadow pass's too).
nlohmann::json crowd_stats_json(const Crowd& crowd, const std::string& asset_label, const RenderCounts& frame,
                                const std::string& palette);

// JSON text of `doc` (one line for indent -1). Strings that are not valid UTF-8, such as a
// file name in another encoding, get U+FFFD instead of failing the command after its work.
std::string json_text(const nlohmann::json& doc, int indent = -1);

// Throws Error (path "--actors", rule "too_many_actors") when CrowdRenderer cannot hold `actors`
// actors of `crowd`'s asset with `storage` (crowd_capacity_limit), naming the limit. Check on a
// crowd of capacity 1, before the real one allocates its streams: a million actors would
// otherwise fail only after seconds and GiBs. Needs a current context.
void check_actor_limit(const Crowd& crowd, std::uint32_t actors, PaletteStorage storage);

}  // namespace gltf_crowd::tools
