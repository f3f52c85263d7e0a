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

// The series as a polynomial in d: f = t (1 + d (p1 + d (p2 + ... + d p8))) with p_k = c_1 ⋯ c_k;
// p[k - 1] = p_k for k = 1..kSlerpTerms. Computed once per key position and shared by every
// channel sampled at it.
inline void slerp_series_coefficients(float t, float* p) noexcept {
  // c_i = u_i t² - v_i with u_i = 1 / (i (2i + 1)) and v_i = i / (2i + 1): no division per call.
  constexpr auto u = [](int i) { return 1.0f / static_cast<float>(i * (2 * i + 1)); };
  constexpr auto v = [](int i) { return static_cast<float>(i) / static_cast<float>(2 * i + 1); };
  constexpr float kU[kSlerpTerms] = {u(1), u(2), u(3), u(4), u(5), u(6), u(7), u(8)};
  constexpr float kV[kSlerpTerms] = {v(1), v(2), v(3), v(4), v(5), v(6), v(7), v(8)};
  const float t2 = t * t;
  float product = 1.0f;
  for (int i = 0; i < kSlerpTerms; ++i) {
    product *= kU[i] * t2 - kV[i];
    p[i] = product;
  }
}

// f(t, x) from the coefficients of t; x >= kSlerpSeriesMinCos.
inline float slerp_series(const float* p, float t, float x) noexcept {
  const float d = x - 1.0f;
  float f = p[kSlerpTerms - 1];
  for (int k = kSlerpTerms - 2; k >= 0; --k) f = f * d + p[k];
  return t * (f * d + 1.0f);
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
