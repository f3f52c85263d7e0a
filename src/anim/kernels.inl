// Kernel bodies of kernels.cpp, included once per instruction set inside a namespace that
// defines madd(a, b, c) = a × b + c and splat(const float*) for it. No include guard on purpose.

// out = a × b; with kStream, written with non-temporal stores (out 16-byte aligned), which skip
// reading the destination lines into the cache first: palettes are written once per frame and
// next read by the upload, long after they would have left the cache.
template <bool kStream = false>
inline void product(const Affine& a, const Affine& b, Affine& out) noexcept {
  const __m128 b0 = _mm_loadu_ps(&b.rows[0].x);
  const __m128 b1 = _mm_loadu_ps(&b.rows[1].x);
  const __m128 b2 = _mm_loadu_ps(&b.rows[2].x);
  const __m128 w_only = _mm_castsi128_ps(_mm_set_epi32(-1, 0, 0, 0));
  for (int r = 0; r < 3; ++r) {
    const float* ar = &a.rows[r].x;
    // b's implicit last row (0, 0, 0, 1) contributes a's translation.
    const __m128 v =
        madd(splat(ar), b0, madd(splat(ar + 1), b1, madd(splat(ar + 2), b2, _mm_and_ps(_mm_loadu_ps(ar), w_only))));
    if constexpr (kStream)
      _mm_stream_ps(&out.rows[r].x, v);
    else
      _mm_storeu_ps(&out.rows[r].x, v);
  }
}

inline void hierarchy(const HierarchyPass& pass, Affine* world) noexcept {
  // Locals, so that stores into `world` do not force reloading the pass's pointers.
  const std::int32_t* parents = pass.parent;
  const Affine* rest_local = pass.rest_local;
  const std::uint32_t* mark = pass.mark;
  const std::uint32_t stamp = pass.stamp;
  const Affine* root = pass.root;
  const Affine* rest_world = pass.rest_world;
  std::uint8_t* moved = pass.moved;
  Affine local;
  for (std::size_t n = 0, count = pass.count; n < count; ++n) {
    const std::int32_t parent = parents[n];
    const bool animated = mark[n] == stamp;
    moved[n] = animated || (parent >= 0 && moved[parent]);
    if (!moved[n]) {  // the whole chain up to the root is at rest
      world[n] = rest_world[n];
      continue;
    }
    const Affine* l = &rest_local[n];
    if (animated) {
      local = compose_trs(pass.translations[n], pass.rotations[n], pass.scales[n]);
      l = &local;
    }
    if (parent >= 0)
      product(world[parent], *l, world[n]);
    else if (root != nullptr)
      product(*root, *l, world[n]);
    else
      world[n] = *l;
  }
}

inline void palette(std::span<const std::uint32_t> joints, std::span<const Affine> inverse_binds,
                    std::span<const Affine> world, const Affine* left, glm::vec4* rows) noexcept {
  Affine* out = reinterpret_cast<Affine*>(rows);
  if (reinterpret_cast<std::uintptr_t>(rows) % 16 != 0) {  // not from a crowd's stream: plain stores
    Affine m;
    for (std::size_t j = 0; j < joints.size(); ++j) {
      product(world[joints[j]], inverse_binds[j], m);
      if (left != nullptr)
        product(*left, m, out[j]);
      else
        out[j] = m;
    }
    return;
  }
  if (left == nullptr) {
    for (std::size_t j = 0; j < joints.size(); ++j) product<true>(world[joints[j]], inverse_binds[j], out[j]);
  } else {
    Affine m;
    for (std::size_t j = 0; j < joints.size(); ++j) {
      product(world[joints[j]], inverse_binds[j], m);
      product<true>(*left, m, out[j]);
    }
  }
  _mm_sfence();  // order the streamed rows before any later store (and the next reader)
}

inline void multiply(const Affine& a, const Affine& b, Affine& out) noexcept { product(a, b, out); }
