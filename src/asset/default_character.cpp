// The built-in character (docs/spec.md §9): skeleton, capsule-tube geometry, morph targets and clips,
// serialized as GLB by tinygltf's writer.
//
// Based on: glTF 2.0 §3.6 (accessors, bounds, alignment), §3.7.2.2 (morph targets), §3.7.3
// (skins: vertex = Σ wᵢ · world(jointᵢ) · IBMᵢ · v), §3.11 (animations), §4.4 (GLB).
#include "gltf_crowd/default_character.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <tiny_gltf.h>

#include "gltf_crowd/error.hpp"

namespace gltf_crowd {
namespace {

using glm::vec3;
constexpr float pi = 3.14159265358979f;

float to_f(std::size_t v) { return static_cast<float>(v); }

// ---------------------------------------------------------------------------------------------
// Skeleton

// What a joint does in the clips; the clip functions switch on it.
enum class Role : std::uint8_t {
  hips,
  spine,
  chest,
  upper_chest,
  neck,
  head,
  shoulder,
  upper_arm,
  lower_arm,
  hand,
  upper_leg,
  lower_leg,
  foot,
  toes
};

struct Joint {
  std::string name;
  int parent = -1;  // index into Skeleton::joints, -1 for the root
  vec3 world{};     // bind position in metres; bind rotations are identity
  Role role = Role::hips;
  float side = 0.0f;  // +1 left (+x), -1 right, 0 centre: mirrors the y and z rotations
};

// Joints in parent-first order, with the indices the geometry needs.
struct Skeleton {
  std::vector<Joint> joints;
  std::vector<int> spine_chain;  // Spine, extra spine joints, Chest
  int hips = 0, upper_chest = 0, neck = 0, head = 0;
  std::array<std::array<int, 4>, 2> arm{};  // [left, right][shoulder, upper, lower, hand]
  std::array<std::array<int, 4>, 2> leg{};  // [left, right][upper, lower, foot, toes]
};

Skeleton make_skeleton(std::uint32_t extra_spine) {
  Skeleton s;
  auto add = [&s](std::string name, int parent, vec3 world, Role role, float side = 0.0f) {
    s.joints.push_back({std::move(name), parent, world, role, side});
    return static_cast<int>(s.joints.size()) - 1;
  };
  s.hips = add("Hips", -1, {0.0f, 0.95f, 0.0f}, Role::hips);
  int parent = add("Spine", s.hips, {0.0f, 1.05f, 0.0f}, Role::spine);
  s.spine_chain.push_back(parent);
  for (std::uint32_t i = 0; i < extra_spine; ++i) {
    // Subdivide Spine..Chest evenly so the silhouette does not depend on the joint count.
    const float y = 1.05f + 0.15f * to_f(i + 1) / to_f(extra_spine + 1);
    parent = add("Spine" + std::to_string(i + 1), parent, {0.0f, y, 0.0f}, Role::spine);
    s.spine_chain.push_back(parent);
  }
  s.spine_chain.push_back(add("Chest", parent, {0.0f, 1.20f, 0.0f}, Role::chest));
  s.upper_chest = add("UpperChest", s.spine_chain.back(), {0.0f, 1.33f, 0.0f}, Role::upper_chest);
  s.neck = add("Neck", s.upper_chest, {0.0f, 1.47f, 0.0f}, Role::neck);
  s.head = add("Head", s.neck, {0.0f, 1.56f, 0.0f}, Role::head);

  struct LimbJoint {
    const char* name;
    Role role;
    vec3 left;
  };
  constexpr LimbJoint arm[4] = {{"Shoulder", Role::shoulder, {0.04f, 1.42f, 0.0f}},
                                {"UpperArm", Role::upper_arm, {0.18f, 1.42f, 0.0f}},
                                {"LowerArm", Role::lower_arm, {0.21f, 1.14f, 0.0f}},
                                {"Hand", Role::hand, {0.23f, 0.89f, 0.0f}}};
  constexpr LimbJoint leg[4] = {{"UpperLeg", Role::upper_leg, {0.10f, 0.92f, 0.0f}},
                                {"LowerLeg", Role::lower_leg, {0.11f, 0.50f, 0.0f}},
                                {"Foot", Role::foot, {0.11f, 0.09f, -0.01f}},
                                {"Toes", Role::toes, {0.11f, 0.045f, 0.11f}}};
  auto add_limb = [&](const LimbJoint(&limb)[4], int root, std::array<int, 4>& out, int side) {
    const float x = side == 0 ? 1.0f : -1.0f;
    const std::string prefix = side == 0 ? "Left" : "Right";
    for (int k = 0; k < 4; ++k) {
      const vec3 p = limb[k].left * vec3(x, 1.0f, 1.0f);
      out[k] = add(prefix + limb[k].name, k == 0 ? root : out[k - 1], p, limb[k].role, x);
    }
  };
  for (int side = 0; side < 2; ++side) add_limb(arm, s.upper_chest, s.arm[side], side);
  for (int side = 0; side < 2; ++side) add_limb(leg, s.hips, s.leg[side], side);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Geometry

// Morph targets of the head mesh, in order (mesh.extras.targetNames).
constexpr std::array<const char*, 2> target_names{"Smile", "Blink"};
constexpr std::uint32_t target_count = target_names.size();

// Position delta (metres) of a vertex at `p` for morph target `target`.
using MorphFn = std::function<vec3(const vec3& p, std::uint32_t target)>;

struct PrimitiveData {
  int material = 0;
  std::vector<vec3> positions;
  std::vector<vec3> normals;
  std::vector<std::uint32_t> joints;  // 4 per vertex
  std::vector<glm::vec4> weights;
  std::vector<std::uint32_t> indices;
  std::array<std::vector<vec3>, target_count> targets;  // filled for morphing meshes only
};

// A capsule swept along a polyline of joint positions: segment k runs from points[k] to
// points[k + 1] and belongs to joints[k]. Both ends get hemispherical caps.
struct Tube {
  std::vector<vec3> points;
  std::vector<float> radii;     // metres, one per point
  std::vector<int> joints;      // one per segment
  int start_blend = -1;         // joint the first ring blends with (the parent), -1 = none
  int end_blend = -1;           // joint the last ring blends with (the child), -1 = none
  glm::vec2 shape{1.0f, 1.0f};  // cross-section scale along the ring's u and v axes
  MorphFn morph;                // null = zero deltas
};

// A ring of `segments` vertices; tilt leans its normals along the axis (on the caps).
struct Ring {
  vec3 center{};
  vec3 axis{};
  float radius = 0.0f;
  float tilt = 0.0f;  // radians: 0 on the tube, towards ±π/2 near the poles
  std::uint32_t joint0 = 0, joint1 = 0;
  float weight1 = 0.0f;
};

// Two-joint skinning: within `blend_zone` of a segment end a vertex shares its weight with the
// neighbouring segment's joint, reaching 50/50 at the joint itself, so elbows and knees bend
// smoothly and the rings on both sides of a joint agree.
void ring_weights(const Tube& tube, std::size_t k, float t, Ring& ring) {
  constexpr float blend_zone = 0.35f;
  const int own = tube.joints[k];
  const int prev = k > 0 ? tube.joints[k - 1] : tube.start_blend;
  const int next = k + 1 < tube.joints.size() ? tube.joints[k + 1] : tube.end_blend;
  ring.joint0 = static_cast<std::uint32_t>(own);
  if (t < blend_zone && prev >= 0 && prev != own) {
    ring.joint1 = static_cast<std::uint32_t>(prev);
    ring.weight1 = 0.5f * (1.0f - t / blend_zone);
  } else if (t > 1.0f - blend_zone && next >= 0 && next != own) {
    ring.joint1 = static_cast<std::uint32_t>(next);
    ring.weight1 = 0.5f * (1.0f - (1.0f - t) / blend_zone);
  }
  if (ring.weight1 <= 0.0f) ring = {ring.center, ring.axis, ring.radius, 0.0f, ring.joint0};
}

void add_tube(PrimitiveData& prim, const Tube& tube, std::uint32_t segments, std::uint32_t rings, bool morphing) {
  const std::size_t n = tube.points.size();
  const vec3 overall = tube.points.back() - tube.points.front();
  // One reference direction per tube keeps the ring frames from twisting along it.
  const bool vertical = std::abs(overall.y) > 0.7f * glm::length(overall);
  const vec3 ref = vertical ? vec3(0, 0, 1) : vec3(0, 1, 0);
  const std::uint32_t cap_rings = std::max(2u, segments / 2);
  auto dir = [&](std::size_t k) { return glm::normalize(tube.points[k + 1] - tube.points[k]); };
  std::vector<Ring> list;
  std::array<Ring, 2> ends;  // the first and last full rings; the poles close them
  auto cap = [&](const Ring& end, bool start) {
    ends[start ? 0 : 1] = end;
    const float sign = start ? -1.0f : 1.0f;
    for (std::uint32_t c = 1; c < cap_rings; ++c) {
      const float phi = 0.5f * pi * to_f(start ? cap_rings - c : c) / to_f(cap_rings);
      Ring r = end;
      r.center = end.center + sign * end.axis * end.radius * std::sin(phi);
      r.radius = end.radius * std::cos(phi);
      r.tilt = sign * phi;
      list.push_back(r);
    }
  };
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const bool last = k + 2 == n;
    for (std::uint32_t i = 0; i < (last ? rings : rings - 1); ++i) {
      const float t = to_f(i) / to_f(rings - 1);
      Ring r;
      r.center = glm::mix(tube.points[k], tube.points[k + 1], t);
      r.radius = glm::mix(tube.radii[k], tube.radii[k + 1], t);
      // At interior joints the mean direction lets the tube bend without a crease.
      r.axis = (i == 0 && k > 0) ? glm::normalize(dir(k - 1) + dir(k)) : dir(k);
      ring_weights(tube, k, t, r);
      if (k == 0 && i == 0) cap(r, true);
      list.push_back(r);
      if (last && i + 1 == rings) cap(r, false);
    }
  }

  const auto base = static_cast<std::uint32_t>(prim.positions.size());
  auto emit = [&](const vec3& p, const vec3& normal, const Ring& r) {
    prim.positions.push_back(p);
    prim.normals.push_back(glm::normalize(normal));
    prim.joints.insert(prim.joints.end(), {r.joint0, r.joint1, 0u, 0u});
    prim.weights.push_back({1.0f - r.weight1, r.weight1, 0.0f, 0.0f});
    for (std::uint32_t m = 0; morphing && m < target_count; ++m)
      prim.targets[m].push_back(tube.morph ? tube.morph(p, m) : vec3(0.0f));
  };
  for (const Ring& r : list) {
    // u × v = axis, so θ runs counter-clockwise seen from the axis tip.
    const vec3 u = glm::normalize(glm::cross(r.axis, ref));
    const vec3 v = glm::cross(r.axis, u);
    for (std::uint32_t j = 0; j < segments; ++j) {
      const float theta = 2.0f * pi * to_f(j) / to_f(segments);
      const float c = std::cos(theta), s = std::sin(theta);
      const vec3 radial = c * tube.shape.x * u + s * tube.shape.y * v;
      const vec3 ellipse_normal = glm::normalize(c / tube.shape.x * u + s / tube.shape.y * v);
      emit(r.center + r.radius * radial, std::cos(r.tilt) * ellipse_normal + std::sin(r.tilt) * r.axis, r);
    }
  }
  const auto pole0 = static_cast<std::uint32_t>(prim.positions.size());
  const std::uint32_t pole1 = pole0 + 1;
  emit(ends[0].center - ends[0].axis * ends[0].radius, -ends[0].axis, ends[0]);
  emit(ends[1].center + ends[1].axis * ends[1].radius, ends[1].axis, ends[1]);

  // With tangent T (growing θ) and axis d, T × d is the outward normal, so (a0, a1, b1) and
  // (a0, b1, b0), ring b further along d, are counter-clockwise seen from outside.
  auto at = [&](std::size_t ring, std::uint32_t j) {
    return base + static_cast<std::uint32_t>(ring) * segments + j % segments;
  };
  const std::size_t last = list.size() - 1;
  for (std::uint32_t j = 0; j < segments; ++j) {
    prim.indices.insert(prim.indices.end(), {pole0, at(0, j + 1), at(0, j)});
    for (std::size_t r = 0; r < last; ++r)
      prim.indices.insert(prim.indices.end(),
                          {at(r, j), at(r, j + 1), at(r + 1, j + 1), at(r, j), at(r + 1, j + 1), at(r + 1, j)});
    prim.indices.insert(prim.indices.end(), {at(last, j), at(last, j + 1), pole1});
  }
}

// Gaussian falloff around a facial feature at c and its mirror image in x: localizes a morph
// delta to both sides of the face.
float falloff2(const vec3& p, const vec3& c, float sigma) {
  const vec3 d = p - c, e = p - c * vec3(-1.0f, 1.0f, 1.0f);
  return std::exp(-glm::dot(d, d) / (sigma * sigma)) + std::exp(-glm::dot(e, e) / (sigma * sigma));
}

struct MeshData {
  std::string name;
  std::string node;  // its node's name; unique, as the Head joint shares the mesh's name
  bool morphing = false;
  std::vector<PrimitiveData> primitives;
};

enum Material : int { body = 0, skin = 1, dark = 2 };

std::vector<MeshData> make_meshes(const Skeleton& s, std::uint32_t segments, std::uint32_t rings) {
  auto part = [&](MeshData& mesh, int material, const std::vector<Tube>& tubes) {
    PrimitiveData prim;
    prim.material = material;
    for (const Tube& t : tubes) add_tube(prim, t, segments, rings, mesh.morphing);
    mesh.primitives.push_back(std::move(prim));
  };
  auto at = [&](int j) { return s.joints[static_cast<std::size_t>(j)].world; };

  // Shirt up the spine chain and trousers from below the hips to the Spine joint; both blend
  // 50/50 Hips/Spine at the Spine joint, so the seam moves as one.
  Tube torso;
  torso.start_blend = s.hips;
  for (const int j : s.spine_chain) {
    torso.points.push_back(at(j));
    torso.radii.push_back(0.14f);
    torso.joints.push_back(j);
  }
  torso.points.insert(torso.points.end(), {at(s.upper_chest), {0.0f, 1.44f, 0.0f}});
  torso.radii.insert(torso.radii.end(), {0.16f, 0.10f});
  torso.joints.push_back(s.upper_chest);
  torso.end_blend = s.neck;
  torso.shape = {1.0f, 0.65f};  // flatter front to back
  const int spine = s.spine_chain.front();
  MeshData body_mesh{"Body", "Body", false, {}};
  part(body_mesh, body, {torso});
  part(body_mesh, dark,
       {{{{0.0f, 0.84f, 0.0f}, at(s.hips), at(spine)},
         {0.12f, 0.145f, 0.14f},
         {s.hips, s.hips},
         -1,
         spine,
         {1.0f, 0.7f},
         {}}});
  const vec3 neck_base{0.0f, 1.40f, 0.0f}, neck_top{0.0f, 1.56f, 0.0f};
  part(body_mesh, skin,
       {{{neck_base, at(s.neck), neck_top}, {0.05f, 0.05f, 0.045f}, {s.upper_chest, s.neck}, -1, s.head, {1, 1}, {}}});

  std::vector<Tube> upper_arms, forearms, hands, thighs, shins, feet;
  for (int i = 0; i < 2; ++i) {
    const auto& a = s.arm[i];
    const auto& l = s.leg[i];
    upper_arms.push_back(
        {{at(a[0]), at(a[1]), at(a[2])}, {0.06f, 0.055f, 0.045f}, {a[0], a[1]}, s.upper_chest, a[2], {1, 1}, {}});
    forearms.push_back({{at(a[2]), at(a[3])}, {0.043f, 0.033f}, {a[2]}, a[1], a[3], {1, 1}, {}});
    // Hands hang palm-inwards: thin along x, which is the ring's u axis for a downward tube.
    const vec3 fingertips = at(a[3]) + vec3(i == 0 ? 0.01f : -0.01f, -0.12f, 0.01f);
    hands.push_back({{at(a[3]), fingertips}, {0.04f, 0.033f}, {a[3]}, a[2], -1, {0.55f, 1.0f}, {}});
    thighs.push_back({{at(l[0]), at(l[1])}, {0.085f, 0.06f}, {l[0]}, s.hips, l[1], {1, 1}, {}});
    shins.push_back({{at(l[1]), at(l[2])}, {0.056f, 0.042f}, {l[1]}, l[0], l[2], {1, 1}, {}});
    feet.push_back({{at(l[2]), at(l[3]), at(l[3]) + vec3(0.0f, 0.0f, 0.08f)},
                    {0.045f, 0.042f, 0.035f},
                    {l[2], l[3]},
                    l[1],
                    -1,
                    {1, 1},
                    {}});
  }
  part(body_mesh, body, upper_arms);
  part(body_mesh, skin, forearms);
  part(body_mesh, skin, hands);
  part(body_mesh, dark, thighs);
  part(body_mesh, dark, shins);
  part(body_mesh, dark, feet);

  // The head mesh carries the morph targets. Smile lifts the cheeks and the mouth corners and
  // narrows the eyes; Blink lowers the brows and closes the eyes.
  MeshData head_mesh{"Head", "HeadMesh", true, {}};
  auto head_morph = [](const vec3& p, std::uint32_t target) {
    if (target == 0) return vec3(0.0f, 0.010f, 0.004f) * falloff2(p, {0.05f, 1.64f, 0.085f}, 0.03f);
    return vec3(0.0f, -0.006f, 0.0f) * falloff2(p, {0.035f, 1.715f, 0.09f}, 0.025f);  // brows
  };
  part(head_mesh, skin,
       {{{{0.0f, 1.62f, 0.0f}, {0.0f, 1.70f, 0.0f}}, {0.10f, 0.10f}, {s.head}, s.neck, -1, {1, 1}, head_morph}});
  constexpr float eye_y = 1.69f, mouth_y = 1.615f;
  std::vector<Tube> face;
  for (const float x : {0.035f, -0.035f}) {
    face.push_back({{{x, eye_y - 0.005f, 0.09f}, {x, eye_y + 0.005f, 0.09f}},
                    {0.014f, 0.014f},
                    {s.head},
                    -1,
                    -1,
                    {1, 1},
                    [](const vec3& p, std::uint32_t target) {
                      // Squash towards the eye's centre line: 30 % to smile, 90 % to blink.
                      return vec3(0.0f, (target == 0 ? -0.3f : -0.9f) * (p.y - eye_y), 0.0f);
                    }});
  }
  face.push_back({{{-0.025f, mouth_y, 0.092f}, {0.025f, mouth_y, 0.092f}},
                  {0.008f, 0.008f},
                  {s.head},
                  -1,
                  -1,
                  {1.0f, 0.6f},
                  [](const vec3& p, std::uint32_t target) {
                    const float corner = p.x / 0.033f;  // the lift grows towards the corners
                    return vec3(0.0f, target == 0 ? 0.009f * corner * corner : 0.0f, 0.0f);
                  }});
  part(head_mesh, dark, face);
  return {std::move(body_mesh), std::move(head_mesh)};
}

// ---------------------------------------------------------------------------------------------
// Clips. Rotations are Euler angles in radians about the joint's bind axes (x: positive swings
// a hanging limb backwards and leans the spine forwards; z: positive raises the left arm
// sideways). `ph` is the loop phase in [0, 2π).

enum class ClipKind : std::uint8_t { idle, walking, running, wave, dance };

struct ClipDef {
  const char* name;
  ClipKind kind;
  float seconds;
  bool morphs;  // animates the head's morph weights
};

constexpr std::array<ClipDef, 5> clip_defs{{{"Idle", ClipKind::idle, 3.0f, true},
                                            {"Walking", ClipKind::walking, 1.2f, false},
                                            {"Running", ClipKind::running, 1.4f, false},
                                            {"Wave", ClipKind::wave, 2.0f, true},
                                            {"Dance", ClipKind::dance, 2.4f, true}}};

// Walking (amp 1) and running (amp 1.8): opposite arm and leg swing, knees bend in the swing.
vec3 gait_euler(const Joint& j, float ph, float amp, float spine_share) {
  const float lp = ph + (j.side < 0.0f ? pi : 0.0f);  // the two sides alternate
  const float sw = std::sin(lp);
  const float run = amp - 1.0f;  // 0 walking, 0.8 running
  switch (j.role) {
    case Role::hips: return {0.0f, 0.08f * amp * std::sin(ph), 0.04f * std::cos(ph)};
    case Role::spine: return vec3(0.03f + 0.15f * run, -0.06f * amp * std::sin(ph), 0.0f) * spine_share;
    case Role::chest:
    case Role::upper_chest: return {0.02f, -0.04f * amp * std::sin(ph), 0.0f};
    case Role::neck: return {-0.05f * run, 0.02f * std::sin(ph), 0.0f};
    case Role::head: return {-0.02f + 0.02f * std::cos(2.0f * ph) - 0.1f * run, 0.0f, 0.0f};
    case Role::upper_arm: return {0.35f * amp * sw, 0.0f, j.side * 0.08f};
    case Role::lower_arm: return {-0.35f - run + 0.15f * sw, 0.0f, 0.0f};
    case Role::hand: return {0.05f * sw, 0.0f, 0.0f};
    case Role::upper_leg: return {-0.45f * amp * sw, 0.0f, 0.0f};
    case Role::lower_leg: return {0.1f + 0.25f * amp * (1.0f + std::cos(lp)), 0.0f, 0.0f};
    case Role::foot: return {0.15f * amp * std::sin(lp + 1.0f), 0.0f, 0.0f};
    default: return {};
  }
}

vec3 joint_euler(ClipKind kind, const Joint& j, float ph, float spine_share) {
  const float s = j.side;
  switch (kind) {
    case ClipKind::walking: return gait_euler(j, ph, 1.0f, spine_share);
    case ClipKind::running: return gait_euler(j, 2.0f * ph, 1.8f, spine_share);  // two strides
    case ClipKind::idle:
    case ClipKind::wave: {
      if (kind == ClipKind::wave && s < 0.0f) {  // right arm raised, forearm waving 4 times
        if (j.role == Role::upper_arm) return {-0.2f, 0.0f, -2.5f};
        if (j.role == Role::lower_arm) return {0.0f, 0.0f, -0.4f + 0.45f * std::sin(4.0f * ph)};
        if (j.role == Role::hand) return {0.0f, 0.0f, 0.2f * std::sin(4.0f * ph + 0.5f)};
      }
      const float breath = std::sin(ph);
      const float tilt = kind == ClipKind::wave ? -0.08f : 0.0f;  // towards the waving arm
      switch (j.role) {
        case Role::hips: return {0.0f, 0.02f * breath, 0.0f};
        case Role::spine: return vec3(0.02f * breath, 0.0f, 0.0f) * spine_share;
        case Role::chest: return {0.015f * breath, 0.0f, 0.0f};
        case Role::head: return {0.05f * std::sin(2.0f * ph), 0.15f * breath, tilt};
        case Role::upper_arm: return {0.0f, 0.0f, s * (0.06f + 0.02f * breath)};
        case Role::lower_arm: return {-0.12f, 0.0f, 0.0f};
        default: return {};
      }
    }
    case ClipKind::dance: {
      const float bob = 0.5f * (1.0f - std::cos(4.0f * ph));  // 0..1, four beats per loop
      const float beat = std::sin(4.0f * ph), sway = std::sin(2.0f * ph);
      switch (j.role) {
        case Role::hips: return {0.0f, 0.15f * std::sin(ph), 0.1f * sway};
        case Role::spine: return vec3(0.05f * bob, 0.0f, -0.08f * sway) * spine_share;
        case Role::upper_chest: return {0.0f, -0.1f * std::sin(ph), 0.0f};
        case Role::head: return {0.12f * beat, 0.0f, 0.0f};
        case Role::upper_arm: return {-0.3f, 0.0f, s * (1.3f + 0.35f * beat)};
        case Role::lower_arm: return {-1.0f - 0.3f * std::sin(4.0f * ph + s), 0.0f, 0.0f};
        case Role::upper_leg: return {-0.25f * bob, 0.0f, s * 0.05f};
        case Role::lower_leg: return {0.5f * bob, 0.0f, 0.0f};
        case Role::foot: return {-0.25f * bob, 0.0f, 0.0f};
        default: return {};
      }
    }
  }
  return {};
}

// Offset of the hips from their bind position, in metres.
vec3 hips_offset(ClipKind kind, float ph) {
  switch (kind) {
    case ClipKind::idle: return {0.0f, 0.004f * std::sin(2.0f * ph), 0.0f};
    case ClipKind::walking: return {0.02f * std::sin(ph), -0.01f + 0.02f * std::cos(2.0f * ph), 0.0f};
    case ClipKind::running: return {0.0f, -0.03f + 0.03f * std::cos(4.0f * ph), 0.0f};
    case ClipKind::wave: return {0.0f, 0.003f * std::sin(ph), 0.0f};
    case ClipKind::dance:  // the bent knees lower the hips by 2.6 cm at most
      return {0.06f * std::sin(2.0f * ph), -0.013f * (1.0f - std::cos(4.0f * ph)), 0.0f};
  }
  return {};
}

// Morph weights {Smile, Blink} at loop phase `ph`, `t` seconds into the clip.
std::array<float, target_count> morph_weights(ClipKind kind, float ph, float t) {
  auto blink_at = [t](float centre) { return std::max(0.0f, 1.0f - std::abs(t - centre) / 0.15f); };
  switch (kind) {
    case ClipKind::idle: return {0.0f, blink_at(1.5f)};
    case ClipKind::wave: return {0.8f + 0.2f * std::sin(ph), blink_at(1.0f)};
    case ClipKind::dance: return {0.5f + 0.5f * std::sin(2.0f * ph), 0.0f};
    default: return {0.0f, 0.0f};
  }
}

// ---------------------------------------------------------------------------------------------
// Serialization

// Accessor of `values` (`type` elements of `component_type`) in a bufferView of its own at a
// 4-byte aligned offset of buffer 0 (glTF 2.0 §3.6.2.4; no component here is wider). min/max
// per component when `bounds` (required for POSITION and animation input, §3.6.2.5).
// target: 34962 vertex data, 34963 indices, 0 none (animation, inverse bind matrices).
template <typename T>
int add_accessor(tinygltf::Model& m, const std::vector<T>& values, int type, int component_type, bool bounds,
                 int target) {
  const auto components = static_cast<std::size_t>(tinygltf::GetNumComponentsInType(type));
  const auto size = static_cast<std::size_t>(tinygltf::GetComponentSizeInBytes(component_type));
  std::vector<unsigned char>& bin = m.buffers[0].data;
  bin.resize((bin.size() + 3) & ~std::size_t{3}, 0);
  tinygltf::BufferView view;
  view.buffer = 0;
  view.byteOffset = bin.size();
  view.byteLength = values.size() * size;
  view.target = target;
  bin.resize(bin.size() + view.byteLength);
  for (std::size_t i = 0; i < values.size(); ++i)  // narrows; the host is little-endian
    std::memcpy(&bin[view.byteOffset + i * size], &values[i], size);
  m.bufferViews.push_back(view);
  tinygltf::Accessor a;
  a.bufferView = static_cast<int>(m.bufferViews.size()) - 1;
  a.componentType = component_type;
  a.type = type;
  a.count = values.size() / components;
  if (bounds) {
    a.minValues.assign(components, std::numeric_limits<double>::max());
    a.maxValues.assign(components, std::numeric_limits<double>::lowest());
    for (std::size_t i = 0; i < values.size(); ++i) {
      a.minValues[i % components] = std::min(a.minValues[i % components], double(values[i]));
      a.maxValues[i % components] = std::max(a.maxValues[i % components], double(values[i]));
    }
  }
  m.accessors.push_back(a);
  return static_cast<int>(m.accessors.size()) - 1;
}

int add_floats(tinygltf::Model& m, const std::vector<float>& values, int type, bool bounds, int target = 0) {
  return add_accessor(m, values, type, TINYGLTF_COMPONENT_TYPE_FLOAT, bounds, target);
}

// A vertex attribute of glm vectors (POSITION, NORMAL, WEIGHTS_0, morph deltas).
template <typename Vec>
int add_vertex_floats(tinygltf::Model& m, const std::vector<Vec>& v, bool bounds) {
  std::vector<float> flat(v.size() * Vec::length());
  std::memcpy(flat.data(), v.data(), flat.size() * sizeof(float));
  const int type = Vec::length() == 3 ? TINYGLTF_TYPE_VEC3 : TINYGLTF_TYPE_VEC4;
  return add_floats(m, flat, type, bounds, TINYGLTF_TARGET_ARRAY_BUFFER);
}

tinygltf::Material make_material(const char* name, std::array<double, 3> rgb, double roughness) {
  tinygltf::Material mat;
  mat.name = name;
  mat.pbrMetallicRoughness.baseColorFactor = {rgb[0], rgb[1], rgb[2], 1.0};
  mat.pbrMetallicRoughness.metallicFactor = 0.0;
  mat.pbrMetallicRoughness.roughnessFactor = roughness;
  return mat;
}

// Joint nodes (node i = joint i, parents first) and the skin. Bind rotations are identity, so
// each inverse bind matrix is the translation by minus the joint's world position.
void add_skeleton(tinygltf::Model& m, const Skeleton& skel) {
  tinygltf::Skin skin;
  skin.name = "Armature";
  skin.skeleton = skel.hips;
  std::vector<float> ibm;
  for (std::size_t i = 0; i < skel.joints.size(); ++i) {
    const Joint& j = skel.joints[i];
    const auto parent = static_cast<std::size_t>(j.parent);
    const vec3 local = j.world - (j.parent < 0 ? vec3(0.0f) : skel.joints[parent].world);
    tinygltf::Node node;
    node.name = j.name;
    node.translation = {local.x, local.y, local.z};
    if (j.parent >= 0) m.nodes[parent].children.push_back(static_cast<int>(i));
    m.nodes.push_back(node);
    skin.joints.push_back(static_cast<int>(i));
    const glm::mat4 inverse_bind = glm::translate(glm::mat4(1.0f), -j.world);
    ibm.insert(ibm.end(), glm::value_ptr(inverse_bind), glm::value_ptr(inverse_bind) + 16);
  }
  skin.inverseBindMatrices = add_floats(m, ibm, TINYGLTF_TYPE_MAT4, false);
  m.skins.push_back(skin);
}

// One root-level skinned node per mesh (glTF 2.0 §3.7.3: not a child of a joint). Returns the
// node of the morphing mesh.
int add_meshes(tinygltf::Model& m, const std::vector<MeshData>& meshes, std::size_t joint_count) {
  // Joint indices fit a byte unless extra spine joints push the count past 256.
  const int joint_type =
      joint_count <= 256 ? TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE : TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
  int morph_node = -1;
  for (const MeshData& md : meshes) {
    tinygltf::Mesh mesh;
    mesh.name = md.name;
    for (const PrimitiveData& p : md.primitives) {
      tinygltf::Primitive prim;
      prim.mode = TINYGLTF_MODE_TRIANGLES;
      prim.material = p.material;
      prim.attributes["POSITION"] = add_vertex_floats(m, p.positions, true);
      prim.attributes["NORMAL"] = add_vertex_floats(m, p.normals, false);
      prim.attributes["JOINTS_0"] =
          add_accessor(m, p.joints, TINYGLTF_TYPE_VEC4, joint_type, false, TINYGLTF_TARGET_ARRAY_BUFFER);
      prim.attributes["WEIGHTS_0"] = add_vertex_floats(m, p.weights, false);
      const int index_type =
          p.positions.size() <= 65535 ? TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT : TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
      prim.indices =
          add_accessor(m, p.indices, TINYGLTF_TYPE_SCALAR, index_type, false, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
      for (std::uint32_t t = 0; md.morphing && t < target_count; ++t)
        prim.targets.push_back({{"POSITION", add_vertex_floats(m, p.targets[t], true)}});
      mesh.primitives.push_back(std::move(prim));
    }
    if (md.morphing) {
      tinygltf::Value::Array names;
      for (const char* name : target_names) names.emplace_back(std::string(name));
      mesh.weights.assign(target_count, 0.0);
      const tinygltf::Value::Object extras{{"targetNames", tinygltf::Value(names)}};
      mesh.extras = tinygltf::Value(extras);
    }
    m.meshes.push_back(std::move(mesh));
    tinygltf::Node node;
    node.name = md.node;
    node.mesh = static_cast<int>(m.meshes.size()) - 1;
    node.skin = 0;
    m.nodes.push_back(node);
    if (md.morphing) morph_node = static_cast<int>(m.nodes.size()) - 1;
  }
  return morph_node;
}

// One animation per clip: a LINEAR rotation channel per joint, the hips translation and, for
// some clips, the morph weights. Keys are evenly spaced, and the last key reuses the phase of
// the first, so the loop closes exactly (first key == last key).
void add_clips(tinygltf::Model& m, const Skeleton& skel, int morph_node, std::uint32_t keys_per_second) {
  const float spine_share = 1.0f / to_f(skel.spine_chain.size() - 1);  // Spine + extras
  const vec3 hips = skel.joints[static_cast<std::size_t>(skel.hips)].world;
  for (const ClipDef& def : clip_defs) {
    tinygltf::Animation anim;
    anim.name = def.name;
    const float intervals = std::round(def.seconds * to_f(keys_per_second));
    const auto n = static_cast<std::uint32_t>(std::max(2.0f, intervals));
    std::vector<float> times(n + 1);
    for (std::uint32_t i = 0; i < n; ++i) times[i] = def.seconds * to_f(i) / to_f(n);
    times[n] = def.seconds;
    const int input = add_floats(m, times, TINYGLTF_TYPE_SCALAR, true);
    auto phase = [n](std::uint32_t i) { return 2.0f * pi * to_f(i % n) / to_f(n); };
    auto add_channel = [&](const std::vector<float>& values, int type, int node, const char* path) {
      tinygltf::AnimationSampler sampler;
      sampler.input = input;
      sampler.output = add_floats(m, values, type, false);
      sampler.interpolation = "LINEAR";
      anim.samplers.push_back(sampler);
      tinygltf::AnimationChannel channel;
      channel.sampler = static_cast<int>(anim.samplers.size()) - 1;
      channel.target_node = node;
      channel.target_path = path;
      anim.channels.push_back(channel);
    };
    std::vector<float> values;
    for (std::size_t j = 0; j < skel.joints.size(); ++j) {
      values.clear();
      for (std::uint32_t i = 0; i <= n; ++i) {
        // Angles stay well below π, so w > 0 and consecutive keys never flip hemisphere.
        const vec3 euler = joint_euler(def.kind, skel.joints[j], phase(i), spine_share);
        const glm::quat q = glm::normalize(glm::quat(euler));
        values.insert(values.end(), {q.x, q.y, q.z, q.w});
      }
      add_channel(values, TINYGLTF_TYPE_VEC4, static_cast<int>(j), "rotation");
    }
    values.clear();
    for (std::uint32_t i = 0; i <= n; ++i) {
      const vec3 p = hips + hips_offset(def.kind, phase(i));
      values.insert(values.end(), {p.x, p.y, p.z});
    }
    add_channel(values, TINYGLTF_TYPE_VEC3, skel.hips, "translation");
    if (def.morphs) {
      values.clear();  // key-major: target_count weights per key
      for (std::uint32_t i = 0; i <= n; ++i) {
        const auto w = morph_weights(def.kind, phase(i), times[i % n]);
        values.insert(values.end(), w.begin(), w.end());
      }
      add_channel(values, TINYGLTF_TYPE_SCALAR, morph_node, "weights");
    }
    m.animations.push_back(std::move(anim));
  }
}

}  // namespace

std::vector<std::uint8_t> default_character_glb(const CharacterParams& params) {
  const Skeleton skel = make_skeleton(params.extra_spine_joints);
  const auto meshes = make_meshes(skel, std::max(3u, params.segments), std::max(2u, params.rings));
  tinygltf::Model m;
  m.asset.version = "2.0";
  m.asset.generator = "gltf-crowd default character";
  m.buffers.emplace_back();
  m.materials = {make_material("Body", {0.20, 0.35, 0.70}, 0.8), make_material("Skin", {0.90, 0.70, 0.55}, 0.6),
                 make_material("Dark", {0.12, 0.12, 0.15}, 0.9)};
  add_skeleton(m, skel);
  const int morph_node = add_meshes(m, meshes, skel.joints.size());
  add_clips(m, skel, morph_node, std::max(1u, params.keys_per_second));

  tinygltf::Scene scene;
  scene.name = "Character";
  scene.nodes = {skel.hips};  // the joint hierarchy, then the mesh nodes
  for (std::size_t i = skel.joints.size(); i < m.nodes.size(); ++i) scene.nodes.push_back(static_cast<int>(i));
  m.scenes.push_back(scene);
  m.defaultScene = 0;
  // Pad here so buffer.byteLength equals the BIN chunk's padded length.
  m.buffers[0].data.resize((m.buffers[0].data.size() + 3) & ~std::size_t{3}, 0);

  std::ostringstream out(std::ios::binary);
  tinygltf::TinyGLTF writer;
  if (!writer.WriteGltfSceneToStream(&m, out, /*prettyPrint=*/false, /*writeBinary=*/true))
    throw Error("default_character", Rule::serialization_failed, "tinygltf could not write the GLB");
  const std::string bytes = out.str();
  return {bytes.begin(), bytes.end()};
}

}  // namespace gltf_crowd
