// Layer 4, crowd: actors of one asset, dense instance slots, primitive groups and the packed
// per-frame arrays a GPU backend draws from. GPU-free (SPEC §5).
//
// Frame:  crowd.update(Δ)  → advances playing actors, evaluates poses, packs every stream
//         backend.draw(crowd) → one instanced draw per non-empty primitive group
//
// Packed layout (what the GPU reads), for the `actor_count()` live slots only:
//  - per drawn node (NodeStream): transforms[slot] = 3 rows (vec4) of world(node), 48 bytes;
//    for a skinned node also palette[slot * joint_count + joint] = 3 rows of
//    inverse(world(node)) · world(joint) · IBM (SPEC §4), 48 bytes per joint;
//    for a node with morph targets also weights[slot * weight_stride + i].
//  - per primitive group: `instances` lists the slots it draws (one instanced draw).
// Row r of an affine matrix M is (M[0][r], M[1][r], M[2][r], M[3][r]) in glm's column-major terms,
// so a point p maps to (dot(row0, p), dot(row1, p), dot(row2, p)) with p.w = 1.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/playback.hpp"

namespace gltf_crowd {

class Crowd;
struct Scratch;

// Options of one new actor (SPEC §3). Defaults: auto id, first clip, phase 0, speed 1, repeat,
// unbounded repetitions, playing, identity placement.
struct ActorOptions {
  std::string id;                       // "" = automatic "actor-N"
  std::string clip;                     // clip name; "" = first clip (rest pose if none)
  std::optional<float> time;            // initial clip time in seconds; wins over phase
  float phase = 0.0f;                   // initial time = phase × duration
  float speed = 1.0f;                   // playback rate; negative plays backward
  LoopMode loop = LoopMode::repeat;
  std::uint32_t repetitions = 0;        // 0 = unbounded
  bool playing = true;
  glm::mat4 transform{1.0f};            // placement; must be finite
};

// Options of select_clip (SPEC §3 "Controls").
struct SelectClipOptions {
  float crossfade_seconds = 0.0f;       // 0 = hard switch
  std::optional<float> time;            // start time in seconds; wins over phase
  float phase = 0.0f;
};

// One clip contributing to an actor's pose, with its blend weight.
struct Contributor {
  std::uint32_t clip = 0;
  float seconds = 0.0f;                 // the clip's own local time
  float weight = 0.0f;                  // all contributors' weights sum to 1
};

// A light handle to one actor of a crowd. It stays valid until the actor is removed or the
// crowd destroyed; then every call throws Error (rule "stale_actor").
class Actor {
 public:
  const std::string& id() const;
  // Name of the active (incoming) clip; "" when the asset has no clips.
  const std::string& active_clip() const;
  float time() const;                   // active clip time, seconds
  float phase() const;                  // time / duration (0 for D = 0)
  float speed() const;
  LoopMode loop() const;
  std::uint32_t repetitions() const;
  bool playing() const;
  bool finished() const;
  std::vector<Contributor> contributors() const;
  std::span<const float> morph_weights() const;  // flat, Asset::weight_offsets layout
  const glm::mat4& transform() const;

  // Each control takes effect at once and re-evaluates the pose, even when paused.
  // Throws Error naming the argument for an unknown clip or a non-finite number; then nothing
  // changes.
  void select_clip(std::string_view name, const SelectClipOptions& options = {});
  void seek(float seconds);
  void set_phase(float phase);
  void set_speed(float speed);
  void set_loop(LoopMode mode, std::uint32_t repetitions = 0);
  void play();
  void pause();
  void set_transform(const glm::mat4& placement);

  // World matrix of any node (index or name) for attachments, including placement.
  glm::mat4 node_world(std::uint32_t node) const;
  glm::mat4 node_world(std::string_view node_name) const;

 private:
  friend class Crowd;
  Actor(Crowd* crowd, std::uint32_t key, std::uint32_t generation)
      : crowd_(crowd), key_(key), generation_(generation) {}
  std::uint32_t slot() const;
  Crowd* crowd_;
  std::uint32_t key_;
  std::uint32_t generation_;
};

// How a primitive group's vertices are deformed.
enum class PaletteKind : std::uint8_t { rigid, skinned };

// One instanced draw: (node, primitive, level). SPEC §5.
struct PrimitiveGroup {
  std::uint32_t node = 0;           // node whose mesh primitive is drawn
  std::uint32_t source_node = 0;    // node whose animation and placement drive it
  std::uint32_t mesh = 0;
  std::uint32_t primitive = 0;      // index within the mesh
  std::uint32_t level = 0;          // level of detail, 0 = highest
  std::uint32_t index_count = 0;
  std::uint32_t triangle_count = 0;
  std::uint32_t instance_count = 0; // == instances.size()
  std::uint32_t joint_count = 0;    // 0 for rigid groups
  PaletteKind palette_kind = PaletteKind::rigid;
  std::uint32_t stream = 0;         // index into Crowd::node_streams()
  std::vector<std::uint32_t> instances;  // slots drawn, in instance order
};

// Packed per-node arrays, sized for capacity, valid for [0, actor_count()) slots.
struct NodeStream {
  std::uint32_t node = 0;
  std::uint32_t joint_count = 0;      // 0 = rigid
  std::uint32_t weight_stride = 0;    // morph weights per actor padded to 4; 0 = none
  std::vector<glm::vec4> transforms;  // 3 rows per slot
  std::vector<glm::vec4> palette;     // 3 rows per joint per slot
  std::vector<float> weights;         // weight_stride per slot
};

// CPU cost and output of the last update (SPEC §5 introspection).
struct FrameStats {
  std::uint32_t actors_evaluated = 0;
  std::uint64_t packed_bytes = 0;     // bytes written into node streams this frame
  std::uint32_t draws = 0;            // non-empty primitive groups
  double sampling_ms = 0.0;
  double hierarchy_ms = 0.0;
  double palettes_ms = 0.0;
  double packing_ms = 0.0;
};

// Creation options. Defaults: capacity 16.
struct CrowdOptions {
  std::size_t capacity = 16;          // fixed; reserve() grows it
};

// The actors of one asset and their packed draw data.
class Crowd {
 public:
  // Throws Error for capacity 0 or above 1'000'000.
  explicit Crowd(std::shared_ptr<const Asset> asset, CrowdOptions options = {});
  ~Crowd();
  Crowd(const Crowd&) = delete;
  Crowd& operator=(const Crowd&) = delete;

  const Asset& asset() const noexcept { return *asset_; }
  std::size_t actor_count() const noexcept;
  std::size_t capacity() const noexcept;
  // Grows capacity to at least n keeping every actor and its state. Throws as the constructor.
  void reserve(std::size_t n);

  // Adds actors atomically: ids, clips, numbers and capacity are all validated first; on any
  // error (path "add_actors[i].<field>") nothing is added. Returns handles in option order.
  std::vector<Actor> add_actors(std::span<const ActorOptions> options);
  Actor add_actor(const ActorOptions& options = {});
  // Removes the actors with these ids (unknown and repeated ids ignored), compacts slots, and
  // returns how many were removed.
  std::size_t remove_actors(std::span<const std::string> ids);
  bool remove_actor(std::string_view id);
  std::optional<Actor> find_actor(std::string_view id) const;
  // Actors in slot order.
  std::vector<Actor> actors() const;

  // Advances playing actors by delta_seconds (finite, any sign) and repacks every stream.
  void update(float delta_seconds);

  std::span<const PrimitiveGroup> primitive_groups() const noexcept { return groups_; }
  std::span<const NodeStream> node_streams() const noexcept { return streams_; }
  const FrameStats& frame_stats() const noexcept { return stats_; }

  // Idempotent; afterwards actor operations throw Error (rule "destroyed") and groups are empty.
  void destroy() noexcept;
  bool destroyed() const noexcept { return destroyed_; }

  struct State;  // actor state, private to the implementation

 private:
  friend class Actor;
  void check_alive() const;
  std::uint32_t slot_of(std::uint32_t key, std::uint32_t generation) const;
  // Evaluates the pose of one slot and packs it into every stream.
  void evaluate(std::uint32_t slot, Scratch& scratch);
  void evaluate(std::uint32_t slot);
  void build_groups();
  void resize_streams();
  void refresh_instances();

  std::shared_ptr<const Asset> asset_;
  std::unique_ptr<State> state_;
  std::vector<PrimitiveGroup> groups_;
  std::vector<NodeStream> streams_;
  FrameStats stats_;
  bool destroyed_ = false;
};

}  // namespace gltf_crowd
