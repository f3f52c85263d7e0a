// The passes that turn input bytes into a validated Asset (docs/spec.md §2), in the order load.cpp runs
// them:
//   parse_glb → parse_json → normalize_integers → preflight → stash_draco_indices →
//   rewrite_for_tinygltf (with give_fallback_buffers_data) → tinygltf (with the image loader of
//   images.cpp) → restore_after_tinygltf → decode_meshopt → decode_draco → build_materials →
//   build_meshes → build_nodes → build_skins → build_clips.
// Every pass that accepts something suspicious records a Warning (docs/spec.md §2.8).
// tinygltf accepts many invalid files and trusts lengths and indices, so everything it would
// trust is checked by preflight first, and every build pass re-checks the content rules it relies
// on. Each pass throws Error naming the JSON path and rule of the first broken rule it finds.
//
// This header brings tinygltf and nlohmann-json: only the loader's passes include it. What needs
// neither includes the light headers alone: asset/glb.hpp (GLB read/write), asset/uri.hpp (data
// URIs, base64, external files), asset/json.hpp (parse_json, nlohmann-json only).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "asset/accessor.hpp"
#include "asset/glb.hpp"
#include "asset/json.hpp"
#include "asset/uri.hpp"
#include "gltf_crowd/asset.hpp"

namespace gltf_crowd::detail {

// Largest buffer, external file or decompressed bufferView accepted (bytes).
inline constexpr std::uint64_t kMaxBufferBytes = std::uint64_t{1} << 30;

// glb.cpp: asset/glb.hpp; uri.cpp: asset/uri.hpp; json.cpp: asset/json.hpp.

// --- resource_files.cpp ---

// A document's external buffer and image files (docs/spec.md §2.1), each read once, when
// preflight checks it. tinygltf reads them from here (serve), never from the file system, so
// what was checked is what is read.
class ResourceFiles {
 public:
  ResourceFiles() = default;
  // Files are named relative to base_dir (empty: none allowed) and must lie in resource_root
  // (empty: anywhere), which is resolved at the first file, so a document with embedded data
  // only needs neither to exist.
  ResourceFiles(std::filesystem::path base_dir, std::filesystem::path resource_root);

  // The file `uri` names (resolve_external_uri, whose errors it throws), read whole unless an
  // earlier buffer or image read it. Error("LoadOptions::resource_root", file_open) when the
  // root is not a folder. check_size(file, bytes) runs before the bytes are read and
  // throws to refuse them. Error(path, external_file_missing) when it cannot be read;
  // Error(path, uri_outside_root) when the file opened lies outside the root (a link changed).
  std::filesystem::path read(std::string_view uri, const std::string& path,
                             const std::function<void(const std::filesystem::path&, std::uint64_t)>& check_size);
  // Makes `loader` read external files from here only: a file never read is not found. Each
  // file's bytes move out at the last of its reads.
  void serve(tinygltf::TinyGLTF& loader);

 private:
  struct File {
    std::vector<unsigned char> bytes;
    std::size_t reads_left = 0;  // buffers and images that read it, less tinygltf's reads
  };
  // tinygltf's FileExists and ReadWholeFile; `self` is the ResourceFiles.
  static bool holds(const std::string& file, void* self);
  static bool take(std::vector<unsigned char>* out, std::string* err, const std::string& file, void* self);

  // resource_root_ made canonical at the first read; empty when external files may lie anywhere.
  const std::filesystem::path& canonical_root();

  std::filesystem::path base_dir_;
  std::filesystem::path resource_root_;  // as given
  std::filesystem::path canonical_root_;
  std::map<std::string, File> files_;  // by resolve_external_uri's path, the one tinygltf asks for
};

// --- preflight.cpp (the document's structure), preflight_data.cpp (its buffers, views,
// accessors and images), json_properties.cpp (typed reads of properties) ---

// What preflight needs to know about where the JSON came from.
struct PreflightInput {
  bool glb = false;
  std::uint64_t bin_chunk_bytes = 0;    // GLB BIN chunk length; 0 when absent
  std::filesystem::path base_dir;       // empty: external files are not allowed
  std::filesystem::path resource_root;  // external files must lie in it (empty: anywhere); see ResourceFiles
};

// What preflight learnt that later passes need.
struct PreflightResult {
  // Per animation: the JSON index of each channel tinygltf keeps. It drops channels whose target
  // has no node (KHR_animation_pointer), which would shift every later channel's path.
  std::vector<std::vector<std::size_t>> kept_channels;
  std::vector<Warning> warnings;  // dropped channels, unused oddities (docs/spec.md §2.8)
  // Accessors whose `type` is unknown; nothing uses them (else preflight threw), and
  // rewrite_for_tinygltf turns them into harmless placeholders because tinygltf rejects them.
  std::vector<std::size_t> unknown_type_accessors;
  // Buffers without a uri (other than a GLB's buffers[0]): placeholders whose bytes read as zeros
  // (rewrite_for_tinygltf gives them kPlaceholderBufferUri, which AccessorReader recognizes).
  std::vector<std::size_t> placeholder_buffers;
  std::vector<ExternalFile> external_files;  // as resolve_external_uri found them (Asset::external_files)
  ResourceFiles resources;                   // their bytes, for tinygltf
};

// Checks what tinygltf trusts, on the raw JSON: container shapes, required properties, every
// index property (an integer naming an existing object), supported extensionsRequired, buffer
// sources (data URIs, external files, the GLB BIN chunk) and their byteLength, bufferView,
// accessor and sparse ranges with overflow-safe arithmetic, alignment and image sources.
PreflightResult preflight(const nlohmann::json& doc, const PreflightInput& input);

// --- normalize.cpp ---

// Rewrites integer-valued numbers written as floats ("byteLength": 12.0) into integers, for the
// properties the glTF 2.0 JSON schema types as integer only (indices, counts, offsets, enums);
// extension and extras values, which may be floats, are never touched. JSON makes 12 and 12.0 the
// same number, so this changes no meaning. Returns whether `doc` changed.
bool normalize_integers(nlohmann::json& doc);

// How rewrite_for_tinygltf changed the document, to be undone on tinygltf's Model.
struct TinygltfRewrite {
  bool changed = false;
  // {mesh, primitive, accessor}: `indices` accessors without a bufferView (all zeros, glTF 2.0
  // §3.6.2.1, maybe with sparse substitution). tinygltf refuses them, so they are removed from
  // the JSON and put back on the Model by restore_after_tinygltf.
  std::vector<std::array<std::size_t, 3>> zero_indices;
};
// Makes a preflighted document acceptable to tinygltf without changing what it means:
// EXT_meshopt_compression fallback buffers and unread placeholder buffers get a tiny data URI,
// accessors of unknown type (unused) become 1-element placeholders, and indices without a
// bufferView are detached (see TinygltfRewrite).
TinygltfRewrite rewrite_for_tinygltf(nlohmann::json& doc, const PreflightResult& checked);
// Puts back on `model` what rewrite_for_tinygltf detached.
void restore_after_tinygltf(tinygltf::Model& model, const TinygltfRewrite& rewrite);

// --- meshopt.cpp (EXT_meshopt_compression) ---

// Gives every fallback buffer without data (EXT_meshopt_compression.fallback) a tiny embedded
// payload so tinygltf accepts it; decode_meshopt later replaces every view into it. Returns
// whether `doc` changed.
bool give_fallback_buffers_data(nlohmann::json& doc);
// Replaces each compressed bufferView by a new buffer holding its decoded bytes (meshoptimizer's
// vertex/index codecs and filters). Throws Error("bufferViews[i].extensions.EXT_meshopt_compression…")
// for bad parameters, ranges or data.
void decode_meshopt(tinygltf::Model& model);

// --- draco.cpp (KHR_draco_mesh_compression) ---

// tinygltf refuses an indices accessor without a bufferView, which is how a Draco primitive's
// indices usually look, so each Draco primitive's `indices` moves into its extension object
// (under a private key; one the file brought is dropped) for decode_draco. Returns whether `doc`
// changed.
bool stash_draco_indices(nlohmann::json& doc);
// Decodes every primitive with KHR_draco_mesh_compression (Draco 1.5) into a new buffer, and
// points its Draco attributes and its indices at new accessors over it: attributes keep their
// accessor's type, componentType and normalized (the file's accessors are left alone), indices
// become UNSIGNED_INT, the mode TRIANGLES. Throws Error("meshes[m].primitives[p].extensions.
// KHR_draco_mesh_compression…", rule) for undecodable data (draco_decode), a missing or
// mismatched attribute (draco_attribute), point or index counts that differ from the accessors'
// (draco_count), indices past the points (draco_index), another mode (draco_mode) or decoded
// data over kMaxBufferBytes in total (draco_size).
void decode_draco(tinygltf::Model& model);

// --- images.cpp ---

// Decoding state shared with tinygltf's image callback: caps the pixels a document may decode
// and remembers why an image failed, so the error can name it.
struct ImageDecoding {
  std::uint64_t pixels_left = std::uint64_t{1} << 28;
  std::vector<Warning> warnings;
  std::string failed_path;  // set when a decode failed fatally
  Rule failed_rule = Rule::parse;
  std::string failed_message;
};
// Installs the loader: PNG and JPEG only, at most 16384 pixels a side and 2^26 pixels an image,
// always RGBA8 (16-bit images are reduced). Images in other formats are kept undecoded with a
// warning (extensions such as KHR_texture_basisu supply their own fallbacks).
void install_image_loader(tinygltf::TinyGLTF& loader, ImageDecoding& state);

// --- build passes ---

// Nodes: TRS or matrix, children → parent (single parent, acyclic), skins, MSFT_lod,
// KHR_node_visibility; scene roots; hierarchy order. `animated` flags nodes that channels target.
void build_nodes(const tinygltf::Model& model, const std::vector<bool>& animated, Asset& asset);
// Skins: joints valid and unique, inverse bind matrices (identity when absent), count >= joints,
// and every skinned primitive's joint indices < the joint count.
void build_skins(const tinygltf::Model& model, AccessorReader& accessors, Asset& asset);
// Meshes and primitives with every attribute decoded; indices range-checked.
void build_meshes(const tinygltf::Model& model, AccessorReader& accessors, Asset& asset);
// Materials, textures, samplers and decoded images (moved out of `model`).
void build_materials(tinygltf::Model& model, Asset& asset);
// Animations → clips: channels, keys finite and non-decreasing, output counts consistent.
// `kept_channels` maps tinygltf's channel indices back to the file's (PreflightResult).
void build_clips(const tinygltf::Model& model, AccessorReader& accessors,
                 const std::vector<std::vector<std::size_t>>& kept_channels, Asset& asset);
// Nodes targeted by any animation channel (for keeping matrices vs decomposing them).
std::vector<bool> animated_nodes(const tinygltf::Model& model);

}  // namespace gltf_crowd::detail
