// The module's crowd part (docs/spec.md §16): Crowd, its Actor handles and their options, poses
// and statistics, with the C++ names. update() runs without the GIL.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "gltf_crowd/crowd.hpp"

namespace gltf_crowd::python {
namespace {

// Rows of `values` (n × components floats each, from `get`) as an n × components float32 array.
template <typename T, typename Get>
py::array_t<float> rows(const std::vector<T>& values, py::ssize_t components, Get get) {
  py::array_t<float> out({static_cast<py::ssize_t>(values.size()), components});
  auto view = out.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < view.shape(0); ++i) {
    const glm::vec4 v = get(values[static_cast<std::size_t>(i)]);
    for (py::ssize_t c = 0; c < components; ++c) view(i, c) = v[static_cast<glm::length_t>(c)];
  }
  return out;
}

py::array_t<float> floats(const std::vector<float>& values) {
  py::array_t<float> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

ActorOptions make_actor_options(std::string id, std::string clip, std::optional<float> time, float phase, float speed,
                                LoopMode loop, std::uint32_t repetitions, bool playing,
                                const std::optional<FloatArray>& transform, const std::optional<FloatArray>& tint,
                                std::string material_variant) {
  ActorOptions o;
  o.id = std::move(id);
  o.clip = std::move(clip);
  o.time = time;
  o.phase = phase;
  o.speed = speed;
  o.loop = loop;
  o.repetitions = repetitions;
  o.playing = playing;
  if (transform) o.transform = to_mat4(*transform, "ActorOptions.transform");
  if (tint) o.tint = to_vec4(*tint, "ActorOptions.tint");
  o.material_variant = std::move(material_variant);
  return o;
}

NodeTransform node_transform(const FloatArray& translation, const FloatArray& rotation, const FloatArray& scale) {
  const glm::vec4 r = to_vec4(rotation, "set_local_transform.rotation");
  return {to_vec3(translation, "set_local_transform.translation"), glm::quat(r.w, r.x, r.y, r.z),
          to_vec3(scale, "set_local_transform.scale")};
}

py::dict frame_stats_dict(const FrameStats& s) {
  py::dict d;
  d["actors_evaluated"] = s.actors_evaluated;
  d["actors_deferred"] = s.actors_deferred;
  d["actors_batched_by_clip"] = s.actors_batched_by_clip;
  d["packed_bytes"] = s.packed_bytes;
  d["draws"] = s.draws;
  d["hidden_actors"] = s.hidden_actors;
  d["sampling_ms"] = s.sampling_ms;
  d["hierarchy_ms"] = s.hierarchy_ms;
  d["palettes_ms"] = s.palettes_ms;
  d["packing_ms"] = s.packing_ms;
  return d;
}

const char* const kActorOptionsDoc =
    "Options of one new actor (C++ gltf_crowd::ActorOptions; docs/spec.md §3.2), all keywords: id ('' = "
    "'actor-N'), clip (name; '' = the first clip), time (seconds; wins over phase), phase (time = phase x "
    "duration), speed (playback rate; negative plays backward), loop (LoopMode), repetitions (0 = unbounded), "
    "playing, transform (4 x 4 placement, world from actor space), tint (linear RGBA base color multiplier) and "
    "material_variant (a KHR_materials_variants name; '' = the default materials).";

}  // namespace

void bind_crowd(py::module_& m) {
  py::enum_<LoopMode>(m, "LoopMode", "How a clip's time follows its clock (docs/spec.md §3.3).")
      .value("once", LoopMode::once, "Plays once and holds the last pose.")
      .value("repeat", LoopMode::repeat, "Wraps around (the default).")
      .value("ping_pong", LoopMode::ping_pong, "Plays forward, then backward, and so on.");
  py::enum_<Animation>(m, "Animation", "Where a crowd evaluates poses (docs/architecture.md, 'GPU animation').")
      .value("cpu", Animation::cpu, "Crowd.update evaluates and packs every pose (the default).")
      .value("gpu", Animation::gpu, "The renderer's compute passes evaluate them (OpenGL 4.3).");

  py::class_<Contributor>(m, "Contributor", "One clip blended into an actor's pose (C++ gltf_crowd::Contributor).")
      .def_readonly("clip", &Contributor::clip, "Index into Asset.clips.")
      .def_readonly("seconds", &Contributor::seconds, "The clip's local time, seconds in [0, duration].")
      .def_readonly("weight", &Contributor::weight, "Blend weight in [0, 1]; the weights sum to 1.")
      .def("__repr__", [](const Contributor& c) {
        return py::str("Contributor(clip={}, seconds={}, weight={})").format(c.clip, c.seconds, c.weight);
      });

  py::class_<Pose>(m, "Pose",
                   "An actor's local pose (C++ gltf_crowd::Pose; docs/spec.md §3.6): every node's TRS in file order "
                   "and the morph weights, as new float32 arrays.")
      .def_property_readonly(
          "translations",
          [](const Pose& p) { return rows(p.translations, 3, [](const glm::vec3& t) { return glm::vec4(t, 0.0f); }); },
          "Node translations, (nodes, 3).")
      .def_property_readonly(
          "rotations",
          [](const Pose& p) {
            return rows(p.rotations, 4, [](const glm::quat& q) { return glm::vec4(q.x, q.y, q.z, q.w); });
          },
          "Node rotations as unit quaternions (x, y, z, w), (nodes, 4).")
      .def_property_readonly(
          "scales",
          [](const Pose& p) { return rows(p.scales, 3, [](const glm::vec3& s) { return glm::vec4(s, 0.0f); }); },
          "Node scales, (nodes, 3).")
      .def_property_readonly(
          "weights", [](const Pose& p) { return floats(p.weights); },
          "Morph weights, flat in the asset's weight layout (total_weights,).");

  py::class_<ActorOptions>(m, "ActorOptions", kActorOptionsDoc)
      .def(py::init(&make_actor_options), py::kw_only(), py::arg("id") = "", py::arg("clip") = "",
           py::arg("time") = py::none(), py::arg("phase") = 0.0f, py::arg("speed") = 1.0f,
           py::arg("loop") = LoopMode::repeat, py::arg("repetitions") = 0, py::arg("playing") = true,
           py::arg("transform") = py::none(), py::arg("tint") = py::none(), py::arg("material_variant") = "",
           "Options with these values; transform None = identity, tint None = (1, 1, 1, 1).")
      .def_readwrite("id", &ActorOptions::id, "'' = automatic 'actor-N'.")
      .def_readwrite("clip", &ActorOptions::clip, "Clip name; '' = the first clip (the rest pose without clips).")
      .def_readwrite("time", &ActorOptions::time, "Initial clip time in seconds, or None; wins over phase.")
      .def_readwrite("phase", &ActorOptions::phase, "Initial time = phase x duration.")
      .def_readwrite("speed", &ActorOptions::speed, "Playback rate; negative plays backward.")
      .def_readwrite("loop", &ActorOptions::loop, "The LoopMode.")
      .def_readwrite("repetitions", &ActorOptions::repetitions, "0 = unbounded.")
      .def_readwrite("playing", &ActorOptions::playing, "False: added paused.")
      .def_property(
          "transform", [](const ActorOptions& o) { return to_numpy(o.transform); },
          [](ActorOptions& o, const FloatArray& a) { o.transform = to_mat4(a, "ActorOptions.transform"); },
          "Placement, 4 x 4 (world from actor space).")
      .def_property(
          "tint", [](const ActorOptions& o) { return to_numpy(o.tint); },
          [](ActorOptions& o, const FloatArray& a) { o.tint = to_vec4(a, "ActorOptions.tint"); },
          "Linear RGBA base color multiplier.")
      .def_readwrite("material_variant", &ActorOptions::material_variant,
                     "KHR_materials_variants name; '' = the default materials.");

  py::class_<Actor>(m, "Actor",
                    "A handle to one actor of a Crowd (C++ gltf_crowd::Actor; docs/spec.md §3). It does not keep the "
                    "crowd alive: once the actor is removed or the crowd destroyed, every call raises Error "
                    "('stale_actor', 'destroyed'). Controls take effect at once; errors change nothing.")
      .def("id", &Actor::id, "The actor's id, unique in its crowd.")
      .def("active_clip", &Actor::active_clip, "Name of the active (incoming) clip; '' without clips.")
      .def("time", &Actor::time, "Active clip time, seconds in [0, duration].")
      .def("phase", &Actor::phase, "time / duration.")
      .def("speed", &Actor::speed, "Playback rate.")
      .def("loop", &Actor::loop, "The LoopMode.")
      .def("repetitions", &Actor::repetitions, "0 = unbounded.")
      .def("playing", &Actor::playing, "Not paused and not finished: update() advances it.")
      .def("finished", &Actor::finished, "The active clip ran past its last traversal.")
      .def("contributors", &Actor::contributors, "The clips blended into the pose (list of Contributor), active first.")
      .def(
          "morph_weights", [](const Actor& a) { return floats(a.morph_weights()); },
          "The current morph weights, flat in the asset's weight layout.")
      .def(
          "transform", [](const Actor& a) { return to_numpy(a.transform()); }, "The placement, 4 x 4.")
      .def(
          "select_clip",
          [](Actor& a, std::string_view name, float crossfade_seconds, std::optional<float> time, float phase) {
            a.select_clip(name, {.crossfade_seconds = crossfade_seconds, .time = time, .phase = phase});
          },
          py::arg("name"), py::arg("crossfade_seconds") = 0.0f, py::arg("time") = py::none(), py::arg("phase") = 0.0f,
          "Switches to clip `name` (hard, or crossfading over crossfade_seconds of scaled time), starting at `time` "
          "seconds or phase x duration. Errors: 'unknown_clip' (path 'select_clip.name'), 'not_finite', 'negative'.")
      .def("seek", &Actor::seek, py::arg("seconds"), "Sets the active clip's clock to `seconds`.")
      .def("set_phase", &Actor::set_phase, py::arg("phase"), "seek(phase x duration).")
      .def("set_speed", &Actor::set_speed, py::arg("speed"), "Any finite playback rate; negative plays backward.")
      .def("set_loop", &Actor::set_loop, py::arg("mode"), py::arg("repetitions") = 0,
           "Loop mode and repetitions (0 = unbounded).")
      .def("play", &Actor::play, "Resumes; a finished actor restarts its clip.")
      .def("pause", &Actor::pause, "Stops update() from advancing the actor; it still draws.")
      .def(
          "set_transform",
          [](Actor& a, const FloatArray& m4) { a.set_transform(to_mat4(m4, "set_transform.placement")); },
          py::arg("placement"), "Sets the placement (4 x 4, world from actor space); every entry finite.")
      .def("set_visible", &Actor::set_visible, py::arg("visible"),
           "Hides or shows the actor (docs/spec.md §5.10); a hidden actor keeps its clocks and draws nothing.")
      .def("visible", &Actor::visible, "False while hidden.")
      .def(
          "set_tint", [](Actor& a, const FloatArray& rgba) { a.set_tint(to_vec4(rgba, "set_tint.rgba")); },
          py::arg("rgba"), "Linear RGBA multiplier of the base color (docs/spec.md §3.12); finite and >= 0.")
      .def(
          "tint", [](const Actor& a) { return to_numpy(a.tint()); }, "The tint, RGBA.")
      .def("set_material_variant", &Actor::set_material_variant, py::arg("name"),
           "Draws with the KHR_materials_variants variant `name`; '' = the default materials. Errors: "
           "'unknown_variant'.")
      .def("clear_material_variant", &Actor::clear_material_variant, "Back to the asset's default materials.")
      .def("material_variant", &Actor::material_variant, "The current variant; '' when none.")
      .def(
          "set_local_transform",
          [](Actor& a, std::uint32_t node, const FloatArray& translation, const FloatArray& rotation,
             const FloatArray& scale,
             float weight) { a.set_local_transform(node, node_transform(translation, rotation, scale), weight); },
          py::arg("node"), py::arg("translation"), py::arg("rotation"), py::arg("scale"), py::arg("weight") = 1.0f)
      .def(
          "set_local_transform",
          [](Actor& a, std::string_view node, const FloatArray& translation, const FloatArray& rotation,
             const FloatArray& scale,
             float weight) { a.set_local_transform(node, node_transform(translation, rotation, scale), weight); },
          py::arg("node"), py::arg("translation"), py::arg("rotation"), py::arg("scale"), py::arg("weight") = 1.0f,
          "Application-driven pose (docs/spec.md §3.8): blends node `node` (index, name or path) towards the local "
          "translation (3), rotation (x, y, z, w) and scale (3) by `weight` until cleared.")
      .def("clear_local_transform", &Actor::clear_local_transform, py::arg("node"), "Removes the node's override.")
      .def(
          "take_root_motion",
          [](Actor& a) {
            const RootMotion motion = a.take_root_motion();
            return py::make_tuple(to_numpy(motion.translation), motion.yaw_radians);
          },
          "(translation (3), yaw radians) accumulated since the last call (docs/spec.md §3.10), then reset.")
      .def("local_pose", &Actor::local_pose, "The current local pose (Pose), overrides applied.")
      .def(
          "node_world", [](const Actor& a, std::uint32_t node) { return to_numpy(a.node_world(node)); },
          py::arg("node"))
      .def(
          "node_world", [](const Actor& a, std::string_view node) { return to_numpy(a.node_world(node)); },
          py::arg("node"),
          "World matrix (4 x 4, placement included) of node `node`: an index, or a name or path "
          "(docs/spec.md §2.3). Errors: 'node_index', 'unknown_node', 'ambiguous_node' (path 'node_world.node').")
      .def("__repr__", [](const Actor& a) { return "<gltf_crowd.Actor '" + a.id() + "'>"; });

  py::class_<Crowd>(m, "Crowd",
                    "The actors of one asset and their packed draw data (C++ gltf_crowd::Crowd; docs/spec.md §5). "
                    "Not for two threads at once.")
      .def(py::init([](std::shared_ptr<Asset> asset, std::size_t capacity, Animation animation, bool lod,
                       std::string root_motion, bool time_stages) {
             CrowdOptions options{.capacity = capacity, .animation = animation, .time_stages = time_stages};
             options.lod.enabled = options.lod.auto_generate = lod;
             options.root_motion.node = std::move(root_motion);
             return std::make_unique<Crowd>(std::move(asset), std::move(options));
           }),
           py::arg("asset"), py::kw_only(), py::arg("capacity") = 16, py::arg("animation") = Animation::cpu,
           py::arg("lod") = false, py::arg("root_motion") = "", py::arg("time_stages") = false,
           "A crowd of `asset` (C++ CrowdOptions): capacity (fixed; reserve() grows it), animation "
           "(Animation), lod (levels of detail: the asset's MSFT_lod levels, else generated; needs set_lod_view), "
           "root_motion (a node name whose motion is taken out of the pose; '' = off), time_stages (frame_stats' "
           "milliseconds). Errors: capacity 0 or above 1,000,000, bad LOD or root motion options.")
      .def("actor_count", &Crowd::actor_count, "How many actors the crowd has.")
      .def("capacity", &Crowd::capacity, "How many actors it holds before reserve().")
      .def("reserve", &Crowd::reserve, py::arg("n"), "Grows the capacity to at least n, keeping every actor.")
      .def(
          "add_actor",
          [](Crowd& c, std::optional<ActorOptions> options, const py::kwargs& kwargs) {
            if (options && !kwargs.empty())
              throw py::type_error("add_actor: pass an ActorOptions or keywords, not both");
            return c.add_actor(options ? *options : py::type::of<ActorOptions>()(**kwargs).cast<ActorOptions>());
          },
          py::arg("options") = py::none(),
          "Adds one actor: add_actor(ActorOptions(...)) or add_actor(clip='Walking', speed=1.2, ...) with "
          "ActorOptions' keywords. Errors (nothing added): path 'add_actors[0].<field>'.")
      .def(
          "add_actors", [](Crowd& c, const std::vector<ActorOptions>& options) { return c.add_actors(options); },
          py::arg("options"),
          "Adds actors atomically from a list of ActorOptions; on any error (path 'add_actors[i].<field>') nothing "
          "is added. Returns their handles in order.")
      .def("remove_actor", &Crowd::remove_actor, py::arg("id"), "Removes the actor `id`; False when there is none.")
      .def(
          "remove_actors", [](Crowd& c, const std::vector<std::string>& ids) { return c.remove_actors(ids); },
          py::arg("ids"), "Removes the actors with these ids (unknown ones ignored); returns how many went.")
      .def("find_actor", &Crowd::find_actor, py::arg("id"), "The actor `id`, or None.")
      .def("actors", &Crowd::actors, "Every actor, in slot order.")
      .def("update", py::overload_cast<float>(&Crowd::update), py::arg("delta_seconds"),
           py::call_guard<py::gil_scoped_release>(),
           "Advances playing actors by delta_seconds (finite, any sign), classifies LOD and repacks every stream "
           "(docs/spec.md §5.4). Releases the GIL.")
      .def(
          "set_lod_view",
          [](Crowd& c, const FloatArray& view, const FloatArray& projection, std::uint32_t width,
             std::uint32_t height) {
            c.set_lod_view(
                {to_mat4(view, "set_lod_view.view"), to_mat4(projection, "set_lod_view.projection"), width, height});
          },
          py::arg("view"), py::arg("projection"), py::arg("width"), py::arg("height"),
          "The camera LOD classifies against (Camera.view, Camera.projection) and the viewport in pixels.")
      .def("set_lod_enabled", &Crowd::set_lod_enabled, py::arg("enabled"),
           "Levels of detail on or off (docs/spec.md §7); enabling prepares levels the crowd lacks.")
      .def("set_lod_bias", &Crowd::set_lod_bias, py::arg("bias"), "Coverage multiplier; > 1 keeps detail longer.")
      .def("frame", &Crowd::frame, "How many update() calls succeeded so far.")
      .def(
          "frame_stats", [](const Crowd& c) { return frame_stats_dict(c.frame_stats()); },
          "The last update's FrameStats as a dict (actors_evaluated, draws, packed_bytes, ...).")
      .def("world_bounds", &Crowd::world_bounds,
           "World-space Bounds around every visible actor's animated bounding sphere (docs/spec.md §5.8).")
      .def("destroy", &Crowd::destroy, "Frees the actors; later actor calls raise Error 'destroyed'.")
      .def("destroyed", &Crowd::destroyed, "True after destroy().");
}

}  // namespace gltf_crowd::python
