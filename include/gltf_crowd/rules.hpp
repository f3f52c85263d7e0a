// gltf_crowd::Rule: the one table of the stable rule identifiers that Error::rule() and
// Warning::rule carry (docs/spec.md §2.6, §2.8, §10). Each identifier is spelled once, here; the
// string is the enumerator's name, so Rule::node_cycle is "node_cycle".
#pragma once

#include <cstddef>
#include <string_view>

#include "gltf_crowd/export.hpp"

// X(identifier, one-line description) for every rule, grouped by the layer that raises it.
// Tests and docs/spec.md assert the identifiers: never rename one.
#define GLTF_CROWD_RULES(X)                                                                                \
  /* Document, JSON and glTF structure (asset) */                                                          \
  X(empty, "the input has no bytes")                                                                       \
  X(not_gltf, "the input is neither JSON text nor a GLB")                                                  \
  X(too_large, "a file, buffer or document exceeds the 2 GiB limit")                                       \
  X(document_too_large, "buffers and external images exceed the document's byte limit in total")           \
  X(json_depth, "JSON nested deeper than the loader's limit")                                              \
  X(json_syntax, "malformed JSON text")                                                                    \
  X(parse, "tinygltf rejected the document")                                                               \
  X(serialization_failed, "tinygltf could not write a GLB")                                                \
  X(asset_version, "asset.version or asset.minVersion is not glTF 2.x, or minVersion > version")           \
  X(asset_min_version, "warning: asset.minVersion above 2.0, loaded as 2.0")                               \
  X(missing_property, "a required JSON property is absent")                                                \
  X(not_object, "a JSON value must be an object")                                                          \
  X(not_array, "a JSON value must be an array")                                                            \
  X(empty_array, "a JSON array must not be empty")                                                         \
  X(not_string, "a JSON value must be a string")                                                           \
  X(not_number, "a JSON value must be a number")                                                           \
  X(not_integer, "a JSON value must be an integer")                                                        \
  X(not_boolean, "a JSON value must be true or false")                                                     \
  X(integer_range, "an integer is outside the range its property allows")                                  \
  X(not_finite, "a number, vector or matrix is NaN or infinite")                                           \
  X(negative, "a value that must be >= 0 is negative")                                                     \
  X(extension_not_used, "a required extension is missing from extensionsUsed")                             \
  X(unsupported_required_extension, "extensionsRequired names an extension the loader does not implement") \
  X(extension_ignored, "warning: an optional extension is not implemented and is ignored")                 \
  /* GLB container */                                                                                      \
  X(glb_truncated, "a GLB shorter than its 12-byte header")                                                \
  X(glb_version, "a GLB header version other than 2")                                                      \
  X(glb_length, "a GLB header length above the file size")                                                 \
  X(glb_chunk_truncated, "a GLB chunk header runs past the end")                                           \
  X(glb_chunk_length, "a GLB chunk runs past the end of the file")                                         \
  X(glb_chunk_alignment, "a GLB chunk length that is not a multiple of 4")                                 \
  X(glb_first_chunk, "the first GLB chunk is not JSON")                                                    \
  X(glb_second_chunk, "the second GLB chunk is not BIN")                                                   \
  X(glb_duplicate_chunk, "a GLB with more than one JSON or BIN chunk")                                     \
  X(glb_bin_missing, "a GLB-stored buffer without a BIN chunk")                                            \
  X(glb_bin_length, "a GLB-stored buffer longer than the BIN chunk")                                       \
  X(glb_trailing_bytes, "warning: bytes after the GLB's declared length or its last chunk")                \
  /* URIs and external files */                                                                            \
  X(uri_empty, "a URI that names no file")                                                                 \
  X(uri_scheme, "a URI scheme other than data: (http:, https:, ...)")                                      \
  X(uri_absolute, "an absolute path as URI")                                                               \
  X(uri_escape, "a bad percent escape in a URI")                                                           \
  X(external_uri, "an external file referenced by a document loaded from memory without base_dir")         \
  X(external_file_missing, "an external file that cannot be read")                                         \
  X(external_file_size, "an external file larger than the limit")                                          \
  X(uri_outside_root, "an external file outside the resource root (--allow-outside-resources)")            \
  X(data_uri, "a malformed data: URI")                                                                     \
  X(data_uri_base64, "a data: URI payload that is not base64")                                             \
  X(data_uri_media_type, "a buffer data: URI whose media type is not application/octet-stream")            \
  X(file_open, "a file that cannot be opened")                                                             \
  /* Buffers, buffer views and accessors */                                                                \
  X(buffer_index, "an index naming no buffer")                                                             \
  X(buffer_length, "a buffer byteLength below 1, or above the data it has")                                \
  X(buffer_without_data, "a buffer without uri (warning), or such a buffer holding an image (error)")      \
  X(bufferview_index, "an index naming no bufferView")                                                     \
  X(bufferview_length, "a bufferView byteLength below 1")                                                  \
  X(bufferview_stride, "a bufferView byteStride not a multiple of 4 in [4, 252]")                          \
  X(bufferview_out_of_bounds, "a bufferView past its buffer's end")                                        \
  X(accessor_index, "an index naming no accessor")                                                         \
  X(accessor_type, "an accessor of a type the use does not allow, or of unknown type that is used")        \
  X(accessor_type_unknown, "warning: an unused accessor of a type not in glTF 2.0 §3.6.2")                 \
  X(accessor_component_type, "an accessor componentType that is not allowed")                              \
  X(accessor_normalized, "normalized on a component type other than 8- or 16-bit integers")                \
  X(accessor_not_unsigned, "a use that needs an unsigned, not normalized integer accessor")                \
  X(accessor_count, "an accessor count outside [1, 2^28]")                                                 \
  X(accessor_alignment, "an accessor offset that is not a multiple of its component size")                 \
  X(accessor_stride, "a byteStride below the element size")                                                \
  X(accessor_out_of_bounds, "an accessor whose last element ends past its bufferView")                     \
  X(accessor_budget, "accessors that would decode more values than the document's data justifies")         \
  X(accessor_reads_no_data, "warning: a used accessor reads a buffer without data, read as zeros")         \
  X(sparse_count, "a sparse count outside [1, count]")                                                     \
  X(sparse_index, "sparse indices not strictly increasing and below count")                                \
  X(sparse_index_type, "sparse indices of a component type that is not unsigned")                          \
  X(sparse_offset, "a negative sparse byteOffset")                                                         \
  /* Meshes and primitives */                                                                              \
  X(mesh_index, "an index naming no mesh")                                                                 \
  X(mesh_empty, "a mesh without primitives")                                                               \
  X(primitive_mode, "an unknown primitive mode")                                                           \
  X(primitive_without_position, "warning: a primitive without POSITION draws nothing")                     \
  X(attribute_type, "a vertex attribute with the wrong number of components")                              \
  X(attribute_count, "a vertex attribute whose count differs from POSITION's")                             \
  X(attribute_ignored, "warning: a vertex attribute the renderers do not use is not decoded")              \
  X(indices_type, "indices that are not SCALAR")                                                           \
  X(index_out_of_range, "a vertex index >= the vertex count")                                              \
  X(skin_attributes, "JOINTS_n without WEIGHTS_n or the reverse")                                          \
  X(joint_index, "a vertex joint index beyond its skin's joints")                                          \
  X(morph_target_count, "primitives of one mesh with different numbers of morph targets")                  \
  X(morph_weight_count, "default morph weights whose count differs from the target count")                 \
  /* Nodes, scene and skins */                                                                             \
  X(node_index, "an index naming no node")                                                                 \
  X(node_cycle, "a node that is its own ancestor")                                                         \
  X(node_multiple_parents, "a node listed as the child of two nodes")                                      \
  X(duplicate_node_names, "warning: several nodes share a name")                                           \
  X(node_matrix_and_trs, "a node with both a matrix and TRS properties")                                   \
  X(matrix, "a node matrix that is not 16 finite numbers")                                                 \
  X(matrix_decompose, "an animated node's matrix that is not a TRS matrix")                                \
  X(translation, "a translation that is not 3 finite numbers")                                             \
  X(rotation, "a rotation that is not 4 finite numbers")                                                   \
  X(rotation_zero, "a zero-length rotation quaternion")                                                    \
  X(scale, "a scale that is not 3 finite numbers")                                                         \
  X(camera_index, "an index naming no camera")                                                             \
  X(scene_index, "an index naming no scene")                                                               \
  X(scene_root_has_parent, "a scene root that is another node's child")                                    \
  X(scene_root_duplicate, "a node listed twice among a scene's roots")                                     \
  X(skin_index, "an index naming no skin")                                                                 \
  X(skin_without_mesh, "a node with a skin but no mesh")                                                   \
  X(skin_no_joints, "a skin without joints")                                                               \
  X(skin_joint_duplicate, "a node listed twice among a skin's joints")                                     \
  X(ibm_type, "inverse bind matrices that are not a MAT4 accessor")                                        \
  X(ibm_count, "fewer inverse bind matrices than joints")                                                  \
  /* MSFT_lod in documents */                                                                              \
  X(lod_ids, "MSFT_lod.ids that is not a non-empty array")                                                 \
  X(lod_id_count, "more MSFT_lod levels than the loader's limit")                                          \
  X(lod_id_integer, "an MSFT_lod id that is not an integer")                                               \
  X(lod_id_range, "an MSFT_lod id naming no node")                                                         \
  X(lod_id_self, "a node listed as its own MSFT_lod level")                                                \
  X(lod_id_duplicate, "a node listed twice in MSFT_lod.ids")                                               \
  X(lod_coverage, "an MSFT_screencoverage hint that is not finite and >= 0")                               \
  /* Animations */                                                                                         \
  X(sampler_index, "an index naming no sampler")                                                           \
  X(channel_path, "an unknown animation channel path")                                                     \
  X(channel_duplicate_target, "two channels of one animation targeting the same node property")            \
  X(channel_skipped, "warning: a channel without a target node is skipped")                                \
  X(weights_without_targets, "a weights channel on a node without morph targets")                          \
  X(interpolation, "an unknown interpolation")                                                             \
  X(input_type, "keyframe times that are not SCALAR")                                                      \
  X(output_type, "keyframe values with the wrong number of components")                                    \
  X(output_count, "a keyframe value count that does not match the key count")                              \
  X(cubic_spline_keys, "a CUBICSPLINE sampler with fewer than 2 keys")                                     \
  X(key_time, "a key time that is not finite and >= 0")                                                    \
  X(key_time_order, "key times that decrease")                                                             \
  X(key_times_equal, "warning: a sampler whose keys all have one time")                                    \
  X(key_times_repeated, "warning: a sampler with keys at their previous key's time, sampled as a step")    \
  X(key_value, "a key value that is not finite")                                                           \
  X(marker_skipped, "warning: a malformed entry of an animation's extras.markers, skipped")                \
  /* Materials, textures and images */                                                                     \
  X(material_index, "an index naming no material")                                                         \
  X(material_factor, "a material factor of the wrong size, or not finite and >= 0")                        \
  X(alpha_mode, "an unknown alphaMode")                                                                    \
  X(texture_index, "an index naming no texture")                                                           \
  X(tex_coord, "a negative texCoord")                                                                      \
  X(tex_coord_ignored, "warning: a textureInfo with texCoord >= 2 is ignored")                             \
  X(texture_transform, "a malformed KHR_texture_transform")                                                \
  X(material_variants, "a malformed KHR_materials_variants extension")                                     \
  X(variant_index, "a KHR_materials_variants mapping naming no variant, or one variant twice")             \
  X(image_index, "an index naming no image")                                                               \
  X(image_source, "an image without exactly one of uri and bufferView")                                    \
  X(image_in_fallback_buffer, "an image stored in a meshopt fallback buffer")                              \
  X(image_decode, "an image that cannot be decoded as PNG or JPEG")                                        \
  X(image_format, "a decoded image that is not RGBA8")                                                     \
  X(image_size, "an image that is empty or larger than the per-image limit")                               \
  X(image_budget, "images that exceed the document's pixel budget in total")                               \
  X(image_not_decoded, "warning: an image only an extension uses, in a format that is not decoded")        \
  /* EXT_meshopt_compression and KHR_draco_mesh_compression */                                             \
  X(meshopt_mode, "a meshopt mode or byteStride that is not allowed")                                      \
  X(meshopt_filter, "a meshopt filter that is not allowed with its mode and stride")                       \
  X(meshopt_stride, "a meshopt byteStride that differs from the bufferView's")                             \
  X(meshopt_size, "meshopt sizes that do not match the element count and stride")                          \
  X(meshopt_out_of_bounds, "compressed meshopt data past its buffer's end")                                \
  X(meshopt_fallback_view, "an uncompressed bufferView in a meshopt fallback buffer")                      \
  X(meshopt_decode, "meshoptimizer could not decode the data")                                             \
  X(draco_attribute, "a Draco attribute that is missing or does not match its accessor")                   \
  X(draco_count, "decoded Draco counts that differ from the accessors'")                                   \
  X(draco_decode, "Draco could not decode the mesh")                                                       \
  X(draco_index, "a decoded Draco index beyond the decoded points")                                        \
  X(draco_mode, "a Draco primitive that is neither TRIANGLES nor TRIANGLE_STRIP")                          \
  X(draco_size, "decoded Draco primitives larger than the limit in total")                                 \
  /* Crowd */                                                                                              \
  X(null_asset, "a crowd made from a null asset")                                                          \
  X(capacity_range, "a capacity outside [1, the maximum]")                                                 \
  X(capacity_exceeded, "adding more actors than the capacity")                                             \
  X(id_length, "an actor id longer than the limit")                                                        \
  X(duplicate_id, "an actor id already used, in the crowd or in the batch")                                \
  X(unknown_clip, "a clip name or index the asset does not have")                                          \
  X(unknown_node, "a node name the asset does not have")                                                   \
  X(ambiguous_node, "a node name or path several nodes match, or a node given by name and index")          \
  X(loop_mode, "a value that is not a LoopMode")                                                           \
  X(marker_name, "an empty marker name")                                                                   \
  X(marker_time, "a marker time outside [0, the clip's duration]")                                         \
  X(stale_actor, "an actor handle whose actor was removed or moved from")                                  \
  X(foreign_actor, "an actor handle of another crowd, given to a batch control")                           \
  X(destroyed, "a call on a crowd (or its handles) after destroy()")                                       \
  X(foreign_group, "a primitive group of another crowd")                                                   \
  X(blend_weight, "a blend weight that is not finite and in [0, 1]")                                       \
  X(zero_rotation, "a rotation quaternion of length 0")                                                    \
  X(pose_size, "node and transform lists of different sizes")                                              \
  X(morph_count, "morph weights whose count differs from the node's morph targets")                        \
  X(layer_index, "an animation layer index outside [1, kMaxLayers]")                                       \
  X(mask_name, "an empty bone mask name, or one the crowd already has")                                    \
  X(unknown_mask, "a bone mask name the crowd does not have")                                              \
  X(unknown_variant, "a material variant name the asset does not have")                                    \
  X(layer_mode, "a value that is not a LayerMode")                                                         \
  X(reference_time, "an additive reference time outside [0, the clip's duration]")                         \
  X(update_rate, "update-rate options whose coverage and period lists differ in size")                     \
  X(update_rate_coverage, "an update-rate coverage that is not finite, > 0 and decreasing")                \
  X(update_rate_period, "an update-rate period outside [1, the maximum]")                                  \
  /* LOD (lod) */                                                                                          \
  X(lod_bias, "a LOD bias that is not finite and > 0")                                                     \
  X(lod_ratio, "a simplification ratio outside (0, 1) or not below the previous one")                      \
  X(lod_screen_coverage, "a screen coverage threshold that is not finite, > 0 and decreasing")             \
  X(lod_screen_coverage_count, "screen coverage thresholds whose count does not match the levels")         \
  X(lod_min_coverage, "a minimum coverage that is not finite and >= 0")                                    \
  X(lod_hysteresis, "a hysteresis outside [0, 1)")                                                         \
  X(lod_pixel_error, "a pixel error or viewport size for generated thresholds that is not finite and > 0") \
  X(lod_skin_mismatch, "an MSFT_lod level skinned differently from its source node")                       \
  X(singular_projection, "a projection matrix without an inverse")                                         \
  X(viewport_size, "a viewport width or height of 0")                                                      \
  X(lod_export_source, "exporting levels that were not generated")                                         \
  X(lod_export_compressed, "exporting levels of compressed (meshopt or Draco) data")                       \
  X(lod_export_buffer, "exporting levels of a document with a buffer without data")                        \
  X(lod_export_extras, "exporting onto a node whose extras is not an object")                              \
  X(lod_export_coverage, "exporting levels with a screen coverage hint of 0")                              \
  /* Trajectories (replay) */                                                                              \
  X(trajectory_empty, "a trajectory file without bytes, header or rows")                                   \
  X(trajectory_sqlite, "SQLite cannot read the trajectory database (not a database, corrupt)")             \
  X(trajectory_missing_table, "a JuPedSim database without a table its version has")                       \
  X(trajectory_missing_column, "a trajectory table or CSV header without a column the reader needs")       \
  X(trajectory_version, "a JuPedSim metadata version that is missing or not 1, 2 or 3")                    \
  X(trajectory_fps, "a frame rate that is missing (where needed), not a number or not > 0")                \
  X(trajectory_option, "a trajectory reader option out of its range")                                      \
  X(trajectory_syntax, "a CSV line whose fields do not match the header, or an unterminated quote")        \
  X(trajectory_value, "a trajectory cell of the wrong kind (text for a number, a fraction for an id)")     \
  X(trajectory_duplicate, "two rows for one (frame, agent id), one frame or one geometry hash")            \
  X(trajectory_order, "a frame or time below the previous one's (a CSV row, a damaged database)")          \
  X(trajectory_wkt, "a geometry WKT that is malformed or not made of polygons")                            \
  X(trajectory_geometry, "a frame_data row naming a geometry hash the geometry table lacks")               \
  X(trajectory_gap, "warning: a step between frames longer than the nominal one (counted)")                \
  X(trajectory_teleport, "warning: an agent moving faster than the teleport speed (counted)")              \
  /* Gait and foot slip (replay) */                                                                        \
  X(gait_feet, "feet that cannot be found or are repeated, or a skeleton without height at rest")          \
  X(gait_option, "a locomotion or gait option out of its range")                                           \
  X(gait_no_locomotion, "no clip moves over the ground, or the walk clip named does not")                  \
  X(gait_speeds, "a run clip that is not faster than the walk clip")                                       \
  X(foot_slip_input, "a foot trajectory whose planted flags do not match its positions, or a bad dt")      \
  /* OpenGL backend (gl) */                                                                                \
  X(egl_call_failed, "an EGL call failed")                                                                 \
  X(egl_extension_missing, "the EGL client lacks a needed extension")                                      \
  X(gl_version, "the GL context lacks the version or limits the renderers need")                           \
  X(gl_extension_missing, "the GL context lacks a needed extension")                                       \
  X(gl_call_failed, "a GL call failed or returned no object")                                              \
  X(shader_compile, "a shader did not compile")                                                            \
  X(program_link, "a shader program did not link")                                                         \
  X(framebuffer_incomplete, "a framebuffer that is not complete")                                          \
  X(framebuffer_format, "reading a framebuffer's color in a format it does not hold")                      \
  X(invalid_size, "a framebuffer or shadow map size outside the GL limit, or an empty box")                \
  X(png_write_failed, "a PNG file that could not be written")                                              \
  X(palette_too_large, "a node stream larger than the GPU's buffer or texture limits")                     \
  X(wrong_crowd, "drawing a crowd other than the renderer's")                                              \
  X(animation_mode, "a GPU read-back of a crowd that animates on the CPU")                                 \
  X(group_index, "an index naming no primitive group of the crowd")                                        \
  X(reference_deform, "skin data that does not match its skin, in the reference renderer")                 \
  /* The gltf-crowd command (tools) */                                                                     \
  X(write_failed, "an output file that could not be written")                                              \
  X(out_extension, "an output file name that does not end in the format written (.glb, .png, .json)")      \
  X(out_overwrites, "an output file that names the command's input or another of its outputs")             \
  X(no_clips, "a crossfade on an asset without clips")                                                     \
  X(too_many_actors, "more actors than the GPU's palette limits fit")                                      \
  X(nothing_to_draw, "render of an asset with no mesh on a visible node")                                  \
  X(unknown_actor, "a script naming an actor id that does not exist")                                      \
  X(script_open, "a pose script that cannot be opened")                                                    \
  X(script_syntax, "a malformed line in a pose script")                                                    \
  X(set_syntax, "a --set argument that is not key=value")                                                  \
  X(set_key, "a --set key that names no setting")                                                          \
  X(set_value, "a --set value that the setting does not accept")                                           \
  X(no_display, "GLFW could not initialise (no display)")                                                  \
  X(no_window, "GLFW could not create an OpenGL 4.3 core window")                                          \
  X(video_unavailable, "render --video in a build without FFmpeg")                                         \
  X(video_format, "a --video file whose container or encoder this FFmpeg build lacks")                     \
  X(video_encode, "an FFmpeg call that failed while encoding or writing the video")

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// A broken rule. Error(path, Rule, message) and Error::rule() use its identifier, rule_id().
enum class Rule : unsigned short {
#define GLTF_CROWD_RULE_ENUMERATOR(id, description) id,
  GLTF_CROWD_RULES(GLTF_CROWD_RULE_ENUMERATOR)
#undef GLTF_CROWD_RULE_ENUMERATOR
};

// Number of rules; Rule values are 0 .. rule_count - 1.
inline constexpr std::size_t rule_count = 0
#define GLTF_CROWD_RULE_COUNT(id, description) +1
    GLTF_CROWD_RULES(GLTF_CROWD_RULE_COUNT)
#undef GLTF_CROWD_RULE_COUNT
    ;

// The stable snake_case identifier of `rule` ("node_cycle" for Rule::node_cycle); "" for a
// value outside the enumeration.
constexpr std::string_view rule_id(Rule rule) noexcept {
  switch (rule) {
#define GLTF_CROWD_RULE_CASE(id, description) \
  case Rule::id: return #id;
    GLTF_CROWD_RULES(GLTF_CROWD_RULE_CASE)
#undef GLTF_CROWD_RULE_CASE
  }
  return {};
}

// The one-line description of `rule` from the table above; "" outside the enumeration.
constexpr std::string_view rule_description(Rule rule) noexcept {
  switch (rule) {
#define GLTF_CROWD_RULE_CASE(id, description) \
  case Rule::id: return description;
    GLTF_CROWD_RULES(GLTF_CROWD_RULE_CASE)
#undef GLTF_CROWD_RULE_CASE
  }
  return {};
}

}  // namespace gltf_crowd
GLTF_CROWD_API_END
