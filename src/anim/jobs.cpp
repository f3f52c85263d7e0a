// The animation jobs (jobs.hpp). The arithmetic of each is the one docs/spec.md §3–§4 names;
// the affine products run on the kernels of kernels.hpp.
#include "gltf_crowd/jobs.hpp"

#include <algorithm>

#include <immintrin.h>

#include "anim/blend_pair.hpp"
#include "anim/kernels.hpp"
#include "anim/locate_keys.hpp"
#include "gltf_crowd/pose.hpp"

namespace gltf_crowd {
namespace {

bool covers(const RigPose& pose, std::size_t nodes, std::size_t weights) noexcept {
  return pose.translations.size() >= nodes && pose.rotations.size() >= nodes && pose.scales.size() >= nodes &&
         pose.weights.size() >= weights;
}

glm::quat normalized(const glm::quat& q) noexcept {
  const float len = glm::length(q);
  return len > 0.0f ? q / len : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
}

}  // namespace

bool SampleJob::validate() const noexcept {
  if (rig == nullptr || clip == nullptr) return false;
  const std::size_t n = rig->node_count();
  return clip->rig_nodes == n && clip->weight_count == rig->rest_weights.size() &&
         keys.size() >= clip->timelines.size() && (mark.empty() || mark.size() >= n) &&
         covers(output, n, rig->rest_weights.size());
}

bool SampleJob::run() const noexcept {
  if (!validate()) return false;
  const ClipTracks& c = *clip;
  if (!mark.empty())
    for (std::uint32_t a : c.animated) mark[a] = stamp;
  if (from_rest && !constants_held) {  // only what no channel overwrites
    for (std::uint32_t a : c.rest_translations) output.translations[a] = rig->rest_translation[a];
    for (std::uint32_t a : c.rest_rotations) output.rotations[a] = rig->rest_rotation[a];
    for (std::uint32_t a : c.rest_scales) output.scales[a] = rig->rest_scale[a];
    if (c.rest_weights) std::copy(rig->rest_weights.begin(), rig->rest_weights.end(), output.weights.begin());
  }
  locate_keys(c, seconds, cursors, keys.data());
  std::size_t groups = c.groups.size();
  if (constants_held && c.constant_channels > 0) {  // the constant timeline's groups come last
    const auto constant = static_cast<std::uint32_t>(c.timelines.size() - 1);
    while (groups > 0 && c.groups[groups - 1].timeline == constant) --groups;
  }
  affine_kernels().sample({c.key_rows.data(), c.groups.data(), groups, keys.data(), output.translations.data(),
                           output.rotations.data(), output.scales.data(), output.weights.data()});
  return true;
}

bool BlendJob::validate() const noexcept {
  const std::size_t n = output.translations.size();
  if (!covers(layer, n, output.weights.size()) || !covers(output, n, output.weights.size())) return false;
  return (first || reference.size() >= n) && output.rotations.size() >= n && output.scales.size() >= n;
}

namespace {

// Quaternions as (x, y, z, w) SSE registers (glm::quat's storage order).
__m128 load_quat(const glm::quat& q) noexcept { return _mm_loadu_ps(&q.x); }

// a·b in every lane.
__m128 dot4(__m128 a, __m128 b) noexcept {
  const __m128 p = _mm_mul_ps(a, b);
  const __m128 s = _mm_add_ps(p, _mm_shuffle_ps(p, p, _MM_SHUFFLE(2, 3, 0, 1)));  // x+y, x+y, z+w, z+w
  return _mm_add_ps(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(1, 0, 3, 2)));
}

// normalized() of jobs.hpp's blend: q / |q|, the identity for a zero sum.
void store_normalized(__m128 q, glm::quat& out) noexcept {
  const __m128 len = _mm_sqrt_ps(dot4(q, q));
  if (_mm_cvtss_f32(len) > 0.0f)
    _mm_storeu_ps(&out.x, _mm_div_ps(q, len));
  else
    out = glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
}

// One BlendJob layer over the nodes `index` yields for i in [0, count): rotations, and with kVectors
// translations and scales. Locals, not the job's spans, so stores into the pose do not force reloads;
// the last layer (kLast) normalizes each rotation in the same pass.
template <bool kLast, bool kVectors, typename Index>
void blend_layer(const BlendJob& job, std::size_t count, Index index) noexcept {
  const glm::vec3* lt = job.layer.translations.data();
  const glm::quat* lr = job.layer.rotations.data();
  const glm::vec3* ls = job.layer.scales.data();
  glm::vec3* ot = job.output.translations.data();
  glm::quat* orot = job.output.rotations.data();
  glm::vec3* os = job.output.scales.data();
  const float w = job.weight;
  const __m128 wv = _mm_set1_ps(w);
  if (job.first) {
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t a = index(i);
      if constexpr (kVectors) ot[a] = lt[a] * w;
      const __m128 r = _mm_mul_ps(load_quat(lr[a]), wv);
      if constexpr (kLast)
        store_normalized(r, orot[a]);
      else
        _mm_storeu_ps(&orot[a].x, r);
      if constexpr (kVectors) os[a] = ls[a] * w;
    }
  } else {
    const glm::quat* ref = job.reference.data();
    const __m128 sign_bit = _mm_set1_ps(-0.0f);
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t a = index(i);
      const __m128 q = load_quat(lr[a]);
      if constexpr (kVectors) ot[a] += lt[a] * w;
      // q and -q are one rotation: weight -w where q points away from the reference.
      const __m128 away = _mm_cmplt_ps(dot4(q, load_quat(ref[a])), _mm_setzero_ps());
      const __m128 signed_w = _mm_xor_ps(wv, _mm_and_ps(away, sign_bit));
      const __m128 r = _mm_add_ps(load_quat(orot[a]), _mm_mul_ps(q, signed_w));
      if constexpr (kLast)
        store_normalized(r, orot[a]);
      else
        _mm_storeu_ps(&orot[a].x, r);
      if constexpr (kVectors) os[a] += ls[a] * w;
    }
  }
}

template <bool kVectors, typename Index>
void blend_layer(const BlendJob& job, std::size_t count, Index index) noexcept {
  if (job.last)
    blend_layer<true, kVectors>(job, count, index);
  else
    blend_layer<false, kVectors>(job, count, index);
}

// out = in × w (kFirst) or out += in × w over n floats: the weighted sum of translations,
// scales or morph weights as one flat array, four floats at a time.
template <bool kFirst>
void weigh_floats(const float* in, float w, std::size_t n, float* out) noexcept {
  const __m128 wv = _mm_set1_ps(w);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 v = _mm_mul_ps(_mm_loadu_ps(in + i), wv);
    _mm_storeu_ps(out + i, kFirst ? v : _mm_add_ps(_mm_loadu_ps(out + i), v));
  }
  for (; i < n; ++i) out[i] = kFirst ? in[i] * w : out[i] + in[i] * w;
}

void weigh_floats(const float* in, float w, bool first, std::size_t n, float* out) noexcept {
  if (first)
    weigh_floats<true>(in, w, n, out);
  else
    weigh_floats<false>(in, w, n, out);
}

static_assert(sizeof(glm::vec3) == 3 * sizeof(float), "vec3 arrays are flat float arrays");

}  // namespace

// out = a × wa + b × wb over n floats: weigh_floats<true> on a, then weigh_floats<false> on b.
void weigh_pair(const float* a, float wa, const float* b, float wb, std::size_t n, float* out) noexcept {
  const __m128 wav = _mm_set1_ps(wa), wbv = _mm_set1_ps(wb);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    _mm_storeu_ps(out + i, _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(a + i), wav), _mm_mul_ps(_mm_loadu_ps(b + i), wbv)));
  for (; i < n; ++i) {
    const float first = a[i] * wa;
    out[i] = first + b[i] * wb;
  }
}

namespace {

// a × wa + b × wb, as weigh_pair sums each float.
glm::vec3 weigh_vec3_pair(const glm::vec3& a, float wa, const glm::vec3& b, float wb) noexcept {
  const glm::vec3 first = a * wa;
  return first + b * wb;
}

// qa × wa + qb × ±wb normalized: qb's weight is negated where it points away from qa.
void blend_quat_pair(const glm::quat& a, __m128 wa, const glm::quat& b, __m128 wb, glm::quat& out) noexcept {
  const __m128 qa = load_quat(a), qb = load_quat(b);
  const __m128 away = _mm_cmplt_ps(dot4(qb, qa), _mm_setzero_ps());
  const __m128 signed_w = _mm_xor_ps(wb, _mm_and_ps(away, _mm_set1_ps(-0.0f)));
  store_normalized(_mm_add_ps(_mm_mul_ps(qa, wa), _mm_mul_ps(qb, signed_w)), out);
}

// blend_layer's first pass on a and last pass on b, fused: b's rotation is weighted by -wb
// where it points away from a's.
template <bool kVectors, typename Index>
void blend_pair_nodes(const RigPose& a, float wa, const RigPose& b, float wb, std::size_t count, Index index,
                      const RigPose& output) noexcept {
  const __m128 wav = _mm_set1_ps(wa), wbv = _mm_set1_ps(wb);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t n = index(i);
    if constexpr (kVectors) {
      output.translations[n] = weigh_vec3_pair(a.translations[n], wa, b.translations[n], wb);
      output.scales[n] = weigh_vec3_pair(a.scales[n], wa, b.scales[n], wb);
    }
    blend_quat_pair(a.rotations[n], wav, b.rotations[n], wbv, output.rotations[n]);
  }
}

}  // namespace

void blend_pair(const RigPose& a, float wa, const RigPose& b, float wb, std::span<const std::uint32_t> nodes,
                const RigPose& output) noexcept {
  if (nodes.empty()) {
    const std::size_t n = output.translations.size();
    const auto flat = [](std::span<glm::vec3> v) { return reinterpret_cast<float*>(v.data()); };
    weigh_pair(flat(a.translations), wa, flat(b.translations), wb, 3 * n, flat(output.translations));
    weigh_pair(flat(a.scales), wa, flat(b.scales), wb, 3 * n, flat(output.scales));
    blend_pair_nodes<false>(
        a, wa, b, wb, n, [](std::size_t i) { return static_cast<std::uint32_t>(i); }, output);
  } else {
    const std::uint32_t* list = nodes.data();
    blend_pair_nodes<true>(
        a, wa, b, wb, nodes.size(), [list](std::size_t i) { return list[i]; }, output);
  }
  weigh_pair(a.weights.data(), wa, b.weights.data(), wb, output.weights.size(), output.weights.data());
}

void blend_rest_pair(const Rig& rig, const ClipTracks& clip, float wa, float wb, const RigPose& output) noexcept {
  for (std::uint32_t n : clip.rest_translations)
    output.translations[n] = weigh_vec3_pair(rig.rest_translation[n], wa, rig.rest_translation[n], wb);
  for (std::uint32_t n : clip.rest_scales)
    output.scales[n] = weigh_vec3_pair(rig.rest_scale[n], wa, rig.rest_scale[n], wb);
  const __m128 wav = _mm_set1_ps(wa), wbv = _mm_set1_ps(wb);
  for (std::uint32_t n : clip.rest_rotations)
    blend_quat_pair(rig.rest_rotation[n], wav, rig.rest_rotation[n], wbv, output.rotations[n]);
}

bool BlendJob::run() const noexcept {
  if (!validate()) return false;
  if (nodes.empty()) {  // every node: translations and scales are flat arrays
    const std::size_t n = output.translations.size();
    weigh_floats(reinterpret_cast<const float*>(layer.translations.data()), weight, first, 3 * n,
                 reinterpret_cast<float*>(output.translations.data()));
    weigh_floats(reinterpret_cast<const float*>(layer.scales.data()), weight, first, 3 * n,
                 reinterpret_cast<float*>(output.scales.data()));
    blend_layer<false>(*this, n, [](std::size_t i) { return static_cast<std::uint32_t>(i); });
  } else {
    const std::uint32_t* list = nodes.data();
    blend_layer<true>(*this, nodes.size(), [list](std::size_t i) { return list[i]; });
  }
  weigh_floats(layer.weights.data(), weight, first, output.weights.size(), output.weights.data());
  return true;
}

bool LocalToModelJob::validate() const noexcept {
  if (rig == nullptr) return false;
  const std::size_t n = rig->node_count();
  return translations.size() >= n && rotations.size() >= n && scales.size() >= n && mark.size() >= n &&
         moved.size() >= n && output.size() >= n;
}

bool LocalToModelJob::run() const noexcept {
  if (!validate()) return false;
  const HierarchyPass pass{rig->node_count(),
                           rig->parent.data(),
                           rig->rest_local.data(),
                           translations.data(),
                           rotations.data(),
                           scales.data(),
                           mark.data(),
                           stamp,
                           rig->framed ? &rig->frame : nullptr,
                           rig->rest_world.data(),
                           moved.data()};
  affine_kernels().hierarchy(pass, output.data());
  return true;
}

bool PaletteJob::validate() const noexcept {
  if (rig == nullptr || outputs.size() != rig->skins.size() || world.size() < rig->node_count()) return false;
  for (std::size_t k = 0; k < outputs.size(); ++k)
    if (outputs[k].size() < 3 * rig->skins[k].joints.size()) return false;
  return true;
}

bool PaletteJob::run() const noexcept {
  if (!validate()) return false;
  const AffineKernels& kernels = affine_kernels();
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const RigSkin& s = rig->skins[k];
    if (s.static_mesh) {
      kernels.palette(s.joints, s.inverse_binds, world, s.identity_correction ? nullptr : &s.correction,
                      outputs[k].data(), stream);
      continue;
    }
    // An animated mesh node's palette is relative to its animated world, or carries the whole
    // model transform when that is singular (its instance transform is then the placement).
    const Affine& model = world[s.mesh_node];
    const bool invertible = abs_determinant(model) > 1e-12f;
    const Affine inverse_model = invertible ? inverse(model) : Affine{};
    kernels.palette(s.joints, s.inverse_binds, world, invertible ? &inverse_model : nullptr, outputs[k].data(), stream);
  }
  return true;
}

void accumulate_pose(const PoseView& source, float weight, bool first, std::span<const glm::quat> reference,
                     const PoseView& accumulator) noexcept {
  BlendJob{{source.translations, source.rotations, source.scales, source.weights},
           weight,
           first,
           false,
           {},
           reference,
           {accumulator.translations, accumulator.rotations, accumulator.scales, accumulator.weights}}
      .run();
}

void normalize_rotations(const PoseView& pose) noexcept {
  for (glm::quat& q : pose.rotations) q = normalized(q);
}

const char* affine_kernel_name() noexcept { return affine_kernels().name; }

}  // namespace gltf_crowd
