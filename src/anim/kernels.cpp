#include "anim/kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <immintrin.h>

#include "anim/slerp.hpp"

namespace gltf_crowd {

namespace kernels_sse2 {
inline __m128 madd(__m128 a, __m128 b, __m128 c) noexcept { return _mm_add_ps(_mm_mul_ps(a, b), c); }
inline __m128 splat(const float* p) noexcept { return _mm_set1_ps(*p); }
#include "anim/kernels.inl"

// Eight lanes as two SSE registers.
struct F8 {
  __m128 lo, hi;
};
inline F8 load(const float* p) noexcept { return {_mm_loadu_ps(p), _mm_loadu_ps(p + 4)}; }
inline void store(float* p, F8 a) noexcept {
  _mm_storeu_ps(p, a.lo);
  _mm_storeu_ps(p + 4, a.hi);
}
inline F8 splat(float x) noexcept { return {_mm_set1_ps(x), _mm_set1_ps(x)}; }
inline F8 add(F8 a, F8 b) noexcept { return {_mm_add_ps(a.lo, b.lo), _mm_add_ps(a.hi, b.hi)}; }
inline F8 sub(F8 a, F8 b) noexcept { return {_mm_sub_ps(a.lo, b.lo), _mm_sub_ps(a.hi, b.hi)}; }
inline F8 mul(F8 a, F8 b) noexcept { return {_mm_mul_ps(a.lo, b.lo), _mm_mul_ps(a.hi, b.hi)}; }
inline F8 madd(F8 a, F8 b, F8 c) noexcept { return {madd(a.lo, b.lo, c.lo), madd(a.hi, b.hi, c.hi)}; }
inline F8 div(F8 a, F8 b) noexcept { return {_mm_div_ps(a.lo, b.lo), _mm_div_ps(a.hi, b.hi)}; }
inline F8 sqrt(F8 a) noexcept { return {_mm_sqrt_ps(a.lo), _mm_sqrt_ps(a.hi)}; }
inline F8 max(F8 a, F8 b) noexcept { return {_mm_max_ps(a.lo, b.lo), _mm_max_ps(a.hi, b.hi)}; }
inline F8 flip_sign(F8 a, F8 b) noexcept {
  const __m128 sign = _mm_set1_ps(-0.0f);
  return {_mm_xor_ps(b.lo, _mm_and_ps(a.lo, sign)), _mm_xor_ps(b.hi, _mm_and_ps(a.hi, sign))};
}
inline F8 abs_value(F8 a) noexcept {
  const __m128 sign = _mm_set1_ps(-0.0f);
  return {_mm_andnot_ps(sign, a.lo), _mm_andnot_ps(sign, a.hi)};
}
inline bool any_below(F8 a, float x) noexcept {
  const __m128 v = _mm_set1_ps(x);
  return _mm_movemask_ps(_mm_or_ps(_mm_cmplt_ps(a.lo, v), _mm_cmplt_ps(a.hi, v))) != 0;
}
inline __m128 low(F8 a) noexcept { return a.lo; }
inline __m128 high(F8 a) noexcept { return a.hi; }
// rows[i] lane j becomes rows[j] lane i.
inline void transpose8(F8* rows) noexcept {
  __m128 a[4] = {rows[0].lo, rows[1].lo, rows[2].lo, rows[3].lo},
         b[4] = {rows[4].lo, rows[5].lo, rows[6].lo, rows[7].lo};
  __m128 c[4] = {rows[0].hi, rows[1].hi, rows[2].hi, rows[3].hi},
         d[4] = {rows[4].hi, rows[5].hi, rows[6].hi, rows[7].hi};
  _MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
  _MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
  _MM_TRANSPOSE4_PS(c[0], c[1], c[2], c[3]);
  _MM_TRANSPOSE4_PS(d[0], d[1], d[2], d[3]);
  for (int k = 0; k < 4; ++k) {
    rows[k] = {a[k], b[k]};
    rows[4 + k] = {c[k], d[k]};
  }
}
// All bits set in lane l where bit l of `bits` is set.
inline F8 lane_mask(unsigned bits) noexcept {
  const __m128i b = _mm_set1_epi32(static_cast<int>(bits));
  const __m128i lo = _mm_setr_epi32(1, 2, 4, 8), hi = _mm_setr_epi32(16, 32, 64, 128);
  return {_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(b, lo), lo)),
          _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(b, hi), hi))};
}
// a where `mask` is set, else b.
inline F8 select(F8 mask, F8 a, F8 b) noexcept {
  return {_mm_or_ps(_mm_and_ps(mask.lo, a.lo), _mm_andnot_ps(mask.lo, b.lo)),
          _mm_or_ps(_mm_and_ps(mask.hi, a.hi), _mm_andnot_ps(mask.hi, b.hi))};
}
inline F8 below(F8 a, F8 b) noexcept { return {_mm_cmplt_ps(a.lo, b.lo), _mm_cmplt_ps(a.hi, b.hi)}; }
// Lane l = base[at[l]].
inline F8 gather(const float* base, const std::int32_t* at) noexcept {
  return {_mm_setr_ps(base[at[0]], base[at[1]], base[at[2]], base[at[3]]),
          _mm_setr_ps(base[at[4]], base[at[5]], base[at[6]], base[at[7]])};
}
#include "anim/sample_kernels.inl"
inline F8 join(__m128 lo, __m128 hi) noexcept { return {lo, hi}; }
// Four components of 8 lanes into each lane's 4-float row: rows[l] = (c[0]_l, c[1]_l, c[2]_l, c[3]_l).
inline void rows4(const F8* c, __m128 rows[8]) noexcept {
  __m128 lo[4] = {c[0].lo, c[1].lo, c[2].lo, c[3].lo}, hi[4] = {c[0].hi, c[1].hi, c[2].hi, c[3].hi};
  _MM_TRANSPOSE4_PS(lo[0], lo[1], lo[2], lo[3]);
  _MM_TRANSPOSE4_PS(hi[0], hi[1], hi[2], hi[3]);
  for (int l = 0; l < 4; ++l) {
    rows[l] = lo[l];
    rows[l + 4] = hi[l];
  }
}
#include "anim/hierarchy_lanes.inl"
#include "anim/blend_lanes.inl"
}  // namespace kernels_sse2

// Everything defined from here to the pop is compiled for AVX2 + FMA, and only called after
// the CPU check below. Header functions were defined above with the default target, so no
// shared inline function is ever emitted with these instructions.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace kernels_fma {
#include "anim/avx2_kernels.inl"
}  // namespace kernels_fma
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

// The AVX2 + FMA set again where the CPU has AVX-512F and VL: 32 vector registers keep the lanes'
// Affine8 values off the stack (the benchmarks journal at fbbf183, "Thirty-two registers"); same
// operations, same bits. GCC keeps 256-bit vectors: 512-bit ones lower some Intel cores' clock.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,avx512f,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512vl,prefer-vector-width=256")
#endif
namespace kernels_avx512 {
#include "anim/avx2_kernels.inl"
}  // namespace kernels_avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace {

constexpr AffineKernels kPortable{"sse2",
                                  kernels_sse2::sample,
                                  kernels_sse2::sample_lanes,
                                  kernels_sse2::blend_lanes,
                                  kernels_sse2::sample_pair,
                                  kernels_sse2::sample_pair_lanes,
                                  kernels_sse2::hierarchy,
                                  kernels_sse2::hierarchy_lanes,
                                  kernels_sse2::palette_lanes,
                                  kernels_sse2::instance_lanes,
                                  kernels_sse2::palette,
                                  kernels_sse2::multiply};
constexpr AffineKernels kFma{"avx2+fma",
                             kernels_fma::sample,
                             kernels_fma::sample_lanes,
                             kernels_fma::blend_lanes,
                             kernels_fma::sample_pair,
                             kernels_fma::sample_pair_lanes,
                             kernels_fma::hierarchy,
                             kernels_fma::hierarchy_lanes,
                             kernels_fma::palette_lanes,
                             kernels_fma::instance_lanes,
                             kernels_fma::palette,
                             kernels_fma::multiply};
constexpr AffineKernels kAvx512{"avx512vl",
                                kernels_avx512::sample,
                                kernels_avx512::sample_lanes,
                                kernels_avx512::blend_lanes,
                                kernels_avx512::sample_pair,
                                kernels_avx512::sample_pair_lanes,
                                kernels_avx512::hierarchy,
                                kernels_avx512::hierarchy_lanes,
                                kernels_avx512::palette_lanes,
                                kernels_avx512::instance_lanes,
                                kernels_avx512::palette,
                                kernels_avx512::multiply};

}  // namespace

const AffineKernels& portable_affine_kernels() noexcept { return kPortable; }

const AffineKernels* fma_affine_kernels() noexcept {
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return supported ? &kFma : nullptr;
}

const AffineKernels* avx512_affine_kernels() noexcept {
  // __builtin_cpu_supports also asks the OS (XGETBV) whether it saves the AVX-512 state.
  static const bool supported =
      fma_affine_kernels() != nullptr && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  return supported ? &kAvx512 : nullptr;
}

const AffineKernels& affine_kernels() noexcept {
  static const AffineKernels& chosen = []() -> const AffineKernels& {
    const char* simd = std::getenv("GLTF_CROWD_SIMD");
    if (simd != nullptr && std::strcmp(simd, "sse2") == 0) return kPortable;
    const AffineKernels* fma = fma_affine_kernels();
    if (fma == nullptr) return kPortable;
    if (simd != nullptr && std::strcmp(simd, "avx2") == 0) return *fma;
    const AffineKernels* avx512 = avx512_affine_kernels();
    return avx512 != nullptr ? *avx512 : *fma;
  }();
  return chosen;
}

}  // namespace gltf_crowd
