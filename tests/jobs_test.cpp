// The anim runtime (rig.hpp, jobs.hpp) against the scalar implementations of scalar_pose.hpp:
// the rig keeps the nodes the glTF skinning rules need, parents first; SampleJob, BlendJob,
// LocalToModelJob and PaletteJob give what the specification's formulas give; invalid spans
// are refused without writing.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "anim/blend_pair.hpp"
#include "gltf_crowd/default_character.hpp"
#include "gltf_crowd/jobs.hpp"
#include "gltf_crowd/pose.hpp"
#include "scalar_pose.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

void expect_mat_near(const glm::mat4& got, const glm::mat4& want, float tolerance, const std::string& what) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      ASSERT_NEAR(got[c][r], want[c][r], tolerance * (1.0f + std::abs(want[c][r])))
          << what << " [" << c << "][" << r << "]";
}

// Mesh nodes of the default scene, depth-first (what a crowd draws).
std::vector<std::uint32_t> mesh_nodes(const Asset& asset) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t n = 0; n < asset.nodes.size(); ++n)
    if (asset.nodes[n].mesh >= 0) out.push_back(n);
  return out;
}

struct Buffers {
  explicit Buffers(const Rig& rig, std::size_t timelines)
      : t(rig.node_count()),
        r(rig.node_count()),
        s(rig.node_count()),
        w(rig.rest_weights.size()),
        mark(rig.node_count(), 0),
        moved(rig.node_count()),
        keys(timelines),
        world(rig.node_count()) {}
  std::vector<glm::vec3> t;
  std::vector<glm::quat> r;
  std::vector<glm::vec3> s;
  std::vector<float> w;
  std::vector<std::uint32_t> mark;
  std::vector<std::uint8_t> moved;
  std::vector<KeyPosition> keys;
  std::vector<Affine> world;
  RigPose pose() { return {t, r, s, w}; }
};

// A layer of n nodes and `weights` morph weights with random values: unit rotations, scales near 1.
// With flip_every > 0, the rotation of every flip_every-th node is negated (the same rotation of
// opposite sign, which a blend must align, not cancel).
Buffers random_layer(const Rig& rig, std::mt19937& rng, std::size_t n, std::size_t weights, std::size_t flip_every) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Buffers b(rig, 0);
  b.t.resize(n);
  b.r.resize(n);
  b.s.resize(n);
  b.w.resize(weights);
  for (std::size_t i = 0; i < n; ++i) {
    b.t[i] = {u(rng), u(rng), u(rng)};
    b.s[i] = {1 + u(rng) * 0.1f, 1 + u(rng) * 0.1f, 1.0f};
    b.r[i] = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
    if (flip_every > 0 && i % flip_every == 0) b.r[i] = -b.r[i];
  }
  for (float& x : b.w) x = u(rng);
  return b;
}

class JobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::vector<std::uint8_t> glb = default_character_glb();
    asset = std::make_shared<const Asset>(load_asset_from_memory(glb));
    drawn = mesh_nodes(*asset);
    rig = build_rig(*asset, drawn);
    clips = build_clip_tracks(*asset, rig);
  }
  std::shared_ptr<const Asset> asset;
  std::vector<std::uint32_t> drawn;
  Rig rig;
  std::vector<ClipTracks> clips;
};

TEST_F(JobsTest, RigKeepsDrawnNodesJointsAndAncestorsParentsFirst) {
  std::vector<bool> want(asset->nodes.size(), false);
  const auto up = [&](std::int32_t n) {
    for (; n >= 0; n = asset->nodes[static_cast<std::size_t>(n)].parent) want[static_cast<std::size_t>(n)] = true;
  };
  for (std::uint32_t n : drawn) {
    up(static_cast<std::int32_t>(n));
    if (asset->nodes[n].skin >= 0)
      for (std::uint32_t j : asset->skins[static_cast<std::size_t>(asset->nodes[n].skin)].joints)
        up(static_cast<std::int32_t>(j));
  }
  std::size_t kept = 0;
  for (std::size_t n = 0; n < asset->nodes.size(); ++n) {
    EXPECT_EQ(rig.rig_node[n] != kNotInRig, want[n]) << "node " << n;
    kept += want[n];
  }
  ASSERT_EQ(rig.node_count(), kept);
  for (std::size_t r = 0; r < rig.node_count(); ++r) {
    EXPECT_EQ(rig.rig_node[rig.asset_node[r]], r);
    const std::int32_t parent = asset->nodes[rig.asset_node[r]].parent;
    EXPECT_EQ(rig.parent[r],
              parent < 0 ? -1 : static_cast<std::int32_t>(rig.rig_node[static_cast<std::size_t>(parent)]));
    EXPECT_LT(rig.parent[r], static_cast<std::int32_t>(r));
    // The framed rest world is frame × the rest world the parent chain gives.
    const glm::mat4 world =
        test::scalar_world(*asset, test::scalar_rest_pose(*asset), static_cast<std::int32_t>(rig.asset_node[r]));
    expect_mat_near(to_mat4(rig.rest_world[r]), to_mat4(rig.frame) * world, 1e-5f, "rest world");
  }
  ASSERT_EQ(rig.drawn.size(), drawn.size());
  const Rig full = build_rig(*asset, {}, {.all_nodes = true, .frame = false});
  EXPECT_EQ(full.node_count(), asset->nodes.size());
  EXPECT_FALSE(full.framed);
}

TEST_F(JobsTest, SampleJobMatchesScalarSampling) {
  for (std::size_t c = 0; c < asset->clips.size(); ++c) {
    const Clip& clip = asset->clips[c];
    Buffers b(rig, clips[c].timelines.size());
    std::vector<std::uint16_t> cursors(clips[c].timelines.size(), 0);
    std::uint32_t stamp = 0;
    // Forward steady playback (cursor hints), past the end, and a seek back.
    for (const float t :
         {0.0f, 0.07f, 0.31f, 0.55f, clip.duration_seconds * 0.9f, clip.duration_seconds + 1.0f, 0.2f}) {
      ++stamp;
      const SampleJob job{&rig, &clips[c], t, cursors, b.keys, b.mark, stamp, true, b.pose()};
      ASSERT_TRUE(job.run());
      const test::ScalarPose want = test::scalar_clip_pose(*asset, clip, t);
      for (std::size_t r = 0; r < rig.node_count(); ++r) {
        const std::uint32_t n = rig.asset_node[r];
        if (b.mark[r] != stamp) continue;  // unmarked nodes are at rest: checked below
        for (int i = 0; i < 3; ++i) {
          ASSERT_NEAR(b.t[r][i], want.translations[n][i], 1e-5f) << clip.name << " t=" << t << " node " << n;
          ASSERT_NEAR(b.s[r][i], want.scales[n][i], 1e-5f);
        }
        ASSERT_NEAR(std::abs(glm::dot(b.r[r], want.rotations[n])), 1.0f, 1e-5f)
            << clip.name << " t=" << t << " node " << n;
      }
      for (std::size_t r = 0; r < rig.node_count(); ++r) {
        if (b.mark[r] == stamp) continue;
        const std::uint32_t n = rig.asset_node[r];
        EXPECT_EQ(want.translations[n], asset->nodes[n].translation) << "a node the clip does not animate moved";
      }
      for (std::size_t k = 0; k < b.w.size(); ++k)
        ASSERT_NEAR(b.w[k], want.weights[k], 1e-5f) << clip.name << " weight " << k;
    }
  }
}

TEST_F(JobsTest, BlendJobIsTheNormalizedSignAlignedWeightedSum) {
  std::mt19937 rng(3);
  const std::size_t n = 6, weights = 3;
  const std::vector<float> layer_weights{0.5f, 0.3f, 0.2f};
  std::vector<Buffers> layers;
  // The last layer's rotations all point away from the first's.
  for (std::size_t l = 0; l < layer_weights.size(); ++l)
    layers.push_back(random_layer(rig, rng, n, weights, l == 2 ? 1 : 0));
  Buffers out(rig, 0);
  out.t.resize(n);
  out.r.resize(n);
  out.s.resize(n);
  out.w.resize(weights);
  const std::vector<glm::quat> reference = layers[0].r;  // the sign reference: the first layer
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const BlendJob job{layers[l].pose(), layer_weights[l], l == 0, l + 1 == layers.size(), {}, reference, out.pose()};
    ASSERT_TRUE(job.run());
  }
  for (std::size_t i = 0; i < n; ++i) {
    glm::vec3 t(0.0f), s(0.0f);
    glm::vec4 q(0.0f);
    const glm::quat& ref = layers[0].r[i];
    for (std::size_t l = 0; l < layers.size(); ++l) {
      t += layer_weights[l] * layers[l].t[i];
      s += layer_weights[l] * layers[l].s[i];
      const glm::quat& r = layers[l].r[i];
      const float sign = (r.x * ref.x + r.y * ref.y + r.z * ref.z + r.w * ref.w) < 0.0f ? -1.0f : 1.0f;
      q += sign * layer_weights[l] * glm::vec4(r.x, r.y, r.z, r.w);
    }
    q /= std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(out.t[i][c], t[c], 1e-5f);
      EXPECT_NEAR(out.s[i][c], s[c], 1e-5f);
    }
    EXPECT_NEAR(out.r[i].x, q.x, 1e-5f);
    EXPECT_NEAR(out.r[i].y, q.y, 1e-5f);
    EXPECT_NEAR(out.r[i].z, q.z, 1e-5f);
    EXPECT_NEAR(out.r[i].w, q.w, 1e-5f);
  }
  for (std::size_t k = 0; k < weights; ++k) {
    float want = 0.0f;
    for (std::size_t l = 0; l < layers.size(); ++l) want += layer_weights[l] * layers[l].w[k];
    EXPECT_NEAR(out.w[k], want, 1e-5f);
  }
}

// The crossfade's fused two-layer blend is BlendJob run twice, bit for bit: over every node (flat
// arrays, with scalar tails) and over a node list, with layers of opposite sign and a first
// layer at weight 0 (a fade's first frame).
TEST_F(JobsTest, BlendPairIsTwoBlendJobRunsBitForBit) {
  std::mt19937 rng(11);
  const std::size_t n = 7, weights = 5;
  const auto sized = [&]() {
    Buffers b(rig, 0);
    b.t.assign(n, glm::vec3(9.0f));
    b.r.assign(n, glm::quat(9.0f, 9.0f, 9.0f, 9.0f));
    b.s.assign(n, glm::vec3(9.0f));
    b.w.assign(weights, 9.0f);
    return b;
  };
  const std::vector<std::uint32_t> some{0, 2, 3, 6};
  for (const std::span<const std::uint32_t> nodes : {std::span<const std::uint32_t>(), std::span(some)}) {
    for (const float wa : {0.37f, 0.0f}) {
      Buffers a = random_layer(rig, rng, n, weights, 0), b = random_layer(rig, rng, n, weights, 2);
      const float wb = 1.0f - wa;
      Buffers want = sized(), got = sized();
      ASSERT_TRUE((BlendJob{a.pose(), wa, true, false, nodes, a.r, want.pose()}.run()));
      ASSERT_TRUE((BlendJob{b.pose(), wb, false, true, nodes, a.r, want.pose()}.run()));
      blend_pair(a.pose(), wa, b.pose(), wb, nodes, got.pose());
      const std::string what = std::string(nodes.empty() ? "every node" : "node list") + ", wa " + std::to_string(wa);
      EXPECT_EQ(std::memcmp(got.t.data(), want.t.data(), n * sizeof(glm::vec3)), 0) << what;
      EXPECT_EQ(std::memcmp(got.r.data(), want.r.data(), n * sizeof(glm::quat)), 0) << what;
      EXPECT_EQ(std::memcmp(got.s.data(), want.s.data(), n * sizeof(glm::vec3)), 0) << what;
      EXPECT_EQ(std::memcmp(got.w.data(), want.w.data(), weights * sizeof(float)), 0) << what;
    }
  }
}

TEST_F(JobsTest, LocalToModelAndPaletteMatchTheSpecFormulas) {
  const std::size_t c = 1;  // Walking
  const Clip& clip = asset->clips[c];
  Buffers b(rig, clips[c].timelines.size());
  const float t = 0.43f;
  ASSERT_TRUE((SampleJob{&rig, &clips[c], t, {}, b.keys, b.mark, 1, true, b.pose()}.run()));
  ASSERT_TRUE((LocalToModelJob{&rig, b.t, b.r, b.s, b.mark, 1, b.moved, b.world}.run()));
  const test::ScalarPose pose = test::scalar_clip_pose(*asset, clip, t);
  for (std::size_t r = 0; r < rig.node_count(); ++r) {
    const glm::mat4 want =
        to_mat4(rig.frame) * test::scalar_world(*asset, pose, static_cast<std::int32_t>(rig.asset_node[r]));
    expect_mat_near(to_mat4(b.world[r]), want, 1e-4f, "world' of rig node " + std::to_string(r));
  }
  ASSERT_FALSE(rig.skins.empty());
  for (const bool stream : {false, true}) {  // plain and non-temporal stores write the same rows
    SCOPED_TRACE(stream ? "streamed" : "plain");
    std::vector<std::vector<glm::vec4>> palettes;
    std::vector<std::span<glm::vec4>> outputs;
    for (const RigSkin& skin : rig.skins) palettes.emplace_back(3 * skin.joints.size());
    for (auto& p : palettes) {
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p.data()) % 16, 0u) << "streaming needs 16-byte aligned rows";
      outputs.emplace_back(p);
    }
    ASSERT_TRUE((PaletteJob{&rig, b.world, outputs, stream}.run()));
    for (std::uint32_t k = 0; k < rig.skins.size(); ++k) {
      const RigSkin& skin = rig.skins[k];
      const std::uint32_t mesh = drawn[skin.drawn];
      const Skin& gltf_skin = asset->skins[static_cast<std::size_t>(asset->nodes[mesh].skin)];
      const std::vector<glm::vec4>& rows = palettes[k];
      // glTF 2.0 §3.7.3: inverse(world(mesh node)) × world(joint) × IBM, in model space whatever the frame.
      const glm::mat4 inverse_mesh = glm::inverse(test::scalar_world(*asset, pose, static_cast<std::int32_t>(mesh)));
      for (std::size_t j = 0; j < gltf_skin.joints.size(); ++j) {
        const glm::mat4 want = inverse_mesh *
                               test::scalar_world(*asset, pose, static_cast<std::int32_t>(gltf_skin.joints[j])) *
                               gltf_skin.inverse_bind_matrices[j];
        Affine got;
        for (int i = 0; i < 3; ++i) got.rows[i] = rows[3 * j + static_cast<std::size_t>(i)];
        expect_mat_near(to_mat4(got), want, 1e-4f, "palette joint " + std::to_string(j));
      }
    }
  }
  // Equal palettes are shared: every drawn skinned node names an owner whose skin it uses.
  for (std::size_t d = 0; d < rig.drawn.size(); ++d) {
    if (rig.drawn[d].skin < 0) continue;
    EXPECT_EQ(rig.skins[static_cast<std::size_t>(rig.drawn[d].skin)].drawn, rig.drawn[d].palette_owner);
    EXPECT_LE(rig.drawn[d].palette_owner, d);
  }
}

// The README's jobs snippet, as written there, gives the specification's model-space worlds.
TEST_F(JobsTest, TheReadmeSnippetPosesACharacter) {
  const std::size_t clip = 1;
  const float seconds = 0.5f;
  const std::uint32_t stamp = 1;
  // --- README.md "Library", from `const std::size_t n` on ---
  const std::size_t n = rig.node_count();
  std::vector<glm::vec3> t(n), s(n);
  std::vector<glm::quat> r(n);
  std::vector<float> w(rig.rest_weights.size());
  std::vector<std::uint32_t> mark(n, 0);
  std::vector<std::uint16_t> cursors(clips[clip].timelines.size());
  std::vector<KeyPosition> keys(clips[clip].timelines.size());
  std::vector<std::uint8_t> moved(n);
  std::vector<Affine> world(n);
  std::vector<std::vector<glm::vec4>> rows;
  for (const RigSkin& skin : rig.skins) rows.emplace_back(3 * skin.joints.size());
  std::vector<std::span<glm::vec4>> palettes(rows.begin(), rows.end());
  ASSERT_TRUE((SampleJob{&rig, &clips[clip], seconds, cursors, keys, mark, stamp, true, {t, r, s, w}}.run()));
  ASSERT_TRUE((LocalToModelJob{&rig, t, r, s, mark, stamp, moved, world}.run()));
  ASSERT_TRUE((PaletteJob{&rig, world, palettes}.run()));
  // ---
  const test::ScalarPose pose = test::scalar_clip_pose(*asset, asset->clips[clip], seconds);
  for (std::uint32_t node : drawn)
    expect_mat_near(to_mat4(rig.unframe * world[rig.rig_node[node]]),
                    test::scalar_world(*asset, pose, static_cast<std::int32_t>(node)), 1e-4f, "model-space world");
}

TEST_F(JobsTest, TracksOfAnotherRigAreRefused) {
  const Rig empty = build_rig(*asset, {});  // no drawn nodes: no nodes
  ASSERT_EQ(empty.node_count(), 0u);
  const std::vector<ClipTracks> other = build_clip_tracks(*asset, empty);
  Buffers b(rig, clips[0].timelines.size());
  EXPECT_FALSE((SampleJob{&rig, &other[0], 0.1f, {}, b.keys, b.mark, 1, true, b.pose()}.validate()));
  AssetPose posed(*asset);
  EXPECT_FALSE(posed.set_clip(asset->clips.size(), 0.0f));
  std::vector<glm::mat4> too_few(asset->nodes.size() - 1);
  EXPECT_FALSE(posed.world_matrices(glm::mat4(1.0f), too_few));
}

TEST_F(JobsTest, InvalidSpansAreRefusedWithoutWriting) {
  Buffers b(rig, clips[0].timelines.size());
  std::vector<std::uint32_t> short_mark(rig.node_count() - 1, 7);
  const SampleJob no_rig{nullptr, &clips[0], 0.1f, {}, b.keys, b.mark, 1, true, b.pose()};
  EXPECT_FALSE(no_rig.validate());
  EXPECT_FALSE(no_rig.run());
  const SampleJob short_job{&rig, &clips[0], 0.1f, {}, b.keys, short_mark, 1, true, b.pose()};
  EXPECT_FALSE(short_job.run());
  EXPECT_EQ(short_mark, std::vector<std::uint32_t>(rig.node_count() - 1, 7));
  const SampleJob no_keys{&rig, &clips[0], 0.1f, {}, {}, b.mark, 1, true, b.pose()};
  EXPECT_FALSE(no_keys.run());
  EXPECT_FALSE((LocalToModelJob{&rig, b.t, b.r, b.s, b.mark, 1, b.moved, std::span(b.world).first(1)}.run()));
  std::vector<glm::vec4> rows(2);
  std::vector<std::span<glm::vec4>> short_rows(rig.skins.size(), std::span<glm::vec4>(rows));
  EXPECT_FALSE((PaletteJob{&rig, b.world, short_rows}.run()));
  EXPECT_FALSE((PaletteJob{&rig, b.world, std::span(short_rows).first(short_rows.size() - 1)}.run()));
  EXPECT_EQ(rows, std::vector<glm::vec4>(2)) << "a refused job wrote";
  const std::vector<glm::quat> short_reference(b.r.size() - 1);
  EXPECT_FALSE((BlendJob{b.pose(), 1.0f, false, true, {}, short_reference, b.pose()}.run()));
}

}  // namespace
}  // namespace gltf_crowd
