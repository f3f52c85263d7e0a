// Based on: glTF 2.0 §3.11 and Appendix C (STEP, LINEAR with shortest-arc slerp, CUBICSPLINE
// Hermite with tangents scaled by the key interval). Keys were validated at load (finite,
// non-decreasing times; consistent output counts), so this code only asserts them.
#include "gltf_crowd/sampling.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "anim/locate_keys.hpp"
#include "anim/slerp.hpp"

namespace gltf_crowd {
namespace {

void slerp(const float* a, const float* b, float t, float* out) noexcept {
  float bx = b[0], by = b[1], bz = b[2], bw = b[3];
  float dot = a[0] * bx + a[1] * by + a[2] * bz + a[3] * bw;
  if (dot < 0.0f) {  // shortest arc
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
    dot = -dot;
  }
  float wa, wb;
  slerp_weights(t, std::min(dot, 1.0f), wa, wb);
  float x = wa * a[0] + wb * bx, y = wa * a[1] + wb * by, z = wa * a[2] + wb * bz, w = wa * a[3] + wb * bw;
  const float inv = 1.0f / std::sqrt(x * x + y * y + z * z + w * w);
  out[0] = x * inv;
  out[1] = y * inv;
  out[2] = z * inv;
  out[3] = w * inv;
}

void normalize4(float* q) noexcept {
  const float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (len > 0.0f)
    for (int i = 0; i < 4; ++i) q[i] /= len;
}

// interpolate_key for a component count known at compile time (kN > 0) or given at run time
// (kN == 0, morph weights), so translations, rotations and scales get unrolled code.
template <std::uint32_t kN>
void interpolate(const float* values, std::uint32_t run_n, Interpolation interpolation, bool rotation,
                 const KeyPosition& key, float* out) noexcept {
  const std::uint32_t n = kN > 0 ? kN : run_n;
  const bool cubic = interpolation == Interpolation::cubic_spline;
  const std::uint32_t stride = cubic ? 3 * n : n;
  const std::uint32_t value_at = cubic ? n : 0;  // the value inside a key's triplet
  const float* v0 = values + key.k * stride + value_at;
  if (key.k == key.next || interpolation == Interpolation::step) {
    std::copy_n(v0, n, out);
    return;
  }
  const float* v1 = values + key.next * stride + value_at;
  const float t = key.t;
  if (!cubic) {
    if (rotation) return slerp(v0, v1, t, out);
    for (std::uint32_t i = 0; i < n; ++i) out[i] = v0[i] + (v1[i] - v0[i]) * t;
    return;
  }
  const float* b0 = values + key.k * stride + 2 * n;  // out-tangent of key k
  const float* a1 = values + key.next * stride;       // in-tangent of key k+1
  const float t2 = t * t, t3 = t2 * t, d = key.interval;
  const float h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + t, h01 = -2 * t3 + 3 * t2, h11 = t3 - t2;
  for (std::uint32_t i = 0; i < n; ++i) out[i] = h00 * v0[i] + h10 * d * b0[i] + h01 * v1[i] + h11 * d * a1[i];
  if (rotation) normalize4(out);
}

}  // namespace

KeyPosition locate_key(std::span<const float> times, float seconds, std::uint16_t& cursor) noexcept {
  return find_key(times, seconds, cursor);
}

void interpolate_key(const float* values, std::uint32_t n, Interpolation interpolation, bool rotation,
                     const KeyPosition& key, float* out) noexcept {
  if (rotation) return interpolate<4>(values, n, interpolation, true, key, out);
  if (n == 3) return interpolate<3>(values, n, interpolation, false, key, out);
  interpolate<0>(values, n, interpolation, false, key, out);
}

void sample_channel(const Clip& clip, const Channel& channel, float seconds, std::span<float> out) noexcept {
  assert(out.size() >= channel.components && channel.key_count > 0);
  std::uint16_t cursor = 0xFFFF;  // no hint: search
  const KeyPosition key =
      locate_key(std::span(clip.times.data() + channel.times_offset, channel.key_count), seconds, cursor);
  interpolate_key(clip.values.data() + channel.values_offset, channel.components, channel.interpolation,
                  channel.path == ChannelPath::rotation, key, out.data());
}

void write_rest_pose(const Asset& asset, const PoseView& out) noexcept {
  assert(out.translations.size() >= asset.nodes.size() && out.weights.size() >= asset.total_weights);
  for (std::size_t i = 0; i < asset.nodes.size(); ++i) {
    const Node& node = asset.nodes[i];
    out.translations[i] = node.translation;
    out.rotations[i] = node.rotation;
    out.scales[i] = node.scale;
  }
  std::copy(asset.rest_weights.begin(), asset.rest_weights.end(), out.weights.begin());
}

}  // namespace gltf_crowd
