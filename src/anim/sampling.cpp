// Based on: glTF 2.0 §3.11 and Appendix C (STEP, LINEAR with shortest-arc slerp, CUBICSPLINE
// Hermite with tangents scaled by the key interval). Keys were validated at load (finite,
// non-decreasing times; consistent output counts), so this code only asserts them.
#include "gltf_crowd/sampling.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>


namespace gltf_crowd {
namespace {

void slerp(const float* a, const float* b, float t, float* out) noexcept {
  float bx = b[0], by = b[1], bz = b[2], bw = b[3];
  float dot = a[0] * bx + a[1] * by + a[2] * bz + a[3] * bw;
  if (dot < 0.0f) {  // shortest arc
    bx = -bx; by = -by; bz = -bz; bw = -bw;
    dot = -dot;
  }
  float wa, wb;
  if (dot > 0.9995f) {  // nearly parallel: lerp, then normalize below
    wa = 1.0f - t;
    wb = t;
  } else {
    const float theta = std::acos(dot);
    const float s = std::sin(theta);
    wa = std::sin((1.0f - t) * theta) / s;
    wb = std::sin(t * theta) / s;
  }
  float x = wa * a[0] + wb * bx, y = wa * a[1] + wb * by, z = wa * a[2] + wb * bz, w = wa * a[3] + wb * bw;
  const float len = std::sqrt(x * x + y * y + z * z + w * w);
  out[0] = x / len; out[1] = y / len; out[2] = z / len; out[3] = w / len;
}

void normalize4(float* q) noexcept {
  const float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (len > 0.0f)
    for (int i = 0; i < 4; ++i) q[i] /= len;
}

}  // namespace

void sample_channel(const Clip& clip, const Channel& channel, float seconds, std::span<float> out) noexcept {
  const std::uint32_t n = channel.components;
  assert(out.size() >= n && channel.key_count > 0);
  const float* times = clip.times.data() + channel.times_offset;
  const float* values = clip.values.data() + channel.values_offset;
  const bool cubic = channel.interpolation == Interpolation::cubic_spline;
  const std::uint32_t stride = cubic ? 3 * n : n;         // floats per key
  const std::uint32_t value_at = cubic ? n : 0;           // the value inside a key's triplet
  const std::uint32_t last = channel.key_count - 1;
  const auto copy_key = [&](std::uint32_t k) {
    std::copy_n(values + k * stride + value_at, n, out.data());
  };
  if (seconds <= times[0] || last == 0) return copy_key(0);
  if (seconds >= times[last]) return copy_key(last);
  // First key with time > seconds; k is the key before it.
  const std::uint32_t next = static_cast<std::uint32_t>(std::upper_bound(times, times + channel.key_count, seconds) - times);
  const std::uint32_t k = next - 1;
  const float interval = times[next] - times[k];
  if (channel.interpolation == Interpolation::step) return copy_key(k);
  if (!(interval > 0.0f)) return copy_key(next);
  const float t = (seconds - times[k]) / interval;
  const float* v0 = values + k * stride + value_at;
  const float* v1 = values + next * stride + value_at;
  const bool rotation = channel.path == ChannelPath::rotation;
  if (!cubic) {
    if (rotation) return slerp(v0, v1, t, out.data());
    for (std::uint32_t i = 0; i < n; ++i) out[i] = v0[i] + (v1[i] - v0[i]) * t;
    return;
  }
  const float* b0 = values + k * stride + 2 * n;   // out-tangent of key k
  const float* a1 = values + next * stride;        // in-tangent of key k+1
  const float t2 = t * t, t3 = t2 * t;
  const float h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + t, h01 = -2 * t3 + 3 * t2, h11 = t3 - t2;
  for (std::uint32_t i = 0; i < n; ++i)
    out[i] = h00 * v0[i] + h10 * interval * b0[i] + h01 * v1[i] + h11 * interval * a1[i];
  if (rotation) normalize4(out.data());
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

void sample_clip(const Asset& asset, const Clip& clip, float seconds, const PoseView& out) noexcept {
  float buffer[4];
  for (const Channel& channel : clip.channels) {
    switch (channel.path) {
      case ChannelPath::translation:
        sample_channel(clip, channel, seconds, buffer);
        out.translations[channel.node] = glm::vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::rotation:
        sample_channel(clip, channel, seconds, buffer);
        out.rotations[channel.node] = glm::quat(buffer[3], buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::scale:
        sample_channel(clip, channel, seconds, buffer);
        out.scales[channel.node] = glm::vec3(buffer[0], buffer[1], buffer[2]);
        break;
      case ChannelPath::weights:
        sample_channel(clip, channel, seconds,
                       out.weights.subspan(asset.weight_offsets[channel.node], channel.components));
        break;
    }
  }
}

}  // namespace gltf_crowd
