// GLSL 4.30 compute sources of the GPU evaluator (docs/architecture.md "GPU animation"): here the
// common prelude and animation_compute_source, the passes in animation_pose_shaders.cpp and
// animation_output_shaders.cpp. They repeat the CPU jobs' arithmetic operation for operation
// (jobs.cpp, sampling.cpp, kernels.inl, pack.cpp, layer_blend.cpp), so the two paths differ only by
// floating-point rounding: locate_key's search, interpolate's STEP / LINEAR (shortest-arc slerp) /
// CUBICSPLINE, the sign-aligned normalized blend, the animation layers, compose_trs, the hierarchy
// with its "moved" shortcut, the palettes and instance rules.
// Plain std430 storage buffers and uniforms only, so a Vulkan backend can compile the same text.
#include "gl/animation_shader_parts.hpp"
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
