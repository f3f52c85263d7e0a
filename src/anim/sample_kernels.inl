// The group samplers of kernels.cpp (SamplePass for one pose, SampleLanes for up to 8 poses of
// one clip), included once per instruction set inside a namespace that defines F8 (kGroupLanes
// floats) with load, store, splat, add, sub, mul, madd (a × b + c), div, sqrt, max, flip_sign (b with
// the sign bits of a's negative lanes flipped), abs_value, any_below, low and high (lanes 0–3 and
// 4–7 as SSE registers), and transpose8 (8 F8 as an 8 × 8 matrix, transposed in place). No
// include guard on purpose.

// Writes the group's lanes from their components (v[c] holds component c of every lane), four
// lanes at a time transposed in registers into (x, y, z, w): going through memory would read
// back halves of 8-wide stores, which store forwarding does not serve. All eight lanes are
// stored, unconditionally: an unused lane repeats lane 0's keys and target, so it writes lane
// 0's value again.
template <bool kQuat>
inline void scatter_vectors(const std::uint32_t* targets, const F8* v, float* out) noexcept {
  for (std::uint32_t first = 0; first < kGroupLanes; first += 4) {
    const bool lo = first == 0;
    __m128 x = lo ? low(v[0]) : high(v[0]), y = lo ? low(v[1]) : high(v[1]);
    __m128 z = lo ? low(v[2]) : high(v[2]);
    __m128 w = kQuat ? (lo ? low(v[3]) : high(v[3])) : _mm_setzero_ps();
    _MM_TRANSPOSE4_PS(x, y, z, w);
    const auto put = [out](std::uint32_t target, __m128 r) {
      if constexpr (kQuat) {
        _mm_storeu_ps(out + std::size_t{target} * 4, r);
      } else {  // 12 bytes: the fourth float belongs to the next node
        float* p = out + std::size_t{target} * 3;
        _mm_storel_pi(reinterpret_cast<__m64*>(p), r);
        _mm_store_ss(p + 2, _mm_movehl_ps(r, r));
      }
    };
    put(targets[first], x);
    put(targets[first + 1], y);
    put(targets[first + 2], z);
    put(targets[first + 3], w);
  }
}

inline void scatter(const ChannelGroup& g, const F8* v, const SamplePass& pass) noexcept {
  switch (g.path) {
    case ChannelPath::translation: scatter_vectors<false>(g.targets, v, &pass.translations[0].x); break;
    case ChannelPath::rotation: scatter_vectors<true>(g.targets, v, &pass.rotations[0].x); break;  // x, y, z, w
    case ChannelPath::scale: scatter_vectors<false>(g.targets, v, &pass.scales[0].x); break;
    case ChannelPath::weights: {
      alignas(32) float w[kGroupLanes];
      store(w, v[0]);
      for (std::uint32_t l = 0; l < kGroupLanes; ++l) pass.weights[g.targets[l]] = w[l];
      break;
    }
  }
}

// a·b of 4-component lanes, summed as a tree ((a0 b0 + a1 b1) + (a2 b2 + a3 b3)): a slerp is a
// chain of these, and one actor's sampling waits on it.
inline F8 slerp_dot(const F8* a, const F8* b) noexcept {
  return add(madd(a[0], b[0], mul(a[1], b[1])), madd(a[2], b[2], mul(a[3], b[3])));
}

// Normalizes the 4-component lanes of `q` in place (a quaternion per lane); zero stays zero.
// One division and four products instead of four divisions (within an ulp of dividing each
// component).
inline void normalize_lanes(F8* q) noexcept {
  const F8 len = max(sqrt(slerp_dot(q, q)), splat(std::numeric_limits<float>::min()));
  const F8 inverse = div(splat(1.0f), len);
  for (int c = 0; c < 4; ++c) q[c] = mul(q[c], inverse);
}

inline void slerp_lanes(const float* k0, const float* k1, float t, const float* ca, const float* cb, F8* q) noexcept {
  F8 a[4], b[4];
  for (int c = 0; c < 4; ++c) {
    a[c] = load(k0 + c * kGroupLanes);
    b[c] = load(k1 + c * kGroupLanes);
  }
  const F8 signed_dot = slerp_dot(a, b);
  for (int c = 0; c < 4; ++c) b[c] = flip_sign(signed_dot, b[c]);  // shortest arc
  const F8 dot = abs_value(signed_dot);
  F8 wa, wb;
  if (!any_below(dot, kSlerpSeriesMinCos)) {
    // slerp_series_polynomial of slerp.hpp in lanes.
    const F8 one = splat(1.0f), d = sub(dot, one), d2 = mul(d, d), d4 = mul(d2, d2);
    const auto polynomial = [&](const float* p) {
      const F8 e01 = madd(splat(p[0]), d, one), e23 = madd(splat(p[2]), d, splat(p[1]));
      const F8 e45 = madd(splat(p[4]), d, splat(p[3])), e67 = madd(splat(p[6]), d, splat(p[5]));
      return madd(madd(madd(splat(p[7]), d2, e67), d2, e45), d4, madd(e23, d2, e01));
    };
    wa = mul(polynomial(ca), splat(1.0f - t));
    wb = mul(polynomial(cb), splat(t));
  } else {  // keys far apart in some lane (rare): the scalar weights
    alignas(32) float x[kGroupLanes], sa[kGroupLanes], sb[kGroupLanes];
    store(x, dot);
    for (std::uint32_t l = 0; l < kGroupLanes; ++l) slerp_weights(t, std::min(x[l], 1.0f), sa[l], sb[l]);
    wa = load(sa);
    wb = load(sb);
  }
  for (int c = 0; c < 4; ++c) q[c] = madd(wa, a[c], mul(wb, b[c]));
  normalize_lanes(q);
}

// Slerp series coefficients of one key position (slerp.hpp), computed when a rotation group
// first needs them and shared by the groups sampled at the same key.
struct SlerpCoefficients {
  const KeyPosition* of = nullptr;
  float a[kSlerpTerms] = {}, b[kSlerpTerms] = {};  // of 1 - t and of t
};

// A LINEAR group between its keys' rows k0 and k1: slerp for rotations (kN = 4, the series
// coefficients cached per key position), else a lerp of kN components.
template <std::uint32_t kN>
inline void interpolate_linear(const float* k0, const float* k1, const KeyPosition& key, SlerpCoefficients& cache,
                               F8* v) noexcept {
  if constexpr (kN == 4) {
    if (cache.of != &key) {
      slerp_series_coefficients(1.0f - key.t, cache.a);
      slerp_series_coefficients(key.t, cache.b);
      cache.of = &key;
    }
    slerp_lanes(k0, k1, key.t, cache.a, cache.b, v);
  } else {
    const F8 tv = splat(key.t);
    for (std::uint32_t c = 0; c < kN; ++c) {
      const F8 v0 = load(k0 + c * kGroupLanes);
      v[c] = madd(sub(load(k1 + c * kGroupLanes), v0), tv, v0);
    }
  }
}

// One group of one pose at its key: v[c] holds component c of every channel lane.
inline void sample_group(const ChannelGroup& g, const KeyPosition& key, const float* key_rows, SlerpCoefficients& cache,
                         F8* v) noexcept {
  const std::uint32_t n = lane_components(g.path);
  const bool cubic = g.interpolation == Interpolation::cubic_spline;
  const float* k0 = key_rows + g.values_offset + std::size_t{key.k} * g.key_stride;
  if (key.k == key.next || g.interpolation == Interpolation::step) {
    const float* value = cubic ? k0 + n * kGroupLanes : k0;
    // A count known at compile time: GCC made the loop over n a `rep movsq` into `v`, whose
    // start-up cost a constant channel (one key: always here) paid per group.
    const auto copy = [&]<std::uint32_t kN>() {
      for (std::uint32_t c = 0; c < kN; ++c) v[c] = load(value + c * kGroupLanes);
    };
    if (n == 4)
      copy.template operator()<4>();
    else if (n == 3)
      copy.template operator()<3>();
    else
      copy.template operator()<1>();
    return;
  }
  const float* k1 = key_rows + g.values_offset + std::size_t{key.next} * g.key_stride;
  if (!cubic) {
    if (g.path == ChannelPath::rotation)
      interpolate_linear<4>(k0, k1, key, cache, v);
    else if (n == 3)
      interpolate_linear<3>(k0, k1, key, cache, v);
    else
      interpolate_linear<1>(k0, k1, key, cache, v);
    return;
  }
  const float t = key.t;
  // Hermite basis with tangents scaled by the key interval (glTF 2.0 Appendix C).
  const float t2 = t * t, t3 = t2 * t, d = key.interval;
  const F8 h00 = splat(2 * t3 - 3 * t2 + 1), h10 = splat((t3 - 2 * t2 + t) * d);
  const F8 h01 = splat(-2 * t3 + 3 * t2), h11 = splat((t3 - t2) * d);
  for (std::uint32_t c = 0; c < n; ++c) {
    const F8 v0 = load(k0 + (n + c) * kGroupLanes), b0 = load(k0 + (2 * n + c) * kGroupLanes);
    const F8 v1 = load(k1 + (n + c) * kGroupLanes), a1 = load(k1 + c * kGroupLanes);
    v[c] = madd(h00, v0, madd(h10, b0, madd(h01, v1, mul(h11, a1))));
  }
  if (g.path == ChannelPath::rotation) normalize_lanes(v);
}

inline void sample(const SamplePass& pass) noexcept {
  SlerpCoefficients cache;
  for (std::size_t gi = 0; gi < pass.count; ++gi) {
    const ChannelGroup& g = pass.groups[gi];
    F8 v[4];
    sample_group(g, pass.keys[g.timeline], pass.key_rows, cache, v);
    scatter(g, v, pass);
  }
}

// The LINEAR translations and scales (kN = 3) or rotations (kN = 4) of `lanes` poses, each at its
// keys[l]: sample_group's path, with the group's kind decided once, not per lane.
template <std::uint32_t kN>
inline void sample_linear_lanes(const ChannelGroup& g, const float* key_rows, const KeyPosition* const* keys,
                                std::size_t lanes, SlerpCoefficients* cache, F8 (*v)[4]) noexcept {
  key_rows += g.values_offset;
  for (std::size_t l = 0; l < lanes; ++l) {
    const KeyPosition& key = keys[l][g.timeline];
    const float* k0 = key_rows + std::size_t{key.k} * g.key_stride;
    if (key.k == key.next) {
      for (std::uint32_t c = 0; c < kN; ++c) v[l][c] = load(k0 + c * kGroupLanes);
      continue;
    }
    interpolate_linear<kN>(k0, key_rows + std::size_t{key.next} * g.key_stride, key, cache[l], v[l]);
  }
}

// One group of `lanes` poses, pose l at keys[l]: v[l][c] holds component c of its channel lanes.
inline void sample_group_lanes(const ChannelGroup& g, const float* key_rows, const KeyPosition* const* keys,
                               std::size_t lanes, SlerpCoefficients* cache, F8 (*v)[4]) noexcept {
  if (g.interpolation == Interpolation::linear && g.path == ChannelPath::rotation)
    sample_linear_lanes<4>(g, key_rows, keys, lanes, cache, v);
  else if (g.interpolation == Interpolation::linear && g.path != ChannelPath::weights)
    sample_linear_lanes<3>(g, key_rows, keys, lanes, cache, v);
  else
    for (std::size_t l = 0; l < lanes; ++l) sample_group(g, keys[l][g.timeline], key_rows, cache[l], v[l]);
}

// A weights group of `lanes` poses into each pose's own array.
inline void store_weight_lanes(const ChannelGroup& g, const F8 (*v)[4], std::size_t lanes,
                               float* const* weights) noexcept {
  for (std::size_t l = 0; l < lanes; ++l) {
    alignas(32) float w[kGroupLanes];
    store(w, v[l][0]);
    for (std::uint32_t j = 0; j < g.lanes; ++j) weights[l][g.targets[j]] = w[j];
  }
}

// A TRS group of `lanes` poses into SampleLanes::pose: every component turned from 8 channels of
// one pose into 8 poses of one channel (an 8 × 8 transpose in registers). Lanes past `lanes`
// get lane 0's values.
inline void store_pose_lanes(const ChannelGroup& g, F8 (*v)[4], std::size_t lanes, float* pose) noexcept {
  const std::uint32_t n = lane_components(g.path);
  for (std::size_t l = lanes; l < kSampleLanes; ++l)
    for (std::uint32_t c = 0; c < n; ++c) v[l][c] = v[0][c];
  // Where each channel's first component goes; the next ones follow 8 floats apart.
  const std::size_t first = g.path == ChannelPath::translation ? 0 : g.path == ChannelPath::rotation ? 3 : 7;
  float* to[kGroupLanes];
  for (std::uint32_t j = 0; j < kGroupLanes; ++j)
    to[j] = pose + (std::size_t{g.targets[j]} * kPoseLaneComponents + first) * kSampleLanes;
  for (std::uint32_t c = 0; c < n; ++c) {
    F8 rows[kSampleLanes];
    for (std::size_t l = 0; l < kSampleLanes; ++l) rows[l] = v[l][c];
    transpose8(rows);
    if (g.lanes == kGroupLanes) {
      for (std::uint32_t j = 0; j < kGroupLanes; ++j) store(to[j] + c * kSampleLanes, rows[j]);
    } else {
      for (std::uint32_t j = 0; j < g.lanes; ++j) store(to[j] + c * kSampleLanes, rows[j]);
    }
  }
}

// SampleLanes: each pose's groups as `sample` computes them, then stored across poses. Flattened,
// as sample_pair: left to GCC's inlining, the code split into the helpers above ran 2–4 % slower
// for Fox's 1,000 actors than when it was written out in this function.
[[gnu::flatten]] inline void sample_lanes(const SampleLanes& pass) noexcept {
  if (pass.lanes == 0 || pass.lanes > kSampleLanes) return;
  SlerpCoefficients cache[kSampleLanes];
  for (std::size_t gi = 0; gi < pass.count; ++gi) {
    const ChannelGroup& g = pass.groups[gi];
    F8 v[kSampleLanes][4];
    sample_group_lanes(g, pass.key_rows, pass.keys, pass.lanes, cache, v);
    if (g.path == ChannelPath::weights)
      store_weight_lanes(g, v, pass.lanes, pass.weights);
    else
      store_pose_lanes(g, v, pass.lanes, pass.pose);
  }
}
