// Layer 2, anim: the weights of a shortest-arc slerp (glTF 2.0 Appendix C), shared by the scalar
// sampler and the SIMD group kernels so that both compute the same function.
//
// slerp(a, b, t) = f(1 - t, x) a + f(t, x) b with x = a·b >= 0 (after the sign flip) and
// f(t, x) = sin(tθ) / sin θ, cos θ = x. Where the keys are close (x >= kSlerpSeriesMinCos,
// θ <= 45.6°: all but 2 of the 9,862 LINEAR rotation key pairs of the held assets) f is the
// series of D. Eberly, "A Fast and Accurate Algorithm for Computing SLERP" (JGT 2011):
// f = t (1 + c1 d (1 + c2 d (1 + ...))) with d = x - 1 and c_i = (t² - i²) / (i (2i + 1)),
// truncated at 8 terms. Its error there is below 5e-9, far under a float ulp, and it needs no
// acos or sine, so 8 lanes run in a few multiply-adds. Farther keys (one pair of
// RobotExpressive's, BoxAnimated's 180° turn) take acos, sin and cos.
#pragma once

#include <cmath>
#include <cstdint>

namespace gltf_crowd {

inline constexpr float kSlerpSeriesMinCos = 0.7f;
inline constexpr int kSlerpTerms = 8;

// c_i = u_i t² - v_i with u_i = 1 / (i (2i + 1)) and v_i = i / (2i + 1), i = 1..kSlerpTerms: no
// division per call. Shared with the lanes version (sample_kernels.inl), which must match bit for bit.
inline constexpr float kSlerpSeriesU[kSlerpTerms] = {1.0f / 3,  1.0f / 10, 1.0f / 21,  1.0f / 36,
                                                     1.0f / 55, 1.0f / 78, 1.0f / 105, 1.0f / 136};
inline constexpr float kSlerpSeriesV[kSlerpTerms] = {1.0f / 3,  2.0f / 5,  3.0f / 7,  4.0f / 9,
                                                     5.0f / 11, 6.0f / 13, 7.0f / 15, 8.0f / 17};

// The series as a polynomial in d: f = t P(d), P(d) = 1 + p1 d + ... + p8 d⁸, p[k - 1] = p_k = c_1 ⋯ c_k,
// once per key position for all its channels. Prefix products as a tree, three deep, not a chain of
// eight: one actor's sampling waits on them.
inline void slerp_series_coefficients(float t, float* p) noexcept {
  static_assert(kSlerpTerms == 8, "the product tree below is written for 8 terms");
  const float t2 = t * t;
  float c[kSlerpTerms];
  for (int i = 0; i < kSlerpTerms; ++i) c[i] = kSlerpSeriesU[i] * t2 - kSlerpSeriesV[i];
  const float c12 = c[0] * c[1], c34 = c[2] * c[3], c56 = c[4] * c[5], c78 = c[6] * c[7];
  const float p4 = c12 * c34;
  p[0] = c[0];
  p[1] = c12;
  p[2] = c12 * c[2];
  p[3] = p4;
  p[4] = p4 * c[4];
  p[5] = p4 * c56;
  p[6] = p4 * (c56 * c[6]);
  p[7] = p4 * (c56 * c78);
}

// P(d) of slerp_series_coefficients by Estrin's scheme: four multiply-adds deep, not Horner's eight.
// No d⁸: for close keys it is subnormal, and producing subnormals is slow; the smallest product left
// stays a normal float. The SIMD kernels (sample_kernels.inl) evaluate the same expression.
inline float slerp_series_polynomial(const float* p, float d) noexcept {
  const float d2 = d * d, d4 = d2 * d2;
  const float e01 = p[0] * d + 1.0f, e23 = p[2] * d + p[1], e45 = p[4] * d + p[3], e67 = p[6] * d + p[5];
  return ((p[7] * d2 + e67) * d2 + e45) * d4 + (e23 * d2 + e01);
}

// f(t, x) from the coefficients of t; x >= kSlerpSeriesMinCos.
inline float slerp_series(const float* p, float t, float x) noexcept {
  return t * slerp_series_polynomial(p, x - 1.0f);
}

// wa = f(1 - t, x), wb = f(t, x) for x in [0, 1].
inline void slerp_weights(float t, float x, float& wa, float& wb) noexcept {
  if (x >= kSlerpSeriesMinCos) {
    float ca[kSlerpTerms], cb[kSlerpTerms];
    slerp_series_coefficients(1.0f - t, ca);
    slerp_series_coefficients(t, cb);
    wa = slerp_series(ca, 1.0f - t, x);
    wb = slerp_series(cb, t, x);
    return;
  }
  // sin((1 - t)θ) = sin θ cos tθ - cos θ sin tθ: one acos, one sine and one cosine.
  const float theta = std::acos(x);
  const float s = std::sqrt(1.0f - x * x);
  const float sin_t = std::sin(t * theta), cos_t = std::cos(t * theta);
  wb = sin_t / s;
  wa = cos_t - x * wb;
}

}  // namespace gltf_crowd
