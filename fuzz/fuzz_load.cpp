// Fuzz target (a): bytes → load_asset_from_memory, as GLB and as glTF JSON (docs/spec.md §2: bad input
// never crashes, hangs, reads out of bounds or allocates without bound; it raises Error).
//
// Each input is loaded as given (the loader picks GLB or JSON by the magic). Mutations that
// change the length of a GLB stop at the header's length check, so a GLB input is loaded again
// with its header length patched to the real size, which lets mutations reach the chunks and the
// JSON inside. A JSON input is also wrapped into a GLB with one JSON chunk, so the container path
// sees every mutated document too. Every document the loader accepts is then put in a crowd.
// Compressed data (EXT_meshopt_compression views, KHR_draco_mesh_compression primitives) is
// decoded by the loader itself, so seeds holding it (fuzz/seeds/fuzz_load) fuzz the decoders'
// handling of hostile bytes through this same entry point.
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "asset/glb.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"

namespace {

// What a loaded asset promises (asset.hpp) is what the animation and LOD code rely on without
// checking, so an accepted document is also animated: two actors on different clips, a LOD view,
// and a few frames, which must not throw once the crowd exists.
void animate(const gltf_crowd::Asset& loaded) {
  using namespace gltf_crowd;
  const auto asset = std::make_shared<const Asset>(loaded);
  std::optional<Crowd> made;
  try {
    made.emplace(asset, CrowdOptions{.capacity = 2, .lod = {.enabled = true, .auto_generate = true}});
  } catch (const Error&) {
    return;  // levels the crowd rejects (e.g. an authored level with another skin)
  }
  Crowd& crowd = *made;
  const std::string second = asset->clips.size() > 1 ? asset->clips[1].name : "";
  crowd.add_actor({.id = "a"});
  Actor b = crowd.add_actor({.id = "b", .clip = asset->find_clip(second) >= 0 ? second : "", .phase = 0.5f});
  const LodView view{.view = glm::lookAt(glm::vec3(0, 1, 4), glm::vec3(0), glm::vec3(0, 1, 0)),
                     .projection = glm::perspective(1.0f, 1.0f, 0.1f, 100.0f),
                     .width = 64,
                     .height = 64};
  crowd.update(0.1f, view);
  if (!asset->clips.empty()) b.select_clip(asset->clips[0].name, {.crossfade_seconds = 0.25f});
  crowd.update(0.2f);
  crowd.update(-7.5f);
  if (!asset->nodes.empty()) (void)b.node_world(static_cast<std::uint32_t>(asset->nodes.size() - 1));
}

void load(std::span<const std::uint8_t> bytes) {
  std::optional<gltf_crowd::Asset> asset;
  try {
    asset = gltf_crowd::load_asset_from_memory(bytes);
  } catch (const gltf_crowd::Error&) {
    return;  // rejected cleanly: the behaviour docs/spec.md asks for
  }
  animate(*asset);
}

void put_u32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v) { std::memcpy(out.data() + at, &v, 4); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  load(bytes);
  const bool glb = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
  if (glb && size >= 12) {
    std::uint32_t declared;
    std::memcpy(&declared, data + 8, 4);
    if (declared == size) return 0;
    std::vector<std::uint8_t> patched(bytes.begin(), bytes.end());
    put_u32(patched, 8, static_cast<std::uint32_t>(size));
    load(patched);
  } else if (!glb) {
    // A GLB container (glTF 2.0 §4.4) holding the input as its only chunk, padded with spaces.
    load(gltf_crowd::detail::write_glb(std::string_view(reinterpret_cast<const char*>(data), size)));
  }
  return 0;
}
