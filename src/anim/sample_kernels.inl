// The group samplers of kernels.cpp (SamplePass for one pose, SampleLanes for up to 8 poses of
// one clip), included once per instruction set inside a namespace that defines F8 (kGroupLanes
// floats) with load, store, splat, add, sub, mul, madd (a × b + c), div, sqrt, max, flip_sign (b with
// the sign bits of a's negative lanes flipped), abs_value, any_below, low and high (lanes 0–3 and
// 4–7 as SSE registers), transpose8 (8 F8 as an 8 × 8 matrix, transposed in place), lane_mask
// (all bits of lane l where bit l is set), select (a where the mask is set, else b) and gather
// (lane l = base[at[l]]). No include guard on purpose.

// Writes the group's lanes (v[c] holds component c of every lane) four at a time, transposed in
// registers: through memory, halves of 8-wide stores read back miss store forwarding. An unused lane
// repeats lane 0 (keys and target), so a group of up to 4 lanes stores 4, not 8.
template <bool kQuat>
inline void scatter_vectors(const std::uint32_t* targets, std::uint32_t lanes, const F8* v, float* out) noexcept {
  const auto put = [out](std::uint32_t target, __m128 r) {
    if constexpr (kQuat) {
      _mm_storeu_ps(out + std::size_t{target} * 4, r);
    } else {  // 12 bytes: the fourth float belongs to the next node
      float* p = out + std::size_t{target} * 3;
      _mm_storel_pi(reinterpret_cast<__m64*>(p), r);
      _mm_store_ss(p + 2, _mm_movehl_ps(r, r));
    }
  };
  const auto four = [&](__m128 x, __m128 y, __m128 z, __m128 w, const std::uint32_t* to) {
    _MM_TRANSPOSE4_PS(x, y, z, w);
    put(to[0], x);
    put(to[1], y);
    put(to[2], z);
    put(to[3], w);
  };
  const __m128 zero = _mm_setzero_ps();
  four(low(v[0]), low(v[1]), low(v[2]), kQuat ? low(v[3]) : zero, targets);
  if (lanes > 4) four(high(v[0]), high(v[1]), high(v[2]), kQuat ? high(v[3]) : zero, targets + 4);
}

inline void scatter(const ChannelGroup& g, const F8* v, const SamplePass& pass) noexcept {
  switch (g.path) {
    case ChannelPath::translation: scatter_vectors<false>(g.targets, g.lanes, v, &pass.translations[0].x); break;
    case ChannelPath::rotation: scatter_vectors<true>(g.targets, g.lanes, v, &pass.rotations[0].x); break;
    case ChannelPath::scale: scatter_vectors<false>(g.targets, g.lanes, v, &pass.scales[0].x); break;
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

// slerp_series_polynomial of slerp.hpp in lanes, p(k) giving the lanes of coefficient p[k].
template <typename Coefficient>
inline F8 series_polynomial(Coefficient p, F8 d) noexcept {
  const F8 one = splat(1.0f), d2 = mul(d, d), d4 = mul(d2, d2);
  const F8 e01 = madd(p(0), d, one), e23 = madd(p(2), d, p(1));
  const F8 e45 = madd(p(4), d, p(3)), e67 = madd(p(6), d, p(5));
  return madd(madd(madd(p(7), d2, e67), d2, e45), d4, madd(e23, d2, e01));
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
    const auto lanes = [](const float* p) { return [p](int k) { return splat(p[k]); }; };
    const F8 d = sub(dot, splat(1.0f));
    wa = mul(series_polynomial(lanes(ca), d), splat(1.0f - t));
    wb = mul(series_polynomial(lanes(cb), d), splat(t));
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

// Groups of at most this many channels are sampled across poses (sample_across), one channel of
// 8 poses per register, instead of pose by pose: a narrow group wastes most lanes of a pose's
// registers and still pays the 8 × 8 transposes into SampleLanes::pose.
inline constexpr std::uint32_t kAcrossLanes = 2;

inline bool samples_across(const ChannelGroup& g) noexcept {
  return g.lanes <= kAcrossLanes && g.interpolation == Interpolation::linear && g.path != ChannelPath::weights;
}

// One timeline's keys of 8 poses, lanes past `lanes` as lane 0's: the offsets of each lane's two
// key rows (k and next times the group's stride, in floats), its t, and bit l where lane l holds
// its key (k == next), which sample_group copies instead of interpolating.
struct LaneKeys {
  alignas(32) std::int32_t row0[kSampleLanes], row1[kSampleLanes];
  alignas(32) float t[kSampleLanes];
  unsigned still = 0;
};

inline LaneKeys lane_keys(const ChannelGroup& g, const KeyPosition* const* keys, std::size_t lanes) noexcept {
  LaneKeys out;
  for (std::size_t l = 0; l < kSampleLanes; ++l) {
    const KeyPosition& key = keys[l < lanes ? l : 0][g.timeline];
    out.row0[l] = static_cast<std::int32_t>(key.k * g.key_stride);
    out.row1[l] = static_cast<std::int32_t>(key.next * g.key_stride);
    out.t[l] = key.t;
    out.still |= static_cast<unsigned>(key.k == key.next) << l;
  }
  return out;
}

// slerp_series_coefficients of slerp.hpp in lanes: p[k] holds coefficient k of each lane's t.
inline void series_coefficients_lanes(F8 t, F8* p) noexcept {
  const F8 t2 = mul(t, t);
  F8 c[kSlerpTerms];
  for (int i = 0; i < kSlerpTerms; ++i) c[i] = sub(mul(splat(kSlerpSeriesU[i]), t2), splat(kSlerpSeriesV[i]));
  const F8 c12 = mul(c[0], c[1]), c34 = mul(c[2], c[3]), c56 = mul(c[4], c[5]), c78 = mul(c[6], c[7]);
  const F8 p4 = mul(c12, c34);
  p[0] = c[0];
  p[1] = c12;
  p[2] = mul(c12, c[2]);
  p[3] = p4;
  p[4] = mul(p4, c[4]);
  p[5] = mul(p4, c56);
  p[6] = mul(p4, mul(c56, c[6]));
  p[7] = mul(p4, mul(c56, c78));
}

// A LINEAR TRS group (samples_across) across poses: v[j][c] lane l is component c of channel j of pose
// l, bit for bit sample_group's lane j for that pose. False, v unspecified, where a pose's rotation keys
// are past the slerp series' reach: the caller then samples the group pose by pose.
template <std::uint32_t kN>
inline bool sample_across(const ChannelGroup& g, const float* key_rows, const LaneKeys& keys, F8 (*v)[4]) noexcept {
  const float* base = key_rows + g.values_offset;
  const F8 t = load(keys.t), still = lane_mask(keys.still);
  F8 a[kAcrossLanes][4], b[kAcrossLanes][4];
  for (std::uint32_t j = 0; j < g.lanes; ++j)
    for (std::uint32_t c = 0; c < kN; ++c) {
      a[j][c] = gather(base + j + c * kGroupLanes, keys.row0);
      b[j][c] = gather(base + j + c * kGroupLanes, keys.row1);
    }
  if constexpr (kN == 3) {
    for (std::uint32_t j = 0; j < g.lanes; ++j)
      for (std::uint32_t c = 0; c < 3; ++c) v[j][c] = select(still, a[j][c], madd(sub(b[j][c], a[j][c]), t, a[j][c]));
    return true;
  }
  F8 dot[kAcrossLanes], flipped[kAcrossLanes][4];
  for (std::uint32_t j = 0; j < g.lanes; ++j) {
    const F8 signed_dot = slerp_dot(a[j], b[j]);
    for (int c = 0; c < 4; ++c) flipped[j][c] = flip_sign(signed_dot, b[j][c]);
    dot[j] = abs_value(signed_dot);
    if (any_below(dot[j], kSlerpSeriesMinCos)) return false;
  }
  const F8 s = sub(splat(1.0f), t);
  F8 ca[kSlerpTerms], cb[kSlerpTerms];
  series_coefficients_lanes(s, ca);
  series_coefficients_lanes(t, cb);
  for (std::uint32_t j = 0; j < g.lanes; ++j) {
    const F8 d = sub(dot[j], splat(1.0f));
    const F8 wa = mul(series_polynomial([&](int k) { return ca[k]; }, d), s);
    const F8 wb = mul(series_polynomial([&](int k) { return cb[k]; }, d), t);
    F8 q[4];
    for (int c = 0; c < 4; ++c) q[c] = madd(wa, a[j][c], mul(wb, flipped[j][c]));
    normalize_lanes(q);
    for (int c = 0; c < 4; ++c) v[j][c] = select(still, a[j][c], q[c]);
  }
  return true;
}

inline bool sample_across(const ChannelGroup& g, const float* key_rows, const KeyPosition* const* keys,
                          std::size_t lanes, F8 (*v)[4]) noexcept {
  const LaneKeys at = lane_keys(g, keys, lanes);
  return g.path == ChannelPath::rotation ? sample_across<4>(g, key_rows, at, v) : sample_across<3>(g, key_rows, at, v);
}

// Where a path's first component sits among a node's kPoseLaneComponents in SampleLanes::pose.
inline std::size_t lane_component_offset(ChannelPath path) noexcept {
  return path == ChannelPath::translation ? 0 : path == ChannelPath::rotation ? 3 : 7;
}

// sample_across's channels into SampleLanes::pose.
inline void store_across(const ChannelGroup& g, const F8 (*v)[4], float* pose) noexcept {
  const std::uint32_t n = lane_components(g.path);
  const std::size_t first = lane_component_offset(g.path);
  for (std::uint32_t j = 0; j < g.lanes; ++j)
    for (std::uint32_t c = 0; c < n; ++c)
      store(pose + (std::size_t{g.targets[j]} * kPoseLaneComponents + first + c) * kSampleLanes, v[j][c]);
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
  const std::size_t first = lane_component_offset(g.path);
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
// as sample_pair: GCC's own inlining of the helpers above was slower.
[[gnu::flatten]] inline void sample_lanes(const SampleLanes& pass) noexcept {
  // A local, so that the compiler knows it is 1–8 below (v[0] is always sampled).
  const std::size_t lanes = pass.lanes;
  if (lanes == 0 || lanes > kSampleLanes) return;
  SlerpCoefficients cache[kSampleLanes];
  for (std::size_t gi = 0; gi < pass.count; ++gi) {
    const ChannelGroup& g = pass.groups[gi];
    if (samples_across(g)) {
      F8 across[kAcrossLanes][4];
      if (sample_across(g, pass.key_rows, pass.keys, lanes, across)) {
        store_across(g, across, pass.pose);
        continue;
      }
    }
    F8 v[kSampleLanes][4];
    sample_group_lanes(g, pass.key_rows, pass.keys, lanes, cache, v);
    if (g.path == ChannelPath::weights)
      store_weight_lanes(g, v, lanes, pass.weights);
    else
      store_pose_lanes(g, v, lanes, pass.pose);
  }
}
