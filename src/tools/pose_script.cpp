// `gltf-crowd pose --script FILE` (docs/spec.md §8.6): reads the script, runs each line's actor
// operation on a crowd and prints every actor's playback state and pose after it. Errors are
// named by the script's FILE:LINE and the word that gave the value, not by the library's paths.
#include "tools/pose_script.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <glm/gtx/matrix_decompose.hpp>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/sampling.hpp"
#include "tools/as_option.hpp"
#include "tools/crowd_scene.hpp"

namespace gltf_crowd::tools {
namespace {

PoseJson floats(const float* data, std::size_t count) {
  PoseJson out = PoseJson::array();
  for (std::size_t i = 0; i < count; ++i) out.push_back(data[i]);
  return out;
}

PoseJson column_major(const glm::mat4& m) { return floats(&m[0][0], 16); }

// A node's local TRS: the pose's, or for an unanimated node with an authored matrix, that
// matrix decomposed (translation, then rotation and scale of its upper 3 × 3).
void local_trs(const Asset& asset, const Pose& pose, std::size_t n, glm::vec3& t, glm::quat& r, glm::vec3& s) {
  t = pose.translations[n];
  r = pose.rotations[n];
  s = pose.scales[n];
  const Node& node = asset.nodes[n];
  if (!node.has_matrix) return;
  glm::vec3 skew;
  glm::vec4 perspective;
  if (glm::decompose(node.matrix, s, r, t, skew, perspective)) return;
  t = glm::vec3(node.matrix[3]);
  s = glm::vec3(glm::length(glm::vec3(node.matrix[0])), glm::length(glm::vec3(node.matrix[1])),
                glm::length(glm::vec3(node.matrix[2])));
  r = glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
}

}  // namespace

void append_pose(const Asset& asset, const Pose& pose, std::span<const glm::mat4> world, PoseJson& out) {
  PoseJson nodes = PoseJson::array();
  for (std::size_t n = 0; n < asset.nodes.size(); ++n) {
    glm::vec3 t, s;
    glm::quat r;
    local_trs(asset, pose, n, t, r, s);
    nodes.push_back({{"index", n},
                     {"name", asset.nodes[n].name},
                     {"translation", {t.x, t.y, t.z}},
                     {"rotation", {r.x, r.y, r.z, r.w}},
                     {"scale", {s.x, s.y, s.z}},
                     {"world", column_major(world[n])}});
  }
  PoseJson skins = PoseJson::array();
  for (std::size_t k = 0; k < asset.skins.size(); ++k) {
    const Skin& skin = asset.skins[k];
    PoseJson joints = PoseJson::array();
    for (std::size_t j = 0; j < skin.joints.size(); ++j)
      joints.push_back(column_major(world[skin.joints[j]] * skin.inverse_bind_matrices[j]));
    skins.push_back({{"index", k}, {"joint_matrices", std::move(joints)}});
  }
  PoseJson morph = PoseJson::array();
  for (std::size_t n = 0; n < asset.nodes.size(); ++n)
    if (asset.weight_counts[n] > 0)
      morph.push_back(
          {{"node", n}, {"weights", floats(pose.weights.data() + asset.weight_offsets[n], asset.weight_counts[n])}});
  out["nodes"] = std::move(nodes);
  out["skins"] = std::move(skins);
  out["morph_weights"] = std::move(morph);
}

void append_pose(const Asset& asset, Pose& pose, const glm::mat4& placement, PoseJson& out) {
  std::vector<glm::mat4> world(asset.nodes.size());
  compute_world_matrices(asset, pose.view(), placement, world);
  append_pose(asset, pose, world, out);
}

namespace {

struct ScriptLine {
  std::size_t number = 0;
  std::string text;
  std::vector<std::string> words;
};

class Script {
 public:
  Script(std::string file, const ScriptLine& line) : file_(std::move(file)), line_(line) {}

  // "FILE:LINE", the path of every error this line raises.
  std::string path() const { return fmt::format("{}:{}", file_, line_.number); }
  // Throws Error at path(): the word being read (Naming), the message and the line's text.
  [[noreturn]] void fail(const std::string& message, Rule rule = Rule::script_syntax) const {
    const std::string named = word_.empty() ? message : fmt::format("{}: {}", word_, message);
    throw Error(path(), rule, fmt::format("{}: \"{}\"", named, line_.text));
  }
  // While it lives, errors of this line name `word` first: the key=value word being read
  // ("time=1e39: ..."), or a positional word with its role ("seconds 1e39: ...").
  class Naming {
   public:
    Naming(const Script& s, std::string word) : s_(s), outer_(std::exchange(s.word_, std::move(word))) {}
    ~Naming() { s_.word_ = std::move(outer_); }
    Naming(const Naming&) = delete;
    Naming& operator=(const Naming&) = delete;

   private:
    const Script& s_;
    std::string outer_;
  };
  // Runs `call`, the library call this line makes. An Error it throws under one of `words`'
  // library paths (or below it) is thrown again under the line with its rule, named by the
  // script's word that gave the value ("r=0,0,0,0: ...", not "set_local_transform.local.rotation:
  // ..."); a word "" drops the library's path alone, for messages that name the value themselves.
  template <typename Call>
  void call(const std::vector<std::pair<std::string, std::string>>& words, Call&& library_call) const {
    try {
      library_call();
    } catch (const Error& e) {
      for (const auto& [library_path, word] : words) {
        if (!e.path().starts_with(library_path)) continue;
        const Naming naming(*this, word);
        fail(message_without_path(e), e.code());
      }
      throw;
    }
  }
  // This line's word "KEY=VALUE"; "KEY=" where the line has none (the value is a default).
  std::string key_word(std::string_view key) const {
    for (const std::string& w : line_.words)
      if (w.size() > key.size() && w.starts_with(key) && w[key.size()] == '=') return w;
    return fmt::format("{}=", key);
  }
  // Word i with its role, as errors name it: "seconds 1e39".
  std::string role(std::size_t i, std::string_view what) const { return fmt::format("{} {}", what, line_.words[i]); }
  const std::string& word(std::size_t i, const char* what) const {
    if (i >= line_.words.size()) fail(fmt::format("missing {}", what));
    return line_.words[i];
  }
  void expect_words(std::size_t min, std::size_t max) const {
    if (line_.words.size() < min || line_.words.size() > max) fail("wrong number of arguments");
  }
  float number(const std::string& text) const {
    float value = 0.0f;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ptr == text.data() + text.size() && ec == std::errc::result_out_of_range) {
      // A number, but no float: too large (1e39), or too small and not 0 (1e-50); strtod tells which.
      if (std::abs(std::strtod(text.c_str(), nullptr)) > 1.0)
        fail(fmt::format("\"{}\" is out of float range: beyond ±{}", text, std::numeric_limits<float>::max()));
      fail(fmt::format("\"{}\" is out of float range: not 0 but below {}", text,
                       std::numeric_limits<float>::denorm_min()));
    }
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value))
      fail(fmt::format("\"{}\" is not a finite number", text));
    return value;
  }
  // Word i as a number, its errors named by `what` ("seconds").
  float number_at(std::size_t i, std::string_view what) const {
    const Naming naming(*this, role(i, what));
    return number(line_.words[i]);
  }
  std::uint32_t count(const std::string& text) const {
    std::uint32_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) fail(fmt::format("\"{}\" is not a count", text));
    return value;
  }
  LoopMode loop(const std::string& text) const {
    if (text == "once") return LoopMode::once;
    if (text == "repeat") return LoopMode::repeat;
    if (text == "ping-pong") return LoopMode::ping_pong;
    fail(fmt::format("\"{}\" is not once, repeat or ping-pong", text));
  }
  // `n` comma-separated finite numbers ("1,2,3").
  std::vector<float> numbers(const std::string& text, std::size_t n) const {
    std::vector<float> out;
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = text.find(',', start);
      out.push_back(number(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (n != 0 && out.size() != n) fail(fmt::format("\"{}\" needs {} comma-separated numbers", text, n));
    return out;
  }
  bool flag(const std::string& text) const {
    if (text == "true") return true;
    if (text == "false") return false;
    fail(fmt::format("\"{}\" is not true or false", text));
  }
  // key=value words from index `first` on, each applied while its word is Naming the errors.
  // A key given twice is an error: neither value would be right to drop silently.
  template <typename Apply>
  void keys(std::size_t first, Apply apply) const {
    for (std::size_t i = first; i < line_.words.size(); ++i) {
      const std::string& w = line_.words[i];
      const std::size_t eq = w.find('=');
      if (eq == std::string::npos || eq == 0) fail(fmt::format("\"{}\" is not key=value", w));
      const std::string key = w.substr(0, eq);
      for (std::size_t j = first; j < i; ++j)
        if (line_.words[j].starts_with(key + "="))
          fail(fmt::format("key \"{}=\" given twice (\"{}\" and \"{}\")", key, line_.words[j], w));
      bool known = false;
      {
        const Naming naming(*this, w);
        known = apply(key, w.substr(eq + 1));
      }
      if (!known) fail(fmt::format("unknown key \"{}\"", key));
    }
  }

 private:
  std::string file_;
  const ScriptLine& line_;
  mutable std::string word_;  // what Naming names; "" between words
};

std::vector<ScriptLine> read_script(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw Error(file, Rule::script_open, "cannot open the script");
  std::vector<ScriptLine> lines;
  std::string text;
  for (std::size_t number = 1; std::getline(in, text); ++number) {
    std::string code = text.substr(0, text.find('#'));
    code.erase(code.find_last_not_of(" \t\r") + 1);
    code.erase(0, code.find_first_not_of(" \t"));
    ScriptLine line{number, code, {}};
    std::size_t i = 0;
    while (i < code.size()) {
      while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
      const std::size_t start = i;
      while (i < code.size() && !std::isspace(static_cast<unsigned char>(code[i]))) ++i;
      if (i > start) line.words.push_back(code.substr(start, i - start));
    }
    if (!line.words.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

Actor find(Crowd& crowd, const Script& s, const std::string& id) {
  const std::optional<Actor> actor = crowd.find_actor(id);
  if (!actor) s.fail(fmt::format("no actor has the id \"{}\"", id), Rule::unknown_actor);
  return *actor;
}

// A node by name or path (docs/spec.md §2.3), else by index (resolve_node_option): errors
// unknown_node (the closest names first) and ambiguous_node (each match), named by the line.
std::uint32_t node_of(const Asset& asset, const Script& s, const std::string& word) {
  std::uint32_t node = 0;
  s.call({{"NODE", ""}}, [&] { node = resolve_node_option(asset, word, "NODE"); });
  return node;
}

// `layer ID N key=value...`: the keys are gathered, then applied in the help's order.
void apply_layer(Crowd& crowd, const Script& s) {
  Actor actor = find(crowd, s, s.word(1, "actor id"));
  std::uint32_t index = 0;
  {
    const Script::Naming naming(s, s.role(2, "layer"));
    index = s.count(s.word(2, "layer index"));
  }
  std::optional<ActorLayer> layer;
  s.call({{"layer.index", ""}}, [&] { layer.emplace(actor.layer(index)); });
  std::optional<std::string> mode, mask, reference, clip;
  float reference_seconds = 0.0f;
  std::optional<float> seek, speed, weight;
  std::optional<LoopMode> loop;
  std::optional<bool> playing;
  bool clear = false;
  float fade = 0.0f;
  SelectClipOptions select;
  s.keys(3, [&](const std::string& key, const std::string& value) {
    if (key == "mode") {
      if (value != "override" && value != "additive") s.fail(fmt::format("\"{}\" is not override or additive", value));
      mode = value;
    } else if (key == "mask") {
      mask = value == "none" ? "" : value;
    } else if (key == "reference") {  // CLIP@SECONDS, CLIP (time 0) or "first" (each clip's first key)
      const std::size_t at = value.find('@');
      reference = value == "first" ? "" : value.substr(0, at);
      if (at != std::string::npos) reference_seconds = s.number(value.substr(at + 1));
    } else if (key == "clip") {
      clip = value;
    } else if (key == "crossfade") {
      select.crossfade_seconds = s.number(value);
    } else if (key == "time") {
      select.time = s.number(value);
    } else if (key == "phase") {
      select.phase = s.number(value);
    } else if (key == "seek") {
      seek = s.number(value);
    } else if (key == "speed") {
      speed = s.number(value);
    } else if (key == "loop") {
      loop = s.loop(value);
    } else if (key == "weight") {
      weight = s.number(value);
    } else if (key == "fade") {
      fade = s.number(value);
    } else if (key == "playing") {
      playing = s.flag(value);
    } else if (key == "clear") {
      clear = s.flag(value);
    } else {
      return false;
    }
    return true;
  });
  s.call({{"set_mask.name", s.key_word("mask")},
          {"set_additive_reference.", s.key_word("reference")},
          {"select_clip.name", s.key_word("clip")},
          {"select_clip.crossfade_seconds", s.key_word("crossfade")},
          {"select_clip.time", s.key_word("time")},
          {"select_clip.phase", s.key_word("phase")},
          {"seek.seconds", s.key_word("seek")},
          {"set_speed.speed", s.key_word("speed")},
          {"set_weight.weight", s.key_word("weight")},
          {"set_weight.fade_seconds", s.key_word("fade")}},
         [&] {
           if (mode) layer->set_mode(*mode == "additive" ? LayerMode::additive : LayerMode::override);
           if (mask) layer->set_mask(*mask);
           if (reference) layer->set_additive_reference(*reference, reference_seconds);
           if (clip) layer->select_clip(*clip, select);
           if (seek) layer->seek(*seek);
           if (speed) layer->set_speed(*speed);
           if (loop) layer->set_loop(*loop);
           if (weight) layer->set_weight(*weight, fade);
           if (playing && *playing) layer->play();
           if (playing && !*playing) layer->pause();
           if (clear) layer->clear();
         });
}

// `mask NAME NODE[:W][,NODE[:W]...]`: each entry's errors are named by the entry.
void apply_mask(Crowd& crowd, const Script& s, const ScriptLine& line) {
  s.expect_words(3, 3);
  std::vector<MaskBranch> branches;
  std::vector<std::pair<std::string, std::string>> entries;  // "add_mask.branches[i].", the entry
  std::size_t start = 0;
  const std::string& list = line.words[2];
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string branch = list.substr(start, comma - start);
    const Script::Naming naming(s, branch);
    // The weight follows the last ':' when a number does, so "mixamorig:Spine" is a whole name.
    const std::size_t colon = branch.rfind(':');
    float weight = 1.0f;
    const char* const end = branch.data() + branch.size();
    const bool weighted = colon != std::string::npos &&
                          std::from_chars(branch.data() + colon + 1, end, weight).ptr == end &&
                          colon + 1 < branch.size();
    const std::string node = weighted ? branch.substr(0, colon) : branch;
    branches.push_back(
        {.weight = weighted ? s.number(branch.substr(colon + 1)) : 1.0f, .index = node_of(crowd.asset(), s, node)});
    entries.emplace_back(fmt::format("add_mask.branches[{}].", entries.size()), branch);
    start = comma + 1;
  }
  entries.emplace_back("add_mask.name", "");
  s.call(entries, [&] { crowd.add_mask(line.words[1], branches); });
}

void apply(Crowd& crowd, const Script& s, const ScriptLine& line) {
  const std::string& op = line.words[0];
  if (op == "add") {
    ActorOptions o;
    s.keys(1, [&](const std::string& key, const std::string& value) {
      if (key == "id") {
        if (value.empty()) s.fail("the id is empty: later lines name the actor by its id");
        o.id = value;
      } else if (key == "clip")
        o.clip = value;
      else if (key == "time")
        o.time = s.number(value);
      else if (key == "phase")
        o.phase = s.number(value);
      else if (key == "speed")
        o.speed = s.number(value);
      else if (key == "loop")
        o.loop = s.loop(value);
      else if (key == "repetitions")
        o.repetitions = s.count(value);
      else if (key == "playing")
        o.playing = s.flag(value);
      else if (key == "at")
        o.transform = glm::translate(glm::mat4(1.0f), glm::make_vec3(s.numbers(value, 3).data()));
      else
        return false;
      return true;
    });
    s.call({{"add_actors[0].id", s.key_word("id")},
            {"add_actors[0].clip", ""},
            {"add_actors[0].time", s.key_word("time")},
            {"add_actors[0].phase", s.key_word("phase")},
            {"add_actors[0].speed", s.key_word("speed")},
            {"add_actors[0].transform", s.key_word("at")}},
           [&] { crowd.add_actor(o); });
  } else if (op == "select") {
    Actor a = find(crowd, s, s.word(1, "actor id"));
    const std::string& clip = s.word(2, "clip");
    SelectClipOptions o;
    s.keys(3, [&](const std::string& key, const std::string& value) {
      if (key == "crossfade")
        o.crossfade_seconds = s.number(value);
      else if (key == "time")
        o.time = s.number(value);
      else if (key == "phase")
        o.phase = s.number(value);
      else
        return false;
      return true;
    });
    s.call({{"select_clip.name", ""},
            {"select_clip.crossfade_seconds", s.key_word("crossfade")},
            {"select_clip.time", s.key_word("time")},
            {"select_clip.phase", s.key_word("phase")}},
           [&] { a.select_clip(clip, o); });
  } else if (op == "seek" || op == "phase" || op == "speed") {
    s.expect_words(3, 3);
    Actor a = find(crowd, s, line.words[1]);
    const std::string what = op == "seek" ? "seconds" : op;
    const float x = s.number_at(2, what);
    s.call(
        {{"seek.seconds", s.role(2, what)}, {"set_phase.phase", s.role(2, what)}, {"set_speed.speed", s.role(2, what)}},
        [&] {
          if (op == "seek")
            a.seek(x);
          else if (op == "phase")
            a.set_phase(x);
          else
            a.set_speed(x);
        });
  } else if (op == "loop") {
    s.expect_words(3, 4);
    find(crowd, s, line.words[1]).set_loop(s.loop(line.words[2]), line.words.size() == 4 ? s.count(line.words[3]) : 0);
  } else if (op == "play" || op == "pause" || op == "remove" || op == "show" || op == "hide") {
    s.expect_words(2, 2);
    Actor a = find(crowd, s, line.words[1]);
    if (op == "play")
      a.play();
    else if (op == "pause")
      a.pause();
    else if (op == "show" || op == "hide")
      a.set_visible(op == "show");
    else
      crowd.remove_actor(line.words[1]);
  } else if (op == "local") {  // application-driven pose (docs/spec.md §3.8)
    Actor a = find(crowd, s, s.word(1, "actor id"));
    const std::uint32_t node = node_of(crowd.asset(), s, s.word(2, "node"));
    const Node& rest = crowd.asset().nodes[node];
    NodeTransform local{rest.translation, rest.rotation, rest.scale};
    float weight = 1.0f;
    s.keys(3, [&](const std::string& key, const std::string& value) {
      if (key == "t") {
        local.translation = glm::make_vec3(s.numbers(value, 3).data());
      } else if (key == "r") {
        const std::vector<float> v = s.numbers(value, 4);
        local.rotation = glm::quat(v[3], v[0], v[1], v[2]);  // glTF order x, y, z, w
        // The crowd normalises it in float, where a length past the float range reads as 0.
        if (!std::isfinite(glm::length(local.rotation)))
          s.fail(fmt::format("the rotation quaternion's length is out of float range (beyond ±{}), so it cannot "
                             "be normalised",
                             std::numeric_limits<float>::max()),
                 Rule::not_finite);
      } else if (key == "s") {
        local.scale = glm::make_vec3(s.numbers(value, 3).data());
      } else if (key == "weight") {
        weight = s.number(value);
      } else {
        return false;
      }
      return true;
    });
    s.call({{"set_local_transform.local.translation", s.key_word("t")},
            {"set_local_transform.local.rotation", s.key_word("r")},
            {"set_local_transform.local.scale", s.key_word("s")},
            {"set_local_transform.weight", s.key_word("weight")}},
           [&] { a.set_local_transform(node, local, weight); });
  } else if (op == "unlocal") {
    s.expect_words(2, 3);
    Actor a = find(crowd, s, line.words[1]);
    if (line.words.size() == 3)
      a.clear_local_transform(node_of(crowd.asset(), s, line.words[2]));
    else
      a.clear_local_pose();
  } else if (op == "morph") {
    Actor a = find(crowd, s, s.word(1, "actor id"));
    const std::uint32_t node = node_of(crowd.asset(), s, s.word(2, "node"));
    std::vector<float> values;
    {
      const Script::Naming naming(s, fmt::format("weights {}", s.word(3, "weights")));
      values = s.numbers(line.words[3], 0);
    }
    float weight = 1.0f;
    s.keys(4, [&](const std::string& key, const std::string& value) {
      if (key != "weight") return false;
      weight = s.number(value);
      return true;
    });
    s.call({{"set_morph_weights.weights", s.role(3, "weights")}, {"set_morph_weights.weight", s.key_word("weight")}},
           [&] { a.set_morph_weights(node, values, weight); });
  } else if (op == "unmorph") {
    s.expect_words(3, 3);
    find(crowd, s, line.words[1]).clear_morph_weights(node_of(crowd.asset(), s, line.words[2]));
  } else if (op == "layer") {  // animation layer (docs/spec.md §3.11)
    apply_layer(crowd, s);
  } else if (op == "mask") {
    apply_mask(crowd, s, line);
  } else if (op == "marker") {
    s.expect_words(4, 4);
    const float seconds = s.number_at(3, "seconds");
    s.call({{"add_marker.clip", ""}, {"add_marker.name", ""}, {"add_marker.seconds", s.role(3, "seconds")}},
           [&] { crowd.add_marker(line.words[1], line.words[2], seconds); });
  } else if (op == "move") {
    s.expect_words(5, 5);
    Actor a = find(crowd, s, line.words[1]);
    const float x = s.number_at(2, "x"), y = s.number_at(3, "y"), z = s.number_at(4, "z");
    a.set_transform(glm::translate(glm::mat4(1.0f), glm::vec3(x, y, z)));
  } else if (op == "update") {
    s.expect_words(2, 2);
    crowd.update(s.number_at(1, "seconds"));
  } else {
    s.fail(fmt::format("unknown operation \"{}\"", op));
  }
}

// Whether every number of `j` is finite (nlohmann prints the others as null).
bool all_finite(const PoseJson& j) {
  if (j.is_number_float()) return std::isfinite(j.get<float>());
  return !j.is_structured() || std::ranges::all_of(j, all_finite);
}

// What of a pose document (append_pose) is not finite, for a message ("node 3 \"Hips\"'s world
// matrix"); "" when every number is.
std::string not_finite_part(const PoseJson& doc) {
  for (const PoseJson& node : doc["nodes"])
    for (const char* part : {"translation", "rotation", "scale", "world"})
      if (!all_finite(node[part]))
        return fmt::format("node {} \"{}\"'s {}{}", node["index"].get<std::size_t>(), node["name"].get<std::string>(),
                           part, part == std::string_view("world") ? " matrix" : "");
  for (const PoseJson& skin : doc["skins"])
    if (!all_finite(skin["joint_matrices"]))
      return fmt::format("skin {}'s joint matrices", skin["index"].get<std::size_t>());
  for (const PoseJson& morph : doc["morph_weights"])
    if (!all_finite(morph["weights"])) return fmt::format("node {}'s morph weights", morph["node"].get<std::size_t>());
  return {};
}

// The words of a line that can take a pose past the float range, to name in the error: a local
// transform's t= and s= (r= is normalised).
std::string pose_words(const ScriptLine& line) {
  std::string words;
  if (line.words[0] == "local")
    for (const std::string& w : line.words)
      if (w.starts_with("t=") || w.starts_with("s=")) words += (words.empty() ? "" : " ") + w;
  return words;
}

// One JSON line per actor. A pose with a number past the float range (a finite scale of 3e38
// whose world matrices overflow) is an error naming the line, printed for no actor.
void print_actors(const Crowd& crowd, std::size_t step, const Script& s, const ScriptLine& line, GpuPoses* gpu) {
  const bool updated = line.words[0] == "update";
  const Asset& asset = crowd.asset();
  std::vector<GpuPose> read;
  if (gpu != nullptr) read = gpu->renderer->read_poses(crowd);
  std::size_t slot = 0;
  std::vector<PoseJson> docs;
  for (const Actor& a : crowd.actors()) {
    PoseJson doc = {{"step", step},
                    {"line", line.number},
                    {"op", line.text},
                    {"actor", a.id()},
                    {"clip", a.active_clip()},
                    {"time", a.time()},
                    {"phase", a.phase()},
                    {"speed", a.speed()},
                    {"loop", std::string(to_string(a.loop()))},
                    {"repetitions", a.repetitions()},
                    {"playing", a.playing()},
                    {"finished", a.finished()},
                    {"visible", a.visible()}};
    // The markers this step's update crossed (docs/spec.md §3.9); other steps report none.
    PoseJson events = PoseJson::array();
    for (const ClipEvent& e : crowd.events())
      if (updated && e.slot == slot)
        events.push_back({{"clip", asset.clips[e.clip].name},
                          {"marker", std::string(e.name)},
                          {"seconds", e.seconds},
                          {"weight", e.weight},
                          {"fraction", e.fraction},
                          {"layer", e.layer}});
    doc["events"] = std::move(events);
    PoseJson contributors = PoseJson::array();
    for (const Contributor& c : a.contributors())
      contributors.push_back(
          {{"clip", asset.clips[c.clip].name}, {"clip_index", c.clip}, {"seconds", c.seconds}, {"weight", c.weight}});
    doc["contributors"] = std::move(contributors);
    PoseJson layers = PoseJson::array();
    for (std::uint32_t i = 1; i <= kMaxLayers; ++i) {
      const ActorLayer layer = a.layer(i);
      if (layer.active_clip().empty() && layer.contributors().empty()) continue;
      PoseJson layer_contributors = PoseJson::array();
      for (const Contributor& c : layer.contributors())
        layer_contributors.push_back(
            {{"clip", asset.clips[c.clip].name}, {"seconds", c.seconds}, {"weight", c.weight}});
      layers.push_back({{"index", i},
                        {"clip", layer.active_clip()},
                        {"time", layer.time()},
                        {"weight", layer.weight()},
                        {"mode", std::string(to_string(layer.mode()))},
                        {"mask", layer.mask()},
                        {"contributors", std::move(layer_contributors)}});
    }
    doc["layers"] = std::move(layers);
    if (gpu != nullptr) {
      append_pose(asset, read.at(slot).local, read.at(slot).world, doc);
    } else {
      Pose pose = a.local_pose();
      append_pose(asset, pose, a.transform(), doc);
    }
    ++slot;
    if (const std::string part = not_finite_part(doc); !part.empty()) {
      const Script::Naming naming(s, pose_words(line));
      s.fail(fmt::format("actor \"{}\"'s pose is out of float range: {} is not finite", a.id(), part),
             Rule::not_finite);
    }
    docs.push_back(std::move(doc));
  }
  for (const PoseJson& doc : docs) fmt::print("{}\n", json_text(doc));
}

}  // namespace

void run_pose_script(const std::shared_ptr<const Asset>& asset, const std::string& file, bool on_gpu) {
  const std::vector<ScriptLine> lines = read_script(file);
  std::size_t adds = 0;
  for (const ScriptLine& line : lines) adds += line.words[0] == "add" ? 1 : 0;
  Crowd crowd(asset,
              {.capacity = std::max<std::size_t>(adds, 1), .animation = on_gpu ? Animation::gpu : Animation::cpu});
  std::optional<GpuPoses> gpu;
  if (on_gpu) gpu.emplace().renderer.emplace(crowd);
  for (std::size_t step = 0; step < lines.size(); ++step) {
    const Script s(file, lines[step]);
    try {
      apply(crowd, s, lines[step]);
    } catch (const Error& e) {
      if (e.path() == s.path()) throw;  // already named by the line
      throw Error(s.path(), e.code(), e.what());
    }
    print_actors(crowd, step, s, lines[step], gpu ? &*gpu : nullptr);
  }
}

}  // namespace gltf_crowd::tools
