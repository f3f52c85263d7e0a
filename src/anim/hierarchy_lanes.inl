// The hierarchy of up to 8 poses at once (HierarchyLanes), included by kernels.cpp after
// kernels.inl and sample_kernels.inl in each instruction set's namespace, where F8 (8 lanes),
// its arithmetic, join (from 4-lane halves), lane_mask and select are defined. No include
// guard on purpose.
//
// Every lane's result is the one `hierarchy` computes for that pose alone. A node that some
// lane moves runs compose_rows and product_rows element by element across lanes, with the same
// operations in the same order (madd with a zero addend where they add a masked-out lane);
// lanes that do not animate it select rest_local before the product, lanes whose chain is at
// rest select rest_world after it, as `hierarchy` branches, so the results are the same bits.
// kernels.cpp is compiled without contraction of multiplies and adds, which would fuse the two
// paths differently.

// One affine per lane, by component: c[4r + k] is row r, column k. In HierarchyLanes::lanes_world
// (unaligned) a node's 12 components are 96 consecutive floats.
struct Affine8 {
  F8 c[12];
};

inline void store_affine8(float* p, const Affine8& a) noexcept {
  for (int k = 0; k < 12; ++k) store(p + 8 * k, a.c[k]);
}
inline F8 negate(F8 a) noexcept { return flip_sign(splat(-1.0f), a); }

inline void transpose(__m128& a, __m128& b, __m128& c, __m128& d) noexcept { _MM_TRANSPOSE4_PS(a, b, c, d); }

// Four 4-float vectors per lane (lanes 0–3 in `lo`, 4–7 in `hi`) into four F8 of their components.
inline void gather4(__m128 lo[4], __m128 hi[4], F8 out[4]) noexcept {
  transpose(lo[0], lo[1], lo[2], lo[3]);
  transpose(hi[0], hi[1], hi[2], hi[3]);
  for (int k = 0; k < 4; ++k) out[k] = join(lo[k], hi[k]);
}

// The pass's per-lane arrays for all 8 lanes: lanes past pass.lanes repeat lane 0, so they
// compute lane 0's results again and store them where lane 0 does (the same values), and
// every loop over lanes has a constant count.
struct Lanes8 {
  const glm::vec3* translations[8];
  const glm::quat* rotations[8];
  const glm::vec3* scales[8];
  const std::uint32_t* mark[8];
  std::uint32_t stamp[8];
  Affine* world[8];
};

// Every lane's world[n] (lanes 0–7) into an Affine8: row r is a 4×4 transpose per half.
inline void gather_affine(const Affine* const* world, std::size_t n, Affine8& out) noexcept {
  for (int r = 0; r < 3; ++r) {
    __m128 lo[4], hi[4];
    for (int l = 0; l < 4; ++l) {
      lo[l] = _mm_loadu_ps(&world[l][n].rows[r].x);
      hi[l] = _mm_loadu_ps(&world[l + 4][n].rows[r].x);
    }
    gather4(lo, hi, &out.c[4 * r]);
  }
}

// The inverse of gather_affine: store(l, r, row) gets row r of lane l (rows4, a 4-lane
// transpose per row of components, in registers).
template <class Store>
inline void scatter_affine(const Affine8& a, Store&& store) noexcept {
  for (int r = 0; r < 3; ++r) {
    __m128 rows[8];
    rows4(&a.c[4 * r], rows);
    for (int l = 0; l < 8; ++l) store(l, r, rows[l]);
  }
}

// A vec3 per lane as x, y, z; the last node's is read without a 4th float (the array ends).
inline void gather_vec3(const glm::vec3* const* v, std::size_t n, bool last, F8 out[3]) noexcept {
  __m128 lo[4], hi[4];
  for (int l = 0; l < 4; ++l) {
    const float* a = &v[l][n].x;
    const float* b = &v[l + 4][n].x;
    lo[l] = last ? _mm_setr_ps(a[0], a[1], a[2], 0.0f) : _mm_loadu_ps(a);
    hi[l] = last ? _mm_setr_ps(b[0], b[1], b[2], 0.0f) : _mm_loadu_ps(b);
  }
  F8 four[4];
  gather4(lo, hi, four);
  for (int k = 0; k < 3; ++k) out[k] = four[k];
}

// compose_rows(t, q, s) across lanes.
inline void compose_lanes(const F8 t[3], const F8 q[4], const F8 s[3], F8 m[12]) noexcept {
  const F8 zero = splat(0.0f);
  const F8 x = q[0], y = q[1], z = q[2], w = q[3];
  const F8 x2 = add(x, x), y2 = add(y, y), z2 = add(z, z);
  const F8 wx2 = mul(w, x2), wy2 = mul(w, y2), wz2 = mul(w, z2);
  const F8 diagonal = sub(splat(1.0f), add(add(mul(x, x2), mul(y, y2)), mul(z, z2)));
  m[0] = madd(madd(x, x2, diagonal), s[0], zero);
  m[1] = madd(madd(x, y2, negate(wz2)), s[1], zero);
  m[2] = madd(madd(x, z2, wy2), s[2], zero);
  m[3] = add(zero, t[0]);  // compose_rows adds the translation to +0: −0 becomes +0
  m[4] = madd(madd(y, x2, wz2), s[0], zero);
  m[5] = madd(madd(y, y2, diagonal), s[1], zero);
  m[6] = madd(madd(y, z2, negate(wx2)), s[2], zero);
  m[7] = add(zero, t[1]);  // compose_rows adds the translation to +0: −0 becomes +0
  m[8] = madd(madd(z, x2, negate(wy2)), s[0], zero);
  m[9] = madd(madd(z, y2, wx2), s[1], zero);
  m[10] = madd(madd(z, z2, diagonal), s[2], zero);
  m[11] = add(zero, t[2]);  // compose_rows adds the translation to +0: −0 becomes +0
}

// product_rows(up, local) across lanes, row by row (`up` from lanes_world).
inline void product_lanes(const float* up, const F8 local[12], F8 out[12]) noexcept {
  const F8 zero = splat(0.0f);
  for (int r = 0; r < 3; ++r) {
    const F8 u0 = load(up + 8 * (4 * r)), u1 = load(up + 8 * (4 * r + 1)), u2 = load(up + 8 * (4 * r + 2));
    for (int k = 0; k < 3; ++k)
      out[4 * r + k] = madd(u0, local[k], madd(u1, local[4 + k], madd(u2, local[8 + k], zero)));
    out[4 * r + 3] = madd(u0, local[3], madd(u1, local[7], madd(u2, local[11], load(up + 8 * (4 * r + 3)))));
  }
}

// `affine` in all 8 lanes.
inline void broadcast(const Affine& affine, Affine8& out) noexcept {
  for (int k = 0; k < 12; ++k) out.c[k] = splat((&affine.rows[0].x)[k]);
}

// `affine` in all 8 lanes, stored as lanes_world holds a node (96 floats). Stored as each
// component is splat: through an Affine8 on the stack, GCC copied it with a `rep movsq`.
inline void store_broadcast(const Affine& affine, float* lanes) noexcept {
  for (int k = 0; k < 12; ++k) store(lanes + 8 * k, splat((&affine.rows[0].x)[k]));
}

inline void hierarchy_lanes(const HierarchyLanes& pass) noexcept {
  if (pass.lanes == 0 || pass.lanes > 8) return;
  Lanes8 in;
  for (std::size_t l = 0; l < 8; ++l) {
    const std::size_t from = l < pass.lanes ? l : 0;
    in.translations[l] = pass.translations[from];
    in.rotations[l] = pass.rotations[from];
    in.scales[l] = pass.scales[from];
    in.mark[l] = pass.mark[from];
    in.stamp[l] = pass.stamp[from];
    in.world[l] = pass.world[from];
  }
  const std::int32_t* parents = pass.parent;
  float* lanes_world = pass.lanes_world;
  std::uint8_t* in_lanes = pass.in_lanes;
  std::uint8_t* moved_lanes = pass.moved_lanes;
  // The root transform as lanes_world holds a node: each component in all 8 lanes.
  float root[96];
  if (pass.root != nullptr) store_broadcast(*pass.root, root);
  for (std::size_t n = 0, count = pass.count; n < count; ++n) {
    const std::int32_t parent = parents[n];
    // Bit l: lane l animates node n; moved: it or an ancestor is animated (hierarchy's `moved`).
    unsigned animated = 0;
    if (pass.pose != nullptr)
      animated = pass.animated[n] != 0 ? 0xFFu : 0u;
    else
      for (int l = 0; l < 8; ++l) animated |= unsigned{in.mark[l][n] == in.stamp[l]} << l;
    const unsigned moved = animated | (parent >= 0 ? moved_lanes[parent] : 0u);
    moved_lanes[n] = static_cast<std::uint8_t>(moved);
    if (moved == 0) {  // every lane's chain is at rest: a child or palette broadcasts rest_world
      if (pass.keep_world == nullptr || pass.keep_world[n])
        for (std::size_t l = 0; l < pass.lanes; ++l) in.world[l][n] = pass.rest_world[n];
      in_lanes[n] = 0;
      continue;
    }
    // local: T × R × S where animated, else rest_local.
    Affine8 local;
    if (animated == 0) {
      broadcast(pass.rest_local[n], local);
    } else {
      F8 t[3], s[3], q[4];
      if (pass.pose != nullptr) {  // SampleLanes' layout: t, q, s, 8 lanes each
        const float* p = pass.pose + n * (kPoseLaneComponents * 8);
        for (int k = 0; k < 3; ++k) t[k] = load(p + 8 * k);
        for (int k = 0; k < 4; ++k) q[k] = load(p + 8 * (3 + k));
        for (int k = 0; k < 3; ++k) s[k] = load(p + 8 * (7 + k));
      } else {
        const bool last = n + 1 == count;
        gather_vec3(in.translations, n, last, t);
        gather_vec3(in.scales, n, last, s);
        __m128 lo[4], hi[4];
        for (int l = 0; l < 4; ++l) {
          lo[l] = _mm_loadu_ps(&in.rotations[l][n].x);
          hi[l] = _mm_loadu_ps(&in.rotations[l + 4][n].x);
        }
        gather4(lo, hi, q);
      }
      compose_lanes(t, q, s, local.c);
      if (animated != 0xFFu) {
        Affine8 rest;
        broadcast(pass.rest_local[n], rest);
        const F8 mask = lane_mask(animated);
        for (int k = 0; k < 12; ++k) local.c[k] = select(mask, local.c[k], rest.c[k]);
      }
    }
    const float* up = nullptr;
    if (parent >= 0) {
      const auto p = static_cast<std::size_t>(parent);
      if (!in_lanes[p]) {
        store_broadcast(pass.rest_world[p], lanes_world + 96 * p);  // at rest in every lane
        in_lanes[p] = 1;
      }
      up = lanes_world + 96 * p;
    } else if (pass.root != nullptr) {
      up = root;
    }
    Affine8 out;
    if (up != nullptr)
      product_lanes(up, local.c, out.c);
    else
      out = local;
    if (moved != 0xFFu) {  // lanes whose chain is at rest take rest_world, as hierarchy() does
      Affine8 rest;
      broadcast(pass.rest_world[n], rest);
      const F8 mask = lane_mask(moved);
      for (int k = 0; k < 12; ++k) out.c[k] = select(mask, out.c[k], rest.c[k]);
    }
    store_affine8(lanes_world + 96 * n, out);
    in_lanes[n] = 1;
    if (pass.keep_world == nullptr || pass.keep_world[n])
      scatter_affine(out, [&in, n](int l, int r, __m128 row) { _mm_storeu_ps(&in.world[l][n].rows[r].x, row); });
  }
}

inline void palette_lanes(const PaletteLanes& pass) noexcept {
  if (pass.lanes == 0 || pass.lanes > 8) return;
  glm::vec4* rows[8];
  bool stream = pass.stream;  // non-temporal stores, which need every row 16-byte aligned
  for (std::size_t l = 0; l < 8; ++l) {
    rows[l] = pass.rows[l < pass.lanes ? l : 0];
    stream &= reinterpret_cast<std::uintptr_t>(rows[l]) % 16 == 0;
  }
  float left[96];
  if (pass.left != nullptr) store_broadcast(*pass.left, left);
  for (std::size_t j = 0; j < pass.joints.size(); ++j) {
    const std::size_t node = pass.joints[j];
    float* model = pass.lanes_world + 96 * node;
    if (!pass.in_lanes[node]) {  // at rest in every lane: hierarchy_lanes left it out of the lanes
      store_broadcast(pass.rest_world[node], model);
      pass.in_lanes[node] = 1;
    }
    // palette(): m = world × inverse_bind, then left × m.
    Affine8 inverse_bind, out;
    broadcast(pass.inverse_binds[j], inverse_bind);
    product_lanes(model, inverse_bind.c, out.c);
    if (pass.left != nullptr) {
      const Affine8 m = out;
      product_lanes(left, m.c, out.c);
    }
    if (!stream) {  // plain stores: straight into each pose's rows (lanes past `lanes` repeat lane 0's)
      scatter_affine(out, [&rows, j](int l, int r, __m128 row) {
        _mm_storeu_ps(&rows[l][3 * j + static_cast<std::size_t>(r)].x, row);
      });
      continue;
    }
    glm::vec4* staging = pass.staging + 3 * j;
    const std::size_t stride = 3 * pass.joints.size();
    scatter_affine(out, [staging, stride](int l, int r, __m128 row) {
      _mm_storeu_ps(&staging[static_cast<std::size_t>(l) * stride + static_cast<std::size_t>(r)].x, row);
    });
  }
  if (!stream) return;
  // Each pose's rows in one sequential run: non-temporal stores to 8 places at once leave partial
  // lines in the write-combining buffers (docs/architecture.md, "Palettes").
  const std::size_t floats = 12 * pass.joints.size();
  for (std::size_t l = 0; l < pass.lanes; ++l) {
    const float* from = &pass.staging[l * 3 * pass.joints.size()].x;
    float* to = &rows[l][0].x;
    for (std::size_t i = 0; i < floats; i += 4) _mm_stream_ps(to + i, _mm_loadu_ps(from + i));
  }
  _mm_sfence();
}

inline void instance_lanes(const InstanceLanes& pass) noexcept {
  if (pass.lanes == 0 || pass.lanes > 8) return;
  // placement × unframe in every lane, as lanes_world holds a node: what rigid nodes multiply,
  // gathered for the first of them.
  float left[96];
  bool gathered = false;
  for (std::size_t d = 0; d < pass.drawn.size(); ++d) {
    const RigDrawn& drawn = pass.drawn[d];
    glm::vec4* const* rows = pass.rows + 8 * d;
    if (drawn.rule == InstanceRule::static_mesh) {  // a constant right operand: no gather pays
      if (!pass.static_rows) continue;
      const Affine& mesh_world = pass.skins[static_cast<std::size_t>(drawn.skin)].mesh_world;
      for (std::size_t l = 0; l < pass.lanes; ++l)
        product(*pass.placement[l], mesh_world, *reinterpret_cast<Affine*>(rows[l]));
      continue;
    }
    if (!gathered) {
      const Affine* placement[8];
      for (std::size_t l = 0; l < 8; ++l) placement[l] = pass.placement[l < pass.lanes ? l : 0];
      Affine8 lanes;
      gather_affine(placement, 0, lanes);
      store_affine8(left, lanes);
      if (pass.unframe != nullptr) {
        Affine8 unframe, framed;
        broadcast(*pass.unframe, unframe);
        product_lanes(left, unframe.c, framed.c);
        store_affine8(left, framed);
      }
      gathered = true;
    }
    const std::size_t node = drawn.node;
    Affine8 world, out;
    if (pass.in_lanes[node])
      for (int k = 0; k < 12; ++k) world.c[k] = load(pass.lanes_world + 96 * node + 8 * k);
    else
      broadcast(pass.rest_world[node], world);
    product_lanes(left, world.c, out.c);
    glm::vec4* lane_rows[8];  // lanes past `lanes` store lane 0's rows again
    for (std::size_t l = 0; l < 8; ++l) lane_rows[l] = rows[l < pass.lanes ? l : 0];
    scatter_affine(out, [&lane_rows](int l, int r, __m128 row) { _mm_storeu_ps(&lane_rows[l][r].x, row); });
  }
}
