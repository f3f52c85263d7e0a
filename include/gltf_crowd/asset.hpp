// Layer 1, asset: one glTF 2.0 document parsed, validated and decoded into plain arrays.
//
// An Asset is immutable after loading and shared by every actor of every crowd made from it.
// Indices are the glTF indices (node i here is `nodes[i]` in the file), so error messages, tools
// and users speak the same language. Accessor data is decoded once at load: sparse accessors
// applied, byteStride honoured, normalized integers converted to float (glTF 2.0 §3.6.2, §3.11).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// glTF animation sampler interpolation (glTF 2.0 §3.11, Appendix C).
enum class Interpolation : std::uint8_t { step, linear, cubic_spline };

// The node property a channel animates (glTF 2.0 §3.11 "channel.target.path").
enum class ChannelPath : std::uint8_t { translation, rotation, scale, weights };

// One animation channel with its sampler's keys, decoded to float.
// Keys live in the owning Clip's shared arrays: times[times_offset, times_offset + key_count) in
// seconds, non-decreasing and finite (validated); values start at values_offset with
// `components` floats per element (3 translation/scale, 4 rotation as x,y,z,w, morph target count
// for weights). CUBICSPLINE stores 3 elements per key: in-tangent, value, out-tangent.
struct Channel {
  std::uint32_t node = 0;
  ChannelPath path = ChannelPath::translation;
  Interpolation interpolation = Interpolation::linear;
  std::uint32_t key_count = 0;
  std::uint32_t times_offset = 0;
  std::uint32_t values_offset = 0;
  std::uint32_t components = 0;
};

// A named time in a clip (docs/spec.md §3.9): Crowd::update reports every marker a playing
// contributor crosses (Crowd::events).
struct ClipMarker {
  std::string name;      // not empty
  float seconds = 0.0f;  // clip-local time in [0, duration_seconds]
};

// One glTF animation. duration_seconds = max over its samplers of the last input time (docs/spec.md §1).
struct Clip {
  std::string name;  // the glTF name; "" when unnamed
  float duration_seconds = 0.0f;
  std::vector<Channel> channels;
  std::vector<float> times;   // seconds, all channels' keys back to back
  std::vector<float> values;  // floats, all channels' outputs back to back
  // From the animation's extras.markers (docs/spec.md §2.7), sorted by time; markers of equal
  // time keep their file order.
  std::vector<ClipMarker> markers;
};

// A decoded image, always RGBA8, row 0 at the top (as in the file).
struct Image {
  std::string name;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4 bytes
};

// glTF sampler (§3.8.4); GL enum values as in the file (9729 LINEAR, 10497 REPEAT, ...).
struct Sampler {
  std::uint32_t mag_filter = 9729;
  std::uint32_t min_filter = 9987;
  std::uint32_t wrap_s = 10497;
  std::uint32_t wrap_t = 10497;
};

// glTF texture: an image and a sampler (-1 = default sampler).
struct Texture {
  std::int32_t image = -1;
  std::int32_t sampler = -1;
};

// A material's reference to a texture (glTF textureInfo), with its KHR_texture_transform.
// The transform maps the TEXCOORD value uv to the texture coordinate T · R · S · (uv, 1):
// S scales by uv_scale, R rotates by `rotation` radians, counter-clockwise in UV space (u right,
// v down: u' = cos·u + sin·v, v' = −sin·u + cos·v; the README's worked example and the sample
// implementations, not its GLSL listing, which has the opposite sign: KhronosGroup/glTF#1563),
// T adds offset. Without the extension it is the identity (defaults below). tex_coord is the
// extension's texCoord when it has one (it overrides textureInfo.texCoord).
struct TextureRef {
  std::int32_t texture = -1;    // index into Asset::textures; -1 = none (also for texCoord >= 2, spec §2.8)
  std::uint32_t tex_coord = 0;  // TEXCOORD_n set, 0 or 1
  float scale = 1.0f;           // normalTexture.scale or occlusionTexture.strength
  glm::vec2 offset{0.0f};       // KHR_texture_transform.offset, in UV units
  float rotation = 0.0f;        // KHR_texture_transform.rotation, radians
  glm::vec2 uv_scale{1.0f};     // KHR_texture_transform.scale
};

enum class AlphaMode : std::uint8_t { opaque, mask, blend };

// glTF metallic-roughness material (§3.9).
struct Material {
  std::string name;
  glm::vec4 base_color_factor{1.0f};
  TextureRef base_color_texture;
  float metallic_factor = 1.0f;
  float roughness_factor = 1.0f;
  TextureRef metallic_roughness_texture;
  TextureRef normal_texture;
  TextureRef occlusion_texture;
  TextureRef emissive_texture;
  glm::vec3 emissive_factor{0.0f};
  AlphaMode alpha_mode = AlphaMode::opaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;
};

// One morph target's deltas; each array is empty or has the primitive's vertex count.
struct MorphTarget {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<glm::vec3> tangents;
};

// "No material variant": the asset's default materials (Primitive::material_for,
// Crowd::material_variants).
inline constexpr std::uint32_t kNoVariant = 0xFFFFFFFFu;

// glTF primitive topology (§3.7.2.1); values as in the file.
enum class PrimitiveMode : std::uint8_t {
  points = 0,
  lines = 1,
  line_loop = 2,
  line_strip = 3,
  triangles = 4,
  triangle_strip = 5,
  triangle_fan = 6
};

// One mesh primitive with every attribute decoded to float (joints to uint16).
// Every non-empty attribute array has vertex_count() elements. `indices` is always filled
// (0..n-1 for non-indexed primitives) and every index is < vertex_count() (validated).
// Skin weights are renormalized to sum 1 over both sets where the file's sum was off.
// A file primitive without POSITION loads with no vertices and no indices (it draws nothing,
// docs/spec.md §2.2) and keeps its morph target count.
struct Primitive {
  PrimitiveMode mode = PrimitiveMode::triangles;
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<glm::vec4> tangents;  // xyz direction, w handedness
  std::vector<glm::vec2> texcoords0;
  std::vector<glm::vec2> texcoords1;
  std::vector<glm::vec4> colors0;     // RGBA; RGB files get alpha 1
  std::vector<glm::u16vec4> joints0;  // indices into the skin's joints
  std::vector<glm::u16vec4> joints1;  // influences 5..8, empty when absent
  std::vector<glm::vec4> weights0;
  std::vector<glm::vec4> weights1;
  std::vector<std::uint32_t> indices;
  std::vector<MorphTarget> targets;
  std::int32_t material = -1;  // -1 = glTF default material
  // KHR_materials_variants (Khronos extension: primitive.extensions.KHR_materials_variants
  // .mappings): the material of each variant, indexed by variant (Asset::material_variants),
  // -1 = the glTF default material. Empty when no mapping names this primitive; otherwise
  // sized Asset::material_variants.size(), and a variant no mapping lists keeps `material`.
  std::vector<std::int32_t> variant_materials;
  glm::vec3 min{0.0f};  // bounds of positions (rest, unmorphed)
  glm::vec3 max{0.0f};

  std::size_t vertex_count() const noexcept { return positions.size(); }
  // The material drawn for `variant` (an index into Asset::material_variants): its mapping, or
  // `material` for a variant the primitive does not map, kNoVariant or any index out of range.
  std::int32_t material_for(std::uint32_t variant) const noexcept {
    return variant < variant_materials.size() ? variant_materials[variant] : material;
  }
};

struct Mesh {
  std::string name;
  std::vector<Primitive> primitives;
  std::vector<float> weights;             // default morph weights; size = morph target count
  std::vector<std::string> target_names;  // extras.targetNames when present
};

// glTF skin (§3.7.3): joints are node indices; inverse_bind_matrices has joints.size() entries
// (identity when the file omits them).
struct Skin {
  std::string name;
  std::vector<std::uint32_t> joints;
  std::vector<glm::mat4> inverse_bind_matrices;
  std::int32_t skeleton = -1;
};

// glTF node. Local transform is TRS; an authored `matrix` is decomposed to TRS when animated and
// otherwise kept in `matrix` with has_matrix = true (docs/spec.md §2).
struct Node {
  std::string name;
  std::int32_t parent = -1;  // -1 for roots and detached nodes
  std::vector<std::uint32_t> children;
  glm::vec3 translation{0.0f};
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};  // glm order w,x,y,z in the constructor
  glm::vec3 scale{1.0f};
  bool has_matrix = false;
  glm::mat4 matrix{1.0f};
  std::int32_t mesh = -1;
  std::int32_t skin = -1;
  std::vector<float> weights;              // node morph weights override (may be empty)
  bool visible = true;                     // KHR_node_visibility
  std::vector<std::uint32_t> lod_ids;      // MSFT_lod ids: lower-detail nodes, best first
  std::vector<float> lod_screen_coverage;  // extras.MSFT_screencoverage, may be empty
};

// Something a loaded document does that the glTF specification allows but that is suspicious or
// not drawn (docs/spec.md §2.8 lists each rule): the document loaded, and this says what was
// ignored or assumed. Same vocabulary as Error.
struct Warning {
  std::string path;     // JSON path of the object ("animations[0].channels[2]", "glb.length")
  std::string rule;     // stable snake_case id of the loading-policy rule ("channel_skipped")
  std::string message;  // human-readable detail
};

// A file outside the document that one of its buffers or images reads: a relative URI (glTF 2.0
// §2.8). Commands refuse to write over it as over the asset itself (docs/spec.md §8).
struct ExternalFile {
  std::string path;            // JSON path of the object that names it ("buffers[0]", "images[2]")
  std::filesystem::path file;  // the URI, percent-decoded, under the document's folder ("assets/robot.bin")
};

// An immutable, validated glTF document.
struct Asset {
  std::filesystem::path source;  // file it came from; empty for memory loads
  // Buffers' then images' external files, in file order; empty when every byte is embedded
  // (data URIs, the GLB BIN chunk, bufferViews).
  std::vector<ExternalFile> external_files;
  std::vector<Node> nodes;
  std::vector<Mesh> meshes;
  std::vector<Skin> skins;
  std::vector<Clip> clips;
  std::vector<Material> materials;
  std::vector<Texture> textures;
  std::vector<Sampler> samplers;
  std::vector<Image> images;
  // KHR_materials_variants (Khronos extension: the root extensions.KHR_materials_variants
  // .variants): the variant names in file order; a variant's index is its position here.
  // Empty without the extension. Names are unique (validated) and may be empty.
  std::vector<std::string> material_variants;
  std::vector<std::uint32_t> scene_roots;  // nodes of the default scene (scene 0 if unset)
  std::vector<std::string> extensions_used;
  std::vector<std::string> extensions_required;  // each one is supported (else loading fails)
  std::vector<Warning> warnings;                 // in load order; empty for a clean file (docs/spec.md §2.8)

  // Derived at load, for the animation hot path.
  // Every node exactly once, parents before children (detached nodes included).
  std::vector<std::uint32_t> hierarchy_order;
  // The nodes a crowd draws: every node with a mesh reachable from scene_roots through visible
  // nodes (KHR_node_visibility: a hidden node hides its subtree), each once, in depth-first
  // pre-order with roots and children in file order. MSFT_lod alternatives that are not in the
  // scene are not included.
  std::vector<std::uint32_t> drawn_nodes;
  // Per node: first index of its morph weights in an actor's flat weight array, and count
  // (the mesh's target count; 0 without mesh or targets).
  std::vector<std::uint32_t> weight_offsets;
  std::vector<std::uint32_t> weight_counts;
  std::uint32_t total_weights = 0;  // size of an actor's flat weight array
  // Default morph weights in that flat layout (node weights, else mesh weights, else 0).
  std::vector<float> rest_weights;

  // Index of the clip named `name`, or -1.
  int find_clip(std::string_view name) const noexcept;
  // Every node `name` matches (docs/spec.md §2.3), in index order: the nodes so named; else, for
  // a name with '/', a path "A/B/C" (nodes named C whose parent is named B, whose parent is named
  // A). An empty name matches nothing. Scans the nodes: call it at setup, not per frame.
  std::vector<std::uint32_t> find_nodes(std::string_view name) const;
  // The one node `name` matches (find_nodes); -1 when none or several do (resolve_node says which).
  int find_node(std::string_view name) const noexcept;
  // As find_node, for the calls that take a node name: throws Error at `path` with rule
  // "unknown_node" (no match; the closest names first) or "ambiguous_node" (each match: index,
  // parent, joint of which skins or mesh, and the path that names it alone).
  std::uint32_t resolve_node(std::string_view name, std::string_view path) const;
  // The shortest name or path (its own name, then "parent/name", ...) that find_node resolves to
  // `node` alone; "" when none does (siblings sharing a name, or a name with '/' on the way),
  // when that takes over 16 names (bounding the search on hostile files), or for an index out of
  // range.
  std::string node_path(std::uint32_t node) const;
  // Index of the material variant named `name` (material_variants), or -1.
  int find_material_variant(std::string_view name) const noexcept;
  // The node's local transform as a matrix (from TRS, or the authored matrix).
  glm::mat4 local_matrix(std::uint32_t node) const noexcept;
};

// The clip names for messages, comma-separated in clip order, an unnamed clip as "#i (unnamed)",
// "none" without clips: "Idle, Walking, #2 (unnamed)". Every unknown_clip error lists them so.
std::string clip_name_list(const Asset& asset);

// The asset's node names closest to `name` (its last part, for a path) for messages: "closest:
// Hand.R, Hand.L, Head, ..." with names that contain it or that it contains first, then by edit
// distance ignoring case; at most 8 (then the count of the others). Every unknown_node error lists them.
std::string closest_node_names(const Asset& asset, std::string_view name);

// Where a document's external buffers and images may be read from (docs/spec.md §2.1). By
// default only from the asset's folder and below, after `..` and symbolic links are resolved, so
// a service can load uploaded files; a file elsewhere is Error "uri_outside_root" at
// `buffers[i].uri` / `images[i].uri`. Data URIs and GLB chunks are unaffected.
struct LoadOptions {
  // The folder external files must lie in; empty = the asset's folder (base_dir from memory).
  std::filesystem::path resource_root;
  // Reads external files wherever their URIs lead (the tool's --allow-outside-resources).
  bool allow_outside_resources = false;
};

// Loads a .gltf or .glb file (by content: GLB magic "glTF" or JSON).
// Throws Error naming the JSON path and rule for any malformed or unsupported input (docs/spec.md §2);
// content that is neither JSON nor GLB (an image renamed .glb) gets rule "not_gltf" with the
// file as path ("document" from memory).
Asset load_asset(const std::filesystem::path& path, const LoadOptions& options = {});

// Loads from memory. `base_dir` resolves relative URIs of external buffers and images; empty
// means only embedded data is allowed. Throws Error as load_asset.
Asset load_asset_from_memory(std::span<const std::uint8_t> bytes, const std::filesystem::path& base_dir = {},
                             const LoadOptions& options = {});

}  // namespace gltf_crowd
GLTF_CROWD_API_END
