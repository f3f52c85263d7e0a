// analyze_locomotion (docs/spec.md §15.5): finds the feet, then samples every clip's foot and
// skeleton positions in model space to measure its ground speed, its contacts and the ground
// distance it covers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gait.hpp"
#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {
namespace {

// Sampling: 240 samples per clip second, at least 64 and at most 8192 segments per clip.
constexpr double kSamplesPerSecond = 240.0;
constexpr std::uint32_t kMinSegments = 64;
constexpr std::uint32_t kMaxSegments = 8192;
// Fractions of the skeleton height H: the contact height band, the contact speed floor (per
// second), and the displacement over a clip above which it has root motion.
constexpr float kBandFraction = 0.03f;
constexpr float kSpeedFraction = 0.1f;
constexpr float kMovingFraction = 0.05f;
// A segment covers at least this fraction of the ground speed, so that distance increases strictly.
constexpr float kMinDistanceSpeed = 0.05f;
constexpr std::size_t kMaxFeet = 8;

glm::vec2 ground(const glm::vec3& p) { return {p.x, p.z}; }

// The skin joints of every skin; every node when the asset has no skin.
std::vector<std::uint8_t> skeleton_mask(const Asset& asset) {
  std::vector<std::uint8_t> mask(asset.nodes.size(), 0);
  for (const Skin& skin : asset.skins)
    for (const std::uint32_t joint : skin.joints) mask[joint] = 1;
  if (std::find(mask.begin(), mask.end(), 1) == mask.end()) std::fill(mask.begin(), mask.end(), 1);
  return mask;
}

std::uint32_t depth(const Asset& asset, std::uint32_t node) {
  std::uint32_t d = 0;
  for (std::int32_t p = asset.nodes[node].parent; p >= 0; p = asset.nodes[static_cast<std::size_t>(p)].parent) ++d;
  return d;
}

// The deepest node that is `a` or `b` or an ancestor of both; -1 when they are in different trees.
std::int32_t common_ancestor(const Asset& asset, std::int32_t a, std::int32_t b) {
  std::uint32_t da = depth(asset, static_cast<std::uint32_t>(a)), db = depth(asset, static_cast<std::uint32_t>(b));
  for (; da > db; --da) a = asset.nodes[static_cast<std::size_t>(a)].parent;
  for (; db > da; --db) b = asset.nodes[static_cast<std::size_t>(b)].parent;
  while (a != b && a >= 0) {
    a = asset.nodes[static_cast<std::size_t>(a)].parent;
    b = asset.nodes[static_cast<std::size_t>(b)].parent;
  }
  return a;
}

// The lowest leaf joint at rest on either side of the skeleton root's sagittal plane (x = the
// root's x; the mean x of the joints when they have no common root): {+x side, -x side}.
std::vector<std::uint32_t> detect_feet(const Asset& asset, const std::vector<std::uint8_t>& skeleton,
                                       const std::vector<glm::mat4>& rest) {
  std::vector<std::uint8_t> inner(asset.nodes.size(), 0);  // has a skeleton node below it
  for (auto it = asset.hierarchy_order.rbegin(); it != asset.hierarchy_order.rend(); ++it) {
    const std::int32_t parent = asset.nodes[*it].parent;
    if (parent >= 0 && (skeleton[*it] != 0 || inner[*it] != 0)) inner[static_cast<std::size_t>(parent)] = 1;
  }
  std::int32_t root = -2;  // -2: none seen yet
  double mean_x = 0.0;
  std::size_t count = 0;
  for (std::uint32_t n = 0; n < asset.nodes.size(); ++n) {
    if (skeleton[n] == 0) continue;
    root = root == -2 ? static_cast<std::int32_t>(n)
           : root < 0 ? -1
                      : common_ancestor(asset, root, static_cast<std::int32_t>(n));
    mean_x += rest[n][3].x;
    ++count;
  }
  if (count == 0) throw Error("LocomotionOptions::feet", Rule::gait_feet, "the asset has no nodes");
  const float mid =
      root >= 0 ? rest[static_cast<std::size_t>(root)][3].x : static_cast<float>(mean_x / static_cast<double>(count));
  std::int64_t side[2] = {-1, -1};  // +x, -x
  for (std::uint32_t n = 0; n < asset.nodes.size(); ++n) {
    if (skeleton[n] == 0 || inner[n] != 0) continue;
    const glm::vec3 p(rest[n][3]);
    if (p.x == mid) continue;
    std::int64_t& best = side[p.x > mid ? 0 : 1];
    if (best < 0 || p.y < rest[static_cast<std::size_t>(best)][3].y) best = n;
  }
  for (int s = 0; s < 2; ++s) {
    if (side[s] < 0) {
      throw Error("LocomotionOptions::feet", Rule::gait_feet,
                  fmt::format("no leaf joint on the {} side (x {} {}) of the skeleton's sagittal plane; name the feet",
                              s == 0 ? "+x" : "-x", s == 0 ? ">" : "<", mid));
    }
  }
  return {static_cast<std::uint32_t>(side[0]), static_cast<std::uint32_t>(side[1])};
}

std::vector<std::uint32_t> named_feet(const Asset& asset, const std::vector<std::string>& names) {
  if (names.size() > kMaxFeet) {
    throw Error("LocomotionOptions::feet", Rule::gait_option,
                fmt::format("{} feet named; at most {}", names.size(), kMaxFeet));
  }
  std::vector<std::uint32_t> feet;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string path = fmt::format("LocomotionOptions::feet[{}]", i);
    const std::uint32_t node = asset.resolve_node(names[i], path);
    const auto seen = std::find(feet.begin(), feet.end(), node);
    if (seen != feet.end()) {
      throw Error(path, Rule::gait_feet,
                  fmt::format("\"{}\" is node {} again (feet[{}])", names[i], node, seen - feet.begin()));
    }
    feet.push_back(node);
  }
  return feet;
}

// The topmost node (then the lowest index) whose translation channel in `clip` moves it more than
// `threshold` horizontally in model space between t = 0 and t = D; -1 if none.
std::int32_t root_motion_node(const Asset& asset, std::size_t clip, AssetPose& pose,
                              const std::vector<glm::mat4>& world_at_start, float threshold) {
  pose.set_clip(clip, 0.0f);
  const Pose start = pose.local_pose();
  pose.set_clip(clip, asset.clips[clip].duration_seconds);
  const Pose end = pose.local_pose();
  std::int32_t best = -1;
  std::uint32_t best_depth = 0;
  for (const Channel& channel : asset.clips[clip].channels) {
    if (channel.path != ChannelPath::translation) continue;
    const std::uint32_t n = channel.node;
    const std::int32_t parent = asset.nodes[n].parent;
    const glm::mat3 to_model =
        parent >= 0 ? glm::mat3(world_at_start[static_cast<std::size_t>(parent)]) : glm::mat3(1.0f);
    const glm::vec3 moved = to_model * (end.translations[n] - start.translations[n]);
    if (glm::length(ground(moved)) <= threshold) continue;
    const std::uint32_t d = depth(asset, n);
    if (best < 0 || d < best_depth || (d == best_depth && n < static_cast<std::uint32_t>(best))) {
      best = static_cast<std::int32_t>(n);
      best_depth = d;
    }
  }
  return best;
}

struct ClipSampler {
  const Asset& asset;
  const std::vector<std::uint32_t>& feet;
  const std::vector<std::uint32_t>& skeleton;  // node indices
  AssetPose pose;
  std::vector<glm::mat4> world;

  // Foot positions (feet.size() per sample) and skeleton centroids of `clip` at t_i = i D / N.
  void sample(std::size_t clip, std::uint32_t segments, std::vector<glm::vec3>& foot, std::vector<glm::vec3>& centroid,
              std::vector<glm::mat4>& world_at_start) {
    const float duration = asset.clips[clip].duration_seconds;
    foot.clear();
    centroid.clear();
    for (std::uint32_t i = 0; i <= segments; ++i) {
      pose.set_clip(clip, duration * static_cast<float>(i) / static_cast<float>(segments));
      pose.world_matrices(glm::mat4(1.0f), world);
      if (i == 0) world_at_start = world;
      for (const std::uint32_t f : feet) foot.emplace_back(world[f][3]);
      glm::dvec3 sum(0.0);
      for (const std::uint32_t n : skeleton) sum += glm::dvec3(world[n][3]);
      centroid.emplace_back(sum / static_cast<double>(skeleton.size()));
    }
  }
};

ClipLocomotion analyze_clip(const Asset& asset, std::size_t clip, const Locomotion& result, ClipSampler& sampler) {
  ClipLocomotion out;
  const float duration = asset.clips[clip].duration_seconds;
  out.duration_seconds = duration;
  if (!(duration > 0.0f)) return out;
  const auto n =
      static_cast<std::uint32_t>(std::clamp(std::ceil(static_cast<double>(duration) * kSamplesPerSecond),
                                            static_cast<double>(kMinSegments), static_cast<double>(kMaxSegments)));
  const std::size_t feet = result.feet.size();
  const float dt = duration / static_cast<float>(n);
  std::vector<glm::vec3> foot, centroid;
  std::vector<glm::mat4> world_at_start;
  sampler.sample(clip, n, foot, centroid, world_at_start);
  const auto at = [&](std::size_t f, std::size_t i) -> const glm::vec3& { return foot[i * feet + f]; };
  const auto velocity = [&](std::size_t f, std::size_t i) { return (ground(at(f, i + 1)) - ground(at(f, i))) / dt; };

  // In the band: both ends of the segment within `band` of the foot's lowest point over the clip.
  std::vector<std::uint8_t> in_band(feet * n, 0);
  for (std::size_t f = 0; f < feet; ++f) {
    float lowest = std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i <= n; ++i) lowest = std::min(lowest, at(f, i).y);
    for (std::size_t i = 0; i < n; ++i)
      in_band[f * n + i] = at(f, i).y <= lowest + result.band && at(f, i + 1).y <= lowest + result.band;
  }

  const glm::vec2 moved = ground(centroid[n]) - ground(centroid[0]);
  out.segments = n;
  out.root_motion = glm::length(moved) > kMovingFraction * result.height;
  glm::vec2 treadmill(0.0f);  // the ground's velocity under an in-place clip
  if (out.root_motion) {
    out.direction = moved / glm::length(moved);
    out.ground_speed = glm::length(moved) / duration;
    out.root_node = root_motion_node(asset, clip, sampler.pose, world_at_start, kMovingFraction * result.height);
  } else {
    // The mean backward speed of the feet over the segments where they are in the band and move
    // backward: while a foot is planted, the body moves over it at the ground speed.
    double distance = 0.0, time = 0.0;
    for (std::size_t f = 0; f < feet; ++f) {
      for (std::size_t i = 0; i < n; ++i) {
        const float forward = glm::dot(velocity(f, i), out.direction);
        if (in_band[f * n + i] != 0 && forward < 0.0f) {
          distance -= static_cast<double>(forward) * dt;
          time += dt;
        }
      }
    }
    out.ground_speed = time > 0.0 ? static_cast<float>(distance / time) : 0.0f;
    treadmill = out.ground_speed * out.direction;
  }
  out.locomotion = out.ground_speed >= result.speed_threshold;

  // Planted: in the band, and slower relative to the ground than max(the speed floor, the ground
  // speed) (the swing foot passes the ground at two or more times the ground speed).
  const float limit = std::max(result.speed_threshold, out.ground_speed);
  out.planted.assign(feet * n, 0);
  for (std::size_t f = 0; f < feet; ++f)
    for (std::size_t i = 0; i < n; ++i)
      out.planted[f * n + i] = in_band[f * n + i] != 0 && glm::length(velocity(f, i) + treadmill) < limit;

  // Distance: the centroid's advance for root motion; in place, the mean backward speed of the
  // planted feet, or the ground speed where no foot is planted.
  out.distance.assign(n + 1, 0.0f);
  const float floor_speed = kMinDistanceSpeed * out.ground_speed;
  for (std::size_t i = 0; i < n; ++i) {
    float speed = out.ground_speed;
    if (out.root_motion) {
      speed = glm::dot(ground(centroid[i + 1]) - ground(centroid[i]), out.direction) / dt;
    } else {
      float sum = 0.0f;
      int planted = 0;
      for (std::size_t f = 0; f < feet; ++f) {
        if (out.planted[f * n + i] == 0) continue;
        sum += std::max(0.0f, -glm::dot(velocity(f, i), out.direction));
        ++planted;
      }
      if (planted > 0) speed = sum / static_cast<float>(planted);
    }
    out.distance[i + 1] = out.distance[i] + std::max(speed, floor_speed) * dt;
  }
  return out;
}

}  // namespace

bool Locomotion::planted(std::size_t clip, std::size_t foot, float seconds) const noexcept {
  if (clip >= clips.size() || foot >= feet.size()) return false;
  const ClipLocomotion& c = clips[clip];
  if (c.segments == 0 || !std::isfinite(seconds)) return false;
  const double at = std::clamp(static_cast<double>(seconds) / c.duration_seconds, 0.0, 1.0) * c.segments;
  const auto i = std::min(static_cast<std::size_t>(at), static_cast<std::size_t>(c.segments) - 1);
  return c.planted[foot * c.segments + i] != 0;
}

Locomotion analyze_locomotion(const Asset& asset, const LocomotionOptions& options) {
  Locomotion result;
  AssetPose rest_pose(asset);
  std::vector<glm::mat4> rest(asset.nodes.size());
  rest_pose.set_rest();
  rest_pose.world_matrices(glm::mat4(1.0f), rest);
  const std::vector<std::uint8_t> mask = skeleton_mask(asset);
  result.feet = options.feet.empty() ? detect_feet(asset, mask, rest) : named_feet(asset, options.feet);

  std::vector<std::uint32_t> skeleton;
  float low = std::numeric_limits<float>::infinity(), high = -low;
  for (std::uint32_t n = 0; n < asset.nodes.size(); ++n) {
    const bool foot = std::find(result.feet.begin(), result.feet.end(), n) != result.feet.end();
    if (mask[n] == 0 && !foot) continue;
    if (mask[n] != 0) skeleton.push_back(n);
    low = std::min(low, rest[n][3].y);
    high = std::max(high, rest[n][3].y);
  }
  result.height = high - low;
  if (!(result.height > 0.0f) || !std::isfinite(result.height)) {
    throw Error("LocomotionOptions::feet", Rule::gait_feet,
                fmt::format("the skeleton's {} nodes have no height span at rest ({}); feet and ground speeds "
                            "are measured against it",
                            skeleton.size(), result.height));
  }
  result.band = kBandFraction * result.height;
  result.speed_threshold = kSpeedFraction * result.height;

  ClipSampler sampler{asset, result.feet, skeleton, AssetPose(asset), std::vector<glm::mat4>(asset.nodes.size())};
  result.clips.reserve(asset.clips.size());
  for (std::size_t c = 0; c < asset.clips.size(); ++c) result.clips.push_back(analyze_clip(asset, c, result, sampler));
  return result;
}

}  // namespace gltf_crowd
