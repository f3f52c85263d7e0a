// The two-layer crossfade across lanes (BlendLanes), included by kernels.cpp after
// hierarchy_lanes.inl in each instruction set's namespace, where F8, its arithmetic, below
// (a < b per lane, as a mask) and select are defined. No include guard on purpose.
//
// Each lane's result is blend_pair's for that pose (jobs.cpp): the same products and sums in the
// same order, the sign test and the zero-length fallback as lane masks.

// (x·x' + y·y') + (z·z' + w·w'), as blend_pair's dot4 sums.
inline F8 dot_lanes(const F8* a, const F8* b) noexcept {
  return add(add(mul(a[0], b[0]), mul(a[1], b[1])), add(mul(a[2], b[2]), mul(a[3], b[3])));
}

inline void blend_lanes(const BlendLanes& pass) noexcept {
  const F8 wa = load(pass.wa), wb = load(pass.wb), zero = splat(0.0f);
  const F8 flipped_wb = flip_sign(splat(-1.0f), wb);
  constexpr std::size_t kNode = kPoseLaneComponents * 8;
  for (std::size_t i = 0; i < pass.count; ++i) {
    const std::size_t at = std::size_t{pass.nodes[i]} * kNode;
    const float* a = pass.a + at;
    const float* b = pass.b + at;
    float* out = pass.out + at;
    for (int k : {0, 1, 2, 7, 8, 9})  // translation and scale: a × wa + b × wb
      store(out + 8 * k, add(mul(load(a + 8 * k), wa), mul(load(b + 8 * k), wb)));
    F8 qa[4], qb[4], q[4];
    for (int k = 0; k < 4; ++k) {
      qa[k] = load(a + 8 * (3 + k));
      qb[k] = load(b + 8 * (3 + k));
    }
    // b's rotation weighted by -wb where it points away from a's.
    const F8 signed_wb = select(below(dot_lanes(qb, qa), zero), flipped_wb, wb);
    for (int k = 0; k < 4; ++k) q[k] = add(mul(qa[k], wa), mul(qb[k], signed_wb));
    const F8 len = sqrt(dot_lanes(q, q));
    const F8 nonzero = below(zero, len);  // else the identity, as store_normalized
    for (int k = 0; k < 4; ++k) store(out + 8 * (3 + k), select(nonzero, div(q[k], len), splat(k == 3 ? 1.0f : 0.0f)));
  }
}
