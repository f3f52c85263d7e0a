// GLSL of the pose passes (docs/architecture.md "GPU animation"): sample, each rig node's local TRS
// as the CPU's SampleJob, BlendJob, root motion, layers and overrides give it; weights, the same for
// morph weights. Joined to the common prelude by animation_compute_source.
#include "gl/animation_shader_parts.hpp"

namespace gltf_crowd::gl {

// One invocation per (slot, rig node): the node's local TRS blended from the actor's
// contributors, then root motion removal on the root node (remove_root_motion: the extracted
// components replaced by the contributors' values at clip time 0, blended by weight), then the
// animation layers in order (apply_layers), then its application-driven override
// (apply_overrides), or the "not animated" mark (the hierarchy then uses the rest local).
const char* const kSample = R"(
uniform uint u_root_node;   // rig node whose root motion is removed; 0xFFFFFFFF = none
uniform uint u_root_flags;  // 1: translation x, z; 2: translation y; 4: yaw
const float PI = 3.14159265358979;
// a wrapped to (-pi, pi], as remove_root_motion's wrap_angle.
float wrap_angle(float a) {
  a -= 2.0 * PI * floor((a + PI) / (2.0 * PI));  // [-pi, pi)
  return a <= -PI ? a + 2.0 * PI : a;
}
// atan(0, 0) is undefined in GLSL; std::atan2 gives 0, which the CPU path uses.
float yaw_of(vec4 q) { return q.y == 0.0 && q.w == 0.0 ? 0.0 : wrap_angle(2.0 * atan(q.y, q.w)); }
vec4 quat_mul(vec4 a, vec4 b) {
  return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}
struct NodeOverride {
  vec4 meta;  // x: rig node (as uint bits), y: blend weight
  vec4 t, r, s;
};
layout(std430, binding = 15) readonly buffer NodeOverrides { NodeOverride node_overrides[]; };

bool animates(ivec4 ch) { return ch.x >= 0 || ch.y >= 0 || ch.z >= 0; }

// A clip's channels of one node at `seconds`, over the rest TRS.
void sample_trs(ivec4 ch, float seconds, Node rest, out vec3 t, out vec4 r, out vec3 s) {
  t = ch.x >= 0 ? sample_channel(uint(ch.x), seconds, false, 3u).xyz : rest.t.xyz;
  r = ch.y >= 0 ? sample_channel(uint(ch.y), seconds, true, 4u) : rest.r;
  s = ch.z >= 0 ? sample_channel(uint(ch.z), seconds, false, 3u).xyz : rest.s.xyz;
}

// One contributor of a crossfade (BlendJob): weighted sums, rotations sign-aligned to the first
// contributor's (`reference`), normalized after the last (the identity for a zero sum).
void blend_contributor(bool first, bool last, float w, vec3 lt, vec4 lr, vec3 ls, inout vec3 t, inout vec4 r,
                       inout vec3 s, inout vec4 reference) {
  if (first) {
    t = lt * w; r = lr * w; s = ls * w;
    reference = lr;
  } else {
    t += lt * w;
    r = r + lr * (dot(lr, reference) < 0.0 ? -w : w);
    s += ls * w;
  }
  if (last) {
    float len = length(r);
    r = len > 0.0 ? r / len : vec4(0.0, 0.0, 0.0, 1.0);
  }
}

// blend_towards (docs/spec.md §3.8): w >= 1 gives the target exactly.
void blend_towards(inout vec3 t, inout vec4 r, inout vec3 s, vec3 to_t, vec4 to_r, vec3 to_s, float w) {
  if (w >= 1.0) {
    t = to_t; r = to_r; s = to_s;
    return;
  }
  t = t * (1.0 - w) + to_t * w;
  s = s * (1.0 - w) + to_s * w;
  vec4 sum = r * (1.0 - w) + to_r * (dot(r, to_r) < 0.0 ? -w : w);
  float len = length(sum);
  r = len > 0.0 ? sum / len : to_r;
}

// Whether some used contributor of the layer at `at` animates the node.
bool layer_animates(uint at, uint node) {
  uint count = layer_count(at);
  for (uint i = 0u; i < count; ++i)
    if (layer_used(at, i) && animates(clip_nodes[layer_clip(at, i) * u_node_count + node])) return true;
  return false;
}

// One layer's pose of the node (sample_layer): its contributors over rest, as differences from
// their references when additive (subtract_reference), blended as the base layer's.
void layer_pose(uint at, uint node, Node rest, out vec3 t, out vec4 r, out vec3 s) {
  uint count = layer_count(at);
  bool additive = layer_additive(at);
  uint last = 0u;
  for (uint i = 0u; i < count; ++i)
    if (layer_used(at, i)) last = i;
  vec4 reference = vec4(0.0);
  for (uint i = 0u; i < count; ++i) {
    if (!layer_used(at, i)) continue;
    vec3 lt, ls;
    vec4 lr;
    sample_trs(clip_nodes[layer_clip(at, i) * u_node_count + node], layer_seconds(at, i), rest, lt, lr, ls);
    if (additive) {
      uint ref = layer_reference(at, i) + 10u * node;
      lt -= vec3(layer_tables[ref], layer_tables[ref + 1u], layer_tables[ref + 2u]);
      lr = quat_mul(vec4(layer_tables[ref + 3u], layer_tables[ref + 4u], layer_tables[ref + 5u], layer_tables[ref + 6u]), lr);
      for (uint c = 0u; c < 3u; ++c) {
        float rs = layer_tables[ref + 7u + c];
        ls[c] = rs != 0.0 ? ls[c] / rs : 1.0;
      }
    }
    if (count == 1u) {  // one clip: its sample as it is
      t = lt; r = lr; s = ls;
      return;
    }
    blend_contributor(i == 0u, i == last, layer_contributor_weight(at, i), lt, lr, ls, t, r, s, reference);
  }
}

// add_delta: t + w·Δt, s ⊙ (1 + w·(Δs − 1)), r · nlerp(identity, Δr, w) on Δr's shortest arc.
void add_delta(inout vec3 t, inout vec4 r, inout vec3 s, vec3 dt, vec4 dr, vec3 ds, float w) {
  t += dt * w;
  s *= vec3(1.0) + (ds - vec3(1.0)) * w;
  if (dr.w < 0.0) dr = -dr;
  if (w < 1.0) {
    vec4 sum = vec4(dr.xyz * w, dr.w * w + (1.0 - w));
    dr = sum / length(sum);
  }
  vec4 q = quat_mul(r, dr);
  r = q / length(q);
}

// Invocations run over a tile's slots for one node, then the next node: consecutive ones write
// consecutive scratch rows. The dispatch covers whole tiles; the last tile's spare slots return.
void main() {
  uint id = invocation();
  uint node = id / TILE % u_node_count, local = id / (TILE * u_node_count) * TILE + id % TILE;
  if (local >= u_slots) return;
  uint slot = u_first_slot + local;
  uint count = record_count(slot);
  bool animated = false;
  for (uint i = 0u; i < count; ++i)
    if (record_used(slot, i) && animates(clip_nodes[record_clip(slot, i) * u_node_count + node])) animated = true;
  int override_at = -1;
  if (u_overrides) {
    uvec4 range = override_ranges[slot];
    for (uint i = range.x; i < range.x + range.y; ++i)
      if (floatBitsToUint(node_overrides[i].meta.x) == node) override_at = int(i);
  }
  uint layers = 0u;  // bit l: layer l changes this node (animates it at a weight above 0)
  if (u_layers)
    for (uint l = 0u; l < MAX_LAYERS; ++l) {
      uint lat = layer_at(slot, l);
      if (layer_animates(lat, node) && layer_weight(lat, node) > 0.0) layers |= 1u << l;
    }
  uint at = scratch_at(local, node);
  if (!animated && override_at < 0 && layers == 0u) {
    locals[at] = vec4(0.0);
    return;
  }
  Node rest = nodes[node];
  vec3 t = rest.t.xyz, s = rest.s.xyz;
  vec4 r = rest.r, reference = vec4(0.0);
  if (!animated) count = 0u;  // only layers or the override move it, from rest
  uint last = 0u;
  for (uint i = 0u; i < count; ++i)
    if (record_used(slot, i)) last = i;
  bool root = node == u_root_node;
  vec3 root_t = vec3(0.0);
  float root_yaw = 0.0;
  for (uint i = 0u; i < count; ++i) {
    if (!record_used(slot, i)) continue;
    ivec4 ch = clip_nodes[record_clip(slot, i) * u_node_count + node];
    float seconds = record_seconds(slot, i);
    vec3 lt, ls;
    vec4 lr;
    sample_trs(ch, seconds, rest, lt, lr, ls);
    if (root) {  // this contributor's root at its clip start, weighted (1 for a single clip)
      float rw = count == 1u ? 1.0 : record_weight(slot, i);
      root_t += rw * (ch.x >= 0 ? sample_channel(uint(ch.x), 0.0, false, 3u).xyz : rest.t.xyz);
      root_yaw += rw * yaw_of(ch.y >= 0 ? sample_channel(uint(ch.y), 0.0, true, 4u) : rest.r);
    }
    if (count == 1u) {  // one clip: its samples as they are (SampleJob)
      t = lt; r = lr; s = ls;
      break;
    }
    blend_contributor(i == 0u, i == last, record_weight(slot, i), lt, lr, ls, t, r, s, reference);
  }
  if (root && animated) {
    if ((u_root_flags & 1u) != 0u) { t.x = root_t.x; t.z = root_t.z; }
    if ((u_root_flags & 2u) != 0u) t.y = root_t.y;
    if ((u_root_flags & 4u) != 0u) {
      float half_turn = 0.5 * (root_yaw - yaw_of(r));
      r = normalize(quat_mul(vec4(0.0, sin(half_turn), 0.0, cos(half_turn)), r));
    }
  }
  for (uint l = 0u; l < MAX_LAYERS; ++l) {  // combine_layer
    if ((layers & (1u << l)) == 0u) continue;
    uint lat = layer_at(slot, l);
    vec3 lt, ls;
    vec4 lr;
    layer_pose(lat, node, rest, lt, lr, ls);
    float w = layer_weight(lat, node);
    if (layer_additive(lat))
      add_delta(t, r, s, lt, lr, ls, w);
    else
      blend_towards(t, r, s, lt, lr, ls, w);
  }
  if (override_at >= 0) {
    NodeOverride o = node_overrides[override_at];
    blend_towards(t, r, s, o.t.xyz, o.r, o.s.xyz, o.meta.y);
  }
  locals[at] = vec4(t, 1.0);
  locals[at + TILE] = r;
  locals[at + 2u * TILE] = vec4(s, 0.0);
}
)";

// One invocation per (slot, morph weight): rest, or the blend of the contributors' samples,
// then the layers that animate it (combine_layer), then the application's value where it
// overrides the weight.
const char* const kWeights = R"(
layout(std430, binding = 15) readonly buffer MorphOverrides { vec4 morph_overrides[]; };  // (index bits, value, weight, -)

// Contributor i of the layer at `at`'s value of morph weight w, over rest, as a difference from
// its reference when additive.
float layer_value(uint at, uint i, uint w) {
  int ch = clip_weights[layer_clip(at, i) * u_weight_count + w];
  float value = ch >= 0 ? sample_channel(uint(ch), layer_seconds(at, i), false, 1u).x : rest_weights[w];
  return layer_additive(at) ? value - layer_tables[layer_reference(at, i) + 10u * u_node_count + w] : value;
}

void main() {
  uint id = invocation();
  if (id >= u_slots * u_weight_count) return;
  uint slot = u_first_slot + id / u_weight_count, w = id % u_weight_count;
  uint count = record_count(slot);
  float value = rest_weights[w];
  if (count == 1u) {
    int ch = clip_weights[record_clip(slot, 0u) * u_weight_count + w];
    if (ch >= 0) value = sample_channel(uint(ch), record_seconds(slot, 0u), false, 1u).x;
  } else if (count > 1u) {
    float sum = 0.0;
    for (uint i = 0u; i < count; ++i) {
      if (!record_used(slot, i)) continue;
      int ch = clip_weights[record_clip(slot, i) * u_weight_count + w];
      float layer = rest_weights[w];
      if (ch >= 0) layer = sample_channel(uint(ch), record_seconds(slot, i), false, 1u).x;
      float weight = record_weight(slot, i);
      sum = i == 0u ? layer * weight : sum + layer * weight;
    }
    value = sum;
  }
  if (u_layers)
    for (uint l = 0u; l < MAX_LAYERS; ++l) {
      uint at = layer_at(slot, l);
      uint layer_contributors = layer_count(at);
      bool animated = false;
      for (uint i = 0u; i < layer_contributors; ++i)
        if (layer_used(at, i) && clip_weights[layer_clip(at, i) * u_weight_count + w] >= 0) animated = true;
      if (!animated) continue;
      float lw = layer_weight(at, u_node_count + w);
      if (!(lw > 0.0)) continue;
      float layer = 0.0;
      if (layer_contributors == 1u) {
        layer = layer_value(at, 0u, w);
      } else {
        for (uint i = 0u; i < layer_contributors; ++i) {
          if (!layer_used(at, i)) continue;
          float v = layer_value(at, i, w) * layer_contributor_weight(at, i);
          layer = i == 0u ? v : layer + v;
        }
      }
      value = layer_additive(at) ? value + lw * layer : value * (1.0 - lw) + layer * lw;
    }
  if (u_overrides) {
    uvec4 range = override_ranges[slot];
    for (uint i = range.z; i < range.z + range.w; ++i) {
      vec4 o = morph_overrides[i];
      if (floatBitsToUint(o.x) == w) value = value * (1.0 - o.z) + o.y * o.z;
    }
  }
  weights[id] = value;
}
)";

}  // namespace gltf_crowd::gl
