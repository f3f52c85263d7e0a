// GLSL 4.30 compute sources of the GPU evaluator (docs/architecture.md "GPU animation"). They
// repeat the CPU jobs' arithmetic operation for operation (jobs.cpp, sampling.cpp, kernels.inl,
// pack.cpp, layer_blend.cpp), so the two paths differ only by floating-point rounding:
// locate_key's search, interpolate's STEP / LINEAR (shortest-arc slerp) / CUBICSPLINE, the
// sign-aligned normalized blend, the animation layers, compose_trs, the hierarchy with its
// "moved" shortcut, the palettes and instance rules.
// Plain std430 storage buffers and uniforms only, so a Vulkan backend can compile the same text.
#include "gl/gpu_animation.hpp"

namespace gltf_crowd::gl {
namespace {

constexpr const char* kCommon = R"(#version 430
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Records { uint records[]; };    // 16 words per slot
layout(std430, binding = 1) readonly buffer Tails { uint tails[]; };        // 8 words per slot
// Binding 2 (placements) and 13 (skin joints) are declared by the passes that read them: the
// sample and weights passes read the animation layers there (kLayers).
struct Node {
  ivec4 meta;  // parent (-1 for roots)
  vec4 t, r, s;  // rest TRS; r = (x, y, z, w)
  vec4 local[3];  // rest local rows
  vec4 world[3];  // rest world' rows
};
layout(std430, binding = 3) readonly buffer Nodes { Node nodes[]; };
layout(std430, binding = 4) readonly buffer ClipNodes { ivec4 clip_nodes[]; };  // per (clip, node): t, r, s channel or -1
// Two per channel: (times offset, key count, values offset, key stride), (components, interpolation,
// component stride, -).
layout(std430, binding = 5) readonly buffer Channels { uvec4 channels[]; };
layout(std430, binding = 6) readonly buffer Times { float times[]; };
layout(std430, binding = 7) readonly buffer KeyRows { float key_rows[]; };
layout(std430, binding = 8) readonly buffer ClipWeights { int clip_weights[]; };  // per (clip, weight): channel or -1
layout(std430, binding = 9) buffer Locals { vec4 locals[]; };  // per (slot, node), scratch_at: t (w: animated), r, s (w: moved)
layout(std430, binding = 10) buffer Worlds { vec4 worlds[]; };  // per (slot, node), scratch_at: 3 rows of world'
layout(std430, binding = 11) buffer Weights { float weights[]; };  // per (slot, weight)
layout(std430, binding = 12) readonly buffer RestWeights { float rest_weights[]; };
// Bindings 14 and 15 differ by pass: the application-driven pose (docs/spec.md §3.8) for sample
// and weights, the outputs for palette and instances.

// Slots are evaluated in batches, so that the scratch (locals, worlds, weights) holds one batch:
// scratch is indexed by the batch's slot, records, placements and outputs by the crowd's
// (u_first_slot + the batch's slot).
uniform uint u_first_slot;
uniform uint u_slots;       // slots in this batch
uniform uint u_node_count;  // rig nodes
uniform uint u_weight_count;  // total morph weights

// Scratch rows in tiles of TILE slots (row r of node n, slot s at ((s / TILE × u_node_count + n) × 3 + r)
// × TILE + s % TILE): invocations over consecutive slots touch consecutive vec4s (docs/benchmarks.md,
// "On an H200"); the palette pass, joints fastest, pays with scattered reads.
const uint TILE = 64u;
uint scratch_at(uint slot, uint node) { return (slot / TILE * u_node_count + node) * 3u * TILE + slot % TILE; }

// Dispatches wider than 65,535 groups fold into y rows of gl_NumWorkGroups.x groups.
uint invocation() { return gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x; }

uint record_count(uint slot) { return records[slot * 16u]; }
uint record_clip(uint slot, uint i) {
  uint word = i < 6u ? records[slot * 16u + 1u + i / 2u] : tails[slot * 8u];
  return (word >> (16u * (i % 2u))) & 0xFFFFu;
}
float record_seconds(uint slot, uint i) {
  return uintBitsToFloat(i < 6u ? records[slot * 16u + 4u + i] : tails[slot * 8u + 2u + (i - 6u)]);
}
float record_weight(uint slot, uint i) {
  return uintBitsToFloat(i < 6u ? records[slot * 16u + 10u + i] : tails[slot * 8u + 4u + (i - 6u)]);
}
// contributor 0 is blended even at weight 0 (the sign reference), the others only above 0
bool record_used(uint slot, uint i) { return i == 0u || record_weight(slot, i) > 0.0; }

struct Key { uint k; uint next; float t; float interval; };

Key locate_key(uint offset, uint count, float seconds) {
  uint last = count - 1u;
  if (!(seconds > times[offset]) || last == 0u) {
    uint k = 0u;  // at a repeated first time its last key holds (a step, docs/spec.md 2.7)
    while (k < last && times[offset + k + 1u] == seconds) ++k;
    return Key(k, k, 0.0, 0.0);
  }
  if (seconds >= times[offset + last]) return Key(last, last, 0.0, 0.0);
  uint lo = 0u, hi = last;  // times[lo] <= seconds < times[hi]: of equal times the last key, interval > 0
  while (hi - lo > 1u) {
    uint mid = (lo + hi) / 2u;
    if (times[offset + mid] <= seconds) lo = mid; else hi = mid;
  }
  float interval = times[offset + lo + 1u] - times[offset + lo];
  return Key(lo, lo + 1u, (seconds - times[offset + lo]) / interval, interval);
}

// n components from `at`, `stride` floats apart (BoundChannel::component_stride).
vec4 fetch(uint at, uint n, uint stride) {
  vec4 v = vec4(0.0);
  for (uint i = 0u; i < n; ++i) v[i] = key_rows[at + i * stride];
  return v;
}

// GLSL leaves the precision of acos, sin and cos to the driver (llvmpipe's are good to about
// 1e-4), so slerp uses its own, good to a few float ulps where it needs them: acos on [0, 1]
// (Abramowitz & Stegun 4.4.46, |error| <= 2e-8) and sin / cos on [0, pi/2] (Taylor series to
// x^13 / x^12, |error| < 1e-8).
float acos01(float x) {
  float p = -0.0012624911;
  p = p * x + 0.0066700901;
  p = p * x - 0.0170881256;
  p = p * x + 0.0308918810;
  p = p * x - 0.0501743046;
  p = p * x + 0.0889789874;
  p = p * x - 0.2145988016;
  p = p * x + 1.5707963050;
  return sqrt(1.0 - x) * p;
}
float sin_quadrant(float x) {
  float x2 = x * x;
  return x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 + x2 * (1.0 / 362880.0 + x2 * (-1.0 / 39916800.0 + x2 / 6227020800.0))))));
}
float cos_quadrant(float x) {
  float x2 = x * x;
  return 1.0 + x2 * (-0.5 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 + x2 * (1.0 / 40320.0 + x2 * (-1.0 / 3628800.0 + x2 / 479001600.0)))));
}

vec4 slerp(vec4 a, vec4 b, float t) {
  float d = dot(a, b);
  if (d < 0.0) { b = -b; d = -d; }
  float wa, wb;
  if (d > 0.9995) {
    wa = 1.0 - t;
    wb = t;
  } else {
    float theta = acos01(d);  // d in [0, 0.9995]: theta in (0, pi/2]
    float s = sqrt(1.0 - d * d);
    wb = sin_quadrant(t * theta) / s;
    wa = cos_quadrant(t * theta) - d * wb;
  }
  vec4 q = wa * a + wb * b;
  return q * (1.0 / sqrt(dot(q, q)));
}

// Channel c at `seconds`: its n components (glTF 2.0 Appendix C); a morph weights channel is one
// per weight (n = 1).
vec4 sample_channel(uint c, float seconds, bool rotation, uint n) {
  uvec4 a = channels[2u * c];
  uvec4 b = channels[2u * c + 1u];
  Key key = locate_key(a.x, a.y, seconds);
  uint components = b.x, stride = b.z;
  bool cubic = b.y == 2u;
  uint value_at = (cubic ? components : 0u) * stride;
  vec4 v0 = fetch(a.z + key.k * a.w + value_at, n, stride);
  if (key.k == key.next || b.y == 0u) return v0;
  vec4 v1 = fetch(a.z + key.next * a.w + value_at, n, stride);
  float t = key.t;
  if (!cubic) {
    if (rotation) return slerp(v0, v1, t);
    return v0 + (v1 - v0) * t;
  }
  vec4 b0 = fetch(a.z + key.k * a.w + 2u * components * stride, n, stride);  // out-tangent of key k
  vec4 a1 = fetch(a.z + key.next * a.w, n, stride);                         // in-tangent of key k+1
  float t2 = t * t, t3 = t2 * t, d = key.interval;
  float h00 = 2.0 * t3 - 3.0 * t2 + 1.0, h10 = t3 - 2.0 * t2 + t, h01 = -2.0 * t3 + 3.0 * t2, h11 = t3 - t2;
  vec4 v = h00 * v0 + h10 * d * b0 + h01 * v1 + h11 * d * a1;
  if (rotation) {
    float len = sqrt(dot(v, v));
    if (len > 0.0) v /= len;
  }
  return v;
}

// Affine transforms as 3 rows; product(a, b) applies b first (kernels.inl product).
void product(vec4 a0, vec4 a1, vec4 a2, vec4 b0, vec4 b1, vec4 b2, out vec4 o0, out vec4 o1, out vec4 o2) {
  o0 = a0.x * b0 + a0.y * b1 + a0.z * b2 + vec4(0.0, 0.0, 0.0, a0.w);
  o1 = a1.x * b0 + a1.y * b1 + a1.z * b2 + vec4(0.0, 0.0, 0.0, a1.w);
  o2 = a2.x * b0 + a2.y * b1 + a2.z * b2 + vec4(0.0, 0.0, 0.0, a2.w);
}
float abs_determinant(vec4 r0, vec4 r1, vec4 r2) {
  return abs(determinant(mat3(r0.xyz, r1.xyz, r2.xyz)));
}
)";

// Per slot: (first node override, count, first morph override, count) into the arrays below.
constexpr const char* kOverrideRanges = R"(
layout(std430, binding = 14) readonly buffer OverrideRanges { uvec4 override_ranges[]; };
uniform bool u_overrides;  // some actor has an application-driven pose
)";

// Animation layers (docs/spec.md §3.11) for the sample and weights passes, at the bindings the
// later passes read placements and skin joints from. A layer record is LayerRecord's 32 words:
// count, clips (2 per word), seconds, contributor weights, layer weight, mode, mask, reference.
// The tables: word 0 the references' offset, word 1 the first-key references' offset (uint
// bits), then per mask its weight per rig node and per morph weight, then per reference per rig
// node T, R⁻¹ (xyzw), S (10 floats) and its morph weights, then per clip its time-0 reference.
constexpr const char* kLayers = R"(
layout(std430, binding = 2) readonly buffer LayerRecords { uint layer_records[]; };
layout(std430, binding = 13) readonly buffer LayerTables { float layer_tables[]; };
uniform bool u_layers;  // some actor has used a layer: the records exist
const uint MAX_LAYERS = 4u;  // kMaxLayers
const uint NONE = 0xFFFFFFFFu;

// The first word of layer l (0-based) of a slot.
uint layer_at(uint slot, uint l) { return (slot * MAX_LAYERS + l) * 32u; }
uint layer_count(uint at) { return layer_records[at]; }
uint layer_clip(uint at, uint i) { return (layer_records[at + 1u + i / 2u] >> (16u * (i % 2u))) & 0xFFFFu; }
float layer_seconds(uint at, uint i) { return uintBitsToFloat(layer_records[at + 5u + i]); }
float layer_contributor_weight(uint at, uint i) { return uintBitsToFloat(layer_records[at + 13u + i]); }
bool layer_additive(uint at) { return layer_records[at + 22u] == 1u; }
bool layer_used(uint at, uint i) { return i == 0u || layer_contributor_weight(at, i) > 0.0; }
// The layer's weight times its mask's weight of entry k: a rig node, or u_node_count + a morph
// weight (the mask's weight of the node whose mesh it belongs to).
float layer_weight(uint at, uint k) {
  float w = uintBitsToFloat(layer_records[at + 21u]);
  uint mask = layer_records[at + 23u];
  return mask == NONE ? w : w * layer_tables[2u + mask * (u_node_count + u_weight_count) + k];
}
// The first table entry of the reference contributor i of an additive layer subtracts.
uint layer_reference(uint at, uint i) {
  uint ref = layer_records[at + 24u];
  if (ref == NONE) ref = floatBitsToUint(layer_tables[floatBitsToUint(layer_tables[1]) + layer_clip(at, i)]);
  return floatBitsToUint(layer_tables[0]) + ref * (10u * u_node_count + u_weight_count);
}
)";

// One invocation per (slot, rig node): the node's local TRS blended from the actor's
// contributors, then root motion removal on the root node (remove_root_motion: the extracted
// components replaced by the contributors' values at clip time 0, blended by weight), then the
// animation layers in order (apply_layers), then its application-driven override
// (apply_overrides), or the "not animated" mark (the hierarchy then uses the rest local).
constexpr const char* kSample = R"(
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
constexpr const char* kWeights = R"(
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

// One invocation per slot: world' of every node, parents first (LocalToModelJob).
constexpr const char* kHierarchy = R"(
uniform bool u_framed;
uniform vec4 u_frame[3];
void main() {
  uint slot = invocation();
  if (slot >= u_slots) return;
  for (uint n = 0u; n < u_node_count; ++n) {
    uint at = scratch_at(slot, n);
    int parent = nodes[n].meta.x;
    bool animated = locals[at].w != 0.0;
    uint pat = parent >= 0 ? scratch_at(slot, uint(parent)) : 0u;
    bool moved = animated || (parent >= 0 && locals[pat + 2u * TILE].w != 0.0);
    if (animated) locals[at + 2u * TILE].w = moved ? 1.0 : 0.0;
    else locals[at] = vec4(0.0), locals[at + TILE] = vec4(0.0), locals[at + 2u * TILE] = vec4(0.0, 0.0, 0.0, moved ? 1.0 : 0.0);
    if (!moved) {
      worlds[at] = nodes[n].world[0];
      worlds[at + TILE] = nodes[n].world[1];
      worlds[at + 2u * TILE] = nodes[n].world[2];
      continue;
    }
    vec4 l0 = nodes[n].local[0], l1 = nodes[n].local[1], l2 = nodes[n].local[2];
    if (animated) {
      vec3 t = locals[at].xyz;
      vec4 q = locals[at + TILE];
      vec3 s = locals[at + 2u * TILE].xyz;
      float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
      float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
      float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
      l0 = vec4((1.0 - 2.0 * (yy + zz)) * s.x, 2.0 * (xy - wz) * s.y, 2.0 * (xz + wy) * s.z, t.x);
      l1 = vec4(2.0 * (xy + wz) * s.x, (1.0 - 2.0 * (xx + zz)) * s.y, 2.0 * (yz - wx) * s.z, t.y);
      l2 = vec4(2.0 * (xz - wy) * s.x, 2.0 * (yz + wx) * s.y, (1.0 - 2.0 * (xx + yy)) * s.z, t.z);
    }
    vec4 o0 = l0, o1 = l1, o2 = l2;
    if (parent >= 0)
      product(worlds[pat], worlds[pat + TILE], worlds[pat + 2u * TILE], l0, l1, l2, o0, o1, o2);
    else if (u_framed)
      product(u_frame[0], u_frame[1], u_frame[2], l0, l1, l2, o0, o1, o2);
    worlds[at] = o0;
    worlds[at + TILE] = o1;
    worlds[at + 2u * TILE] = o2;
  }
}
)";

// The palette and instances passes' own inputs and their outputs.
constexpr const char* kOutput = R"(
layout(std430, binding = 2) readonly buffer Placements { mat4 placements[]; };
struct SkinJoint {
  uvec4 meta;  // rig index of the joint
  vec4 inverse_bind[3];
};
layout(std430, binding = 13) readonly buffer SkinJoints { SkinJoint skin_joints[]; };
layout(std430, binding = 14) writeonly buffer Output { vec4 output_rows[]; };
layout(std430, binding = 15) writeonly buffer OutputWeights { float output_weights[]; };
)";

// One invocation per (slot, joint) of one skin: its palette rows (PaletteJob), written where the
// draw reads them.
constexpr const char* kPalette = R"(
uniform uint u_first_joint;  // into skin_joints
uniform uint u_joint_count;
uniform bool u_static_mesh;
uniform bool u_has_correction;
uniform vec4 u_correction[3];
uniform uint u_mesh_node;
void main() {
  uint id = invocation();
  if (id >= u_slots * u_joint_count) return;
  uint slot = id / u_joint_count, j = id % u_joint_count;
  SkinJoint joint = skin_joints[u_first_joint + j];
  uint at = scratch_at(slot, joint.meta.x);
  vec4 m0, m1, m2;
  product(worlds[at], worlds[at + TILE], worlds[at + 2u * TILE], joint.inverse_bind[0], joint.inverse_bind[1],
          joint.inverse_bind[2], m0, m1, m2);
  vec4 o0 = m0, o1 = m1, o2 = m2;
  if (u_static_mesh) {
    if (u_has_correction) product(u_correction[0], u_correction[1], u_correction[2], m0, m1, m2, o0, o1, o2);
  } else {
    uint mat = scratch_at(slot, u_mesh_node);
    vec4 w0 = worlds[mat], w1 = worlds[mat + TILE], w2 = worlds[mat + 2u * TILE];
    if (abs_determinant(w0, w1, w2) > 1e-12) {
      mat3 linear = inverse(transpose(mat3(w0.xyz, w1.xyz, w2.xyz)));  // rows → glm-style columns
      vec3 tr = -(linear * vec3(w0.w, w1.w, w2.w));
      vec4 i0 = vec4(linear[0][0], linear[1][0], linear[2][0], tr.x);
      vec4 i1 = vec4(linear[0][1], linear[1][1], linear[2][1], tr.y);
      vec4 i2 = vec4(linear[0][2], linear[1][2], linear[2][2], tr.z);
      product(i0, i1, i2, m0, m1, m2, o0, o1, o2);
    }
  }
  uint out_at = (u_first_slot * u_joint_count + id) * 3u;
  output_rows[out_at] = o0;
  output_rows[out_at + 1u] = o1;
  output_rows[out_at + 2u] = o2;
}
)";

// One invocation per slot of one drawn node's stream: its instance transform (InstanceRule) and
// morph weights, padded to the stream's stride with zeros.
constexpr const char* kInstances = R"(
uniform uint u_node;
uniform uint u_rule;  // 0 rigid, 1 static mesh, 2 animated mesh
uniform bool u_framed;
uniform vec4 u_unframe[3];
uniform vec4 u_mesh_world[3];
uniform uint u_weight_offset;
uniform uint u_weight_count_drawn;
uniform uint u_weight_stride;
void main() {
  uint slot = invocation();
  if (slot >= u_slots) return;
  uint crowd_slot = u_first_slot + slot;
  mat4 m = placements[crowd_slot];
  vec4 p0 = vec4(m[0][0], m[1][0], m[2][0], m[3][0]);
  vec4 p1 = vec4(m[0][1], m[1][1], m[2][1], m[3][1]);
  vec4 p2 = vec4(m[0][2], m[1][2], m[2][2], m[3][2]);
  vec4 f0 = p0, f1 = p1, f2 = p2;
  if (u_framed) product(p0, p1, p2, u_unframe[0], u_unframe[1], u_unframe[2], f0, f1, f2);
  uint at = scratch_at(slot, u_node);
  vec4 w0 = worlds[at], w1 = worlds[at + TILE], w2 = worlds[at + 2u * TILE];
  vec4 o0 = f0, o1 = f1, o2 = f2;
  if (u_rule == 1u)
    product(p0, p1, p2, u_mesh_world[0], u_mesh_world[1], u_mesh_world[2], o0, o1, o2);
  else if (u_rule == 0u || abs_determinant(w0, w1, w2) > 1e-12)
    product(f0, f1, f2, w0, w1, w2, o0, o1, o2);
  output_rows[crowd_slot * 3u] = o0;
  output_rows[crowd_slot * 3u + 1u] = o1;
  output_rows[crowd_slot * 3u + 2u] = o2;
  for (uint i = 0u; i < u_weight_stride; ++i)
    output_weights[crowd_slot * u_weight_stride + i] =
        i < u_weight_count_drawn ? weights[slot * u_weight_count + u_weight_offset + i] : 0.0;
}
)";

}  // namespace

std::string animation_compute_source(AnimationPass pass) {
  switch (pass) {
    case AnimationPass::sample: return std::string(kCommon) + kOverrideRanges + kLayers + kSample;
    case AnimationPass::weights: return std::string(kCommon) + kOverrideRanges + kLayers + kWeights;
    case AnimationPass::hierarchy: return std::string(kCommon) + kHierarchy;
    case AnimationPass::palette: return std::string(kCommon) + kOutput + kPalette;
    case AnimationPass::instances: return std::string(kCommon) + kOutput + kInstances;
  }
  return {};
}

}  // namespace gltf_crowd::gl
