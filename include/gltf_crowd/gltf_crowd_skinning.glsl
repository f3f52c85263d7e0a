// gltf-crowd: the crowd vertex shader's instance fetch, morph and skinning code, for
// applications that draw a CrowdRenderer's primitive groups with their own programs
// (docs/spec.md 6.8, examples/custom_shader). CrowdRenderer's own vertex shader is built from
// this same text, which the library embeds at build time: gltf_crowd::crowd_skinning_glsl()
// returns it, so an installed application needs no file at run time.
//
// Use: GLSL has no #include, so a vertex shader is the concatenation of
//   1. its #version line: "#version 430 core" for storage buffers, "#version 330 core" or
//      "#version 300 es" for textures; on ES also
//      "precision highp float; precision highp int; precision highp sampler2D;" (sampler2D
//      defaults to lowp there, too coarse for the RGBA32F data)
//   2. "#define GLTF_CROWD_STORAGE_BUFFERS 1" when CrowdRenderer::palette_storage() is
//      storage_buffer; without it this text reads the texture path; and
//      "#define GLTF_CROWD_PREVIOUS_FRAME 1" for the previous frame's data as well (motion
//      vectors: CrowdRenderer::draw_velocity's own shader; see "Previous frame" below);
//   3. this text;
//   4. the application's code, which calls the functions below from main().
// CrowdRenderer::bind_group_inputs(crowd, group, program) binds the data and sets every uniform
// declared here in `program`; the application sets its own (view-projection, lighting, ...).
//
// Vertex attributes (the group's vertex array; absent ones read the constants noted):
//   location 0  a_position   vec3
//   location 1  a_normal     vec3 (generated when the primitive has none)
//   location 2  a_tangent    vec4, w = handedness (absent: (1, 0, 0, 1))
//   location 3  a_texcoord0  vec2 (absent: 0)
//   location 4  a_texcoord1  vec2 (absent: 0)
//   location 5  a_color      vec4, linear (absent: 1)
//   location 6  a_joints0    uvec4     location 7  a_weights0  vec4
//   location 8  a_joints1    uvec4     location 9  a_weights1  vec4
//
// Per-slot data. A slot is an actor's index in the crowd; the instance list maps
// gl_InstanceID to slots. An affine row triple (r0, r1, r2) maps a point p (w = 1) to
// (dot(r0, p), dot(r1, p), dot(r2, p)).
//   transforms     3 rows per slot: the instance transform (placement x world of the drawn
//                  node; docs/spec.md 4.3)
//   palette        3 rows per joint, u_joint_count joints per slot: inverse(world(mesh node)) x
//                  world(joint) x inverse bind matrix, so instance x skin places the vertex
//                  (docs/spec.md 4.2)
//   instances      one uint slot per instance of the group
//   morph deltas   vec4 (xyz used) per target and vertex: delta of target t for vertex v at
//                  block * T * V + t * V + v (block 0 positions, u_normal_block normals,
//                  u_tangent_block tangents; T targets, V vertices)
//   morph weights  u_weight_quads vec4 per slot, 4 weights each, target order
//   tints          one vec4 per slot: the actor's base color multiplier (Crowd::tints)
// Storage buffers (GLTF_CROWD_STORAGE_BUFFERS, std430, readonly), binding points:
//   0 transforms, 1 palette, 2 instances, 3 morph deltas, 4 morph weights, 5 tints
// Textures (texelFetch, level 0; row = slot unless noted), texture unit and sampler uniform:
//   5  u_transform_texture     RGBA32F, 3 texels per slot
//   6  u_palette_texture       RGBA32F, 3 texels per joint
//   7  u_instance_texture      R32UI, one texel per row, row = instance
//   8  u_morph_delta_texture   RGBA32F, the deltas as a flat array wrapped at u_delta_width
//   9  u_morph_weight_texture  RGBA32F, u_weight_quads texels
//   10 u_tint_texture          RGBA32F, 1 texel
//
// Previous frame (GLTF_CROWD_PREVIOUS_FRAME; docs/spec.md 6.4): the renderer keeps the
// previous frame's transforms, palettes and morph weights, laid out as this frame's, once
// draw_velocity ran or CrowdRendererOptions::previous_frame is set. Storage bindings 6 previous
// transforms, 7 previous palette, 8 previous morph weights, 9 previous slots; texture units 12
// u_previous_transform_texture, 13 u_previous_palette_texture, 14
// u_previous_morph_weight_texture, 15 u_previous_slot_texture (R32UI). Previous slots: per slot,
// the slot its actor had then, 0xFFFFFFFF for an actor new in this frame; read only while
// u_remap_slots is true (actors were added or removed in between), else every actor kept its slot.
//
// Uniforms (all set by bind_group_inputs):
//   uint u_instance_offset   first instance of the draw in the group's instance list (0)
//   uint u_joint_count       storage buffers: palette joints per slot
//   uint u_weight_quads      storage buffers: vec4 of morph weights per slot
//   uint u_delta_width       textures: texels per row of the morph delta texture
//   bool u_skinned           the group is skinned: apply the palette
//   bool u_eight_influences  a_joints1 / a_weights1 are present
//   uint u_target_count      morph targets of the primitive, 0 = none
//   uint u_vertex_count      vertices of the primitive
//   uint u_normal_block      delta block of normal deltas, 0 = none
//   uint u_tangent_block     delta block of tangent deltas, 0 = none
//   bool u_remap_slots       GLTF_CROWD_PREVIOUS_FRAME: read the previous slots
//
// Functions:
//   uint gltf_crowd_instance_slot()              the slot of gl_InstanceID
//   mat4 gltf_crowd_instance_transform(slot)     the slot's instance transform
//   mat4 gltf_crowd_model_matrix(slot, inst)     object to world: inst x skin (inst if rigid)
//   void gltf_crowd_morph(slot, inout position, inout normal, inout tangent)
//                                                adds the weighted morph deltas (object space)
//   GltfCrowdVertex gltf_crowd_vertex()          this vertex morphed, skinned and placed
//   vec4 gltf_crowd_tint(slot)                   the actor's tint
//   mat4 gltf_crowd_affine(r0, r1, r2)           an affine row triple as a mat4
//   vec4 gltf_crowd_previous_position(slot, p)   GLTF_CROWD_PREVIOUS_FRAME: this vertex's world
//                                                position (w = 1) in the previous frame; p (its
//                                                position now) for an actor new in this frame
// Besides the attributes and uniforms above, every name this text declares starts with
// gltf_crowd_ or GltfCrowd: the application's code must not declare names of either kind.

#if defined(GLTF_CROWD_STORAGE_BUFFERS)
layout(std430, binding = 0) readonly buffer GltfCrowdTransforms { vec4 gltf_crowd_transform_rows[]; };
layout(std430, binding = 1) readonly buffer GltfCrowdPalette { vec4 gltf_crowd_palette_rows[]; };
layout(std430, binding = 2) readonly buffer GltfCrowdInstances { uint gltf_crowd_instance_slots[]; };
layout(std430, binding = 3) readonly buffer GltfCrowdMorphDeltas { vec4 gltf_crowd_morph_deltas[]; };
layout(std430, binding = 4) readonly buffer GltfCrowdMorphWeights { vec4 gltf_crowd_morph_weight_quads[]; };
layout(std430, binding = 5) readonly buffer GltfCrowdTints { vec4 gltf_crowd_tints[]; };
uniform uint u_joint_count;
uniform uint u_weight_quads;
uniform uint u_instance_offset;

uint gltf_crowd_instance_slot() { return gltf_crowd_instance_slots[u_instance_offset + uint(gl_InstanceID)]; }
vec4 gltf_crowd_tint(uint slot) { return gltf_crowd_tints[slot]; }
vec4 gltf_crowd_transform_row(uint slot, uint row) { return gltf_crowd_transform_rows[slot * 3u + row]; }
vec4 gltf_crowd_palette_row(uint slot, uint joint, uint row) {
  return gltf_crowd_palette_rows[(slot * u_joint_count + joint) * 3u + row];
}
vec4 gltf_crowd_morph_weights4(uint slot, uint quad) {
  return gltf_crowd_morph_weight_quads[slot * u_weight_quads + quad];
}
vec3 gltf_crowd_morph_delta(uint index) { return gltf_crowd_morph_deltas[index].xyz; }
#else
uniform sampler2D u_transform_texture;
uniform sampler2D u_palette_texture;
uniform highp usampler2D u_instance_texture;
uniform sampler2D u_morph_delta_texture;
uniform sampler2D u_morph_weight_texture;
uniform sampler2D u_tint_texture;
uniform uint u_delta_width;
uniform uint u_instance_offset;

uint gltf_crowd_instance_slot() {
  return texelFetch(u_instance_texture, ivec2(0, int(u_instance_offset) + gl_InstanceID), 0).r;
}
vec4 gltf_crowd_tint(uint slot) { return texelFetch(u_tint_texture, ivec2(0, int(slot)), 0); }
vec4 gltf_crowd_transform_row(uint slot, uint row) {
  return texelFetch(u_transform_texture, ivec2(int(row), int(slot)), 0);
}
vec4 gltf_crowd_palette_row(uint slot, uint joint, uint row) {
  return texelFetch(u_palette_texture, ivec2(int(joint * 3u + row), int(slot)), 0);
}
vec4 gltf_crowd_morph_weights4(uint slot, uint quad) {
  return texelFetch(u_morph_weight_texture, ivec2(int(quad), int(slot)), 0);
}
vec3 gltf_crowd_morph_delta(uint index) {
  return texelFetch(u_morph_delta_texture, ivec2(int(index % u_delta_width), int(index / u_delta_width)), 0).xyz;
}
#endif

// The data of this frame, or with `previous` (GLTF_CROWD_PREVIOUS_FRAME) of the previous one.
#if defined(GLTF_CROWD_PREVIOUS_FRAME)
#if defined(GLTF_CROWD_STORAGE_BUFFERS)
layout(std430, binding = 6) readonly buffer GltfCrowdPreviousTransforms { vec4 gltf_crowd_previous_transform_rows[]; };
layout(std430, binding = 7) readonly buffer GltfCrowdPreviousPalette { vec4 gltf_crowd_previous_palette_rows[]; };
layout(std430, binding = 8) readonly buffer GltfCrowdPreviousMorphWeights {
  vec4 gltf_crowd_previous_morph_weight_quads[];
};
layout(std430, binding = 9) readonly buffer GltfCrowdPreviousSlots { uint gltf_crowd_previous_slots[]; };

vec4 gltf_crowd_previous_transform_row(uint slot, uint row) {
  return gltf_crowd_previous_transform_rows[slot * 3u + row];
}
vec4 gltf_crowd_previous_palette_row(uint slot, uint joint, uint row) {
  return gltf_crowd_previous_palette_rows[(slot * u_joint_count + joint) * 3u + row];
}
vec4 gltf_crowd_previous_morph_weights4(uint slot, uint quad) {
  return gltf_crowd_previous_morph_weight_quads[slot * u_weight_quads + quad];
}
uint gltf_crowd_previous_slot_entry(uint slot) { return gltf_crowd_previous_slots[slot]; }
#else
uniform sampler2D u_previous_transform_texture;
uniform sampler2D u_previous_palette_texture;
uniform sampler2D u_previous_morph_weight_texture;
uniform highp usampler2D u_previous_slot_texture;

vec4 gltf_crowd_previous_transform_row(uint slot, uint row) {
  return texelFetch(u_previous_transform_texture, ivec2(int(row), int(slot)), 0);
}
vec4 gltf_crowd_previous_palette_row(uint slot, uint joint, uint row) {
  return texelFetch(u_previous_palette_texture, ivec2(int(joint * 3u + row), int(slot)), 0);
}
vec4 gltf_crowd_previous_morph_weights4(uint slot, uint quad) {
  return texelFetch(u_previous_morph_weight_texture, ivec2(int(quad), int(slot)), 0);
}
uint gltf_crowd_previous_slot_entry(uint slot) {
  return texelFetch(u_previous_slot_texture, ivec2(0, int(slot)), 0).r;
}
#endif
uniform bool u_remap_slots;

vec4 gltf_crowd_transform_row_of(bool previous, uint slot, uint row) {
  return previous ? gltf_crowd_previous_transform_row(slot, row) : gltf_crowd_transform_row(slot, row);
}
vec4 gltf_crowd_palette_row_of(bool previous, uint slot, uint joint, uint row) {
  return previous ? gltf_crowd_previous_palette_row(slot, joint, row) : gltf_crowd_palette_row(slot, joint, row);
}
vec4 gltf_crowd_morph_weights4_of(bool previous, uint slot, uint quad) {
  return previous ? gltf_crowd_previous_morph_weights4(slot, quad) : gltf_crowd_morph_weights4(slot, quad);
}
#else
vec4 gltf_crowd_transform_row_of(bool previous, uint slot, uint row) { return gltf_crowd_transform_row(slot, row); }
vec4 gltf_crowd_palette_row_of(bool previous, uint slot, uint joint, uint row) {
  return gltf_crowd_palette_row(slot, joint, row);
}
vec4 gltf_crowd_morph_weights4_of(bool previous, uint slot, uint quad) { return gltf_crowd_morph_weights4(slot, quad); }
#endif

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_tangent;
layout(location = 3) in vec2 a_texcoord0;
layout(location = 4) in vec2 a_texcoord1;
layout(location = 5) in vec4 a_color;
layout(location = 6) in uvec4 a_joints0;
layout(location = 7) in vec4 a_weights0;
layout(location = 8) in uvec4 a_joints1;
layout(location = 9) in vec4 a_weights1;

uniform bool u_skinned;
uniform bool u_eight_influences;
uniform uint u_target_count;
uniform uint u_vertex_count;
uniform uint u_normal_block;
uniform uint u_tangent_block;

// Rows of an affine matrix as a mat4 (GLSL matrices are column-major).
mat4 gltf_crowd_affine(vec4 row0, vec4 row1, vec4 row2) {
  return transpose(mat4(row0, row1, row2, vec4(0.0, 0.0, 0.0, 1.0)));
}

vec3 gltf_crowd_safe_normalize(vec3 v) { return dot(v, v) > 0.0 ? normalize(v) : vec3(0.0, 0.0, 1.0); }

mat4 gltf_crowd_instance_transform_of(bool previous, uint slot) {
  return gltf_crowd_affine(gltf_crowd_transform_row_of(previous, slot, 0u), gltf_crowd_transform_row_of(previous, slot, 1u),
                           gltf_crowd_transform_row_of(previous, slot, 2u));
}

mat4 gltf_crowd_instance_transform(uint slot) { return gltf_crowd_instance_transform_of(false, slot); }

// Morph targets: position, normal and tangent plus the weighted deltas of this vertex
// (gl_VertexID). Zero weights are skipped, so an actor at rest reads no deltas.
void gltf_crowd_morph_of(bool previous, uint slot, inout vec3 position, inout vec3 normal, inout vec3 tangent) {
  uint block = u_target_count * u_vertex_count;
  for (uint t = 0u; t < u_target_count; ++t) {
    float w = gltf_crowd_morph_weights4_of(previous, slot, t / 4u)[t % 4u];
    if (w == 0.0) continue;
    uint v = t * u_vertex_count + uint(gl_VertexID);
    position += w * gltf_crowd_morph_delta(v);
    if (u_normal_block != 0u) normal += w * gltf_crowd_morph_delta(u_normal_block * block + v);
    if (u_tangent_block != 0u) tangent += w * gltf_crowd_morph_delta(u_tangent_block * block + v);
  }
}

void gltf_crowd_morph(uint slot, inout vec3 position, inout vec3 normal, inout vec3 tangent) {
  gltf_crowd_morph_of(false, slot, position, normal, tangent);
}

// Adds w_k * palette(joint_k) of one JOINTS_n / WEIGHTS_n set to the blended rows.
void gltf_crowd_skin_rows(bool previous, uint slot, uvec4 joints, vec4 weights, inout vec4 r0, inout vec4 r1,
                          inout vec4 r2) {
  for (int k = 0; k < 4; ++k) {
    float w = weights[k];
    if (w == 0.0) continue;
    uint j = joints[k];
    r0 += w * gltf_crowd_palette_row_of(previous, slot, j, 0u);
    r1 += w * gltf_crowd_palette_row_of(previous, slot, j, 1u);
    r2 += w * gltf_crowd_palette_row_of(previous, slot, j, 2u);
  }
}

// Object to world for this vertex: linear blend skinning (sum of w_i * palette_i over up to 8
// influences, blended row by row, docs/spec.md 4), then the instance transform `instance`.
mat4 gltf_crowd_model_matrix_of(bool previous, uint slot, mat4 instance) {
  if (!u_skinned) return instance;
  vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
  gltf_crowd_skin_rows(previous, slot, a_joints0, a_weights0, r0, r1, r2);
  if (u_eight_influences) gltf_crowd_skin_rows(previous, slot, a_joints1, a_weights1, r0, r1, r2);
  return instance * gltf_crowd_affine(r0, r1, r2);  // the instance transform applies after skinning
}

mat4 gltf_crowd_model_matrix(uint slot, mat4 instance) { return gltf_crowd_model_matrix_of(false, slot, instance); }

// This vertex of this instance in world space.
struct GltfCrowdVertex {
  uint slot;       // the actor's slot (gltf_crowd_tint(slot))
  mat4 instance;   // the instance transform; det < 0 mirrors (flips the winding)
  mat4 model;      // object to world: instance x skin
  vec4 position;   // world space, w = 1
  vec3 normal;     // world space, unit length
  vec4 tangent;    // world space xyz (not normalized), w = handedness, flipped when model mirrors
};

GltfCrowdVertex gltf_crowd_vertex() {
  GltfCrowdVertex vertex;
  vertex.slot = gltf_crowd_instance_slot();
  vec3 position = a_position;
  vec3 normal = a_normal;
  vec3 tangent = a_tangent.xyz;
  gltf_crowd_morph(vertex.slot, position, normal, tangent);
  vertex.instance = gltf_crowd_instance_transform(vertex.slot);
  vertex.model = gltf_crowd_model_matrix(vertex.slot, vertex.instance);
  // Normals: the cofactor matrix is det * inverse-transpose, right for non-uniform scale; the
  // sign of det keeps mirroring transforms from turning normals inside out. Tangents are
  // directions (w = 0), so the linear part alone moves them.
  vec3 c0 = vertex.model[0].xyz, c1 = vertex.model[1].xyz, c2 = vertex.model[2].xyz;
  float handedness = dot(c0, cross(c1, c2)) < 0.0 ? -1.0 : 1.0;
  mat3 cofactor = mat3(cross(c1, c2), cross(c2, c0), cross(c0, c1));
  vertex.normal = gltf_crowd_safe_normalize(handedness * (cofactor * normal));
  vertex.tangent = vec4(mat3(vertex.model) * tangent, a_tangent.w * handedness);
  vertex.position = vertex.model * vec4(position, 1.0);
  return vertex;
}

#if defined(GLTF_CROWD_PREVIOUS_FRAME)
// This vertex of the actor in `slot` in the previous frame, morphed, skinned and placed with
// that frame's data: world space, w = 1. An actor new in this frame has no previous frame: then
// `current` (no motion of its own).
vec4 gltf_crowd_previous_position(uint slot, vec4 current) {
  uint before = u_remap_slots ? gltf_crowd_previous_slot_entry(slot) : slot;
  if (before == 0xFFFFFFFFu) return current;
  vec3 position = a_position;
  vec3 normal = a_normal;
  vec3 tangent = a_tangent.xyz;
  gltf_crowd_morph_of(true, before, position, normal, tangent);
  mat4 model = gltf_crowd_model_matrix_of(true, before, gltf_crowd_instance_transform_of(true, before));
  return model * vec4(position, 1.0);
}
#endif
