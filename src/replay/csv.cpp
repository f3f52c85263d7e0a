// CSV/TSV trajectories (docs/spec.md §15.2): a header line naming the columns, then one row per
// agent and frame, grouped by frame in increasing order. Read line by line as the file streams;
// the first row of the next frame waits in `pending_`.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "replay/numbers.hpp"
#include "replay/source.hpp"

namespace gltf_crowd::detail {
namespace {

enum Column : std::size_t { kTime, kFrame, kId, kX, kY, kZ, kHeading, kColumns };
constexpr std::array<const char*, kColumns> kOptionNames = {"time", "frame", "id", "x", "y", "z", "heading"};
// The names each column is found by when CsvColumns leaves it empty, in order of preference.
const std::array<std::vector<std::string_view>, kColumns> kDefaultNames = {{
    {"time", "t"},
    {"frame", "fr"},
    {"id", "agent", "agent_id", "ped_id"},
    {"x", "pos_x"},
    {"y", "pos_y"},
    {"z", "pos_z"},
    {"heading", "yaw"},
}};
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class CsvSource final : public TrajectorySource {
 public:
  CsvSource(std::unique_ptr<std::istream> in, const TrajectoryOptions& options, std::string name)
      : TrajectorySource({}), in_(std::move(in)), options_(options) {
    info.format = TrajectoryFormat::csv;
    info.name = std::move(name);
    check_options();
    if (!next_line()) throw Error(info.name, Rule::trajectory_empty, "has no header line");
    if (line_.starts_with("\xEF\xBB\xBF")) line_.erase(0, 3);  // a UTF-8 byte order mark
    delimiter_ = options.delimiter != '\0' ? options.delimiter : detect_delimiter();
    header_line_ = line_number_;
    split();
    for (const std::string_view field : fields_) header_.push_back(lower(field));
    find_columns();
    if (!read_row(pending_)) throw Error(info.name, Rule::trajectory_empty, "has a header but no rows");
    has_pending_ = true;
  }

  bool read_frame(TrajectoryFrame& frame) override {
    if (!has_pending_) return false;
    frame.ids.clear();
    frame.positions.clear();
    frame.headings.clear();
    row_lines_.clear();
    const Row first = pending_;
    frame.index = info.keyed_by_time ? ordinal_++ : first.frame;
    frame.time = info.keyed_by_time ? first.time : static_cast<double>(first.frame) / info.fps;
    frame.area = TrajectoryFrame::no_area;
    do {
      frame.ids.push_back(pending_.id);
      frame.positions.push_back(pending_.position);
      frame.headings.push_back(pending_.heading);
      row_lines_.push_back(pending_.line);
      if (!read_row(pending_)) {
        has_pending_ = false;
        break;
      }
      if (info.keyed_by_time ? pending_.time < first.time : pending_.frame < first.frame) {
        throw Error(line_path(pending_.line), Rule::trajectory_order,
                    fmt::format("{} follows {}: rows must be grouped by frame, frames in increasing order",
                                key_text(pending_), key_text(first)));
      }
    } while (info.keyed_by_time ? pending_.time == first.time : pending_.frame == first.frame);
    return true;
  }

  std::string row_path(std::size_t row) const override { return line_path(row_lines_[row]); }

 private:
  struct Row {
    std::int64_t frame = 0;
    double time = 0.0;
    std::int64_t id = 0;
    glm::dvec3 position{0.0};
    float heading = 0.0f;
    std::uint64_t line = 0;
  };

  std::string line_path(std::uint64_t line) const { return fmt::format("{}:{}", info.name, line); }

  std::string key_text(const Row& row) const {
    return info.keyed_by_time ? fmt::format("time {} s", row.time) : fmt::format("frame {}", row.frame);
  }

  void check_options() {
    const char d = options_.delimiter;
    if (d != '\0' && (std::isalnum(static_cast<unsigned char>(d)) || std::strchr("\"\r\n.+-#", d) != nullptr)) {
      throw Error("TrajectoryOptions::delimiter", Rule::trajectory_option,
                  fmt::format("'{}' cannot separate fields (letters, digits, quotes, signs, '.', '#')", d));
    }
    if (!std::isfinite(options_.fps) || options_.fps < 0.0) {
      throw Error("TrajectoryOptions::fps", Rule::trajectory_fps,
                  fmt::format("{} is not 0 or a finite number > 0", options_.fps));
    }
    if (!options_.columns.time.empty() && !options_.columns.frame.empty()) {
      throw Error("TrajectoryOptions::columns", Rule::trajectory_option, "names both a time and a frame column");
    }
    info.fps = options_.fps;
  }

  char detect_delimiter() const {
    if (line_.find('\t') != std::string::npos) return '\t';
    if (line_.find(';') != std::string::npos && line_.find(',') == std::string::npos) return ';';
    return ',';
  }

  // The next line that is neither blank nor a '#' comment, into line_; false at the end.
  bool next_line() {
    while (std::getline(*in_, line_)) {
      ++line_number_;
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      const std::string_view content = trim(line_);
      if (!content.empty() && content.front() != '#') return true;
    }
    if (in_->bad()) throw Error(line_path(line_number_ + 1), Rule::file_open, "reading the file failed");
    return false;
  }

  // line_ into fields_, each trimmed; a field in double quotes keeps what is between them.
  void split() {
    fields_.clear();
    const std::string_view line = line_;
    std::size_t at = 0;
    while (true) {
      while (at < line.size() && (line[at] == ' ' || line[at] == '\t') && line[at] != delimiter_) ++at;
      if (at < line.size() && line[at] == '"') {
        std::size_t close = at + 1;
        while ((close = line.find('"', close)) != std::string_view::npos && close + 1 < line.size() &&
               line[close + 1] == '"') {
          close += 2;
        }
        if (close == std::string_view::npos) {
          throw Error(line_path(line_number_), Rule::trajectory_syntax,
                      fmt::format("field {} opens a quote it does not close", fields_.size() + 1));
        }
        fields_.push_back(line.substr(at + 1, close - at - 1));
        at = close + 1;
        while (at < line.size() && (line[at] == ' ' || line[at] == '\t') && line[at] != delimiter_) ++at;
        if (at < line.size() && line[at] != delimiter_) {
          throw Error(line_path(line_number_), Rule::trajectory_syntax,
                      fmt::format("field {} has text after its closing quote", fields_.size()));
        }
      } else {
        const std::size_t end = std::min(line.find(delimiter_, at), line.size());
        fields_.push_back(trim(line.substr(at, end - at)));
        at = end;
      }
      if (at >= line.size()) return;
      ++at;  // the delimiter
    }
  }

  std::size_t find(Column column, std::string_view option) const {
    if (!option.empty()) {
      const auto named = std::find(header_.begin(), header_.end(), lower(option));
      if (named == header_.end()) {
        throw Error(line_path(header_line_), Rule::trajectory_missing_column,
                    fmt::format("has no column '{}' (CsvColumns::{})", option, kOptionNames[column]));
      }
      return static_cast<std::size_t>(named - header_.begin());
    }
    for (const std::string_view name : kDefaultNames[column]) {
      const auto found = std::find(header_.begin(), header_.end(), name);
      if (found != header_.end()) return static_cast<std::size_t>(found - header_.begin());
    }
    return kNone;
  }

  void find_columns() {
    const CsvColumns& names = options_.columns;
    const std::array<const std::string*, kColumns> options = {&names.time, &names.frame, &names.id,     &names.x,
                                                              &names.y,    &names.z,     &names.heading};
    for (std::size_t c = 0; c < kColumns; ++c) columns_[c] = find(static_cast<Column>(c), *options[c]);
    const bool by_frame = !names.frame.empty() || (names.time.empty() && columns_[kFrame] != kNone);
    info.keyed_by_time = !by_frame;
    if (by_frame ? false : columns_[kTime] == kNone) missing("a time or frame column (CsvColumns::time, ::frame)");
    if (by_frame && info.fps == 0.0) {
      throw Error("TrajectoryOptions::fps", Rule::trajectory_fps,
                  fmt::format("{} has a frame column: its frame rate is needed (time = frame / fps)", info.name));
    }
    const bool z_up = options_.up == UpAxis::z;
    if (columns_[kId] == kNone) missing("an id column (CsvColumns::id)");
    if (columns_[kX] == kNone) missing("an x column (CsvColumns::x)");
    if (columns_[z_up ? kY : kZ] == kNone) {
      missing(z_up ? "a y column (CsvColumns::y; UpAxis::z)" : "a z column (CsvColumns::z; UpAxis::y)");
    }
    key_ = by_frame ? columns_[kFrame] : columns_[kTime];
    ground_ = columns_[z_up ? kY : kZ];
    height_ = columns_[z_up ? kZ : kY];
    info.headings = columns_[kHeading] != kNone;
  }

  [[noreturn]] void missing(std::string_view what) const {
    std::string names;
    for (const std::string& name : header_) names += (names.empty() ? "" : ", ") + name;
    throw Error(line_path(header_line_), Rule::trajectory_missing_column,
                fmt::format("needs {}; its columns are {}", what, names));
  }

  // Parses the next row into `row`; false at the end of the file.
  bool read_row(Row& row) {
    if (!next_line()) return false;
    split();
    row.line = line_number_;
    if (fields_.size() != header_.size()) {
      throw Error(line_path(row.line), Rule::trajectory_syntax,
                  fmt::format("has {} fields; the header has {}", fields_.size(), header_.size()));
    }
    if (info.keyed_by_time) {
      row.time = parse_finite(fields_[key_], "time", nullptr);
    } else if (!parse_integer(fields_[key_], row.frame)) {
      throw Error(line_path(row.line), Rule::trajectory_value,
                  fmt::format("frame '{}' is not an integer", fields_[key_].substr(0, 32)));
    }
    if (!parse_integer(fields_[columns_[kId]], row.id)) {
      throw Error(line_path(row.line), Rule::trajectory_value,
                  fmt::format("id '{}' is not an integer", fields_[columns_[kId]].substr(0, 32)));
    }
    const double scale = options_.unit == LengthUnit::centimetres ? 0.01 : 1.0;
    const double x = parse_finite(fields_[columns_[kX]], header_[columns_[kX]], &row) * scale;
    const double ground = parse_finite(fields_[ground_], header_[ground_], &row) * scale;
    const double height = height_ == kNone ? 0.0 : parse_finite(fields_[height_], header_[height_], &row) * scale;
    row.position = options_.up == UpAxis::z ? glm::dvec3(x, height, -ground) : glm::dvec3(x, height, ground);
    row.heading = std::numeric_limits<float>::quiet_NaN();
    if (columns_[kHeading] != kNone && !fields_[columns_[kHeading]].empty()) {
      double angle = parse_finite(fields_[columns_[kHeading]], header_[columns_[kHeading]], &row);
      if (options_.heading_unit == AngleUnit::degrees) angle *= std::numbers::pi / 180.0;
      row.heading = yaw_of_direction(std::cos(angle), std::sin(angle));
    }
    return true;
  }

  // A number cell of `row` (its key and id parsed; null while parsing the key), finite.
  double parse_finite(std::string_view field, std::string_view column, const Row* row) const {
    double value = 0.0;
    const bool number = parse_double(field, value);
    if (number && std::isfinite(value)) return value;
    const std::string what =
        row == nullptr ? std::string(column) : fmt::format("{} of agent {} at {}", column, row->id, key_text(*row));
    if (!number) {
      throw Error(line_path(line_number_), Rule::trajectory_value,
                  fmt::format("{} is '{}', not a number", what, field.substr(0, 32)));
    }
    throw_not_finite(line_path(line_number_), what);
  }

  std::unique_ptr<std::istream> in_;
  TrajectoryOptions options_;
  char delimiter_ = ',';
  std::string line_;
  std::uint64_t line_number_ = 0;
  std::uint64_t header_line_ = 0;
  std::vector<std::string_view> fields_;  // views into line_
  std::vector<std::string> header_;       // lower case
  std::array<std::size_t, kColumns> columns_{};
  std::size_t key_ = kNone, ground_ = kNone, height_ = kNone;
  Row pending_;  // the next row, when has_pending_
  bool has_pending_ = false;
  std::int64_t ordinal_ = 0;
  std::vector<std::uint64_t> row_lines_;  // the line of each row of the frame last read
};

}  // namespace

std::unique_ptr<TrajectorySource> open_csv(std::unique_ptr<std::istream> in, const TrajectoryOptions& options,
                                           std::string name) {
  return std::make_unique<CsvSource>(std::move(in), options, std::move(name));
}

}  // namespace gltf_crowd::detail
