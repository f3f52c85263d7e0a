#include "replay/wkt.hpp"

#include <cctype>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "replay/numbers.hpp"

namespace gltf_crowd::detail {
namespace {

constexpr int kMaxDepth = 8;  // GEOMETRYCOLLECTION nesting

class WktParser {
 public:
  WktParser(std::string_view text, std::string_view path) : text_(text), path_(path) {}

  void geometry(std::vector<AreaPolygon>& out, int depth) {
    const std::string_view keyword = word();
    if (equal(keyword, "POLYGON")) {
      dimensions();
      if (empty()) return;
      out.push_back(polygon_body());
    } else if (equal(keyword, "MULTIPOLYGON")) {
      dimensions();
      if (empty()) return;
      expect('(');
      do {
        if (!empty()) out.push_back(polygon_body());
      } while (accept(','));
      expect(')');
    } else if (equal(keyword, "GEOMETRYCOLLECTION")) {
      if (depth >= kMaxDepth) fail(fmt::format("a GEOMETRYCOLLECTION nested deeper than {}", kMaxDepth));
      dimensions();
      if (empty()) return;
      expect('(');
      do geometry(out, depth + 1);
      while (accept(','));
      expect(')');
    } else {
      fail(keyword.empty() ? std::string("expected a geometry keyword")
                           : fmt::format("'{}' is not POLYGON, MULTIPOLYGON or GEOMETRYCOLLECTION", keyword));
    }
  }

  void finish() {
    skip_space();
    if (at_ < text_.size()) fail("text after the geometry");
  }

 private:
  // '(' ring (',' ring)* ')': the outer ring, then the holes.
  AreaPolygon polygon_body() {
    AreaPolygon polygon;
    expect('(');
    polygon.outer = ring();
    while (accept(',')) polygon.holes.push_back(ring());
    expect(')');
    return polygon;
  }

  std::vector<glm::dvec2> ring() {
    const std::size_t start = at_;
    std::vector<glm::dvec2> points;
    expect('(');
    do points.push_back(point());
    while (accept(','));
    expect(')');
    if (points.size() < 4) fail(fmt::format("a ring of {} points (at least 4)", points.size()), start);
    if (points.front() != points.back()) fail("a ring whose last point is not its first", start);
    points.pop_back();
    return points;
  }

  // 2 to 4 numbers: x y [z [m]]; JuPedSim's y is the world's -z.
  glm::dvec2 point() {
    double coordinates[4] = {};
    int count = 0;
    skip_space();
    while (count < 4 && at_ < text_.size() && text_[at_] != ',' && text_[at_] != ')') {
      coordinates[count++] = number();
      skip_space();
    }
    if (count < 2) fail("a point needs x and y");
    if (!std::isfinite(coordinates[0]) || !std::isfinite(coordinates[1])) {
      throw_not_finite(path_, fmt::format("the WKT point at character {}", at_));
    }
    return {coordinates[0], -coordinates[1]};
  }

  double number() {
    const std::size_t start = at_;
    while (at_ < text_.size() && text_[at_] != ' ' && text_[at_] != '\t' && text_[at_] != '\n' && text_[at_] != '\r' &&
           text_[at_] != ',' && text_[at_] != ')' && text_[at_] != '(') {
      ++at_;
    }
    double value = 0.0;
    if (!parse_double(text_.substr(start, at_ - start), value)) fail("expected a number", start);
    return value;
  }

  // An optional Z, M or ZM after a keyword.
  void dimensions() {
    const std::size_t start = at_;
    const std::string_view tag = word();
    if (!tag.empty() && !equal(tag, "Z") && !equal(tag, "M") && !equal(tag, "ZM")) at_ = start;
  }

  bool empty() {
    const std::size_t start = at_;
    if (equal(word(), "EMPTY")) return true;
    at_ = start;
    return false;
  }

  std::string_view word() {
    skip_space();
    const std::size_t start = at_;
    while (at_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[at_]))) ++at_;
    return text_.substr(start, at_ - start);
  }

  static bool equal(std::string_view a, std::string_view upper) {
    if (a.size() != upper.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(a[i])) != upper[i]) return false;
    }
    return true;
  }

  bool accept(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!accept(c)) fail(fmt::format("expected '{}'", c));
  }

  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  [[noreturn]] void fail(const std::string& what) const { fail(what, at_); }
  [[noreturn]] void fail(const std::string& what, std::size_t where) const {
    throw Error(std::string(path_), Rule::trajectory_wkt, fmt::format("{} at character {} of the WKT", what, where));
  }

  std::string_view text_;
  std::string_view path_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<AreaPolygon> parse_wkt(std::string_view text, std::string_view path) {
  std::vector<AreaPolygon> polygons;
  WktParser parser(text, path);
  parser.geometry(polygons, 0);
  parser.finish();
  return polygons;
}

}  // namespace gltf_crowd::detail
