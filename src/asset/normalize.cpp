// Rewrites of the checked JSON that keep its meaning but let tinygltf read it (docs/spec.md §2.8).
//
// Based on: the glTF 2.0 JSON schema (which properties are integers), §3.6.2.1 (an accessor
// without a bufferView holds zeros), §4.4.3.2 (only buffers[0] is bound to the GLB BIN chunk)
// and EXT_meshopt_compression (fallback buffers). tinygltf parses integers strictly, needs a
// bufferView behind every `indices` accessor, rejects unknown accessor types and copies the BIN
// chunk into every GLB buffer without a uri; each rewrite here sidesteps one of those.
#include <cmath>
#include <limits>

#include "asset/build.hpp"

namespace gltf_crowd::detail {
namespace {

using nlohmann::json;

// An integral float becomes an integer; anything else (fractions, strings, huge values) is left
// for preflight to reject with its usual rule.
bool fix_integer(json& value) {
  if (!value.is_number_float()) return false;
  const double d = value.get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) > 9007199254740992.0) return false;
  if (d >= 0)
    value = static_cast<std::uint64_t>(d);
  else
    value = static_cast<std::int64_t>(d);
  return true;
}

// `keys` of `o` (when `o` is an object).
bool fix_keys(json& o, std::initializer_list<const char*> keys) {
  if (!o.is_object()) return false;
  bool changed = false;
  for (const char* key : keys)
    if (const auto it = o.find(key); it != o.end()) changed |= fix_integer(*it);
  return changed;
}

// Every element of the array `o[key]`, or every value of the object `o[key]`.
bool fix_all(json& o, const char* key) {
  if (!o.is_object()) return false;
  const auto it = o.find(key);
  if (it == o.end() || !(it->is_array() || it->is_object())) return false;
  bool changed = false;
  for (json& v : *it) changed |= fix_integer(v);
  return changed;
}

// Each object of the top-level array `name`.
template <typename F>
bool each(json& doc, const char* name, F f) {
  const auto it = doc.find(name);
  if (it == doc.end() || !it->is_array()) return false;
  bool changed = false;
  for (json& o : *it)
    if (o.is_object()) changed |= f(o);
  return changed;
}

json* child(json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

bool fix_texture_info(json& o, const char* key) {
  json* info = child(o, key);
  return info != nullptr && fix_keys(*info, {"index", "texCoord"});
}

}  // namespace

bool normalize_integers(json& doc) {
  if (!doc.is_object()) return false;
  bool changed = fix_keys(doc, {"scene"});
  changed |= each(doc, "accessors", [](json& a) {
    bool c = fix_keys(a, {"bufferView", "byteOffset", "componentType", "count"});
    if (json* sparse = child(a, "sparse")) {
      c |= fix_keys(*sparse, {"count"});
      if (json* indices = child(*sparse, "indices"))
        c |= fix_keys(*indices, {"bufferView", "byteOffset", "componentType"});
      if (json* values = child(*sparse, "values")) c |= fix_keys(*values, {"bufferView", "byteOffset"});
    }
    return c;
  });
  changed |= each(doc, "animations", [](json& a) {
    bool c = false;
    if (json* channels = child(a, "channels"); channels != nullptr && channels->is_array())
      for (json& ch : *channels) {
        c |= fix_keys(ch, {"sampler"});
        if (json* target = child(ch, "target")) c |= fix_keys(*target, {"node"});
      }
    if (json* samplers = child(a, "samplers"); samplers != nullptr && samplers->is_array())
      for (json& s : *samplers) c |= fix_keys(s, {"input", "output"});
    return c;
  });
  changed |= each(doc, "buffers", [](json& b) { return fix_keys(b, {"byteLength"}); });
  changed |= each(doc, "bufferViews", [](json& v) {
    return fix_keys(v, {"buffer", "byteOffset", "byteLength", "byteStride", "target"});
  });
  changed |= each(doc, "images", [](json& i) { return fix_keys(i, {"bufferView"}); });
  changed |= each(doc, "materials", [](json& m) {
    bool c = false;
    if (json* pbr = child(m, "pbrMetallicRoughness"))
      c |= fix_texture_info(*pbr, "baseColorTexture") | fix_texture_info(*pbr, "metallicRoughnessTexture");
    for (const char* key : {"normalTexture", "occlusionTexture", "emissiveTexture"}) c |= fix_texture_info(m, key);
    return c;
  });
  changed |= each(doc, "meshes", [](json& m) {
    bool c = false;
    if (json* primitives = child(m, "primitives"); primitives != nullptr && primitives->is_array())
      for (json& p : *primitives) {
        c |= fix_keys(p, {"indices", "material", "mode"}) | fix_all(p, "attributes");
        if (json* targets = child(p, "targets"); targets != nullptr && targets->is_array())
          for (json& t : *targets)
            if (t.is_object())
              for (json& v : t) c |= fix_integer(v);
      }
    return c;
  });
  changed |= each(doc, "nodes", [](json& n) {
    return fix_keys(n, {"camera", "skin", "mesh"}) | fix_all(n, "children");
  });
  changed |= each(doc, "samplers", [](json& s) { return fix_keys(s, {"magFilter", "minFilter", "wrapS", "wrapT"}); });
  changed |= each(doc, "scenes", [](json& s) { return fix_all(s, "nodes"); });
  changed |= each(doc, "skins", [](json& s) {
    return fix_keys(s, {"inverseBindMatrices", "skeleton"}) | fix_all(s, "joints");
  });
  changed |= each(doc, "textures", [](json& t) { return fix_keys(t, {"sampler", "source"}); });
  return changed;
}

TinygltfRewrite rewrite_for_tinygltf(json& doc, const PreflightResult& checked) {
  TinygltfRewrite rewrite;
  rewrite.changed = give_fallback_buffers_data(doc);
  // tinygltf decodes only base64 data URIs; preflight has validated the percent-encoded ones.
  for (const char* list : {"buffers", "images"}) {
    const auto items = doc.find(list);
    if (items == doc.end()) continue;
    for (json& item : *items) {
      const auto uri = item.find("uri");
      if (uri == item.end() || !uri->is_string()) continue;
      const std::string& text = uri->get_ref<const std::string&>();
      if (!is_data_uri(text) || parse_data_uri(text, "").base64) continue;
      *uri = data_uri_as_base64(text);
      rewrite.changed = true;
    }
  }
  // preflight has checked every shape and index below, so the lookups cannot throw.
  for (std::size_t b : checked.placeholder_buffers) {
    doc["buffers"][b]["uri"] = kPlaceholderBufferUri;
    doc["buffers"][b]["byteLength"] = 8;
    rewrite.changed = true;
  }
  for (std::size_t a : checked.unknown_type_accessors) {
    doc["accessors"][a] = {{"componentType", 5126}, {"count", 1}, {"type", "SCALAR"}};
    rewrite.changed = true;
  }
  if (const auto meshes = doc.find("meshes"); meshes != doc.end()) {
    for (std::size_t m = 0; m < meshes->size(); ++m) {
      json& primitives = (*meshes)[m]["primitives"];
      for (std::size_t p = 0; p < primitives.size(); ++p) {
        const auto indices = primitives[p].find("indices");
        if (indices == primitives[p].end()) continue;
        const auto accessor = indices->get<std::size_t>();
        if (doc["accessors"][accessor].contains("bufferView")) continue;
        rewrite.zero_indices.push_back({m, p, accessor});
        primitives[p].erase(indices);
        rewrite.changed = true;
      }
    }
  }
  return rewrite;
}

void restore_after_tinygltf(tinygltf::Model& model, const TinygltfRewrite& rewrite) {
  for (const auto& [m, p, accessor] : rewrite.zero_indices)
    model.meshes.at(m).primitives.at(p).indices = static_cast<int>(accessor);
}

}  // namespace gltf_crowd::detail
