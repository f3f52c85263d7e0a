// KHR_draco_mesh_compression (docs/spec.md §2.5) on documents built here: a known mesh is
// compressed with Draco's own encoder, wrapped in a glTF whose accessors have no bufferView, and
// the loaded primitive is compared triangle by triangle with the mesh that went in (Draco may
// reorder points and triangles, and rotate a triangle's corners, but keeps its winding).
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <draco/compression/decode.h>
#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>
#include <gtest/gtest.h>

#include "gl/reference_deform.hpp"
#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/crowd.hpp"
#include "image_compare.hpp"
#include "test_documents.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using nlohmann::json;
using test::Document;

constexpr const char* kDraco = "KHR_draco_mesh_compression";
const std::string kExtPath = "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression";

// A grid of cols × rows quads in the z = 0 plane, two triangles each, with every glTF attribute
// the loader takes from Draco. Values differ per vertex so that a misplaced one shows.
struct SourceMesh {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<glm::vec2> texcoords;
  std::vector<glm::u8vec4> colors;   // UNSIGNED_BYTE normalized
  std::vector<glm::u8vec4> joints;   // UNSIGNED_BYTE
  std::vector<glm::u8vec4> weights;  // UNSIGNED_BYTE normalized, summing to 255
  std::vector<std::uint32_t> indices;
};

SourceMesh grid(int cols, int rows) {
  SourceMesh m;
  for (int y = 0; y <= rows; ++y)
    for (int x = 0; x <= cols; ++x) {
      const auto fx = static_cast<float>(x), fy = static_cast<float>(y);
      m.positions.emplace_back(0.5f * fx, 0.25f * fy, 0.0625f * static_cast<float>((x * 3 + y) % 4));
      m.normals.push_back(glm::normalize(glm::vec3(0.1f * fx, -0.1f * fy, 1.0f)));
      m.texcoords.emplace_back(fx / static_cast<float>(cols), fy / static_cast<float>(rows));
      m.colors.emplace_back(x * 40, y * 30, 200, 255 - x - y);
      m.joints.emplace_back(0, 1, 0, 0);
      const int w1 = 255 * y / rows;
      m.weights.emplace_back(255 - w1, w1, 0, 0);
    }
  const auto at = [cols](int x, int y) { return static_cast<std::uint32_t>(y * (cols + 1) + x); };
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      m.indices.insert(m.indices.end(),
                       {at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y), at(x + 1, y + 1), at(x, y + 1)});
  return m;
}

struct Quantization {
  int position = 0;  // bits; 0 = lossless
  int normal = 0;
  int texcoord = 0;
};

// `source` compressed with Draco's edgebreaker, the unique id of each glTF attribute, and the
// mesh as a decoder sees it (its point count and order, for accessors and extra attributes).
struct Encoded {
  std::vector<std::uint8_t> bytes;
  std::map<std::string, int> ids;
  std::unique_ptr<draco::Mesh> decoded;
};

template <typename T, typename Vec>
int add_attribute(draco::Mesh& mesh, draco::GeometryAttribute::Type type, int components, draco::DataType data_type,
                  bool normalized, const std::vector<Vec>& values) {
  draco::GeometryAttribute ga;
  ga.Init(type, nullptr, static_cast<std::uint8_t>(components), data_type, normalized, sizeof(T) * components, 0);
  const int id = mesh.AddAttribute(ga, true, static_cast<std::uint32_t>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    T raw[4];
    for (int c = 0; c < components; ++c) raw[c] = static_cast<T>(values[i][c]);
    mesh.attribute(id)->SetAttributeValue(draco::AttributeValueIndex(static_cast<std::uint32_t>(i)), raw);
  }
  return static_cast<int>(mesh.attribute(id)->unique_id());
}

Encoded encode(const SourceMesh& source, Quantization q = {}) {
  draco::Mesh mesh;
  mesh.set_num_points(static_cast<std::uint32_t>(source.positions.size()));
  for (std::size_t i = 0; i < source.indices.size(); i += 3)
    mesh.AddFace({draco::PointIndex(source.indices[i]), draco::PointIndex(source.indices[i + 1]),
                  draco::PointIndex(source.indices[i + 2])});
  Encoded out;
  using GA = draco::GeometryAttribute;
  out.ids["POSITION"] = add_attribute<float>(mesh, GA::POSITION, 3, draco::DT_FLOAT32, false, source.positions);
  out.ids["NORMAL"] = add_attribute<float>(mesh, GA::NORMAL, 3, draco::DT_FLOAT32, false, source.normals);
  out.ids["TEXCOORD_0"] = add_attribute<float>(mesh, GA::TEX_COORD, 2, draco::DT_FLOAT32, false, source.texcoords);
  out.ids["COLOR_0"] = add_attribute<std::uint8_t>(mesh, GA::COLOR, 4, draco::DT_UINT8, true, source.colors);
  out.ids["JOINTS_0"] = add_attribute<std::uint8_t>(mesh, GA::GENERIC, 4, draco::DT_UINT8, false, source.joints);
  out.ids["WEIGHTS_0"] = add_attribute<std::uint8_t>(mesh, GA::GENERIC, 4, draco::DT_UINT8, true, source.weights);
  draco::Encoder encoder;
  encoder.SetEncodingMethod(draco::MESH_EDGEBREAKER_ENCODING);
  if (q.position > 0) encoder.SetAttributeQuantization(GA::POSITION, q.position);
  if (q.normal > 0) encoder.SetAttributeQuantization(GA::NORMAL, q.normal);
  if (q.texcoord > 0) encoder.SetAttributeQuantization(GA::TEX_COORD, q.texcoord);
  draco::EncoderBuffer buffer;
  const draco::Status status = encoder.EncodeMeshToBuffer(mesh, &buffer);
  EXPECT_TRUE(status.ok()) << status.error_msg();
  out.bytes.assign(buffer.data(), buffer.data() + buffer.size());
  draco::DecoderBuffer in;
  in.Init(buffer.data(), buffer.size());
  draco::Decoder decoder;
  auto decoded = decoder.DecodeMeshFromBuffer(&in);
  EXPECT_TRUE(decoded.ok()) << decoded.status().error_msg();
  if (decoded.ok()) out.decoded = std::move(decoded).value();
  return out;
}

// The decoded positions in point order (the order the loaded primitive's arrays have).
std::vector<glm::vec3> decoded_positions(const Encoded& e) {
  const draco::PointAttribute* a = e.decoded->GetAttributeByUniqueId(static_cast<std::uint32_t>(e.ids.at("POSITION")));
  std::vector<glm::vec3> out(e.decoded->num_points());
  for (std::uint32_t i = 0; i < out.size(); ++i)
    a->ConvertValue<float>(a->mapped_index(draco::PointIndex(i)), 3, &out[i].x);
  return out;
}

// Nodes 0 (mesh 0, skin 0 over nodes 1 and 2), 1 "Joint0" with child 2 "Joint1" at y = 1; mesh 0 = a Draco-compressed
// primitive whose accessors (no bufferView) describe `e`; the Draco bytes are bufferViews[0].
Document draco_document(const Encoded& e) {
  Document d;
  const int view = d.add_view(e.bytes.data(), e.bytes.size());
  const std::size_t points = e.decoded->num_points();
  json attributes = json::object();
  glm::vec3 min(INFINITY), max(-INFINITY);
  for (const glm::vec3& p : decoded_positions(e)) {
    min = glm::min(min, p);
    max = glm::max(max, p);
  }
  attributes["POSITION"] =
      d.add_accessor(-1, 5126, points, "VEC3", {{"min", {min.x, min.y, min.z}}, {"max", {max.x, max.y, max.z}}});
  attributes["NORMAL"] = d.add_accessor(-1, 5126, points, "VEC3");
  attributes["TEXCOORD_0"] = d.add_accessor(-1, 5126, points, "VEC2");
  attributes["COLOR_0"] = d.add_accessor(-1, 5121, points, "VEC4", {{"normalized", true}});
  attributes["JOINTS_0"] = d.add_accessor(-1, 5121, points, "VEC4");
  attributes["WEIGHTS_0"] = d.add_accessor(-1, 5121, points, "VEC4", {{"normalized", true}});
  const int indices = d.add_accessor(-1, 5123, std::size_t{e.decoded->num_faces()} * 3, "SCALAR");
  json ids = json::object();
  for (const auto& [name, id] : e.ids) ids[name] = id;
  json primitive = {{"attributes", attributes}, {"indices", indices}};
  primitive["extensions"][kDraco] = {{"bufferView", view}, {"attributes", ids}};
  d.json["meshes"] = json::array({{{"primitives", json::array({primitive})}}});
  d.json["nodes"] = {{{"mesh", 0}, {"skin", 0}},
                     {{"name", "Joint0"}, {"children", {2}}},
                     {{"name", "Joint1"}, {"translation", {0, 1, 0}}}};
  d.json["scenes"] = {{{"nodes", {0, 1}}}};
  d.json["skins"] = {{{"joints", {1, 2}}}};
  d.json["extensionsUsed"] = {kDraco};
  d.json["extensionsRequired"] = {kDraco};
  return d;
}

// One corner of a triangle with every attribute as the loader reports it (floats).
struct Corner {
  glm::vec3 position, normal;
  glm::vec2 texcoord;
  glm::vec4 color, weights;
  glm::u16vec4 joints;
};

struct Tolerance {
  float position = 0.0f, normal = 0.0f, texcoord = 0.0f;
};

bool near(const Corner& a, const Corner& b, const Tolerance& t) {
  const auto close = [](auto x, auto y, float tol) {
    for (int i = 0; i < x.length(); ++i)
      if (!(std::abs(x[i] - y[i]) <= tol)) return false;
    return true;
  };
  // Normalized bytes: c / 255 (glTF 2.0 §3.11), compared to float rounding.
  return close(a.position, b.position, t.position) && close(a.normal, b.normal, t.normal) &&
         close(a.texcoord, b.texcoord, t.texcoord) && close(a.color, b.color, 1e-6f) &&
         close(a.weights, b.weights, 1e-6f) && a.joints == b.joints;
}

using Triangle = std::array<Corner, 3>;

std::vector<Triangle> expected_triangles(const SourceMesh& s) {
  std::vector<Triangle> out;
  for (std::size_t i = 0; i < s.indices.size(); i += 3) {
    Triangle t;
    for (int c = 0; c < 3; ++c) {
      const std::uint32_t v = s.indices[i + static_cast<std::size_t>(c)];
      t[static_cast<std::size_t>(c)] = {s.positions[v],
                                        s.normals[v],
                                        s.texcoords[v],
                                        glm::vec4(s.colors[v]) / 255.0f,
                                        glm::vec4(s.weights[v]) / 255.0f,
                                        glm::u16vec4(s.joints[v])};
    }
    out.push_back(t);
  }
  return out;
}

std::vector<Triangle> loaded_triangles(const Primitive& p) {
  std::vector<Triangle> out;
  for (std::size_t i = 0; i + 2 < p.indices.size(); i += 3) {
    Triangle t;
    for (int c = 0; c < 3; ++c) {
      const std::uint32_t v = p.indices[i + static_cast<std::size_t>(c)];
      t[static_cast<std::size_t>(c)] = {p.positions[v], p.normals[v],  p.texcoords0[v],
                                        p.colors0[v],   p.weights0[v], p.joints0[v]};
    }
    out.push_back(t);
  }
  return out;
}

// Every expected triangle is matched by a distinct loaded one, corners in the same cyclic order.
void expect_same_triangles(const std::vector<Triangle>& expected, const std::vector<Triangle>& loaded,
                           const Tolerance& tolerance) {
  ASSERT_EQ(loaded.size(), expected.size());
  std::vector<bool> used(loaded.size(), false);
  for (std::size_t e = 0; e < expected.size(); ++e) {
    bool found = false;
    for (std::size_t l = 0; l < loaded.size() && !found; ++l) {
      if (used[l]) continue;
      for (int r = 0; r < 3 && !found; ++r) {
        const bool all = near(expected[e][0], loaded[l][static_cast<std::size_t>(r)], tolerance) &&
                         near(expected[e][1], loaded[l][static_cast<std::size_t>((r + 1) % 3)], tolerance) &&
                         near(expected[e][2], loaded[l][static_cast<std::size_t>((r + 2) % 3)], tolerance);
        if (all) found = used[l] = true;
      }
    }
    EXPECT_TRUE(found) << "source triangle " << e << " (first corner at " << expected[e][0].position.x << ", "
                       << expected[e][0].position.y << ") is not in the loaded primitive";
  }
}

Error load_error(const std::vector<std::uint8_t>& bytes) {
  try {
    load_asset_from_memory(bytes);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "the document loaded";
  return Error("", Rule::parse, "no Error thrown");
}

TEST(Draco, LosslessAttributesAndIndicesMatchTheSourceMesh) {
  const SourceMesh source = grid(3, 4);
  const Encoded e = encode(source);
  ASSERT_NE(e.decoded, nullptr);
  const Document d = draco_document(e);
  for (const auto& bytes : {d.gltf(), d.glb()}) {
    const Asset a = load_asset_from_memory(bytes);
    ASSERT_EQ(a.meshes.size(), 1u);
    const Primitive& p = a.meshes[0].primitives[0];
    EXPECT_EQ(p.mode, PrimitiveMode::triangles);
    EXPECT_EQ(p.positions.size(), e.decoded->num_points());
    expect_same_triangles(expected_triangles(source), loaded_triangles(p), {});
    // Bounds run on the decoded data: the grid spans x 0..1.5, y 0..1, z 0..0.1875.
    EXPECT_EQ(p.min, glm::vec3(0.0f));
    EXPECT_EQ(p.max, glm::vec3(1.5f, 1.0f, 0.1875f));
  }
}

TEST(Draco, QuantizedAttributesMatchWithinTheQuantizationStep) {
  const SourceMesh source = grid(4, 4);
  const Quantization q{.position = 11, .normal = 10, .texcoord = 10};
  const Encoded e = encode(source, q);
  ASSERT_NE(e.decoded, nullptr);
  const Asset a = load_asset_from_memory(draco_document(e).glb());
  // Draco quantizes each attribute over its largest extent (2 for positions, 1 for texcoords)
  // into 2^bits − 1 steps and rounds to the nearest: error ≤ half a step, plus float rounding.
  // Normals use octahedral coordinates of `normal` bits; a step there moves a unit vector by
  // less than 4 / 2^(bits − 1) per component.
  const Tolerance t{.position = 0.5f * 2.0f / static_cast<float>((1 << q.position) - 1) + 1e-6f,
                    .normal = 4.0f / static_cast<float>(1 << (q.normal - 1)),
                    .texcoord = 0.5f * 1.0f / static_cast<float>((1 << q.texcoord) - 1) + 1e-6f};
  expect_same_triangles(expected_triangles(source), loaded_triangles(a.meshes[0].primitives[0]), t);
}

TEST(Draco, AttributesOutsideTheExtensionAreReadFromTheirAccessors) {
  const Encoded e = encode(grid(2, 2));
  ASSERT_NE(e.decoded, nullptr);
  Document d = draco_document(e);
  // TEXCOORD_1 is plain: one value per decoded point, in the decoder's point order.
  const std::vector<glm::vec3> positions = decoded_positions(e);
  std::vector<float> uv1;
  for (const glm::vec3& p : positions) uv1.insert(uv1.end(), {2.0f * p.x + 1.0f, 3.0f * p.y});
  d.json["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"] = d.add_floats(uv1, 2, "VEC2");
  const Asset a = load_asset_from_memory(d.gltf());
  const Primitive& p = a.meshes[0].primitives[0];
  ASSERT_EQ(p.texcoords1.size(), p.positions.size());
  for (std::size_t i = 0; i < p.positions.size(); ++i)
    EXPECT_EQ(p.texcoords1[i], glm::vec2(2.0f * p.positions[i].x + 1.0f, 3.0f * p.positions[i].y)) << "point " << i;
}

TEST(Draco, IndicesAccessorMayHaveABufferViewThatIsIgnored) {
  const SourceMesh source = grid(2, 1);
  const Encoded e = encode(source);
  ASSERT_NE(e.decoded, nullptr);
  Document d = draco_document(e);
  // An uncompressed fallback's indices (here: all zeros); Draco's data wins.
  const int indices = d.json["meshes"][0]["primitives"][0]["indices"];
  d.json["accessors"][indices]["bufferView"] = d.add_view(std::vector<std::uint16_t>(source.indices.size(), 0));
  d.json.erase("extensionsRequired");
  const Asset a = load_asset_from_memory(d.gltf());
  expect_same_triangles(expected_triangles(source), loaded_triangles(a.meshes[0].primitives[0]), {});
}

// The skinned grid of draco_document(encode(source)) and the same grid stored uncompressed,
// each with clip "Bend" turning Joint1 by 90° about z over one second.
std::pair<Document, Document> skinned_pair(const SourceMesh& source, const Encoded& e) {
  Document compressed = draco_document(e);
  Document plain;
  json attributes = json::object();
  std::vector<float> positions, normals, texcoords;
  for (const glm::vec3& v : source.positions) positions.insert(positions.end(), {v.x, v.y, v.z});
  for (const glm::vec3& v : source.normals) normals.insert(normals.end(), {v.x, v.y, v.z});
  for (const glm::vec2& v : source.texcoords) texcoords.insert(texcoords.end(), {v.x, v.y});
  const std::size_t n = source.positions.size();
  attributes["POSITION"] = plain.add_floats(positions, 3, "VEC3");
  attributes["NORMAL"] = plain.add_floats(normals, 3, "VEC3");
  attributes["TEXCOORD_0"] = plain.add_floats(texcoords, 2, "VEC2");
  attributes["COLOR_0"] = plain.add_accessor(plain.add_view(source.colors), 5121, n, "VEC4", {{"normalized", true}});
  attributes["JOINTS_0"] = plain.add_accessor(plain.add_view(source.joints), 5121, n, "VEC4");
  attributes["WEIGHTS_0"] = plain.add_accessor(plain.add_view(source.weights), 5121, n, "VEC4", {{"normalized", true}});
  const int indices = plain.add_accessor(plain.add_view(source.indices), 5125, source.indices.size(), "SCALAR");
  const json primitive = {{"attributes", attributes}, {"indices", indices}};
  plain.json["meshes"] = json::array({{{"primitives", json::array({primitive})}}});
  for (const char* key : {"nodes", "scenes", "skins"}) plain.json[key] = compressed.json[key];
  for (Document* d : {&compressed, &plain}) {
    const int times = d->add_floats({0.0f, 1.0f}, 1, "SCALAR");
    const int rotations = d->add_floats({0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f}, 4, "VEC4");
    const json sampler = {{"input", times}, {"output", rotations}};
    const json channel = {{"sampler", 0}, {"target", {{"node", 2}, {"path", "rotation"}}}};
    const json animation = {
        {"name", "Bend"}, {"samplers", json::array({sampler})}, {"channels", json::array({channel})}};
    d->json["animations"] = json::array({animation});
  }
  return {compressed, plain};
}

// The skinned grid poses like the same grid stored uncompressed: the crowd's joint matrices and
// the reference CPU deformation (gl/reference_deform.hpp) move each Draco vertex where the
// uncompressed vertex at the same rest position goes.
TEST(Draco, SkinnedPrimitivePosesLikeTheUncompressedOne) {
  const SourceMesh source = grid(2, 4);
  const Encoded e = encode(source);
  ASSERT_NE(e.decoded, nullptr);
  const auto [compressed, plain] = skinned_pair(source, e);
  const auto pose = [](const Document& d) {
    const auto asset = std::make_shared<const Asset>(load_asset_from_memory(d.gltf()));
    Crowd crowd(asset, CrowdOptions{.capacity = 1});
    Actor actor = crowd.add_actor({.id = "a", .clip = "Bend"});
    crowd.update(0.5f);
    const Skin& skin = asset->skins.at(0);
    std::vector<glm::mat4> joints;
    for (std::size_t j = 0; j < skin.joints.size(); ++j)
      joints.push_back(actor.node_world(skin.joints[j]) * skin.inverse_bind_matrices[j]);
    const Primitive& p = asset->meshes[0].primitives[0];
    std::vector<gl::DeformedVertex> out(p.positions.size());
    EXPECT_TRUE((gl::DeformJob{.primitive = &p, .normals = p.normals, .joint_matrices = joints, .out = out}.run()));
    return std::make_pair(p.positions, out);
  };
  const auto [rest_draco, posed_draco] = pose(compressed);
  const auto [rest_plain, posed_plain] = pose(plain);
  ASSERT_EQ(rest_draco.size(), rest_plain.size());
  int moved = 0;
  for (std::size_t i = 0; i < rest_draco.size(); ++i) {
    const auto it = std::find(rest_plain.begin(), rest_plain.end(), rest_draco[i]);
    ASSERT_NE(it, rest_plain.end()) << "Draco point " << i << " is not a source vertex";
    const gl::DeformedVertex& want = posed_plain[static_cast<std::size_t>(it - rest_plain.begin())];
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(posed_draco[i].position[c], want.position[c], 1e-5f) << "point " << i;
      EXPECT_NEAR(posed_draco[i].normal[c], want.normal[c], 1e-5f) << "point " << i;
    }
    moved += glm::distance(posed_draco[i].position, rest_draco[i]) > 1e-3f;
  }
  EXPECT_GT(moved, 0);  // the pose is not the rest pose, so the comparison says something
}

// Rendered by the gltf-crowd tool (GL, headless), the posed Draco grid looks like the
// uncompressed one: same framing (same bounds), same pixels up to rasterization ties.
TEST(DracoRender, SkinnedGridRendersLikeTheUncompressedOne) {
  const SourceMesh source = grid(4, 6);
  const Encoded e = encode(source);
  ASSERT_NE(e.decoded, nullptr);
  const auto [compressed, plain] = skinned_pair(source, e);
  const auto dir = test::scratch_dir("draco_render");
  const auto render = [&dir](const Document& d, const std::string& name) {
    const auto glb = dir / (name + ".glb");
    const std::vector<std::uint8_t> bytes = d.glb();
    std::ofstream(glb, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const auto png = dir / (name + ".png"), stats = dir / (name + ".json");
    const std::string command = test::quoted(test::tool_path().string()) + " render " + test::quoted(glb.string()) +
                                " --actors 1 --seconds 0.5 --width 96 --height 96 --out " + test::quoted(png.string()) +
                                " --stats " + test::quoted(stats.string()) + " 2>&1 >/dev/null";
    return test::run_for_image(command, png, stats);
  };
  const test::ImageRun draco = render(compressed, "draco");
  const test::ImageRun uncompressed = render(plain, "plain");
  ASSERT_EQ(draco.exit_code, 0) << draco.output;
  ASSERT_EQ(uncompressed.exit_code, 0) << uncompressed.output;
  const auto& bg = uncompressed.stats.at("background");
  const std::uint8_t background[3] = {bg[0], bg[1], bg[2]};
  EXPECT_GT(test::foreground_fraction(uncompressed.image, background), 0.02);  // the grid is in view
  EXPECT_TRUE(test::images_agree(dir, "draco", draco.image, uncompressed.image));
}

TEST(Draco, TriangleStripLoadsAsTheTriangleListDracoStores) {
  const SourceMesh source = grid(2, 2);
  const Encoded e = encode(source);
  ASSERT_NE(e.decoded, nullptr);
  Document d = draco_document(e);
  d.json["meshes"][0]["primitives"][0]["mode"] = 5;
  const Asset a = load_asset_from_memory(d.gltf());
  EXPECT_EQ(a.meshes[0].primitives[0].mode, PrimitiveMode::triangles);
  expect_same_triangles(expected_triangles(source), loaded_triangles(a.meshes[0].primitives[0]), {});
}

// Declared sizes are charged before anything is decoded: 2^28 VEC3 floats are 3 GiB, over the
// 1 GiB a document's decoded primitives may hold.
TEST(DracoErrors, DecodedSizeIsCappedBeforeDecoding) {
  const Encoded e = encode(grid(1, 1));
  ASSERT_NE(e.decoded, nullptr);
  Document d = draco_document(e);
  const int position = d.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"];
  d.json["accessors"][position]["count"] = std::uint64_t{1} << 28;
  const Error error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath);
  EXPECT_EQ(error.rule(), "draco_size");
}

TEST(DracoErrors, CorruptBytesAreADecodeError) {
  const Encoded e = encode(grid(2, 2));
  ASSERT_NE(e.decoded, nullptr);
  Document d = draco_document(e);
  Document bad_magic = d;
  std::fill_n(bad_magic.bin.begin(), 5, std::uint8_t{'X'});  // "DRACO" header
  Error error = load_error(bad_magic.glb());
  EXPECT_EQ(error.path(), kExtPath);
  EXPECT_EQ(error.rule(), "draco_decode");
  Document truncated = d;
  truncated.json["bufferViews"][0]["byteLength"] = e.bytes.size() / 2;
  error = load_error(truncated.gltf());
  EXPECT_EQ(error.path(), kExtPath);
  EXPECT_EQ(error.rule(), "draco_decode");
}

TEST(DracoErrors, CountsMustMatchTheDecodedMesh) {
  const Encoded e = encode(grid(2, 2));
  ASSERT_NE(e.decoded, nullptr);
  Document d = draco_document(e);
  const int normal = d.json["meshes"][0]["primitives"][0]["attributes"]["NORMAL"];
  d.json["accessors"][normal]["count"] = e.decoded->num_points() + 1;
  Error error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath + ".attributes.NORMAL");
  EXPECT_EQ(error.rule(), "draco_count");

  d = draco_document(e);
  const int indices = d.json["meshes"][0]["primitives"][0]["indices"];
  d.json["accessors"][indices]["count"] = e.decoded->num_faces() * 3 - 3;
  error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath);
  EXPECT_EQ(error.rule(), "draco_count");
}

TEST(DracoErrors, AttributesMustExistAndAgreeWithTheirAccessors) {
  const Encoded e = encode(grid(2, 2));
  ASSERT_NE(e.decoded, nullptr);
  Document d = draco_document(e);
  d.json["meshes"][0]["primitives"][0]["extensions"][kDraco]["attributes"]["NORMAL"] = 77;  // no such unique id
  Error error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath + ".attributes.NORMAL");
  EXPECT_EQ(error.rule(), "draco_attribute");

  d = draco_document(e);
  const int uv = d.json["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"];
  d.json["accessors"][uv]["type"] = "VEC3";  // Draco holds 2 components
  error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath + ".attributes.TEXCOORD_0");
  EXPECT_EQ(error.rule(), "draco_attribute");

  d = draco_document(e);
  d.json["meshes"][0]["primitives"][0]["attributes"].erase("COLOR_0");  // still in the extension
  error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath + ".attributes.COLOR_0");
  EXPECT_EQ(error.rule(), "draco_attribute");

  // Values that do not fit the accessor's componentType: weights are bytes up to 255.
  d = draco_document(e);
  const int weights = d.json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"];
  d.json["accessors"][weights]["componentType"] = 5120;  // BYTE: up to 127
  error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath + ".attributes.WEIGHTS_0");
  EXPECT_EQ(error.rule(), "draco_attribute");
}

TEST(DracoErrors, ExtensionShapeAndModeAreChecked) {
  const Encoded e = encode(grid(1, 1));
  ASSERT_NE(e.decoded, nullptr);
  Document d = draco_document(e);
  d.json["meshes"][0]["primitives"][0]["mode"] = 0;  // POINTS
  Error error = load_error(d.gltf());
  EXPECT_EQ(error.path(), "meshes[0].primitives[0].mode");
  EXPECT_EQ(error.rule(), "draco_mode");

  d = draco_document(e);
  d.json["meshes"][0]["primitives"][0]["extensions"][kDraco]["bufferView"] = 9;
  error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath + ".bufferView");
  EXPECT_EQ(error.rule(), "bufferview_index");

  d = draco_document(e);
  d.json["meshes"][0]["primitives"][0]["extensions"][kDraco]["attributes"]["POSITION"] = -1;
  error = load_error(d.gltf());
  EXPECT_EQ(error.path(), kExtPath + ".attributes.POSITION");
  EXPECT_EQ(error.rule(), "integer_range");
}

// Writes fuzz/seeds/fuzz_load/draco_grid.glb (run with --gtest_also_run_disabled_tests after
// changing how the seed is made): the 2 × 2 grid, lossless, as a GLB.
TEST(Draco, DISABLED_WriteFuzzSeed) {
  const Encoded e = encode(grid(2, 2));
  ASSERT_NE(e.decoded, nullptr);
  const std::vector<std::uint8_t> bytes = draco_document(e).glb();
  std::ofstream(std::filesystem::path(GLTF_CROWD_TESTS_DIR) / "../fuzz/seeds/fuzz_load/draco_grid.glb",
                std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// fuzz/seeds/fuzz_load/draco_grid.glb seeds the loader fuzzer with Draco data; it must stay a
// valid Draco document so that mutations start from something the decoder accepts.
TEST(Draco, FuzzSeedLoads) {
  const std::filesystem::path seed =
      std::filesystem::path(GLTF_CROWD_TESTS_DIR) / "../fuzz/seeds/fuzz_load/draco_grid.glb";
  const Asset a = load_asset(seed);
  EXPECT_EQ(a.extensions_required, std::vector<std::string>{kDraco});
  EXPECT_EQ(a.meshes.at(0).primitives.at(0).indices.size(), 2u * 2u * 2u * 3u);  // 2 × 2 quads
}

}  // namespace
}  // namespace gltf_crowd
