// GLSL texts, embedded so the library never loads files at run time. Based on: glTF 2.0
// §3.7.2.1 (attributes), §3.7.3 (skinning), §3.9 and Appendix B (metallic-roughness BRDF:
// GGX distribution, height-correlated Smith visibility, Schlick Fresnel), docs/spec.md §4 (palettes as
// three affine rows), Schüler 2006 "Normal Mapping without Precomputed Tangents" (the tangent
// frame from screen-space derivatives when a primitive has no TANGENT), KHR_texture_transform.
#include "gl/shaders.hpp"

#include <fmt/format.h>

#include "gltf_crowd/error.hpp"
#include "gltf_crowd/gl_renderers.hpp"

namespace gltf_crowd::gl {
namespace {

std::string version(ShaderDialect dialect) {
  switch (dialect) {
    case ShaderDialect::glsl430: return "#version 430 core\n";
    case ShaderDialect::glsl330: return "#version 330 core\n";
    case ShaderDialect::essl300:
      return "#version 300 es\n"
             "precision highp float;\nprecision highp int;\n"
             "precision highp sampler2D;\nprecision highp usampler2D;\nprecision highp sampler2DShadow;\n";
  }
  return {};
}

constexpr const char* vertex_outputs = R"glsl(
out vec3 v_position;    // world space
out vec3 v_normal;      // world space, unit length
out vec4 v_tangent;     // world space xyz, w = handedness (flipped with a mirroring transform)
out vec2 v_texcoord0;
out vec2 v_texcoord1;
out vec4 v_color;
flat out int v_mirrored;  // 1 when the instance transform has det < 0
flat out vec4 v_tint;     // the actor's base color multiplier (Crowd::tints)
)glsl";

// After crowd_skinning_glsl() (gltf_crowd/gltf_crowd_skinning.glsl), which declares the
// attributes and data and deforms the vertex: the outputs the shading reads.
constexpr const char* crowd_vertex_body = R"glsl(
uniform mat4 u_view_projection;

void main() {
  GltfCrowdVertex vertex = gltf_crowd_vertex();
  v_normal = vertex.normal;
  v_tangent = vertex.tangent;
  v_position = vertex.position.xyz;
  v_texcoord0 = a_texcoord0;
  v_texcoord1 = a_texcoord1;
  v_color = a_color;
  v_mirrored = determinant(mat3(vertex.instance)) < 0.0 ? 1 : 0;
  v_tint = gltf_crowd_tint(vertex.slot);
  gl_Position = u_view_projection * vertex.position;
}
)glsl";

constexpr const char* reference_vertex_body = R"glsl(
layout(location = 0) in vec3 a_position;  // world space, morphed and skinned on the CPU
layout(location = 1) in vec3 a_normal;    // world space, unit length
layout(location = 2) in vec4 a_tangent;   // world space, w = handedness
layout(location = 3) in vec2 a_texcoord0;
layout(location = 4) in vec2 a_texcoord1;
layout(location = 5) in vec4 a_color;

uniform mat4 u_view_projection;
uniform vec4 u_tint;  // the drawn actor's Actor::tint()

void main() {
  v_position = a_position;
  v_tint = u_tint;
  v_normal = a_normal;
  v_tangent = a_tangent;
  v_texcoord0 = a_texcoord0;
  v_texcoord1 = a_texcoord1;
  v_color = a_color;
  v_mirrored = 0;  // the reference sets the winding per draw with glFrontFace
  gl_Position = u_view_projection * vec4(a_position, 1.0);
}
)glsl";

constexpr const char* fragment_body = R"glsl(
in vec3 v_position;
in vec3 v_normal;
in vec4 v_tangent;
in vec2 v_texcoord0;
in vec2 v_texcoord1;
in vec4 v_color;
flat in int v_mirrored;
flat in vec4 v_tint;

uniform vec4 u_base_color_factor;   // linear
uniform float u_metallic_factor;
uniform float u_roughness_factor;
uniform vec3 u_emissive_factor;
uniform float u_normal_scale;
uniform float u_occlusion_strength;
// TEXCOORD set of each material texture: 0 or 1; -1 when the material has no such texture.
uniform int u_base_color_uv;
uniform int u_metallic_roughness_uv;
uniform int u_normal_uv;
uniform int u_occlusion_uv;
uniform int u_emissive_uv;
// KHR_texture_transform of each material texture: uv' = M · (uv, 1) (material.cpp uv_transform).
uniform mat3x2 u_base_color_uv_transform;
uniform mat3x2 u_metallic_roughness_uv_transform;
uniform mat3x2 u_normal_uv_transform;
uniform mat3x2 u_occlusion_uv_transform;
uniform mat3x2 u_emissive_uv_transform;
uniform sampler2D u_base_color_texture;          // sRGB texture: sampling returns linear
uniform sampler2D u_metallic_roughness_texture;  // linear: G roughness, B metallic
uniform sampler2D u_normal_texture;              // linear, tangent space
uniform sampler2D u_occlusion_texture;           // linear, R
uniform sampler2D u_emissive_texture;            // sRGB texture
uniform int u_alpha_mode;           // 0 OPAQUE, 1 MASK, 2 BLEND
uniform float u_alpha_cutoff;
uniform bool u_double_sided;
uniform bool u_has_tangents;        // v_tangent is valid
uniform bool u_instance_winding;    // cull by v_mirrored here: the group mixes windings
uniform vec4 u_eye;                 // w = 1: viewer position; w = 0: unit vector toward it
uniform vec3 u_to_light;            // unit vector toward the light
uniform vec3 u_light_color;         // irradiance of a surface facing the light
uniform vec3 u_ambient_color;
// Camera::shadow: world → shadow map texture coordinates and depth ([0, 1]³), the receiver's
// push along its normal before the lookup (world units), and the map's texel size (1 / side).
uniform bool u_shadowed;
uniform mat4 u_shadow_matrix;
uniform float u_shadow_normal_offset;
uniform float u_shadow_texel;
uniform sampler2DShadow u_shadow_map;  // compare mode on, linear filter: 2 × 2 PCF per lookup

out vec4 frag_color;

const float pi = 3.14159265;

vec2 texcoord(int set, mat3x2 transform) {
  return transform * vec3(set == 1 ? v_texcoord1 : v_texcoord0, 1.0);
}

// The fraction of the directional light that reaches this fragment: 3 × 3 hardware-filtered
// lookups (percentage-closer filtering, Reeves et al. 1987), so edges fade over about 4 texels.
// Outside the map there is no shadow.
float light_visibility(vec3 geometric_normal) {
  if (!u_shadowed) return 1.0;
  vec4 p = u_shadow_matrix * vec4(v_position + geometric_normal * u_shadow_normal_offset, 1.0);
  vec3 q = p.xyz / p.w;
  if (any(lessThan(q, vec3(0.0))) || any(greaterThan(q, vec3(1.0)))) return 1.0;
  float lit = 0.0;
  for (int y = -1; y <= 1; ++y) {
    for (int x = -1; x <= 1; ++x) lit += textureLod(u_shadow_map, vec3(q.xy + vec2(x, y) * u_shadow_texel, q.z), 0.0);
  }
  return lit / 9.0;
}

vec3 srgb_encode(vec3 linear) {
  vec3 c = clamp(linear, 0.0, 1.0);
  return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

void main() {
  // Derivatives before any discard: afterwards they are undefined in non-uniform control flow.
  vec3 dp_dx = dFdx(v_position), dp_dy = dFdy(v_position);
  vec2 normal_uv = texcoord(u_normal_uv, u_normal_uv_transform);
  vec2 duv_dx = dFdx(normal_uv), duv_dy = dFdy(normal_uv);

  vec4 base = u_base_color_factor * v_color;
  if (u_base_color_uv >= 0) {
    base *= texture(u_base_color_texture, texcoord(u_base_color_uv, u_base_color_uv_transform));
  }
  base *= v_tint;  // the actor's tint (docs/spec.md §3.12), before the MASK test sees alpha
  if (u_alpha_mode == 1 && base.a < u_alpha_cutoff) discard;

  // With mixed windings the hardware cannot cull; a mirrored instance's front faces arrive
  // with the opposite winding, so its facing is gl_FrontFacing inverted.
  bool front = u_instance_winding ? (gl_FrontFacing != (v_mirrored != 0)) : gl_FrontFacing;
  if (u_instance_winding && !u_double_sided && !front) discard;

  vec3 n = normalize(v_normal);
  vec3 t = vec3(1.0, 0.0, 0.0), b = vec3(0.0, 1.0, 0.0);
  if (u_normal_uv >= 0) {
    if (u_has_tangents) {
      t = normalize(v_tangent.xyz - n * dot(n, v_tangent.xyz));
      b = cross(n, t) * v_tangent.w;
      // TANGENT follows the untransformed texture coordinates; the normal texture's axes are
      // the transformed ones: d(position)/d(uv') = (t b) · A⁻¹ for the linear part A of M.
      mat2 a = mat2(u_normal_uv_transform[0], u_normal_uv_transform[1]);
      if (a != mat2(1.0) && determinant(a) != 0.0) {
        mat2 inv = inverse(a);
        vec3 t2 = t * inv[0][0] + b * inv[0][1], b2 = t * inv[1][0] + b * inv[1][1];
        if (dot(t2, t2) > 0.0 && dot(b2, b2) > 0.0) {
          t = normalize(t2);
          b = normalize(b2);
        }
      }
    } else {
      vec3 q1 = cross(dp_dy, n), q2 = cross(n, dp_dx);
      t = q1 * duv_dx.x + q2 * duv_dy.x;
      b = q1 * duv_dx.y + q2 * duv_dy.y;
      float scale = inversesqrt(max(max(dot(t, t), dot(b, b)), 1e-30));
      t *= scale;
      b *= scale;
    }
  }
  if (!front) {  // the back of a double-sided surface: the whole frame flips (glTF 2.0 §3.9.6)
    n = -n; t = -t; b = -b;
  }
  float lit_fraction = light_visibility(n);
  if (u_normal_uv >= 0) {
    vec3 m = texture(u_normal_texture, normal_uv).xyz * 2.0 - 1.0;
    n = normalize(mat3(t, b, n) * vec3(m.xy * u_normal_scale, m.z));
  }

  float metallic = u_metallic_factor, roughness = u_roughness_factor;
  if (u_metallic_roughness_uv >= 0) {
    vec4 mr = texture(u_metallic_roughness_texture,
                      texcoord(u_metallic_roughness_uv, u_metallic_roughness_uv_transform));
    roughness *= mr.g;
    metallic *= mr.b;
  }
  metallic = clamp(metallic, 0.0, 1.0);
  roughness = clamp(roughness, 0.03, 1.0);
  float occlusion = 1.0;
  if (u_occlusion_uv >= 0) {
    occlusion += u_occlusion_strength *
                 (texture(u_occlusion_texture, texcoord(u_occlusion_uv, u_occlusion_uv_transform)).r - 1.0);
  }
  vec3 emissive = u_emissive_factor;
  if (u_emissive_uv >= 0) {
    emissive *= texture(u_emissive_texture, texcoord(u_emissive_uv, u_emissive_uv_transform)).rgb;
  }

  vec3 v = normalize(u_eye.w > 0.5 ? u_eye.xyz - v_position : u_eye.xyz);
  vec3 l = u_to_light;
  vec3 h = dot(l + v, l + v) > 1e-12 ? normalize(l + v) : n;
  float n_l = max(dot(n, l), 0.0);
  float n_v = max(abs(dot(n, v)), 1e-4);
  float n_h = max(dot(n, h), 0.0);
  float v_h = max(dot(v, h), 0.0);
  vec3 f0 = mix(vec3(0.04), base.rgb, metallic);
  vec3 diffuse_color = base.rgb * (1.0 - metallic);
  float a2 = roughness * roughness * roughness * roughness;  // α = roughness²
  float dn = n_h * n_h * (a2 - 1.0) + 1.0;
  float distribution = a2 / (pi * dn * dn);
  float visibility = 0.5 / max(n_l * sqrt(n_v * n_v * (1.0 - a2) + a2) +
                               n_v * sqrt(n_l * n_l * (1.0 - a2) + a2), 1e-6);
  vec3 fresnel = f0 + (1.0 - f0) * pow(1.0 - v_h, 5.0);
  // The BRDF times π, so that a white Lambert surface facing the light shows light_color.
  vec3 direct = ((1.0 - fresnel) * diffuse_color + pi * fresnel * distribution * visibility) *
                u_light_color * n_l * lit_fraction;
  vec3 ambient = u_ambient_color * (diffuse_color + f0) * occlusion;
  frag_color = vec4(srgb_encode(direct + ambient + emissive), u_alpha_mode == 2 ? base.a : 1.0);
}
)glsl";

// The depth and velocity passes (draw_depth, draw_velocity): no shading; only MASK materials
// sample their base color for the cutout, and groups mixing windings cull per instance as in
// fragment_body, so shadows, pre-pass depth and motion have the main pass's holes.
constexpr const char* cutout_fragment_body = R"glsl(
in vec2 v_texcoord0;
in vec2 v_texcoord1;
in vec4 v_color;
flat in int v_mirrored;
flat in vec4 v_tint;

uniform vec4 u_base_color_factor;
uniform int u_base_color_uv;
uniform mat3x2 u_base_color_uv_transform;
uniform sampler2D u_base_color_texture;
uniform int u_alpha_mode;  // 0 OPAQUE, 1 MASK (BLEND groups are not drawn in these passes)
uniform float u_alpha_cutoff;
uniform bool u_double_sided;
uniform bool u_instance_winding;

void cut_out() {
  bool front = gl_FrontFacing != (v_mirrored != 0);
  if (u_instance_winding && !u_double_sided && !front) discard;
  if (u_alpha_mode != 1) return;
  float alpha = u_base_color_factor.a * v_color.a * v_tint.a;  // the tint's alpha cuts out too
  if (u_base_color_uv >= 0) {
    vec2 uv = u_base_color_uv_transform * vec3(u_base_color_uv == 1 ? v_texcoord1 : v_texcoord0, 1.0);
    alpha *= texture(u_base_color_texture, uv).a;
  }
  if (alpha < u_alpha_cutoff) discard;
}
)glsl";

constexpr const char* depth_fragment_main = R"glsl(
void main() { cut_out(); }
)glsl";

// The depth pass of groups that need no cutout: no discard, so the depth test can run before
// the fragment shader (or a rasterizer skip it: the color mask is off).
constexpr const char* opaque_depth_fragment = R"glsl(
void main() {}
)glsl";

// Screen-space motion (docs/spec.md §6.4): this frame's position minus the previous frame's,
// in texture coordinates of the target ([0, 1] across it), so the previous frame's pixel of a
// fragment at uv is at uv - motion. Both clip positions are interpolated and divided per
// fragment, which keeps the motion of a perspective-projected surface exact across a triangle.
constexpr const char* velocity_fragment_main = R"glsl(
in vec4 v_clip;
in vec4 v_previous_clip;
out vec2 frag_motion;

void main() {
  cut_out();
  frag_motion = 0.5 * (v_clip.xy / v_clip.w - v_previous_clip.xy / v_previous_clip.w);
}
)glsl";

constexpr const char* velocity_vertex_outputs = R"glsl(
out vec2 v_texcoord0;
out vec2 v_texcoord1;
out vec4 v_color;
flat out int v_mirrored;
flat out vec4 v_tint;
out vec4 v_clip;           // this frame's clip position
out vec4 v_previous_clip;  // the previous frame's, through the previous camera
)glsl";

// After crowd_skinning_glsl() with GLTF_CROWD_PREVIOUS_FRAME: the vertex deformed with this
// frame's data and with the previous frame's (gltf_crowd_previous_position), each projected with
// its camera.
constexpr const char* crowd_velocity_vertex_body = R"glsl(
uniform mat4 u_view_projection;
uniform mat4 u_previous_view_projection;

void main() {
  GltfCrowdVertex vertex = gltf_crowd_vertex();
  vec4 previous = gltf_crowd_previous_position(vertex.slot, vertex.position);
  v_texcoord0 = a_texcoord0;
  v_texcoord1 = a_texcoord1;
  v_color = a_color;
  v_mirrored = determinant(mat3(vertex.instance)) < 0.0 ? 1 : 0;
  v_tint = gltf_crowd_tint(vertex.slot);
  v_clip = u_view_projection * vertex.position;
  v_previous_clip = u_previous_view_projection * previous;
  gl_Position = v_clip;
}
)glsl";

constexpr const char* reference_velocity_vertex_body = R"glsl(
layout(location = 0) in vec3 a_position;            // world space, this frame
layout(location = 3) in vec2 a_texcoord0;
layout(location = 4) in vec2 a_texcoord1;
layout(location = 5) in vec4 a_color;
layout(location = 10) in vec3 a_previous_position;  // world space, the previous frame

uniform mat4 u_view_projection;
uniform mat4 u_previous_view_projection;
uniform vec4 u_tint;

void main() {
  v_tint = u_tint;
  v_texcoord0 = a_texcoord0;
  v_texcoord1 = a_texcoord1;
  v_color = a_color;
  v_mirrored = 0;  // the reference sets the winding per draw with glFrontFace
  v_clip = u_view_projection * vec4(a_position, 1.0);
  v_previous_clip = u_previous_view_projection * vec4(a_previous_position, 1.0);
  gl_Position = v_clip;
}
)glsl";

// After crowd_skinning_glsl(): the vertex deformed once, for transform feedback.
constexpr const char* skin_vertex_body = R"glsl(
out vec4 c_position;
out vec4 c_normal;
out vec4 c_tangent;

void main() {
  GltfCrowdVertex vertex = gltf_crowd_vertex();
  c_position = vertex.position;
  c_normal = vec4(vertex.normal, determinant(mat3(vertex.instance)) < 0.0 ? 1.0 : 0.0);
  c_tangent = vertex.tangent;
  gl_Position = vertex.position;
}
)glsl";

constexpr const char* skin_fragment_body = R"glsl(
out vec4 frag_color;
void main() { frag_color = vec4(0.0); }
)glsl";

// After crowd_skinning_glsl() (for the slot, tint and attribute declarations): the outputs of
// crowd_vertex_body, read from the skinned-vertex cache instead of deforming the vertex again.
constexpr const char* cached_vertex_body = R"glsl(
#if defined(GLTF_CROWD_STORAGE_BUFFERS)
layout(std430, binding = 10) readonly buffer SkinnedVertices { vec4 skinned_rows[]; };
vec4 skinned_row(uint i) { return skinned_rows[i]; }
#else
uniform sampler2D u_skinned_vertex_texture;
uniform uint u_skinned_width;
vec4 skinned_row(uint i) {
  return texelFetch(u_skinned_vertex_texture, ivec2(int(i % u_skinned_width), int(i / u_skinned_width)), 0);
}
#endif
uniform mat4 u_view_projection;
uniform uint u_skinned_first;  // the instance the bound piece of the cache begins with

void main() {
  uint slot = gltf_crowd_instance_slot();
  uint row = ((u_instance_offset + uint(gl_InstanceID) - u_skinned_first) * u_vertex_count + uint(gl_VertexID)) * 3u;
  vec4 position = skinned_row(row);
  vec4 normal = skinned_row(row + 1u);
  v_tangent = skinned_row(row + 2u);
  v_normal = normal.xyz;
  v_position = position.xyz;
  v_texcoord0 = a_texcoord0;
  v_texcoord1 = a_texcoord1;
  v_color = a_color;
  v_mirrored = normal.w > 0.5 ? 1 : 0;
  v_tint = gltf_crowd_tint(slot);
  gl_Position = u_view_projection * position;
}
)glsl";

std::string storage_define(bool storage_buffers) {
  return storage_buffers ? "#define GLTF_CROWD_STORAGE_BUFFERS 1\n" : "";
}

}  // namespace

ShaderDialect plain_dialect(const char* who) {
  const bool desktop = epoxy_is_desktop_gl();
  const int version = epoxy_gl_version();
  if (desktop ? version >= 33 : version >= 30) {
    return desktop ? ShaderDialect::glsl330 : ShaderDialect::essl300;
  }
  throw Error(who, Rule::gl_version,
              fmt::format("needs OpenGL 3.3 core or OpenGL ES 3.0; the current context is {} {}.{}",
                          desktop ? "OpenGL" : "OpenGL ES", version / 10, version % 10));
}

std::string crowd_vertex_source(ShaderDialect dialect, bool storage_buffers) {
  return version(dialect) + storage_define(storage_buffers) + crowd_skinning_glsl() + vertex_outputs +
         crowd_vertex_body;
}

std::string reference_vertex_source(ShaderDialect dialect) {
  return version(dialect) + vertex_outputs + reference_vertex_body;
}

std::string fragment_source(ShaderDialect dialect) { return version(dialect) + fragment_body; }

std::string depth_fragment_source(ShaderDialect dialect) {
  return version(dialect) + cutout_fragment_body + depth_fragment_main;
}

std::string opaque_depth_fragment_source(ShaderDialect dialect) { return version(dialect) + opaque_depth_fragment; }

std::string crowd_velocity_vertex_source(ShaderDialect dialect, bool storage_buffers) {
  return version(dialect) + storage_define(storage_buffers) + "#define GLTF_CROWD_PREVIOUS_FRAME 1\n" +
         crowd_skinning_glsl() + velocity_vertex_outputs + crowd_velocity_vertex_body;
}

std::string reference_velocity_vertex_source(ShaderDialect dialect) {
  return version(dialect) + velocity_vertex_outputs + reference_velocity_vertex_body;
}

std::string velocity_fragment_source(ShaderDialect dialect) {
  return version(dialect) + cutout_fragment_body + velocity_fragment_main;
}

std::string skin_vertex_source(ShaderDialect dialect, bool storage_buffers) {
  return version(dialect) + storage_define(storage_buffers) + crowd_skinning_glsl() + skin_vertex_body;
}

std::string skin_fragment_source(ShaderDialect dialect) { return version(dialect) + skin_fragment_body; }

std::string cached_vertex_source(ShaderDialect dialect, bool storage_buffers) {
  return version(dialect) + storage_define(storage_buffers) + crowd_skinning_glsl() + vertex_outputs +
         cached_vertex_body;
}

}  // namespace gltf_crowd::gl
