// The AVX2 + FMA kernel set's definitions, included by kernels.cpp in two namespaces, each under
// its own target pragma: kernels_fma (AVX2 + FMA) and kernels_avx512 (the same code where the
// compiler may also use AVX-512VL's encodings and its 32 vector registers). No include guard on
// purpose.

inline __m128 madd(__m128 a, __m128 b, __m128 c) noexcept { return _mm_fmadd_ps(a, b, c); }
inline __m128 splat(const float* p) noexcept { return _mm_broadcast_ss(p); }
#include "anim/kernels.inl"

// Eight lanes as one AVX register.
struct F8 {
  __m256 v;
};
inline F8 load(const float* p) noexcept { return {_mm256_loadu_ps(p)}; }
inline void store(float* p, F8 a) noexcept { _mm256_storeu_ps(p, a.v); }
inline F8 splat(float x) noexcept { return {_mm256_set1_ps(x)}; }
inline F8 add(F8 a, F8 b) noexcept { return {_mm256_add_ps(a.v, b.v)}; }
inline F8 sub(F8 a, F8 b) noexcept { return {_mm256_sub_ps(a.v, b.v)}; }
inline F8 mul(F8 a, F8 b) noexcept { return {_mm256_mul_ps(a.v, b.v)}; }
inline F8 madd(F8 a, F8 b, F8 c) noexcept { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
inline F8 div(F8 a, F8 b) noexcept { return {_mm256_div_ps(a.v, b.v)}; }
inline F8 sqrt(F8 a) noexcept { return {_mm256_sqrt_ps(a.v)}; }
inline F8 max(F8 a, F8 b) noexcept { return {_mm256_max_ps(a.v, b.v)}; }
inline F8 flip_sign(F8 a, F8 b) noexcept { return {_mm256_xor_ps(b.v, _mm256_and_ps(a.v, _mm256_set1_ps(-0.0f)))}; }
inline F8 abs_value(F8 a) noexcept { return {_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)}; }
inline bool any_below(F8 a, float x) noexcept {
  return _mm256_movemask_ps(_mm256_cmp_ps(a.v, _mm256_set1_ps(x), _CMP_LT_OQ)) != 0;
}
inline __m128 low(F8 a) noexcept { return _mm256_castps256_ps128(a.v); }
inline __m128 high(F8 a) noexcept { return _mm256_extractf128_ps(a.v, 1); }
// rows[i] lane j becomes rows[j] lane i.
inline void transpose8(F8* rows) noexcept {
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(rows[i].v, rows[i + 1].v);
    t[i + 1] = _mm256_unpackhi_ps(rows[i].v, rows[i + 1].v);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    rows[k].v = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
    rows[4 + k].v = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
  }
}
inline F8 lane_mask(unsigned bits) noexcept {
  const __m256i lanes = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return {_mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), lanes), lanes))};
}
inline F8 select(F8 mask, F8 a, F8 b) noexcept { return {_mm256_blendv_ps(b.v, a.v, mask.v)}; }
inline F8 below(F8 a, F8 b) noexcept { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
// Eight loads, not vgatherdps: the instruction was slower on the Zen 5 we measure (the benchmarks
// journal at fbbf183, "A one-node clip's fixed costs per actor").
inline F8 gather(const float* base, const std::int32_t* at) noexcept {
  return {_mm256_setr_ps(base[at[0]], base[at[1]], base[at[2]], base[at[3]], base[at[4]], base[at[5]], base[at[6]],
                         base[at[7]])};
}
#include "anim/sample_kernels.inl"
inline F8 join(__m128 lo, __m128 hi) noexcept { return {_mm256_set_m128(hi, lo)}; }
// rows4 of the SSE2 set with 8-lane shuffles: half the shuffles of two 4-lane transposes, and the
// high halves go out as 128-bit extracts (folded into the stores).
inline void rows4(const F8* c, __m128 rows[8]) noexcept {
  const __m256 ab_lo = _mm256_unpacklo_ps(c[0].v, c[1].v), ab_hi = _mm256_unpackhi_ps(c[0].v, c[1].v);
  const __m256 cd_lo = _mm256_unpacklo_ps(c[2].v, c[3].v), cd_hi = _mm256_unpackhi_ps(c[2].v, c[3].v);
  // Lanes l and l + 4 of each.
  const __m256 l0 = _mm256_shuffle_ps(ab_lo, cd_lo, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 l1 = _mm256_shuffle_ps(ab_lo, cd_lo, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 l2 = _mm256_shuffle_ps(ab_hi, cd_hi, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 l3 = _mm256_shuffle_ps(ab_hi, cd_hi, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 pairs[4] = {l0, l1, l2, l3};
  for (int l = 0; l < 4; ++l) {
    rows[l] = _mm256_castps256_ps128(pairs[l]);
    rows[l + 4] = _mm256_extractf128_ps(pairs[l], 1);
  }
}
#include "anim/hierarchy_lanes.inl"
#include "anim/blend_lanes.inl"
