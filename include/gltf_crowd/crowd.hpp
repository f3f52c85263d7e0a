// Layer 4, crowd: actors of one asset, dense instance slots, primitive groups and the packed
// per-frame arrays a GPU backend draws from. GPU-free (docs/spec.md §5).
//
// Frame:  crowd.update(Δ, view) → advances playing actors, picks each actor's level of detail
//                                 (or culls it), evaluates poses, packs every stream
//         backend.draw(crowd)    → one instanced draw per non-empty primitive group
//
// Packed layout (what the GPU reads), for the `actor_count()` live slots only:
//  - per drawn node (NodeStream): transforms[slot] = 3 rows (vec4) of world(node), 48 bytes;
//    for a skinned node also palette[slot * joint_count + joint] = 3 rows of
//    inverse(world(node)) · world(joint) · IBM (docs/spec.md §4), 48 bytes per joint, held by the
//    stream `palette_stream` names (nodes with identical palettes share one);
//    for a node with morph targets also weights[slot * weight_stride + i].
//  - per primitive group: `instances` lists the slots it draws (one instanced draw). With LOD
//    there is one group per (source node, level, primitive); a level's groups read the source
//    node's stream and draw group_indices(group) into the level mesh's vertex buffers.
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
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/bounds.hpp"
#include "gltf_crowd/lod.hpp"
#include "gltf_crowd/playback.hpp"
#include "gltf_crowd/pose.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

class Crowd;
class ActorLayer;
// ActorLayer's way into its actor and crowd. Private to the implementation.
struct LayerAccess;
// Where a Crowd object lives now, shared by the crowd with its Actor handles and renderers:
// moves repoint it and the crowd's destructor clears it, so holders follow a moved crowd and
// detect a destroyed one instead of reading freed memory. Private to the implementation.
struct CrowdLink;

// Options of one new actor (docs/spec.md §3). Defaults: auto id, first clip, phase 0, speed 1, repeat,
// unbounded repetitions, playing, identity placement, white tint, no material variant.
struct ActorOptions {
  std::string id;             // "" = automatic "actor-N"
  std::string clip;           // clip name; "" = first clip (rest pose if none)
  std::optional<float> time;  // initial clip time in seconds; wins over phase
  float phase = 0.0f;         // initial time = phase × duration
  float speed = 1.0f;         // playback rate; negative plays backward
  LoopMode loop = LoopMode::repeat;
  std::uint32_t repetitions = 0;  // 0 = unbounded
  bool playing = true;
  glm::mat4 transform{1.0f};  // placement; must be finite
  // Appearance (docs/spec.md §3.12), as Actor::set_tint and set_material_variant would set it:
  // a linear RGBA base color multiplier, finite and >= 0 ("not_finite" / "negative"), and a
  // KHR_materials_variants name of the asset, "" = the default materials ("unknown_variant").
  glm::vec4 tint{1.0f};
  std::string material_variant;
};

// Options of select_clip (docs/spec.md §3 "Controls"). Defaults: hard switch, start at time 0.
struct SelectClipOptions {
  float crossfade_seconds = 0.0f;  // >= 0; 0 = hard switch; else fade length in scaled
                                   // seconds |Δ·speed|
  std::optional<float> time;       // start time in seconds; wins over phase
  float phase = 0.0f;              // start time = phase × the new clip's duration
};

// A node's local transform (glTF 2.0 §3.5.2: translation, rotation, scale; the node's matrix is
// T × R × S): what an application-driven pose sets (Actor::set_local_transform).
struct NodeTransform {
  glm::vec3 translation{0.0f};
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};  // any length but 0: normalized when set
  glm::vec3 scale{1.0f};
};

// One node of an actor's application-driven pose (Actor::set_local_transform), as a GPU
// backend reads it (Crowd::node_overrides).
struct NodeOverride {
  std::uint32_t node = 0;  // asset node
  NodeTransform local;     // rotation unit length
  float weight = 1.0f;     // in [0, 1]
};

// One node's morph weight override (Actor::set_morph_weights): `count` values from `values` in
// Crowd::morph_override_values, for the flat weights [offset, offset + count).
struct MorphOverride {
  std::uint32_t node = 0;    // asset node
  std::uint32_t offset = 0;  // Asset::weight_offsets[node]
  std::uint32_t count = 0;   // Asset::weight_counts[node]
  std::uint32_t values = 0;  // index of its first value
  float weight = 1.0f;       // in [0, 1]
};

// Root motion (docs/spec.md §3.10), opt-in per crowd: the motion of one root node that the
// clips animate is taken out of the pose and handed to the application (Actor::take_root_motion)
// or applied to the actor's placement, so a walk cycle moves the actor instead of sliding the
// mesh away from it and snapping back at every loop.
struct RootMotionOptions {
  std::string node;  // asset node name or path (docs/spec.md §2.3); "" = root motion off (the default)
  // Which components of the node's local transform are extracted: translation along x and z,
  // translation along y, and the rotation about +y (yaw), all in the node's parent space.
  bool translation_xz = true;
  bool translation_y = false;
  bool yaw = false;
  // true: update() multiplies each actor's placement by its motion every frame (placement ·
  // translate(Δ) · rotate_y(Δyaw)) and take_root_motion() returns zero.
  bool apply_to_placement = false;
};

// Root motion accumulated by update() since the last Actor::take_root_motion(), in actor space
// (the root node's parent space, before the placement): meters (asset units) and radians about +y.
struct RootMotion {
  glm::vec3 translation{0.0f};
  float yaw_radians = 0.0f;
};

// How an animation layer combines with the pose below it (docs/spec.md §3.11).
enum class LayerMode : std::uint8_t {
  override,  // blends towards the layer's pose: lerp for translation, scale and morph weights,
             // the crossfade's sign-aligned nlerp for rotation
  additive,  // adds the layer pose's difference from a reference pose (Unreal's and ozz's
             // additive animation): translation and morph weights add, rotations multiply
};

// "override", "additive".
std::string_view to_string(LayerMode mode) noexcept;

// Extra animation layers per actor, numbered 1..kMaxLayers (0 is the base layer: the actor's own
// clips and crossfades).
inline constexpr std::uint32_t kMaxLayers = 4;

// One part of a bone mask (Crowd::add_mask): the node and, with `descendants`, every node below
// it get `weight` in [0, 1]. Later branches overwrite earlier ones where they overlap, so, for
// three.js's RobotExpressive, {"Abdomen", 1}, {"Neck", 0.5} gives the upper body with a
// half-weight head.
struct MaskBranch {
  std::string node{};  // a node name or path (docs/spec.md §2.3), when `index` is unset
  float weight = 1.0f;
  bool descendants = true;
  std::optional<std::uint32_t> index{};  // the node by index instead ({.index = 10}); `node` empty then
};

// One clip contributing to an actor's pose, with its blend weight.
struct Contributor {
  std::uint32_t clip = 0;  // index into Asset::clips
  float seconds = 0.0f;    // the clip's own local time in [0, duration]
  float weight = 0.0f;     // in [0, 1]; all contributors' weights sum to 1
};

// A light handle to one actor of a crowd (docs/spec.md §3): copyable, it shares a small control block
// with the crowd (CrowdLink). It stays valid until the actor is removed or the crowd destroyed
// (destroy(), or the Crowd object's destruction); then every call throws Error (rule
// "stale_actor", or "destroyed"), never reads freed memory. When the crowd is moved, handles
// follow it to the object it was moved into. A handle that was itself moved from throws
// "stale_actor".
//
// Playback: the active clip's time follows an elapsed clock that Crowd::update(Δ) advances by
// Δ·speed (see clip_time for the loop rules). During a crossfade the outgoing clips keep
// advancing their own clocks while their weights fall; contributors()[0] is the active clip.
class Actor {
 public:
  // Unique within its crowd. The reference is valid until the next add_actors, remove_actors,
  // reserve() or destroy() of the crowd, or its destruction.
  const std::string& id() const;
  // Name of the active (incoming) clip; "" when the asset has no clips (or the clip is unnamed).
  // The reference is the asset's and lives as long as the asset.
  const std::string& active_clip() const;
  float time() const;   // active clip time, seconds in [0, duration]
  float phase() const;  // time / duration (0 for D = 0)
  float speed() const;
  LoopMode loop() const;
  std::uint32_t repetitions() const;  // 0 = unbounded
  // Not paused and not finished: update() advances it.
  bool playing() const;
  // The active clip ran past its last traversal and no crossfade is running; the actor holds its
  // final pose until a control moves it.
  bool finished() const;
  // The clips blended into the pose, active first; empty when the asset has no clips.
  std::vector<Contributor> contributors() const;
  // The actor's current morph weights, flat in Asset::weight_offsets layout: a copy of
  // local_pose().weights (the packed NodeStream weights may be older while update-rate LOD
  // defers the actor). Allocates; evaluates the actor's local pose.
  std::vector<float> morph_weights() const;
  // Placement (set_transform). The reference is valid until the next set_transform of this
  // actor, add_actors, remove_actors, reserve() or destroy() of the crowd, or its destruction.
  const glm::mat4& transform() const;

  // Each control takes effect at once: it changes the actor's state and marks its pose pending, which
  // the next update() evaluates in its parallel loop, or sooner the first read of packed rows or
  // records (node_streams(), slot_generations(), playback_records(), …), so every read sees it,
  // even for a paused actor (docs/spec.md §3 "Controls"). Crowd has batch forms over many actors.
  // Errors: Error with the argument's path ("seek.seconds") and rule ("not_finite", "negative",
  // "unknown_clip"); then nothing changes.

  // Hard switch (crossfade 0): `name` becomes the only contributor at the requested time;
  // nodes it does not animate return to rest. Selecting the active clip again restarts it.
  // Crossfade: the current contributors keep their weights and are scaled down together while
  // `name` rises from 0 to 1. Unknown names raise "unknown_clip" listing the available names.
  void select_clip(std::string_view name, const SelectClipOptions& options = {});
  // Sets the active clip's elapsed clock to `seconds` (the outgoing clips of a crossfade do not
  // move) and recomputes finished, which clears it for any time inside the clip.
  void seek(float seconds);
  // seek(phase × duration of the active clip); phase × duration must be finite.
  void set_phase(float phase);
  // Any finite speed; the sign selects the direction and so the `once` finish rule.
  void set_speed(float speed);
  // Loop mode and repetitions (0 = unbounded; ignored by once); finished is recomputed.
  void set_loop(LoopMode mode, std::uint32_t repetitions = 0);
  // Resumes; a finished actor restarts its active clip from the start (restart_elapsed).
  void play();
  // Stops update() from advancing the actor; its slots still draw.
  void pause();
  // Placement matrix (column-major, world from actor space); every entry must be finite.
  void set_transform(const glm::mat4& placement);
  // Visibility (docs/spec.md §5.10). A hidden actor keeps its slot, clocks (update still advances
  // them), crossfades and controls, and is in no PrimitiveGroup::instances, so it draws nothing;
  // update does not evaluate its pose while hidden. Showing it again marks it as a control does, so
  // its rows show its current clocks. Idempotent; actors start visible.
  void set_visible(bool visible);
  bool visible() const;

  // Appearance (docs/spec.md §3.12), per actor without splitting a draw per actor: neither control
  // re-evaluates the pose, and both take effect at the next draw. Errors: Error naming the actor
  // and the value; then nothing changes.
  //
  // Tint: a linear RGBA multiplier of the base color (glTF 2.0 §3.9.2: baseColorFactor × base
  // color texture × COLOR_0, then × tint). Alpha multiplies the base alpha, so it matters for
  // MASK (the cutoff test sees it) and BLEND materials; OPAQUE ones ignore alpha. Default
  // (1, 1, 1, 1): unchanged. Every component must be finite ("not_finite") and >= 0
  // ("negative"), path "set_tint.rgba"; components above 1 brighten.
  void set_tint(const glm::vec4& rgba);
  glm::vec4 tint() const;
  // Material variant (KHR_materials_variants; Asset::material_variants): every primitive the
  // variant maps draws with the mapped material, the others with their own. "" returns to the
  // asset's default materials, as clear_material_variant(). An unknown name raises
  // "unknown_variant" (path "set_material_variant.name") listing the asset's variants.
  void set_material_variant(std::string_view name);
  void clear_material_variant();
  // Name of the current variant; "" when none. The reference is the asset's and lives as long
  // as the asset.
  const std::string& material_variant() const;

  // Application-driven pose (docs/spec.md §3.8), for ragdolls, IK and procedural motion: the
  // node's local TRS is blended towards `local` by `weight` in [0, 1] (1 replaces it):
  // translation and scale linearly, rotation by the sign-aligned normalized lerp of a crossfade.
  // It applies after the clips and before the hierarchy, on every evaluation, until cleared; a
  // node no clip animates blends from its rest TRS. Setting a node again replaces its override.
  // Unlike the playback controls, the override controls leave the packed rows to the next
  // update() (even paused; deferred as any stale actor by update-rate LOD and while hidden), so
  // driving a skeleton every frame costs one evaluation per frame; local_pose() and node_world()
  // include overrides at once.
  // `node` is an asset node index, or a name or path (docs/spec.md §2.3). Errors (nothing
  // changes): "node_index" / "unknown_node" / "ambiguous_node" (path "set_local_transform.node"),
  // "not_finite", "zero_rotation", "blend_weight".
  void set_local_transform(std::uint32_t node, const NodeTransform& local, float weight = 1.0f);
  void set_local_transform(std::string_view node_name, const NodeTransform& local, float weight = 1.0f);
  // Removes the node's override, if any; "node_index" for a node the asset does not have.
  void clear_local_transform(std::uint32_t node);
  // The bulk form ("here is the whole skeleton"): set_local_transform(nodes[i], locals[i],
  // weight) for every i, validated together (path "set_local_pose.locals[i]..."; "pose_size"
  // when the spans differ in size), so on error nothing changes. Overrides of other nodes stay.
  // Reuses the actor's storage: calling it every frame allocates only when the list grows.
  void set_local_pose(std::span<const std::uint32_t> nodes, std::span<const NodeTransform> locals, float weight = 1.0f);
  // Removes every node override of the actor.
  void clear_local_pose();
  // Per-actor morph weights (docs/spec.md §3.8): the weights of `node`'s mesh (one per morph
  // target, Asset::weight_counts[node]) blended over the clips' by `weight` in [0, 1], until
  // cleared; drawn on the GPU as the clips' weights are. Errors (nothing changes): "node_index",
  // "morph_count" (a count other than the node's targets, which may be 0), "not_finite",
  // "blend_weight".
  void set_morph_weights(std::uint32_t node, std::span<const float> weights, float weight = 1.0f);
  // Removes the node's morph weight override, if any; "node_index" for a node the asset does
  // not have.
  void clear_morph_weights(std::uint32_t node);

  // Animation layer `index` in [1, kMaxLayers] (docs/spec.md §3.11): its own clip, clock and
  // crossfade, a weight, a mode and an optional bone mask, applied in index order over the base
  // layer (the actor's own clips). Errors: "layer_index" (path "layer.index") for 0 or above
  // kMaxLayers. The handle is as valid as this one.
  ActorLayer layer(std::uint32_t index) const;

  // Root motion (docs/spec.md §3.10): the motion update() extracted from the root node since the
  // last call, which this call resets to zero. Zero when the crowd has no root motion, or applies
  // it to the placement (RootMotionOptions::apply_to_placement). Controls (seek, select_clip)
  // move no root: only update() accumulates.
  RootMotion take_root_motion();

  // The actor's current local pose: every node's TRS and the morph weights, blended from its
  // contributors (docs/spec.md §3 "Pose") with its overrides applied. Allocates the returned Pose.
  Pose local_pose() const;
  // World matrix of any node (index, or name or path: docs/spec.md §2.3) for attachments, including
  // placement. A skinned mesh node's own transform does not move its vertices: attach to a joint.
  // Errors: "node_index" / "unknown_node" / "ambiguous_node" (path "node_world.node").
  glm::mat4 node_world(std::uint32_t node) const;
  glm::mat4 node_world(std::string_view node_name) const;

 private:
  friend class Crowd;
  friend struct LayerAccess;
  Actor(std::shared_ptr<CrowdLink> link, std::uint32_t key, std::uint32_t generation)
      : link_(std::move(link)), key_(key), generation_(generation) {}
  // The crowd, or Error "destroyed" (rule "stale_actor" for a moved-from handle).
  Crowd& crowd() const;
  std::uint32_t slot() const;
  std::shared_ptr<CrowdLink> link_;
  std::uint32_t key_;
  std::uint32_t generation_;
};

// A light handle to one animation layer of one actor (Actor::layer; docs/spec.md §3.11),
// valid as long as the actor's handle. A layer starts empty (no clip: it changes nothing), at
// weight 1, in override mode, without mask. Its playback controls are the actor's (§3.4) and,
// like them, take effect at once and mark the actor's pose pending; errors name the control's
// path ("select_clip.name", …) and change nothing.
class ActorLayer {
 public:
  std::uint32_t index() const noexcept { return index_; }
  // The actor the layer belongs to.
  const Actor& actor() const noexcept { return actor_; }

  // Playback, as Actor's: the layer's clip, its crossfades within the layer, clock, speed and
  // loop. Selecting with a crossfade on an empty layer is a hard switch.
  void select_clip(std::string_view name, const SelectClipOptions& options = {});
  void seek(float seconds);
  void set_phase(float phase);
  void set_speed(float speed);
  void set_loop(LoopMode mode, std::uint32_t repetitions = 0);
  void play();
  void pause();
  // Empties the layer: no clip, so it changes nothing; weight, mode and mask stay.
  void clear();

  // The layer's weight moves linearly from its current value to `weight` in [0, 1] over
  // `fade_seconds` >= 0 of update time |Δ| (not scaled by the layer's speed; 0 = at once). A
  // paused layer still fades. Errors: "blend_weight", "not_finite", "negative".
  void set_weight(float weight, float fade_seconds = 0.0f);
  // A mask added with Crowd::add_mask; "" removes the mask (every node at 1). Errors:
  // "unknown_mask" listing the crowd's masks.
  void set_mask(std::string_view name);
  void set_mode(LayerMode mode);
  // Additive layers subtract a reference pose: by default each clip's own first key (time 0);
  // this sets one reference for the layer instead: `clip` at `seconds` in [0, its duration]
  // (the rest pose where that clip animates nothing). clip "" returns to the default. Errors:
  // "unknown_clip", "not_finite", "reference_time" (seconds outside the clip).
  void set_additive_reference(std::string_view clip, float seconds = 0.0f);

  // Name of the active clip; "" when the layer is empty. The reference is the asset's.
  const std::string& active_clip() const;
  float time() const;  // active clip time, seconds; 0 when empty
  float speed() const;
  LoopMode loop() const;
  bool playing() const;   // has a clip, not paused, not finished
  bool finished() const;  // as Actor::finished
  // The layer's clips, active first; empty when the layer is empty.
  std::vector<Contributor> contributors() const;
  float weight() const;         // current
  float target_weight() const;  // where set_weight's fade ends
  LayerMode mode() const;
  const std::string& mask() const;  // "" = none; the reference lives as long as the crowd's state

 private:
  friend class Actor;
  friend struct LayerAccess;
  ActorLayer(Actor actor, std::uint32_t index) : actor_(std::move(actor)), index_(index) {}
  Actor actor_;
  std::uint32_t index_;
};

// A marker crossed by a playing contributor during the last update (docs/spec.md §3.9).
struct ClipEvent {
  // The actor's slot at that update: its index in Crowd::actors(), playback_records() and the
  // node streams. Valid until the next add_actors or remove_actors.
  std::uint32_t slot = 0;
  std::uint32_t clip = 0;    // index into Asset::clips
  std::uint32_t marker = 0;  // index into Crowd::markers(clip) as of the update
  std::uint32_t layer = 0;   // animation layer (Actor::layer); 0 = the base layer
  // The contributor's blend weight at the crossing, interpolated over the update (an incoming
  // clip of a crossfade starts near 0, an outgoing one ends near 0): lets a game skip faint ones.
  float weight = 0.0f;
  float seconds = 0.0f;  // the marker's clip time
  // How far into the update the crossing came, in [0, 1] (0 only for a repeat clock leaving a
  // wrap backward): the moment is (1 - fraction) × |Δ| seconds before the end of the update.
  float fraction = 0.0f;
  std::string_view actor;  // the actor's id (Crowd::find_actor gives its handle)
  std::string_view name;   // the marker's name
};

// How a primitive group's vertices are deformed.
enum class PaletteKind : std::uint8_t { rigid, skinned };

// One instanced draw: (node, primitive, level). docs/spec.md §5.
struct PrimitiveGroup {
  std::uint32_t node = 0;         // node whose mesh primitive is drawn
  std::uint32_t source_node = 0;  // node whose animation and placement drive it
  std::uint32_t mesh = 0;
  std::uint32_t primitive = 0;  // index within the mesh
  std::uint32_t level = 0;      // level of detail, 0 = highest
  std::uint32_t index_count = 0;
  std::uint32_t triangle_count = 0;
  std::uint32_t instance_count = 0;  // == instances.size()
  std::uint32_t joint_count = 0;     // 0 for rigid groups
  PaletteKind palette_kind = PaletteKind::rigid;
  std::uint32_t stream = 0;              // index into Crowd::node_streams()
  std::vector<std::uint32_t> instances;  // slots drawn, in instance order
};

// Packed per-node arrays, sized for capacity, valid for [0, actor_count()) slots.
struct NodeStream {
  std::uint32_t node = 0;
  std::uint32_t joint_count = 0;    // 0 = rigid
  std::uint32_t weight_stride = 0;  // morph weights per actor padded to 4; 0 = none
  // The stream whose `palette` this node skins with: its own index, or an earlier skinned
  // stream whose palette is always identical (same skin joints, inverse bind matrices and
  // static mesh world, e.g. RobotExpressive's two hands), which saves packing and uploading a
  // copy. A sharing stream's own `palette` is empty.
  std::uint32_t palette_stream = 0;
  std::vector<glm::vec4> transforms;  // 3 rows per slot
  std::vector<glm::vec4> palette;     // 3 rows per joint per slot
  std::vector<float> weights;         // weight_stride per slot
};

// CPU cost and output of the last update (docs/spec.md §5 introspection).
struct FrameStats {
  std::uint32_t actors_evaluated = 0;  // poses evaluated and packed by this update
  std::uint32_t actors_deferred = 0;   // advanced but left to a later frame (update-rate LOD)
  // Of actors_evaluated, those evaluated in a batch (of 4 to 8) whose actors all played one clip
  // alone, or one crossfade of the same two clips, with nothing on top: their clips were sampled
  // for the whole batch at once (docs/spec.md §5.8). The rest were sampled one by one.
  std::uint32_t actors_batched_by_clip = 0;
  std::uint64_t packed_bytes = 0;   // bytes written into node streams this frame (Animation::gpu: records,
                                    // tails and layer records of the slots written)
  std::uint32_t draws = 0;          // non-empty primitive groups
  std::uint32_t hidden_actors = 0;  // actors with Actor::visible() false (never evaluated)
  // Milliseconds per stage, summed over worker threads (time-stamp ticks while a worker ran a
  // chunk, so time it was switched out counts): the chunks' total split by stage in proportion
  // to a sample of every 64th slot, timed per stage. 0 unless Crowd::set_stage_timing is on.
  double sampling_ms = 0.0;
  double hierarchy_ms = 0.0;
  double palettes_ms = 0.0;
  double packing_ms = 0.0;
};

// Animation update-rate LOD (docs/spec.md §11; the idea of Unreal's Animation Budget Allocator
// and URO): actors that cover little of the screen are evaluated every periods[i]-th frame
// instead of every frame. Their clocks still advance every frame, so time(), crossfade weights
// and the finished rule are exactly those of an every-frame crowd; only the packed pose is
// older, by fewer than periods[i] frames. Schedules are staggered by actor (frame + actor key)
// so each frame evaluates about the same share, and an actor that was culled or is stale for a
// whole period is evaluated at once. Needs active mesh LOD (levels, enabled, a view): the
// coverage is the LOD classification's (lod_coverage); culled actors are not evaluated at all.
// Otherwise every playing actor is evaluated every frame.
struct UpdateRateOptions {
  bool enabled = false;
  // Descending thresholds of screen coverage (fraction of the viewport height, > 0): an actor
  // whose coverage is below coverage[i] and not below coverage[i + 1] is evaluated every
  // periods[i] frames (1 to 64); at or above coverage[0], every frame.
  std::vector<float> coverage{0.10f, 0.04f};
  std::vector<std::uint32_t> periods{2, 4};
};

// Where actors' poses are evaluated (docs/architecture.md "GPU animation").
enum class Animation : std::uint8_t {
  cpu,  // update() evaluates every due pose and packs the node streams (the default)
  gpu,  // update() advances every clock exactly as with cpu, then only writes each changed
        // actor's PlaybackRecord; a GPU backend (CrowdRenderer) samples, blends and packs. The
        // node streams' arrays stay empty, and update-rate LOD is not applied (every advanced
        // actor gets a new record).
};

// Contributors held by a PlaybackRecord; an actor's 7th and 8th (a crossfade interrupted six
// times) are in its PlaybackRecordTail.
inline constexpr std::size_t kRecordContributors = 6;

// One actor's playback as the GPU evaluator reads it (Animation::gpu): 64 bytes, 16 std430
// words. Contributor i is clip clips[i / 2] >> (16 × (i % 2)) & 0xFFFF (an index into
// Asset::clips), sampled at seconds[i] (the clip's local time, loop rules applied) with blend
// weight weights[i], in Crowd::contributors order (the active clip first). Entries past
// `count` are zero. The blend rules are the CPU path's (docs/spec.md §3 "Pose"): contributor 0
// is always blended, later ones only with a weight above 0.
struct PlaybackRecord {
  std::uint32_t count = 0;  // contributors, 0 (the rest pose) to 8
  std::uint32_t clips[3] = {};
  float seconds[kRecordContributors] = {};
  float weights[kRecordContributors] = {};
};
static_assert(sizeof(PlaybackRecord) == 64);

// Contributors 6 and 7 of an actor whose record has count > 6 (32 bytes, 8 std430 words):
// clips packed as in PlaybackRecord, then their seconds and weights; zero otherwise.
struct PlaybackRecordTail {
  std::uint32_t clips = 0;
  std::uint32_t unused = 0;
  float seconds[2] = {};
  float weights[2] = {};
  float padding[2] = {};
};
static_assert(sizeof(PlaybackRecordTail) == 32);

// One animation layer of one actor as a GPU evaluator reads it (Animation::gpu; docs/spec.md
// §3.11): 128 bytes, 32 std430 words. Contributor i (active first) is clip clips[i / 2] >> (16 ×
// (i % 2)) & 0xFFFF (an index into Asset::clips) at seconds[i] with blend weight weights[i], as in
// PlaybackRecord; count 0 (an empty layer, or one at weight 0) changes nothing. The layer's
// contributors are combined with the pose below at `weight` × the mask's weight of each node.
struct LayerRecord {
  std::uint32_t count = 0;  // 0 to 8
  std::uint32_t clips[4] = {};
  float seconds[8] = {};
  float weights[8] = {};
  float weight = 0.0f;               // the layer's, in [0, 1]
  std::uint32_t mode = 0;            // static_cast of LayerMode: 0 override, 1 additive
  std::uint32_t mask = 0xFFFFFFFFu;  // index of Crowd::mask_weights_at, 0xFFFFFFFF = none (1 everywhere)
  // Additive: index into Crowd::additive_references(); 0xFFFFFFFF = each contributor's own clip
  // at time 0, additive_references()[first_key_references()[clip]].
  std::uint32_t reference = 0xFFFFFFFFu;
  std::uint32_t padding[7] = {};
};
static_assert(sizeof(LayerRecord) == 128);

// A reference pose of additive layers (ActorLayer::set_additive_reference; docs/spec.md §3.11):
// clip `clip` sampled at `seconds` over the rest pose, per asset node, rotations stored inverted
// (R.r⁻¹, what the difference multiplies by), morph weights in Asset::weight_offsets layout.
struct AdditiveReference {
  std::uint32_t clip = 0;
  float seconds = 0.0f;
  std::vector<glm::vec3> translations, scales;
  std::vector<glm::quat> inverse_rotations;
  std::vector<float> weights;
};

// Creation options. Defaults: capacity 16, LOD off and no levels prepared (LodOptions),
// update-rate LOD off, poses evaluated on the CPU.
struct CrowdOptions {
  std::size_t capacity = 16;  // fixed; reserve() grows it
  LodOptions lod{};           // docs/spec.md §7; levels are prepared when enabled or auto_generate
  UpdateRateOptions update_rate{};
  Animation animation = Animation::cpu;
  RootMotionOptions root_motion{};  // off by default; as Crowd::set_root_motion
  bool time_stages = false;         // as Crowd::set_stage_timing
};

// The actors of one asset and their packed draw data.
//
// Lifetimes: spans and references returned by a crowd point into arrays it owns; each accessor
// names the calls that invalidate them. A move hands those arrays to the new crowd unchanged,
// so they stay valid and follow it, as Actor handles and renderers do.
class Crowd {
 public:
  // Throws Error for capacity 0 or above 1'000'000, for invalid LOD options
  // (validate_lod_options), for levels build_lod_model rejects, and for root motion options
  // set_root_motion rejects.
  explicit Crowd(std::shared_ptr<const Asset> asset, CrowdOptions options = {});
  // Existing Actor handles throw Error "destroyed" afterwards.
  ~Crowd();
  Crowd(const Crowd&) = delete;
  Crowd& operator=(const Crowd&) = delete;
  // Moves everything (actors and their state, streams, groups, LOD, statistics) without
  // copying; existing Actor handles and renderers follow to the new object. The moved-from
  // crowd keeps its asset and behaves as destroyed (destroyed() is true, actor operations
  // throw Error "destroyed"); it can be assigned to. Move assignment first drops this crowd's
  // own actors: their handles throw "destroyed" (its renderers no longer accept it).
  Crowd(Crowd&& other) noexcept;
  Crowd& operator=(Crowd&& other) noexcept;

  // Shared by the crowd, its Actor handles and renderers; follows moves: this crowd and any crowd
  // it is later moved into return the same link; null for a moved-from crowd. A backend keeps it
  // to recognise its crowd after a move.
  std::shared_ptr<const CrowdLink> link() const noexcept { return link_; }

  // Shared with the crowd: valid as long as this object, also once moved from or destroyed.
  const Asset& asset() const noexcept { return *asset_; }
  std::size_t actor_count() const noexcept;
  std::size_t capacity() const noexcept;
  // Grows capacity to at least n keeping every actor and its state. Throws as the constructor.
  void reserve(std::size_t n);

  // Adds actors atomically: ids, clips, numbers and capacity are all validated first; on any
  // error (path "add_actors[i].<field>") nothing is added. Returns handles in option order.
  // `options` is read during the call only.
  std::vector<Actor> add_actors(std::span<const ActorOptions> options);
  Actor add_actor(const ActorOptions& options = {});
  // Removes the actors with these ids (unknown and repeated ids ignored), compacts slots, and
  // returns how many were removed. `ids` is read during the call only.
  std::size_t remove_actors(std::span<const std::string> ids);
  bool remove_actor(std::string_view id);
  std::optional<Actor> find_actor(std::string_view id) const;
  // Actors in slot order.
  std::vector<Actor> actors() const;

  // Batch controls (docs/spec.md §3.4): the Actor control of the same name applied to each of
  // `actors` in order, as one call. Every handle and value is validated before any actor changes,
  // so on error nothing does: a handle raises Error with path "<control>.actors[i]" (rule
  // "stale_actor" for a removed or moved-from actor, "foreign_actor" for one of another crowd), a
  // value the Actor control's error ("set_speed.speed", "select_clip.name", …). Like the Actor
  // controls they mark poses for the next update() instead of evaluating them, so
  // set_speed(crowd.actors(), s) then update() costs about what update() does. A repeated actor
  // takes the control twice; `actors` is read during the call only.
  void select_clip(std::span<const Actor> actors, std::string_view name, const SelectClipOptions& options = {});
  void seek(std::span<const Actor> actors, float seconds);
  void set_speed(std::span<const Actor> actors, float speed);
  void play(std::span<const Actor> actors);
  void pause(std::span<const Actor> actors);
  // Actor::set_tint for each (path "set_tint.rgba" for a bad color).
  void set_tint(std::span<const Actor> actors, const glm::vec4& rgba);
  // Actor::set_visible for each, with the instance lists refreshed once, not once per actor.
  void set_visible(std::span<const Actor> actors, bool visible);

  // Advances playing actors by delta_seconds (finite, any sign), classifies LOD and repacks
  // every stream.
  void update(float delta_seconds);
  // The same after set_lod_view(view), validated together: on error nothing changes.
  void update(float delta_seconds, const LodView& view);

  // Markers and events (docs/spec.md §3.9). A crowd starts with its asset's markers
  // (Clip::markers, from the animations' extras) and can add more.
  //
  // Adds a marker `name` at `seconds` of clip `clip`. Errors (then nothing changes): Error with
  // path "add_marker.clip" (rule "unknown_clip"), "add_marker.name" ("marker_name": empty) or
  // "add_marker.seconds" ("not_finite", "marker_time": outside [0, duration]). Clears events().
  void add_marker(std::string_view clip, std::string_view name, float seconds);
  // Clip `clip`'s markers (an index into Asset::clips; empty for an unknown index), sorted by
  // time, markers of equal time in the order they were added. Valid until the next add_marker,
  // destroy() or the crowd's destruction.
  std::span<const ClipMarker> markers(std::uint32_t clip) const noexcept;
  // The markers that playing contributors crossed during the last update, by slot, then in the
  // order they were crossed within the update (docs/spec.md §3.9). Controls never add events.
  // Cleared at the start of each update and by add_actors, remove_actors, add_marker; valid (with
  // the strings it points into) until one of those, reserve(), destroy() or the destruction.
  std::span<const ClipEvent> events() const noexcept;

  // Bone masks (docs/spec.md §3.11), shared by every actor's layers: a per-node weight set built
  // from `branches` in order (nodes no branch covers weigh 0). Errors (nothing changes): path
  // "add_mask.name" (rule "mask_name": empty or already a mask of this crowd), and
  // "add_mask.branches[i].node" ("unknown_node", "ambiguous_node": §2.3), ".index" ("node_index";
  // "ambiguous_node" when `node` is set too) and ".weight" ("blend_weight").
  void add_mask(std::string_view name, std::span<const MaskBranch> branches);
  // The mask's weight per asset node (Asset::nodes order); empty for an unknown name. Valid
  // until the next add_mask, destroy() or the crowd's destruction.
  std::span<const float> mask_weights(std::string_view name) const noexcept;

  // LOD controls (docs/spec.md §7). Each reclassifies every actor at once; none recreates actors,
  // streams or existing groups. Until a view is set, or while LOD is disabled, every actor draws
  // at level 0 and nothing is culled or budgeted. Enabling a crowd created without levels
  // prepares them then (adding level groups; streams and actors are kept).
  void set_lod_enabled(bool enabled);
  // Coverage multiplier; > 1 keeps detail longer. Throws Error (rule "lod_bias") unless finite
  // and > 0.
  void set_lod_bias(float bias);
  // Maximum submitted index references per frame; 0 = unlimited.
  void set_lod_vertex_budget(std::uint64_t vertices);
  // Throws Error as validate_lod_view (path "set_lod_view.view...").
  void set_lod_view(const LodView& view);
  // Replaces the update-rate LOD policy; actors deferred so far follow the new schedule, or,
  // when it is disabled, are evaluated at once if drawn (else by the next update). Throws Error (path
  // "update_rate.coverage[i]" / ".periods[i]", rules "update_rate_coverage" / "update_rate_period"; "update_rate" when
  // the sizes differ) for thresholds that are not finite, > 0 and descending, or periods outside [1, 64]; nothing
  // changes then.
  void set_update_rate(const UpdateRateOptions& options);
  const UpdateRateOptions& update_rate() const noexcept;
  // Whether update measures FrameStats' stage milliseconds (off by default: reading the
  // clocks costs an update about 0.1 µs plus a counter read per chunk of actors, which a
  // small crowd feels). Off, the stage fields are 0. Takes effect from the next update. Throws
  // Error "destroyed" on a destroyed crowd.
  void set_stage_timing(bool on);
  bool stage_timing() const noexcept;
  // What the last classification submitted.
  const LodStats& lod_stats() const noexcept;
  // The prepared levels; null when the crowd has none (LOD never configured). Valid until
  // destroy() or the crowd's destruction.
  const LodModel* lod_model() const noexcept;
  // World-space box around every visible actor's animated bounding sphere, the one frustum
  // culling tests (docs/spec.md §5.8, §7.6): its contributors' per-clip spheres, placed. For
  // framing cameras and shadow maps (ShadowMap::fit); hidden actors are left out, LOD-culled
  // ones kept (they may cast shadows into view). Empty without visible actors. Without
  // prepared levels, the first call computes the spheres of level 0 (the asset's clips sampled
  // as for LOD, §7.2), later calls reuse them. Throws Error "destroyed" on a destroyed crowd.
  Bounds world_bounds() const;
  // The index array `group` draws, into its mesh primitive's vertex buffers: the asset's own
  // indices, or a generated level's. `group` must be an element of primitive_groups() (else
  // Error, rule "foreign_group"). The span is valid until destroy() or the destruction of the
  // crowd (or of the crowd it was moved into); the prepared levels never change.
  std::span<const std::uint32_t> group_indices(const PrimitiveGroup& group) const;

  // The span is valid until set_lod_enabled(true) first prepares levels for a crowd created
  // without them (the groups are rebuilt), destroy(), or the crowd's destruction; empty when
  // destroyed. Each group's `instances` change with every update, add/remove and LOD
  // control, and reserve() reallocates them.
  std::span<const PrimitiveGroup> primitive_groups() const noexcept;
  // The span is valid until set_lod_enabled(true) first prepares levels (a level's source node
  // may add a stream), destroy(), or the crowd's destruction; empty when destroyed. The arrays
  // inside each stream are reallocated by reserve(); their rows change with every update,
  // control and add/remove. The rows of actors that controls marked since the last update are
  // written by this call (as by slot_generations(), packed_generation(), playback_records(),
  // playback_record_tails(), layer_records() and placement_generations(): docs/spec.md §3.4),
  // all of them at once: call one of them again after a control, not an older span.
  std::span<const NodeStream> node_streams() const noexcept;
  // Change tracking for uploads: every change of packed rows (an update, a control, a slot
  // moved by removal) raises packed_generation(), and slot_generations()[slot] is the
  // generation at which that slot's rows in every stream were last written. A backend that
  // uploaded everything at generation g need only re-upload slots whose value exceeds g.
  // slot_generations() is sized actor_count() at the call; the span is valid until the next
  // add_actors, remove_actors, reserve(), destroy() or the crowd's destruction.
  // With Animation::gpu the same counters track the playback records instead of packed rows.
  std::uint64_t packed_generation() const noexcept;
  std::span<const std::uint64_t> slot_generations() const noexcept;
  const FrameStats& frame_stats() const noexcept;

  // Root motion (docs/spec.md §3.10), on both evaluators (Animation::gpu's sample pass removes it
  // from the pose as the CPU does). Replaces the crowd's options: every actor's accumulated
  // motion is reset to zero and every pose marked pending, as a control does. Errors (nothing
  // changes): Error with path "root_motion.node" and rule "unknown_node" or "ambiguous_node" (§2.3).
  void set_root_motion(const RootMotionOptions& options);
  // The options in force; node "" when off. Valid until the next set_root_motion, destroy() or
  // the crowd's destruction.
  const RootMotionOptions& root_motion() const;
  // The asset node root_motion().node resolved to (a GPU backend's root); -1 when root motion is off.
  std::int32_t root_motion_node() const;

  // Where poses are evaluated. Switching to cpu evaluates and packs every actor at once;
  // switching to gpu writes every record and frees the streams' arrays. Both raise
  // packed_generation(); the node_streams() span stays valid, the arrays inside it do not.
  Animation animation() const noexcept;
  void set_animation(Animation animation);
  // Animation::gpu: one record (and tail) per slot, sized actor_count(); empty with cpu. A
  // record changes whenever its slot's generation (slot_generations) rises. Valid until the
  // next add_actors, remove_actors, reserve(), set_animation, destroy() or the destruction.
  std::span<const PlaybackRecord> playback_records() const noexcept;
  std::span<const PlaybackRecordTail> playback_record_tails() const noexcept;
  // Animation layers (docs/spec.md §3.11) for a backend that evaluates them itself
  // (Animation::gpu): kMaxLayers records per slot (layer i of slot s at s × kMaxLayers + i − 1),
  // rewritten with the slot's PlaybackRecord, so they change when its slot generation rises.
  // Empty while no actor has used a layer, and with cpu. Valid as playback_records().
  std::span<const LayerRecord> layer_records() const noexcept;
  // The tables layer records index: masks by index (mask_count() of them, in the order added)
  // and additive reference poses, with each clip's time-0 reference (empty until an additive
  // layer first needs them). layer_tables_generation() rises whenever one of them grows. Valid
  // until the next add_mask or layer control, destroy() or the crowd's destruction.
  std::size_t mask_count() const noexcept;
  std::span<const float> mask_weights_at(std::size_t index) const noexcept;
  std::span<const AdditiveReference> additive_references() const noexcept;
  std::span<const std::uint32_t> first_key_references() const noexcept;
  std::uint64_t layer_tables_generation() const noexcept;
  // Application-driven poses (docs/spec.md §3.8) for a backend that evaluates them itself
  // (Animation::gpu): the node and morph weight overrides of `slot` (< actor_count()), and the
  // morph values MorphOverride::values indexes. overrides_generation() rises whenever any
  // actor's overrides change or slots holding some move (removal). A slot outside
  // [0, actor_count()) has none. The spans are valid until the next override control of that
  // actor, add_actors, remove_actors, reserve(), destroy() or the crowd's destruction.
  std::span<const NodeOverride> node_overrides(std::size_t slot) const noexcept;
  std::span<const MorphOverride> morph_overrides(std::size_t slot) const noexcept;
  std::span<const float> morph_override_values(std::size_t slot) const noexcept;
  std::uint64_t overrides_generation() const noexcept;
  // Every actor's placement (Actor::transform) in slot order, and the generation at which each
  // slot's placement was last written (set_transform, add, a slot moved by removal), so a
  // backend re-uploads only changed placements. Valid as playback_records().
  std::span<const glm::mat4> placements() const noexcept;
  std::span<const std::uint64_t> placement_generations() const noexcept;
  // Appearance (Actor::set_tint, set_material_variant; docs/spec.md §3.12), packed for any
  // backend, GPU-free, sized actor_count(), in slot order, and moved with their actors when
  // removal compacts the slots:
  //  - tints(): one linear RGBA multiplier (glm::vec4, 16 bytes) per slot, default (1, 1, 1, 1);
  //    uploaded as is, it is a std430 vec4 array or an RGBA32F texel row per slot.
  //  - material_variants(): one uint32 per slot, an index into Asset::material_variants or
  //    kNoVariant (the default materials); Primitive::material_for gives a primitive's material.
  //  - appearance_generations()[slot]: the value of appearance_generation() when that slot's
  //    tint or variant was last written (set, add, moved by removal). appearance_generation()
  //    rises with every such write, and only with them (not with update()), so a backend that
  //    uploaded at generation g re-uploads only slots whose value exceeds g, and nothing in a
  //    frame where appearance_generation() is still g.
  // Valid as playback_records().
  std::span<const glm::vec4> tints() const noexcept;
  std::span<const std::uint32_t> material_variants() const noexcept;
  std::span<const std::uint64_t> appearance_generations() const noexcept;
  std::uint64_t appearance_generation() const noexcept;
  // Frames and identities, for a backend that keeps the previous frame (motion vectors,
  // docs/spec.md §6.4):
  //  - frame(): how many update() calls succeeded so far; a frame is what lies between two.
  //  - actor_serials(): per slot, sized actor_count(), the actor's serial: 1, 2, 3, ... in order
  //    of addition, never reused by this crowd, moved with its actor when removal compacts the
  //    slots. Valid as playback_records().
  //  - membership_generation(): rises with every add_actors and remove_actors that added or
  //    removed an actor, the only calls that move actors between slots; while it stays, slot s
  //    holds the same actor.
  std::uint64_t frame() const noexcept;
  std::span<const std::uint64_t> actor_serials() const noexcept;
  std::uint64_t membership_generation() const noexcept;

  // Idempotent; afterwards actor operations throw Error (rule "destroyed") and groups are empty.
  // Frees the actors and packed arrays: every span from this crowd becomes invalid.
  void destroy() noexcept;
  bool destroyed() const noexcept { return state_ == nullptr; }

  // Everything but the asset and the link: actors, groups, streams, LOD, statistics (private
  // to the implementation, src/crowd/state.hpp); null once destroyed or moved from.
  struct State;

 private:
  friend class Actor;
  friend struct LayerAccess;
  // The state, or Error "destroyed".
  State& live() const;
  // The slots of `actors` (State::batch_slots, valid until the next call), each a live handle of
  // this crowd; else Error with path "<control>.actors[i]" ("stale_actor", "foreign_actor").
  std::span<const std::uint32_t> slots_of(std::span<const Actor> actors, std::string_view control) const;

  std::shared_ptr<const Asset> asset_;
  std::unique_ptr<State> state_;
  std::shared_ptr<CrowdLink> link_;  // points at this object; null once moved from
};

}  // namespace gltf_crowd
GLTF_CROWD_API_END
