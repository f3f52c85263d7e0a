// Kernel bodies of kernels.cpp, included once per instruction set inside a namespace that
// defines madd(a, b, c) = a × b + c and splat(const float*) for it. No include guard on purpose.

// out = a × b; with kStream, written with non-temporal stores (out 16-byte aligned), which skip
// reading the destination lines into the cache first: a large crowd's palettes are written once
// per frame and next read by the upload, long after they would have left the cache.
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

// out = a × b with b's rows in registers (b0, b1, b2), as product() computes it.
inline void product_rows(const Affine& a, __m128 b0, __m128 b1, __m128 b2, Affine& out) noexcept {
  const __m128 w_only = _mm_castsi128_ps(_mm_set_epi32(-1, 0, 0, 0));
  for (int r = 0; r < 3; ++r) {
    const float* ar = &a.rows[r].x;
    _mm_storeu_ps(
        &out.rows[r].x,
        madd(splat(ar), b0, madd(splat(ar + 1), b1, madd(splat(ar + 2), b2, _mm_and_ps(_mm_loadu_ps(ar), w_only)))));
  }
}

// compose_trs(t, q, s)'s rows in registers: for a unit quaternion (v, w), R = (1 − 2|v|²) I + 2 v vᵀ +
// 2w [v]×, rows from a few shuffles of q instead of compose_trs' scalar products and inserts. Rounds
// differently from compose_trs in the last bits (the diagonal is summed in another order).
inline void compose_rows(const glm::vec3& t, const glm::quat& q, const glm::vec3& s, __m128 rows[3]) noexcept {
  const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
  const __m128 qv = _mm_loadu_ps(&q.x);                                                // x y z w
  const __m128 v2 = _mm_and_ps(_mm_add_ps(qv, qv), xyz);                               // 2x 2y 2z 0
  const __m128 wv2 = _mm_mul_ps(_mm_shuffle_ps(qv, qv, _MM_SHUFFLE(3, 3, 3, 3)), v2);  // 2wx 2wy 2wz 0
  __m128 sum = _mm_mul_ps(qv, v2);                                                     // 2xx 2yy 2zz 0
  sum = _mm_add_ps(sum, _mm_shuffle_ps(sum, sum, _MM_SHUFFLE(2, 3, 0, 1)));
  sum = _mm_add_ps(sum, _mm_shuffle_ps(sum, sum, _MM_SHUFFLE(1, 0, 3, 2)));  // 2|v|² in every lane
  const __m128 diagonal = _mm_sub_ps(_mm_set1_ps(1.0f), sum);
  const __m128 sign_y = _mm_castsi128_ps(_mm_set_epi32(0, 0, static_cast<int>(0x80000000u), 0));
  const __m128 sign_z = _mm_castsi128_ps(_mm_set_epi32(0, static_cast<int>(0x80000000u), 0, 0));
  const __m128 sign_x = _mm_castsi128_ps(_mm_set_epi32(0, 0, 0, static_cast<int>(0x80000000u)));
  // 2w [v]× rows: (0, −2wz, 2wy), (2wz, 0, −2wx), (−2wy, 2wx, 0); lane 3 of wv2 is the zero.
  const __m128 cross0 = _mm_xor_ps(_mm_shuffle_ps(wv2, wv2, _MM_SHUFFLE(3, 1, 2, 3)), sign_y);
  const __m128 cross1 = _mm_xor_ps(_mm_shuffle_ps(wv2, wv2, _MM_SHUFFLE(3, 0, 3, 2)), sign_z);
  const __m128 cross2 = _mm_xor_ps(_mm_shuffle_ps(wv2, wv2, _MM_SHUFFLE(3, 3, 0, 1)), sign_x);
  const __m128 e0 = _mm_castsi128_ps(_mm_set_epi32(0, 0, 0, -1));
  const __m128 e1 = _mm_castsi128_ps(_mm_set_epi32(0, 0, -1, 0));
  const __m128 e2 = _mm_castsi128_ps(_mm_set_epi32(0, -1, 0, 0));
  const __m128 scale = _mm_setr_ps(s.x, s.y, s.z, 1.0f);
  const __m128 w_only = _mm_castsi128_ps(_mm_set_epi32(-1, 0, 0, 0));
  const float* v = &q.x;
  const float* tr = &t.x;
  const __m128 r0 = madd(splat(v), v2, _mm_add_ps(_mm_and_ps(diagonal, e0), cross0));
  const __m128 r1 = madd(splat(v + 1), v2, _mm_add_ps(_mm_and_ps(diagonal, e1), cross1));
  const __m128 r2 = madd(splat(v + 2), v2, _mm_add_ps(_mm_and_ps(diagonal, e2), cross2));
  rows[0] = madd(r0, scale, _mm_and_ps(splat(tr), w_only));  // lane 3: 0 × 1 + t.x
  rows[1] = madd(r1, scale, _mm_and_ps(splat(tr + 1), w_only));
  rows[2] = madd(r2, scale, _mm_and_ps(splat(tr + 2), w_only));
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
  const glm::vec3* translations = pass.translations;
  const glm::quat* rotations = pass.rotations;
  const glm::vec3* scales = pass.scales;
  for (std::size_t n = 0, count = pass.count; n < count; ++n) {
    const std::int32_t parent = parents[n];
    const bool animated = mark[n] == stamp;
    moved[n] = animated || (parent >= 0 && moved[parent]);
    if (!moved[n]) {  // the whole chain up to the root is at rest
      world[n] = rest_world[n];
      continue;
    }
    const Affine* up = parent >= 0 ? &world[parent] : root;
    if (!animated) {
      if (up != nullptr)
        product(*up, rest_local[n], world[n]);
      else
        world[n] = rest_local[n];
      continue;
    }
    __m128 local[3];
    compose_rows(translations[n], rotations[n], scales[n], local);
    if (up != nullptr) {
      product_rows(*up, local[0], local[1], local[2], world[n]);
    } else {
      for (int r = 0; r < 3; ++r) _mm_storeu_ps(&world[n].rows[r].x, local[r]);
    }
  }
}

inline void palette(std::span<const std::uint32_t> joints, std::span<const Affine> inverse_binds,
                    std::span<const Affine> world, const Affine* left, glm::vec4* rows, bool stream) noexcept {
  Affine* out = reinterpret_cast<Affine*>(rows);
  if (!stream || reinterpret_cast<std::uintptr_t>(rows) % 16 != 0) {  // plain stores
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
