// The two-layer crossfade across lanes (BlendLanes) and of one pose sampled from two clips
// (SamplePair), included by kernels.cpp after
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

// SamplePair: the two clips' groups sampled side by side and blended as blend_lanes blends a
// node, but across the group's channels instead of across poses, then scattered once. Flattened:
// left to itself GCC calls slerp_lanes out of line here, its results passed through memory (a
// tenth slower than two samples and blend_pair). Its scalar fallbacks inlined into the AVX2 set
// stay exact because kernels.cpp is compiled with -ffp-contract=off (CMakeLists.txt).
[[gnu::flatten]] inline void sample_pair(const SamplePair& pass) noexcept {
  SlerpCoefficients cache[2];
  const F8 wa = splat(pass.wa), wb = splat(pass.wb), zero = splat(0.0f);
  const F8 flipped_wb = flip_sign(splat(-1.0f), wb);
  SamplePass out;
  out.translations = pass.translations;
  out.rotations = pass.rotations;
  out.scales = pass.scales;
  for (std::size_t gi = 0; gi < pass.count; ++gi) {
    const ChannelGroup& ga = pass.groups[0][gi];
    const ChannelGroup& gb = pass.groups[1][gi];
    F8 a[4], b[4];
    sample_group(ga, pass.keys[0][ga.timeline], pass.key_rows[0], cache[0], a);
    sample_group(gb, pass.keys[1][gb.timeline], pass.key_rows[1], cache[1], b);
    if (ga.path == ChannelPath::weights) {
      out.weights = pass.weights[0];
      scatter(ga, a, out);
      out.weights = pass.weights[1];
      scatter(gb, b, out);
      continue;
    }
    if (ga.path == ChannelPath::rotation) {
      const F8 signed_wb = select(below(dot_lanes(b, a), zero), flipped_wb, wb);
      F8 q[4];
      for (int k = 0; k < 4; ++k) q[k] = add(mul(a[k], wa), mul(b[k], signed_wb));
      const F8 len = sqrt(dot_lanes(q, q));
      const F8 nonzero = below(zero, len);
      for (int k = 0; k < 4; ++k) a[k] = select(nonzero, div(q[k], len), splat(k == 3 ? 1.0f : 0.0f));
    } else {
      for (int c = 0; c < 3; ++c) a[c] = add(mul(a[c], wa), mul(b[c], wb));
    }
    scatter(ga, a, out);
  }
}
