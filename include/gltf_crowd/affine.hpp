// Affine transforms in the packed GPU layout (docs/spec.md §4): three rows of a 3×4 matrix, 48 bytes.
// p' = (dot(rows[0], p), dot(rows[1], p), dot(rows[2], p)) for p = (x, y, z, 1). The hot path
// composes these directly, so world matrices, palettes and instance transforms need no
// conversion before packing.
#pragma once

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

struct Affine {
  glm::vec4 rows[3] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
};

// The affine part of m (its last row is assumed to be (0, 0, 0, 1), as glTF requires).
inline Affine to_affine(const glm::mat4& m) noexcept {
  Affine a;
  for (int r = 0; r < 3; ++r) a.rows[r] = glm::vec4(m[0][r], m[1][r], m[2][r], m[3][r]);
  return a;
}

inline glm::mat4 to_mat4(const Affine& a) noexcept {
  glm::mat4 m(1.0f);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m[c][r] = a.rows[r][c];
  return m;
}

// T × R × S of a local transform (glTF 2.0 §3.5.2); `rotation` must be unit length.
inline Affine compose_trs(const glm::vec3& t, const glm::quat& q, const glm::vec3& s) noexcept {
  const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  Affine a;
  a.rows[0] = glm::vec4((1 - 2 * (yy + zz)) * s.x, 2 * (xy - wz) * s.y, 2 * (xz + wy) * s.z, t.x);
  a.rows[1] = glm::vec4(2 * (xy + wz) * s.x, (1 - 2 * (xx + zz)) * s.y, 2 * (yz - wx) * s.z, t.y);
  a.rows[2] = glm::vec4(2 * (xz - wy) * s.x, 2 * (yz + wx) * s.y, (1 - 2 * (xx + yy)) * s.z, t.z);
  return a;
}

// a × b (apply b first), with the affine kernels the jobs use (jobs.hpp affine_kernel_name), so
// a product computed here equals the same product inside a job to the last bit.
Affine operator*(const Affine& a, const Affine& b) noexcept;

// out = a × b (out aliases neither), the same product as a function chosen once per process:
// hot loops fetch it once and call it per product instead of paying operator*'s lookup.
using AffineProduct = void (*)(const Affine& a, const Affine& b, Affine& out) noexcept;
AffineProduct affine_product() noexcept;

// Inverse of an invertible affine transform.
Affine inverse(const Affine& a) noexcept;

// |det| of the linear part; 0 for a singular transform.
float abs_determinant(const Affine& a) noexcept;

}  // namespace gltf_crowd
GLTF_CROWD_API_END
static_assert(sizeof(gltf_crowd::Affine) == 48, "Affine is the packed 48-byte layout");
