// JuPedSim's SQLite trajectory output (docs/spec.md §15.1), as its SqliteTrajectoryWriter
// (python_modules/jupedsim/jupedsim/sqlite_serialization.py) writes each database version:
//   1: trajectory_data(frame, id, pos_x, pos_y, ori_x, ori_y), metadata(key, value), geometry(wkt)
//   2: as 1, geometry(hash, wkt) and frame_data(frame, geometry_hash)
//   3: as 2 without ori_x, ori_y (a database converted from 2 keeps them, and they are read)
// Rows stream from one prepared statement ordered by (frame, id); frame_data steps beside it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <sqlite3.h>

#include "asset/checks.hpp"
#include "replay/numbers.hpp"
#include "replay/source.hpp"
#include "replay/wkt.hpp"

namespace gltf_crowd::detail {
namespace {

struct CloseDatabase {
  void operator()(sqlite3* db) const noexcept { sqlite3_close(db); }
};
struct FinalizeStatement {
  void operator()(sqlite3_stmt* statement) const noexcept { sqlite3_finalize(statement); }
};
using Database = std::unique_ptr<sqlite3, CloseDatabase>;
using Statement = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

const char* type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "an integer";
    case SQLITE_FLOAT: return "a real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "a blob";
    default: return "NULL";
  }
}

class JupedsimSource final : public TrajectorySource {
 public:
  JupedsimSource(Database db, std::string name) : TrajectorySource({}), db_(std::move(db)) {
    info.format = TrajectoryFormat::jupedsim_sqlite;
    info.name = std::move(name);
    harden();
    // The first read of the file: where a file that is no database fails.
    run("SELECT count(*) FROM sqlite_master", "reading the schema");
    require_table("metadata");
    info.version = read_version();
    info.fps = read_fps();
    require_table("trajectory_data");
    require_table("geometry");
    if (info.version >= 2) require_table("frame_data");
    const bool ori = has_column("trajectory_data", "ori_x") && has_column("trajectory_data", "ori_y");
    require_columns("trajectory_data", {"frame", "id", "pos_x", "pos_y"});
    if (info.version <= 2) require_columns("trajectory_data", {"ori_x", "ori_y"});
    info.headings = ori;
    read_areas();
    rows_ =
        prepare(info.headings ? "SELECT frame, id, pos_x, pos_y, ori_x, ori_y FROM trajectory_data ORDER BY frame, id"
                              : "SELECT frame, id, pos_x, pos_y FROM trajectory_data ORDER BY frame, id");
    if (!step_row()) throw Error(table_path(), Rule::trajectory_empty, "trajectory_data has no rows");
    if (info.version >= 2) {
      require_columns("frame_data", {"frame", "geometry_hash"});
      frames_ = prepare("SELECT frame, geometry_hash FROM frame_data ORDER BY frame");
      step_frame_data();
    }
  }

  bool read_frame(TrajectoryFrame& frame) override {
    if (!row_ && !frame_data_) return false;
    const std::int64_t index = !row_          ? frame_data_frame_
                               : !frame_data_ ? row_frame_
                                              : std::min(row_frame_, frame_data_frame_);
    // The walkable area: the last frame_data row at or before this frame.
    while (frame_data_ && frame_data_frame_ <= index) {
      area_ = area_of(frame_data_hash_);
      const std::int64_t done = frame_data_frame_;
      step_frame_data();
      if (frame_data_ && frame_data_frame_ == done) {
        throw Error(info.name + ": frame_data", Rule::trajectory_duplicate, fmt::format("frame {} has two rows", done));
      }
    }
    frame.index = index;
    frame.time = static_cast<double>(index) / info.fps;
    frame.area = area_;
    frame.ids.clear();
    frame.positions.clear();
    frame.headings.clear();
    while (row_ && row_frame_ == index) {
      const std::int64_t id = integer(rows_.get(), 1, "id", index);
      const double x = number(2, "pos_x", id, index);
      const double y = number(3, "pos_y", id, index);
      float heading = std::numeric_limits<float>::quiet_NaN();
      if (info.headings) heading = yaw_of_direction(number(4, "ori_x", id, index), number(5, "ori_y", id, index));
      frame.ids.push_back(id);
      frame.positions.emplace_back(x, 0.0, -y);
      frame.headings.push_back(heading);
      step_row();
    }
    return true;
  }

  std::string row_path(std::size_t) const override { return table_path(); }

 private:
  std::string table_path() const { return info.name + ": trajectory_data"; }

  // A database is data here, never code: no views, triggers or schema functions run, and the
  // defensive mode refuses writes that could corrupt it.
  void harden() {
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  }

  [[noreturn]] void fail_sqlite(std::string_view doing) const {
    throw Error(info.name, Rule::trajectory_sqlite,
                fmt::format("{}: {} (SQLite error {})", doing, sqlite3_errmsg(db_.get()), sqlite3_errcode(db_.get())));
  }

  Statement prepare(const char* sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql, -1, &statement, nullptr) != SQLITE_OK) {
      sqlite3_finalize(statement);
      fail_sqlite(fmt::format("preparing \"{}\"", sql));
    }
    return Statement(statement);
  }

  // Steps once: true with a row, false when done.
  bool step(sqlite3_stmt* statement, std::string_view doing) {
    const int rc = sqlite3_step(statement);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail_sqlite(doing);
  }

  void run(const char* sql, std::string_view doing) {
    const Statement statement = prepare(sql);
    while (step(statement.get(), doing)) {
    }
  }

  void require_table(const char* table) {
    const Statement statement =
        prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE");
    sqlite3_bind_text(statement.get(), 1, table, -1, SQLITE_STATIC);
    if (!step(statement.get(), "reading the schema")) {
      throw Error(info.name, Rule::trajectory_missing_table,
                  fmt::format("has no table {} (JuPedSim database version {})", table,
                              info.version == 0 ? std::string("1-3") : std::to_string(info.version)));
    }
  }

  bool has_column(const char* table, const char* column) {
    const Statement statement = prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2 COLLATE NOCASE");
    sqlite3_bind_text(statement.get(), 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(statement.get(), 2, column, -1, SQLITE_STATIC);
    return step(statement.get(), "reading the schema");
  }

  void require_columns(const char* table, std::initializer_list<const char*> columns) {
    for (const char* column : columns) {
      if (!has_column(table, column)) {
        throw Error(fmt::format("{}: {}", info.name, table), Rule::trajectory_missing_column,
                    fmt::format("has no column {} (JuPedSim database version {})", column, info.version));
      }
    }
  }

  // The metadata value of `key` as text; nullopt without a row.
  std::optional<std::string> metadata(const char* key) {
    const Statement statement = prepare("SELECT value FROM metadata WHERE key = ?1");
    sqlite3_bind_text(statement.get(), 1, key, -1, SQLITE_STATIC);
    if (!step(statement.get(), "reading metadata")) return std::nullopt;
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0));
    const int bytes = sqlite3_column_bytes(statement.get(), 0);
    if (text == nullptr) return std::string();
    return std::string(text, static_cast<std::size_t>(bytes));
  }

  int read_version() {
    const auto text = metadata("version");
    const std::string path = info.name + ": metadata";
    if (!text) throw Error(path, Rule::trajectory_version, "has no version (JuPedSim writes 1, 2 or 3)");
    std::int64_t version = 0;
    if (!parse_integer(*text, version) || version < 1 || version > 3) {
      throw Error(path, Rule::trajectory_version,
                  fmt::format("version '{}' is not a JuPedSim database version this reader knows (1, 2 or 3)",
                              text->substr(0, 32)));
    }
    return static_cast<int>(version);
  }

  double read_fps() {
    const auto text = metadata("fps");
    const std::string path = info.name + ": metadata";
    if (!text) throw Error(path, Rule::trajectory_fps, "has no fps");
    double fps = 0.0;
    if (!parse_double(trim(*text), fps) || !std::isfinite(fps) || fps <= 0.0) {
      throw Error(path, Rule::trajectory_fps, fmt::format("fps '{}' is not a finite number > 0", text->substr(0, 32)));
    }
    return fps;
  }

  void read_areas() {
    require_columns("geometry", {"wkt"});
    if (info.version >= 2) require_columns("geometry", {"hash"});
    const Statement statement =
        prepare(info.version >= 2 ? "SELECT hash, wkt FROM geometry" : "SELECT 0, wkt FROM geometry");
    while (step(statement.get(), "reading geometry")) {
      const std::string path = fmt::format("{}: geometry[{}]", info.name, info.areas.size());
      WalkableArea area;
      if (sqlite3_column_type(statement.get(), 0) != SQLITE_INTEGER) {
        throw Error(path, Rule::trajectory_value,
                    fmt::format("hash is {}, not an integer", type_name(sqlite3_column_type(statement.get(), 0))));
      }
      area.hash = sqlite3_column_int64(statement.get(), 0);
      if (sqlite3_column_type(statement.get(), 1) != SQLITE_TEXT) {
        throw Error(path, Rule::trajectory_value,
                    fmt::format("wkt is {}, not text", type_name(sqlite3_column_type(statement.get(), 1))));
      }
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 1));
      const auto bytes = static_cast<std::size_t>(sqlite3_column_bytes(statement.get(), 1));
      area.polygons = parse_wkt({text, bytes}, path);
      if (info.version == 1 && !info.areas.empty()) {
        // Version 1 has one area; several rows are its parts (JuPedSim's Recording unites them).
        auto& polygons = info.areas.front().polygons;
        polygons.insert(polygons.end(), area.polygons.begin(), area.polygons.end());
      } else {
        info.areas.push_back(std::move(area));
      }
    }
    if (info.version == 1 && !info.areas.empty()) area_ = 0;
    hashes_.reserve(info.areas.size());
    for (std::size_t i = 0; i < info.areas.size(); ++i) hashes_.emplace_back(info.areas[i].hash, i);
    std::sort(hashes_.begin(), hashes_.end());
    const auto repeat = std::adjacent_find(hashes_.begin(), hashes_.end(),
                                           [](const auto& a, const auto& b) { return a.first == b.first; });
    if (info.version >= 2 && repeat != hashes_.end()) {
      throw Error(fmt::format("{}: geometry[{}]", info.name, std::max(repeat->second, (repeat + 1)->second)),
                  Rule::trajectory_duplicate, fmt::format("hash {} names two geometry rows", repeat->first));
    }
  }

  std::size_t area_of(std::int64_t hash) const {
    const auto found = std::lower_bound(hashes_.begin(), hashes_.end(), std::pair(hash, std::size_t{0}));
    if (found == hashes_.end() || found->first != hash) {
      throw Error(
          fmt::format("{}: frame_data", info.name), Rule::trajectory_geometry,
          fmt::format("frame {} names geometry hash {}, which the geometry table lacks", frame_data_frame_, hash));
    }
    return found->second;
  }

  // An integer cell (frame, id, geometry_hash): INTEGER, or a REAL of integer value as Python's
  // float frame numbers are when a column lacks INTEGER affinity.
  std::int64_t integer(sqlite3_stmt* statement, int column, std::string_view what, std::int64_t frame) const {
    const int type = sqlite3_column_type(statement, column);
    if (type == SQLITE_INTEGER) return sqlite3_column_int64(statement, column);
    const double value = sqlite3_column_double(statement, column);
    constexpr double kExact = 9007199254740992.0;  // 2^53
    if (type == SQLITE_FLOAT && std::fabs(value) <= kExact && std::trunc(value) == value) {
      return static_cast<std::int64_t>(value);
    }
    const std::string table = statement == rows_.get() ? "trajectory_data" : "frame_data";
    const std::string where =
        what == "frame" ? std::string("a row's frame") : fmt::format("{} of a row in frame {}", what, frame);
    throw Error(fmt::format("{}: {}", info.name, table), Rule::trajectory_value,
                fmt::format("{} is {}, not an integer", where,
                            type == SQLITE_FLOAT ? fmt::format("{}", value) : type_name(type)));
  }

  double number(int column, std::string_view what, std::int64_t id, std::int64_t frame) const {
    const int type = sqlite3_column_type(rows_.get(), column);
    if (type == SQLITE_NULL) {
      // SQLite stores a NaN bound as a REAL as NULL.
      throw_not_finite(table_path(),
                       fmt::format("{} of agent {} in frame {} (NULL, as SQLite stores NaN)", what, id, frame));
    }
    if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
      throw Error(table_path(), Rule::trajectory_value,
                  fmt::format("{} of agent {} in frame {} is {}, not a number", what, id, frame, type_name(type)));
    }
    const double value = sqlite3_column_double(rows_.get(), column);
    if (!std::isfinite(value))
      throw_not_finite(table_path(), fmt::format("{} of agent {} in frame {}", what, id, frame));
    return value;
  }

  bool step_row() {
    row_ = step(rows_.get(), "reading trajectory_data");
    if (row_) row_frame_ = integer(rows_.get(), 0, "frame", 0);
    return row_;
  }

  void step_frame_data() {
    frame_data_ = step(frames_.get(), "reading frame_data");
    if (!frame_data_) return;
    frame_data_frame_ = integer(frames_.get(), 0, "frame", 0);
    frame_data_hash_ = integer(frames_.get(), 1, "geometry_hash", frame_data_frame_);
  }

  Database db_;
  Statement rows_;    // trajectory_data by (frame, id)
  Statement frames_;  // frame_data by frame (version 2+)
  bool row_ = false;  // rows_ holds a row, of frame row_frame_
  std::int64_t row_frame_ = 0;
  bool frame_data_ = false;  // frames_ holds a row
  std::int64_t frame_data_frame_ = 0;
  std::int64_t frame_data_hash_ = 0;
  // Version 1's one area applies throughout; later versions' as frame_data says (none before its
  // first row).
  std::size_t area_ = TrajectoryFrame::no_area;
  std::vector<std::pair<std::int64_t, std::size_t>> hashes_;  // (hash, area), sorted
};

Database open_database(const char* filename, int flags, const std::string& name) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(filename, &db, flags, nullptr) != SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw Error(name, Rule::file_open, fmt::format("SQLite cannot open the file: {}", message));
  }
  return Database(db);
}

}  // namespace

std::unique_ptr<TrajectorySource> open_jupedsim(const std::filesystem::path& file, std::string name) {
  Database db = open_database(file.c_str(), SQLITE_OPEN_READONLY, name);
  return std::make_unique<JupedsimSource>(std::move(db), std::move(name));
}

std::unique_ptr<TrajectorySource> open_jupedsim_from_memory(std::string_view bytes, std::string name) {
  Database db = open_database(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, name);
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size()));
  if (copy == nullptr) throw Error(name, Rule::trajectory_sqlite, "out of memory copying the database");
  std::memcpy(copy, bytes.data(), bytes.size());
  const auto size = static_cast<sqlite3_int64>(bytes.size());
  // SQLite frees the copy when the connection closes, or at once if this fails.
  if (sqlite3_deserialize(db.get(), "main", copy, size, size,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
    throw Error(name, Rule::trajectory_sqlite, fmt::format("cannot read the database: {}", sqlite3_errmsg(db.get())));
  }
  return std::make_unique<JupedsimSource>(std::move(db), std::move(name));
}

}  // namespace gltf_crowd::detail
