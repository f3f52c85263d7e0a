// The two-layer crossfade across lanes (BlendLanes), of one pose sampled from two clips
// (SamplePair) and of up to 8 poses sampled from two clips (SamplePairLanes), included by
// kernels.cpp after sample_kernels.inl and hierarchy_lanes.inl in each instruction set's
// namespace, where F8, its arithmetic, below (a < b per lane, as a mask) and select are defined.
// No include guard on purpose.
//
// Each lane's result is blend_pair's for that pose (jobs.cpp): the same products and sums in the
// same order, the sign test and the zero-length fallback as lane masks.

// (x·x' + y·y') + (z·z' + w·w'), as blend_pair's dot4 sums.
inline F8 dot_lanes(const F8* a, const F8* b) noexcept {
  return add(add(mul(a[0], b[0]), mul(a[1], b[1])), add(mul(a[2], b[2]), mul(a[3], b[3])));
}

// a × wa + b × ±wb, normalized, for the 4-component lanes a and b: blend_pair's rotation blend,
// with -wb (flipped_wb) where b points away from a, and the identity where the sum is zero.
inline void blend_rotation(const F8* a, const F8* b, F8 wa, F8 wb, F8 flipped_wb, F8* out) noexcept {
  const F8 zero = splat(0.0f);
  const F8 signed_wb = select(below(dot_lanes(b, a), zero), flipped_wb, wb);
  F8 q[4];
  for (int k = 0; k < 4; ++k) q[k] = add(mul(a[k], wa), mul(b[k], signed_wb));
  const F8 len = sqrt(dot_lanes(q, q));
  const F8 nonzero = below(zero, len);  // else the identity, as store_normalized
  for (int k = 0; k < 4; ++k) out[k] = select(nonzero, div(q[k], len), splat(k == 3 ? 1.0f : 0.0f));
}

inline void blend_lanes(const BlendLanes& pass) noexcept {
  const F8 wa = load(pass.wa), wb = load(pass.wb);
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
    blend_rotation(qa, qb, wa, wb, flipped_wb, q);
    for (int k = 0; k < 4; ++k) store(out + 8 * (3 + k), q[k]);
  }
}

// One group's values of two clips, a (weight wa) and b (wb), blended into `a` as blend_lanes
// blends a node's property.
inline void blend_group(ChannelPath path, F8* a, const F8* b, F8 wa, F8 wb) noexcept {
  if (path == ChannelPath::rotation)
    blend_rotation(a, b, wa, wb, flip_sign(splat(-1.0f), wb), a);
  else
    for (int c = 0; c < 3; ++c) a[c] = add(mul(a[c], wa), mul(b[c], wb));
}

// SamplePair: both clips' groups sampled side by side and blended in registers, scattered once.
// Flattened: otherwise GCC calls slerp_lanes out of line and passes its lanes through memory. The
// scalar fallbacks inlined here stay exact as kernels.cpp is built with -ffp-contract=off.
[[gnu::flatten]] inline void sample_pair(const SamplePair& pass) noexcept {
  SlerpCoefficients cache[2];
  const F8 wa = splat(pass.wa), wb = splat(pass.wb);
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
    blend_group(ga.path, a, b, wa, wb);
    scatter(ga, a, out);
  }
}

// SamplePairLanes: both clips' groups sampled across lanes (SampleLanes), blended lane by lane
// in registers as blend_lanes blends the poses, stored once; then the properties the clips leave
// at rest, as blend_lanes blends rest with rest.
[[gnu::flatten]] inline void sample_pair_lanes(const SamplePairLanes& pass) noexcept {
  if (pass.lanes == 0 || pass.lanes > kSampleLanes) return;
  const ClipTracks& clip_a = *pass.clips[0];
  const ClipTracks& clip_b = *pass.clips[1];
  SlerpCoefficients cache_a[kSampleLanes], cache_b[kSampleLanes];
  const F8 wa = load(pass.wa), wb = load(pass.wb);
  for (std::size_t gi = 0; gi < clip_a.groups.size(); ++gi) {
    const ChannelGroup& ga = clip_a.groups[gi];
    const ChannelGroup& gb = clip_b.groups[gi];
    if (samples_across(ga) && samples_across(gb)) {
      F8 a[kAcrossLanes][4], b[kAcrossLanes][4];
      if (sample_across(ga, clip_a.key_rows.data(), pass.keys[0], pass.lanes, a) &&
          sample_across(gb, clip_b.key_rows.data(), pass.keys[1], pass.lanes, b)) {
        for (std::uint32_t j = 0; j < ga.lanes; ++j) blend_group(ga.path, a[j], b[j], wa, wb);
        store_across(ga, a, pass.pose);
        continue;
      }
    }
    F8 a[kSampleLanes][4], b[kSampleLanes][4];
    sample_group_lanes(ga, clip_a.key_rows.data(), pass.keys[0], pass.lanes, cache_a, a);
    sample_group_lanes(gb, clip_b.key_rows.data(), pass.keys[1], pass.lanes, cache_b, b);
    if (ga.path == ChannelPath::weights) {
      store_weight_lanes(ga, a, pass.lanes, pass.weights[0]);
      store_weight_lanes(gb, b, pass.lanes, pass.weights[1]);
      continue;
    }
    for (std::size_t l = 0; l < pass.lanes; ++l) blend_group(ga.path, a[l], b[l], splat(pass.wa[l]), splat(pass.wb[l]));
    store_pose_lanes(ga, a, pass.lanes, pass.pose);
  }
  const Rig& rig = *pass.rig;
  const auto put = [&](std::uint32_t node, std::size_t first, const F8* v, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k)
      store(pass.pose + (node * kPoseLaneComponents + first + k) * kSampleLanes, v[k]);
  };
  const auto rest_vector = [&](std::uint32_t node, std::size_t first, const glm::vec3& rest) {
    F8 v[3];
    for (int k = 0; k < 3; ++k) v[k] = add(mul(splat(rest[k]), wa), mul(splat(rest[k]), wb));
    put(node, first, v, 3);
  };
  for (std::uint32_t n : clip_a.rest_translations) rest_vector(n, 0, rig.rest_translation[n]);
  for (std::uint32_t n : clip_a.rest_scales) rest_vector(n, 7, rig.rest_scale[n]);
  const F8 flipped_wb = flip_sign(splat(-1.0f), wb);
  for (std::uint32_t n : clip_a.rest_rotations) {
    const glm::quat& r = rig.rest_rotation[n];
    const F8 rest[4] = {splat(r.x), splat(r.y), splat(r.z), splat(r.w)};
    F8 q[4];
    blend_rotation(rest, rest, wa, wb, flipped_wb, q);
    put(n, 3, q, 4);
  }
}
