#include "anim/kernels.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <immintrin.h>

namespace gltf_crowd {

namespace kernels_sse2 {
inline __m128 madd(__m128 a, __m128 b, __m128 c) noexcept { return _mm_add_ps(_mm_mul_ps(a, b), c); }
inline __m128 splat(const float* p) noexcept { return _mm_set1_ps(*p); }
#include "anim/kernels.inl"
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
inline __m128 madd(__m128 a, __m128 b, __m128 c) noexcept { return _mm_fmadd_ps(a, b, c); }
inline __m128 splat(const float* p) noexcept { return _mm_broadcast_ss(p); }
#include "anim/kernels.inl"
}  // namespace kernels_fma
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace {

constexpr AffineKernels kPortable{"sse2", kernels_sse2::hierarchy, kernels_sse2::palette, kernels_sse2::multiply};
constexpr AffineKernels kFma{"avx2+fma", kernels_fma::hierarchy, kernels_fma::palette, kernels_fma::multiply};

}  // namespace

const AffineKernels& portable_affine_kernels() noexcept { return kPortable; }

const AffineKernels* fma_affine_kernels() noexcept {
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return supported ? &kFma : nullptr;
}

const AffineKernels& affine_kernels() noexcept {
  static const AffineKernels& chosen = []() -> const AffineKernels& {
    const char* simd = std::getenv("GLTF_CROWD_SIMD");
    if (simd != nullptr && std::strcmp(simd, "sse2") == 0) return kPortable;
    const AffineKernels* fma = fma_affine_kernels();
    return fma != nullptr ? *fma : kPortable;
  }();
  return chosen;
}

}  // namespace gltf_crowd
