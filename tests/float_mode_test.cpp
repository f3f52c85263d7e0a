// The CPU evaluation runs in flush-to-zero mode on the threads that run it (docs/spec.md §5.4):
// an arithmetic result below the smallest normal float is 0, never a subnormal (checked in the
// packed instance transforms and palettes). The caller's floating-point mode is left as it was,
// whatever it was. Checked on the built-in character (a skinned mesh: its instance transforms are
// the placements times the mesh's world, the identity) placed by a rotation scaled by 1e-37,
// where an entry e × 1e-37 is subnormal for 0 < |e| < 0.118, against the same crowd placed by the
// rotation alone.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <memory>

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include "gltf_crowd/crowd.hpp"
#include "gltf_crowd/default_character.hpp"

namespace gltf_crowd {
namespace {

constexpr double kTiny = 1e-37;

std::shared_ptr<const Asset> character() {
  static const auto asset = std::make_shared<const Asset>(load_asset_from_memory(default_character_glb()));
  return asset;
}

// 40 actors (more than one chunk of 32: the arena's threads evaluate them), each at its own
// time, placed by a rotation of 0.2 rad about (1, 2, 3) scaled by `scale`.
void add_actors(Crowd& crowd, float scale) {
  const glm::mat4 placement =
      glm::scale(glm::rotate(glm::mat4(1.0f), 0.2f, glm::vec3(1.0f, 2.0f, 3.0f)), glm::vec3(scale));
  for (int i = 0; i < 40; ++i)
    crowd.add_actor(
        {.clip = character()->clips[0].name, .time = 0.05f * static_cast<float>(i), .transform = placement});
}

// MXCSR's control bits (rounding, flush to zero, masks, denormals are zero), without the
// sticky exception flags that any arithmetic raises.
unsigned control_bits(unsigned csr) { return csr & ~0x3Fu; }

TEST(FloatMode, UpdateAndControlsLeaveTheCallersModeAsTheyFoundIt) {
  const unsigned entry = _mm_getcsr();
  for (const unsigned mode : {entry & ~unsigned{_MM_FLUSH_ZERO_ON}, entry | _MM_FLUSH_ZERO_ON}) {
    _mm_setcsr(mode);
    Crowd crowd(character(), {.capacity = 40});
    add_actors(crowd, 1.0f);
    crowd.update(1.0f / 30.0f);
    EXPECT_EQ(control_bits(_mm_getcsr()), control_bits(mode)) << "after update";
    crowd.actors()[3].seek(0.25f);
    crowd.node_streams();  // evaluates the sought actor on this thread (docs/spec.md §3.4)
    EXPECT_EQ(control_bits(_mm_getcsr()), control_bits(mode)) << "after seek and read";
  }
  _mm_setcsr(entry);
}

// A caller in another mode gets its MXCSR back as it was, exception flags included (docs/spec.md
// §5.4): the underflow that flushing the tiny placement's products raises does not reach it. The
// read after a seek evaluates the actor on the caller's thread, writing its instance transforms
// (placement × the mesh's world).
TEST(FloatMode, ASwitchedCallerGetsItsFlagsBackAsTheyWere) {
  const unsigned entry = _mm_getcsr();
  Crowd tiny(character(), {.capacity = 40});
  add_actors(tiny, static_cast<float>(kTiny));
  const unsigned mode = entry & ~unsigned{_MM_FLUSH_ZERO_ON | 0x40u | 0x3Fu};  // no flag raised
  for (const float seconds : {0.25f, 0.5f, 0.75f}) {
    _mm_setcsr(mode);
    tiny.actors()[3].seek(seconds);
    tiny.node_streams();
    const unsigned after = _mm_getcsr();
    _mm_setcsr(entry);
    EXPECT_EQ(control_bits(after), control_bits(mode)) << "after seek(" << seconds << ")";
    EXPECT_EQ(after & unsigned{_MM_EXCEPT_UNDERFLOW}, 0u) << "after seek(" << seconds << ")";
  }
  // The evaluation does raise underflow: the same seek in the evaluation's own mode, which the
  // crowd leaves alone, keeps the flag.
  _mm_setcsr((mode | _MM_FLUSH_ZERO_ON | _MM_MASK_MASK) & ~unsigned{_MM_ROUND_MASK});
  tiny.actors()[3].seek(0.6f);
  tiny.node_streams();
  const unsigned kept = _mm_getcsr();
  _mm_setcsr(entry);
  EXPECT_NE(kept & unsigned{_MM_EXCEPT_UNDERFLOW}, 0u);
}

TEST(FloatMode, ResultsBelowTheSmallestNormalFloatAreZero) {
  const unsigned entry = _mm_getcsr();
  // The caller's mode must not matter: neither flush to zero nor denormals are zero here.
  _mm_setcsr(entry & ~unsigned{_MM_FLUSH_ZERO_ON | 0x40u});
  Crowd tiny(character(), {.capacity = 40}), unit(character(), {.capacity = 40});
  add_actors(tiny, static_cast<float>(kTiny));
  add_actors(unit, 1.0f);
  tiny.update(1.0f / 30.0f);
  unit.update(1.0f / 30.0f);
  tiny.actors()[3].seek(0.25f);
  unit.actors()[3].seek(0.25f);
  _mm_setcsr(entry);
  const auto a = tiny.node_streams();
  const auto b = unit.node_streams();
  ASSERT_EQ(a.size(), b.size());
  std::size_t subnormal = 0, flushed = 0;
  for (std::size_t d = 0; d < a.size(); ++d) {
    const float* t = &a[d].transforms[0].x;
    const float* u = &b[d].transforms[0].x;
    for (std::size_t k = 0; k < 40 * 12; ++k) {
      subnormal += std::fpclassify(t[k]) == FP_SUBNORMAL;
      // Where the exact product is subnormal, the result is 0.
      if (u[k] != 0.0f && std::fabs(static_cast<double>(u[k])) * kTiny < FLT_MIN) {
        EXPECT_EQ(t[k], 0.0f) << "stream " << d << ", float " << k;
        ++flushed;
      }
    }
    for (const glm::vec4& row : a[d].palette)
      for (int c = 0; c < 4; ++c) subnormal += std::fpclassify(row[c]) == FP_SUBNORMAL;
  }
  EXPECT_EQ(subnormal, 0u);
  EXPECT_GT(flushed, 40u);  // every actor has entries this small
}

// The same slot evaluates alike whatever the caller's mode: the reads after the controls below
// evaluate on the caller's thread, once in round-up mode with denormals are zero, once in the
// default mode.
TEST(FloatMode, ControlsEvaluateAlikeWhateverTheCallersMode) {
  const unsigned entry = _mm_getcsr();
  Crowd a(character(), {.capacity = 40}), b(character(), {.capacity = 40});
  add_actors(a, 1.0f);
  add_actors(b, 1.0f);
  _mm_setcsr((entry & ~unsigned{_MM_ROUND_MASK}) | _MM_ROUND_UP | 0x40u);
  for (Actor actor : a.actors()) actor.seek(0.37f);
  const auto x = a.node_streams();
  _mm_setcsr(entry);
  for (Actor actor : b.actors()) actor.seek(0.37f);
  const auto y = b.node_streams();
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t d = 0; d < x.size(); ++d) {
    EXPECT_EQ(std::memcmp(x[d].transforms.data(), y[d].transforms.data(), 40 * 3 * sizeof(glm::vec4)), 0)
        << "stream " << d;
    ASSERT_EQ(x[d].palette.size(), y[d].palette.size());
    if (x[d].palette.empty()) continue;  // no skin: memcmp must not see its null data()
    EXPECT_EQ(std::memcmp(x[d].palette.data(), y[d].palette.data(), x[d].palette.size() * sizeof(glm::vec4)), 0)
        << "stream " << d;
  }
}

}  // namespace
}  // namespace gltf_crowd
