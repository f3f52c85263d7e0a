// Based on: glTF 2.0 §2.8 (URIs: RFC 3986 relative references or RFC 2397 `data:` URIs, base64
// or percent-encoded) and RFC 4648 §4 (base64 alphabet and padding). tinygltf decodes base64
// leniently (it stops at the first bad character), so payloads are validated strictly here.
#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include "asset/uri.hpp"
#include "gltf_crowd/error.hpp"

namespace gltf_crowd::detail {
namespace {

bool is_base64_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool is_data_uri(std::string_view uri) noexcept { return uri.substr(0, 5) == "data:"; }

DataUri parse_data_uri(std::string_view uri, const std::string& path) {
  const std::size_t comma = uri.find(',');
  if (!is_data_uri(uri) || comma == std::string_view::npos)
    throw Error(path, Rule::data_uri, "a data URI has the form data:<media type>;base64,<payload>");
  const std::string_view header = uri.substr(5, comma - 5);
  constexpr std::string_view base64_suffix = ";base64";
  const std::string_view payload = uri.substr(comma + 1);
  if (header.size() < base64_suffix.size() || header.substr(header.size() - base64_suffix.size()) != base64_suffix) {
    // RFC 2397 without ";base64": the payload is URL-encoded octets.
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < payload.size(); ++i, ++bytes) {
      if (payload[i] != '%') continue;
      if (i + 2 >= payload.size() || hex_value(payload[i + 1]) < 0 || hex_value(payload[i + 2]) < 0)
        throw Error(path, Rule::data_uri, fmt::format("bad percent escape at character {} of the payload", i));
      i += 2;
    }
    const std::string_view media = header.substr(0, header.find(';'));
    return {std::string(media), bytes, false};
  }
  std::size_t padding = 0;
  while (padding < 2 && padding < payload.size() && payload[payload.size() - 1 - padding] == '=') ++padding;
  const std::size_t chars = payload.size() - padding;
  for (std::size_t i = 0; i < chars; ++i)
    if (!is_base64_char(payload[i]))
      throw Error(path, Rule::data_uri_base64, fmt::format("character {} of the payload is not base64", i));
  // Padding completes the last quad; unpadded payloads may end with 2 or 3 characters, never 1.
  if ((padding > 0 && payload.size() % 4 != 0) || chars % 4 == 1)
    throw Error(path, Rule::data_uri_base64,
                fmt::format("a base64 payload of {} characters is truncated", payload.size()));
  return {std::string(header.substr(0, header.size() - base64_suffix.size())), chars * 6 / 8};
}

std::vector<std::uint8_t> data_uri_bytes(std::string_view uri) {
  const std::size_t comma = uri.find(',');
  const std::string_view header = uri.substr(5, comma - 5);
  const std::string_view payload = uri.substr(comma + 1);
  constexpr std::string_view base64_suffix = ";base64";
  if (header.size() >= base64_suffix.size() && header.substr(header.size() - base64_suffix.size()) == base64_suffix)
    return base64_decode(payload);
  std::vector<std::uint8_t> bytes;
  bytes.reserve(payload.size());
  for (std::size_t i = 0; i < payload.size(); ++i) {
    if (payload[i] == '%') {
      bytes.push_back(static_cast<std::uint8_t>(hex_value(payload[i + 1]) * 16 + hex_value(payload[i + 2])));
      i += 2;
    } else {
      bytes.push_back(static_cast<std::uint8_t>(payload[i]));
    }
  }
  return bytes;
}

std::string data_uri_as_base64(std::string_view uri) {
  const std::string_view header = uri.substr(5, uri.find(',') - 5);
  return fmt::format("data:{};base64,", header.substr(0, header.find(';'))) + base64_encode(data_uri_bytes(uri));
}

std::string base64_encode(std::span<const std::uint8_t> bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const auto byte = [&](std::size_t k) { return k < bytes.size() ? std::uint32_t{bytes[k]} : 0u; };
    const std::uint32_t n = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::vector<std::uint8_t> base64_decode(std::string_view text) {
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    if (v < 0) continue;  // '=' padding
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    if ((count += 6) >= 8) {
      count -= 8;
      out.push_back(static_cast<std::uint8_t>(bits >> count));
    }
  }
  return out;
}

std::filesystem::path resolve_external_uri(std::string_view uri, const std::filesystem::path& base_dir,
                                           const std::string& path, const std::filesystem::path& resource_root) {
  const std::size_t colon = uri.find(':');
  if (colon != std::string_view::npos && uri.find('/') > colon)
    throw Error(path, Rule::uri_scheme, fmt::format("URI scheme \"{}\" is not supported", uri.substr(0, colon)));
  std::string decoded;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%') {
      const int hi = i + 2 < uri.size() ? hex_value(uri[i + 1]) : -1;
      const int lo = hi >= 0 ? hex_value(uri[i + 2]) : -1;
      if (lo < 0) throw Error(path, Rule::uri_escape, fmt::format("bad percent escape at character {}", i));
      decoded.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      decoded.push_back(uri[i] == '+' ? ' ' : uri[i]);  // as tinygltf's decoder, which opens the file
    }
  }
  if (decoded.empty() || decoded.find('\0') != std::string::npos)
    throw Error(path, Rule::uri_empty, "the URI names no file");
  if (decoded.front() == '/') throw Error(path, Rule::uri_absolute, "URIs must be relative to the glTF file");
  if (base_dir.empty()) throw Error(path, Rule::external_uri, "a document loaded from memory may only embed its data");
  std::filesystem::path file = base_dir / decoded;  // not const: returned by move
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw Error(path, Rule::external_file_missing, fmt::format("\"{}\" is not a readable file", file.string()));
  if (resource_root.empty()) return file;
  // Where the file really is, `..` and symbolic links resolved: the root's parts must lead it.
  const std::filesystem::path real = std::filesystem::canonical(file, ec);
  if (ec ||
      std::mismatch(resource_root.begin(), resource_root.end(), real.begin(), real.end()).first != resource_root.end())
    throw Error(path, Rule::uri_outside_root,
                fmt::format("\"{}\" is {}, outside the resource root {}; --allow-outside-resources "
                            "(LoadOptions::allow_outside_resources) or LoadOptions::resource_root allows it",
                            uri, ec ? file.string() : real.string(), resource_root.string()));
  return file;
}

}  // namespace gltf_crowd::detail
