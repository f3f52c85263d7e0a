// Based on: block inversion of an affine matrix [A | t] → [A⁻¹ | −A⁻¹t].
#include "gltf_crowd/affine.hpp"

#include <cmath>

#include "anim/kernels.hpp"

namespace gltf_crowd {

Affine operator*(const Affine& a, const Affine& b) noexcept {
  Affine out;
  affine_kernels().multiply(a, b, out);
  return out;
}

AffineProduct affine_product() noexcept { return affine_kernels().multiply; }

float abs_determinant(const Affine& a) noexcept {
  const glm::mat3 m(glm::vec3(a.rows[0]), glm::vec3(a.rows[1]), glm::vec3(a.rows[2]));
  return std::abs(glm::determinant(m));
}

Affine inverse(const Affine& a) noexcept {
  // Rows of A as glm columns give Aᵀ; inverse(Aᵀ) = inverse(A)ᵀ, so its columns are A⁻¹'s rows.
  const glm::mat3 at(glm::vec3(a.rows[0]), glm::vec3(a.rows[1]), glm::vec3(a.rows[2]));
  const glm::mat3 inv_t = glm::inverse(at);
  const glm::vec3 t(a.rows[0].w, a.rows[1].w, a.rows[2].w);
  Affine out;
  for (int r = 0; r < 3; ++r) {
    const glm::vec3 row = inv_t[r];
    out.rows[r] = glm::vec4(row, -glm::dot(row, t));
  }
  return out;
}

}  // namespace gltf_crowd
