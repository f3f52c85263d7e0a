// GLSL of the passes after the pose (docs/architecture.md "GPU animation"): hierarchy (world' of
// every node), palette (per skin) and instances (per stream), writing what the draws read.
// Joined to the common prelude by animation_compute_source.
#include "gl/animation_shader_parts.hpp"

namespace gltf_crowd::gl {

// One invocation per slot: world' of every node, parents first (LocalToModelJob).
const char* const kHierarchy = R"(
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
const char* const kOutput = R"(
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
const char* const kPalette = R"(
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
const char* const kInstances = R"(
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

}  // namespace gltf_crowd::gl
