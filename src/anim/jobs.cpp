// The animation jobs (jobs.hpp). The arithmetic of each is the one docs/spec.md §3–§4 names;
// the affine products run on the kernels of kernels.hpp.
#include "gltf_crowd/jobs.hpp"

#include <algorithm>

#include "anim/kernels.hpp"
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
  return keys.size() >= clip->timelines.size() && mark.size() >= n && covers(output, n, rig->rest_weights.size());
}

bool SampleJob::run() const noexcept {
  if (!validate()) return false;
  const ClipTracks& c = *clip;
  if (from_rest) {
    for (std::uint32_t a : c.animated) {
      output.translations[a] = rig->rest_translation[a];
      output.rotations[a] = rig->rest_rotation[a];
      output.scales[a] = rig->rest_scale[a];
    }
    std::copy(rig->rest_weights.begin(), rig->rest_weights.end(), output.weights.begin());
  }
  for (std::uint32_t a : c.animated) mark[a] = stamp;
  for (std::size_t i = 0; i < c.timelines.size(); ++i) {
    std::uint16_t no_hint = 0;
    std::uint16_t& cursor = i < cursors.size() ? cursors[i] : no_hint;
    const Timeline& timeline = c.timelines[i];
    keys[i] = locate_key(std::span(c.times.data() + timeline.times_offset, timeline.key_count), seconds, cursor);
  }
  sample_bound_channels(c.key_rows.data(), c.channels, keys, output.translations.data(), output.rotations.data(),
                        output.scales.data(), output.weights.data());
  return true;
}

bool BlendJob::validate() const noexcept {
  const std::size_t n = output.translations.size();
  if (!covers(layer, n, output.weights.size()) || !covers(output, n, output.weights.size())) return false;
  if ((!first && reference.size() < n) || output.rotations.size() < n || output.scales.size() < n) return false;
  return std::all_of(nodes.begin(), nodes.end(), [n](std::uint32_t i) { return i < n; });
}

bool BlendJob::run() const noexcept {
  if (!validate()) return false;
  const float w = weight;
  const auto each = [this](auto&& f) {
    if (nodes.empty()) {
      for (std::uint32_t i = 0; i < output.translations.size(); ++i) f(i);
    } else {
      for (std::uint32_t i : nodes) f(i);
    }
  };
  if (first) {
    each([&](std::uint32_t a) {
      output.translations[a] = layer.translations[a] * w;
      output.rotations[a] = layer.rotations[a] * w;
      output.scales[a] = layer.scales[a] * w;
    });
    for (std::size_t k = 0; k < output.weights.size(); ++k) output.weights[k] = layer.weights[k] * w;
  } else {
    each([&](std::uint32_t a) {
      const glm::quat q = layer.rotations[a];
      output.translations[a] += layer.translations[a] * w;
      output.rotations[a] = output.rotations[a] + q * (glm::dot(q, reference[a]) < 0.0f ? -w : w);
      output.scales[a] += layer.scales[a] * w;
    });
    for (std::size_t k = 0; k < output.weights.size(); ++k) output.weights[k] += layer.weights[k] * w;
  }
  if (last) each([&](std::uint32_t a) { output.rotations[a] = normalized(output.rotations[a]); });
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
  if (rig == nullptr || skin >= rig->skins.size()) return false;
  return world.size() >= rig->node_count() && output.size() >= 3 * rig->skins[skin].joints.size();
}

bool PaletteJob::run() const noexcept {
  if (!validate()) return false;
  const RigSkin& s = rig->skins[skin];
  const AffineKernels& kernels = affine_kernels();
  if (s.static_mesh) {
    kernels.palette(s.joints, s.inverse_binds, world, s.identity_correction ? nullptr : &s.correction, output.data());
    return true;
  }
  // An animated mesh node's palette is relative to its animated world, or carries the whole
  // model transform when that is singular (its instance transform is then the placement).
  const Affine& model = world[s.mesh_node];
  const bool invertible = abs_determinant(model) > 1e-12f;
  const Affine inverse_model = invertible ? inverse(model) : Affine{};
  kernels.palette(s.joints, s.inverse_binds, world, invertible ? &inverse_model : nullptr, output.data());
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
