// The trajectory reader (docs/spec.md §15): JuPedSim's SQLite databases of each version, written
// here with the SQL of its SqliteTrajectoryWriter; CSV/TSV with their options; the example data
// of scripts/make_trajectories.py (built by tests/CMakeLists.txt) against an independent query;
// and every bad input of §15.3. Expected values come from the spec's mapping (x, y) → (x, 0, -y)
// applied by hand.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "gltf_crowd/trajectories.hpp"
#include "replay/wkt.hpp"
#include "test_support.hpp"

namespace gltf_crowd {
namespace {

// A database written statement by statement, as a file or as bytes.
class TestDatabase {
 public:
  TestDatabase() : file_(test::scratch_dir("trajectories") / "run.sqlite") {
    EXPECT_EQ(sqlite3_open(file_.c_str(), &db_), SQLITE_OK);
  }
  ~TestDatabase() { sqlite3_close(db_); }
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  TestDatabase& exec(const std::string& sql) {
    char* message = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << sql << ": " << message;
    sqlite3_free(message);
    return *this;
  }

  // One trajectory_data row with bound doubles (NaN and infinity survive as SQLite stores them).
  void row(long long frame, long long id, double x, double y) {
    sqlite3_stmt* statement = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_, "INSERT INTO trajectory_data VALUES(?, ?, ?, ?)", -1, &statement, nullptr),
              SQLITE_OK);
    sqlite3_bind_int64(statement, 1, frame);
    sqlite3_bind_int64(statement, 2, id);
    sqlite3_bind_double(statement, 3, x);
    sqlite3_bind_double(statement, 4, y);
    EXPECT_EQ(sqlite3_step(statement), SQLITE_DONE);
    sqlite3_finalize(statement);
  }

  const std::filesystem::path& file() const { return file_; }

  std::string bytes() const {
    sqlite3_int64 size = 0;
    unsigned char* data = sqlite3_serialize(db_, "main", &size, 0);
    std::string out(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
    sqlite3_free(data);
    return out;
  }

 private:
  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
};

// SqliteTrajectoryWriter.begin_writing of database version 3 (jupedsim@41bd3417c), less its
// geometry row and metadata values.
constexpr const char* kVersion3Schema =
    "CREATE TABLE trajectory_data (   frame INTEGER NOT NULL,   id INTEGER NOT NULL,   pos_x REAL NOT NULL,"
    "   pos_y REAL NOT NULL);"
    "CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE geometry(   hash INTEGER NOT NULL,    wkt TEXT NOT NULL);"
    "CREATE UNIQUE INDEX geometry_hash on geometry( hash);"
    "CREATE TABLE frame_data(   frame INTEGER NOT NULL,   geometry_hash INTEGER NOT NULL);"
    "CREATE INDEX frame_id_idx ON trajectory_data(frame, id);";
constexpr const char* kSquare = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))";

// A version 3 database: two agents over frames 0..2 at 25 fps in the 10 m square.
void write_version3(TestDatabase& db, const std::string& schema = kVersion3Schema) {
  db.exec(schema)
      .exec("INSERT INTO metadata VALUES('version', 3), ('fps', '25.0');")
      .exec(std::string("INSERT INTO geometry VALUES(7, '") + kSquare + "');")
      .exec("INSERT INTO frame_data VALUES(0, 7), (1, 7), (2, 7);");
  for (long long frame = 0; frame < 3; ++frame) {
    db.row(frame, 1, 1.0 + 0.04 * static_cast<double>(frame), 2.0);
    db.row(frame, 2, 5.0, 3.0 - 0.02 * static_cast<double>(frame));
  }
}

std::vector<TrajectoryFrame> read_all(TrajectoryReader& reader) {
  std::vector<TrajectoryFrame> frames;
  TrajectoryFrame frame;
  while (reader.next_frame(frame)) frames.push_back(frame);
  return frames;
}

// The facing of `yaw` (docs/spec.md §15: (sin yaw, 0, cos yaw)) is the world direction of the
// file's ground direction (dx, dy), which is (dx, 0, -dy).
void expect_facing(float yaw, double dx, double dy) {
  const double length = std::hypot(dx, dy);
  EXPECT_NEAR(std::sin(yaw), dx / length, 1e-6);
  EXPECT_NEAR(std::cos(yaw), -dy / length, 1e-6);
}

// The Error `open` or reading every frame throws; its rule, path and message are checked by the
// caller. Fails when nothing throws.
template <class Open>
Error error_of(Open open) {
  try {
    TrajectoryReader reader = open();
    TrajectoryFrame frame;
    while (reader.next_frame(frame)) {
    }
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "no error";
  return Error("", Rule::empty, "");
}

// The Error of a version 3 database (write_version3) after the SQL `change`.
Error version3_error(const std::string& change) {
  TestDatabase db;
  write_version3(db);
  db.exec(change);
  return error_of([&] { return open_trajectories(db.file()); });
}

Error csv_error(const std::string& text, const TrajectoryOptions& options = {}) {
  return error_of([&] { return open_trajectories_from_memory(text, options, "walk.csv"); });
}

TEST(Trajectories, JupedsimVersion3) {
  TestDatabase db;
  write_version3(db);
  for (const bool from_memory : {false, true}) {
    SCOPED_TRACE(from_memory ? "from memory" : "from the file");
    TrajectoryReader reader =
        from_memory ? open_trajectories_from_memory(db.bytes(), {}, "run.sqlite") : open_trajectories(db.file());
    EXPECT_EQ(reader.format(), TrajectoryFormat::jupedsim_sqlite);
    EXPECT_EQ(reader.version(), 3);
    EXPECT_EQ(reader.fps(), 25.0);
    EXPECT_FALSE(reader.has_headings());
    ASSERT_EQ(reader.areas().size(), 1u);
    EXPECT_EQ(reader.areas()[0].hash, 7);
    ASSERT_EQ(reader.areas()[0].polygons.size(), 1u);
    const std::vector<glm::dvec2> square = {{0, 0}, {10, 0}, {10, -10}, {0, -10}};
    EXPECT_EQ(reader.areas()[0].polygons[0].outer, square);
    EXPECT_TRUE(reader.areas()[0].polygons[0].holes.empty());
    const auto frames = read_all(reader);
    ASSERT_EQ(frames.size(), 3u);
    for (std::size_t f = 0; f < 3; ++f) {
      const auto& frame = frames[f];
      EXPECT_EQ(frame.index, static_cast<std::int64_t>(f));
      EXPECT_DOUBLE_EQ(frame.time, static_cast<double>(f) / 25.0);
      EXPECT_EQ(frame.area, 0u);
      EXPECT_EQ(frame.ids, (std::vector<std::int64_t>{1, 2}));
      const double step = static_cast<double>(f);
      EXPECT_EQ(frame.positions[0], glm::dvec3(1.0 + 0.04 * step, 0.0, -2.0));
      EXPECT_EQ(frame.positions[1], glm::dvec3(5.0, 0.0, -(3.0 - 0.02 * step)));
      EXPECT_TRUE(std::isnan(frame.headings[0]) && std::isnan(frame.headings[1]));
    }
    EXPECT_EQ(reader.warnings().time_gaps + reader.warnings().teleports, 0u);
  }
}

// Version 1 (jupedsim before 2b80ae9a9): orientations, one geometry(wkt) row, no frame_data.
TEST(Trajectories, JupedsimVersion1) {
  TestDatabase db;
  db.exec(
        "CREATE TABLE trajectory_data (   frame INTEGER NOT NULL,   id INTEGER NOT NULL,   pos_x REAL NOT NULL,"
        "   pos_y REAL NOT NULL,   ori_x REAL NOT NULL,   ori_y REAL NOT NULL);"
        "CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO metadata VALUES('version', '1'), ('fps', 10.0);"
        "CREATE TABLE geometry(wkt TEXT NOT NULL);"
        "INSERT INTO geometry VALUES('POLYGON ((0 0, 8 0, 8 6, 0 6, 0 0), (2 2, 3 2, 3 3, 2 2))');"
        "CREATE INDEX frame_id_idx ON trajectory_data(frame, id);")
      // Python's frame = iteration / every_nth_frame is a float; INTEGER affinity stores 4.0 as 4.
      .exec(
          "INSERT INTO trajectory_data VALUES(4.0, 9, 1.5, 2.5, 1.0, 0.0), (4.0, 3, 2.0, 1.0, -0.6, 0.8),"
          "(5.0, 3, 2.1, 1.0, 0.0, 0.0), (5.0, 9, 1.5, 2.6, 0.0, 1.0);");
  TrajectoryReader reader = open_trajectories(db.file());
  EXPECT_EQ(reader.version(), 1);
  EXPECT_EQ(reader.fps(), 10.0);
  EXPECT_TRUE(reader.has_headings());
  ASSERT_EQ(reader.areas().size(), 1u);
  ASSERT_EQ(reader.areas()[0].polygons.size(), 1u);
  const auto& polygon = reader.areas()[0].polygons[0];
  EXPECT_EQ(polygon.outer.size(), 4u);
  ASSERT_EQ(polygon.holes.size(), 1u);
  EXPECT_EQ(polygon.holes[0], (std::vector<glm::dvec2>{{2, -2}, {3, -2}, {3, -3}}));
  const auto frames = read_all(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].index, 4);
  EXPECT_DOUBLE_EQ(frames[0].time, 0.4);
  EXPECT_EQ(frames[0].area, 0u);
  EXPECT_EQ(frames[0].ids, (std::vector<std::int64_t>{3, 9}));
  EXPECT_EQ(frames[0].positions[0], glm::dvec3(2.0, 0.0, -1.0));
  EXPECT_EQ(frames[0].positions[1], glm::dvec3(1.5, 0.0, -2.5));
  expect_facing(frames[0].headings[0], -0.6, 0.8);
  expect_facing(frames[0].headings[1], 1.0, 0.0);
  EXPECT_TRUE(std::isnan(frames[1].headings[0])) << "an orientation of (0, 0) is no heading";
  expect_facing(frames[1].headings[1], 0.0, 1.0);
}

// Version 2 as convert_database_v1_to_v2 leaves it (geometry's hash added after wkt), with a
// walkable area that changes at frame 2 and frame_data rows for frames without agents.
TEST(Trajectories, JupedsimVersion2AreaChangesOverTime) {
  TestDatabase db;
  db.exec(
        "CREATE TABLE trajectory_data (   frame INTEGER NOT NULL,   id INTEGER NOT NULL,   pos_x REAL NOT NULL,"
        "   pos_y REAL NOT NULL,   ori_x REAL NOT NULL,   ori_y REAL NOT NULL);"
        "CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO metadata VALUES('version', '2'), ('fps', '5');"
        "CREATE TABLE geometry(wkt TEXT NOT NULL);"
        "ALTER TABLE geometry ADD hash INTEGER NOT NULL DEFAULT 0;"
        "CREATE TABLE frame_data(   frame INTEGER NOT NULL,   geometry_hash INTEGER NOT NULL);")
      .exec(std::string("INSERT INTO geometry(wkt, hash) VALUES('") + kSquare +
            "', -5), ('MULTIPOLYGON (((0 0, 4 0, "
            "4 4, 0 0)), ((5 5, 6 5, 6 6, 5 5)))', 123456789012);")
      .exec("INSERT INTO frame_data VALUES(0, -5), (1, -5), (2, 123456789012), (3, 123456789012), (4, -5);")
      .exec("INSERT INTO trajectory_data VALUES(0, 1, 1, 1, 0, 1), (1, 1, 1, 1.2, 0, 1), (2, 2, 3, 3, 1, 1);");
  TrajectoryReader reader = open_trajectories(db.file());
  EXPECT_EQ(reader.version(), 2);
  ASSERT_EQ(reader.areas().size(), 2u);
  EXPECT_EQ(reader.areas()[1].hash, 123456789012);
  EXPECT_EQ(reader.areas()[1].polygons.size(), 2u);
  const auto frames = read_all(reader);
  ASSERT_EQ(frames.size(), 5u) << "frames 3 and 4 have no agents but a frame_data row";
  const std::vector<std::size_t> areas = {0, 0, 1, 1, 0};
  for (std::size_t f = 0; f < frames.size(); ++f) {
    EXPECT_EQ(frames[f].index, static_cast<std::int64_t>(f));
    EXPECT_EQ(frames[f].area, areas[f]);
  }
  EXPECT_EQ(frames[1].ids, std::vector<std::int64_t>{1});
  EXPECT_EQ(frames[2].ids, std::vector<std::int64_t>{2}) << "agent 1 left, agent 2 entered";
  EXPECT_TRUE(frames[3].ids.empty());
  expect_facing(frames[2].headings[0], 1.0, 1.0);
  EXPECT_EQ(reader.warnings().time_gaps, 0u);
}

// The example data of scripts/make_trajectories.py (40 agents, 20 s; tests/CMakeLists.txt):
// every row as SQLite itself returns it, and the CSV written beside it.
TEST(Trajectories, GeneratedExampleMatchesAnIndependentQueryAndItsCsv) {
  const std::string base = GLTF_CROWD_TEST_TRAJECTORIES;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((base + ".sqlite").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* rows = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT frame, id, pos_x, pos_y FROM trajectory_data ORDER BY frame, id", -1, &rows,
                               nullptr),
            SQLITE_OK);
  TrajectoryReader sqlite = open_trajectories(base + ".sqlite");
  TrajectoryReader csv = open_trajectories(base + ".csv");
  EXPECT_EQ(sqlite.version(), 3);
  EXPECT_EQ(csv.format(), TrajectoryFormat::csv);
  EXPECT_TRUE(csv.has_headings());
  // The generator's documented geometry: 12 outer corners and the pillar.
  ASSERT_EQ(sqlite.areas().size(), 1u);
  ASSERT_EQ(sqlite.areas()[0].polygons.size(), 1u);
  const auto& polygon = sqlite.areas()[0].polygons[0];
  EXPECT_EQ(polygon.outer.size(), 12u);
  EXPECT_EQ(polygon.outer[2], glm::dvec2(16.0, -7.4));
  ASSERT_EQ(polygon.holes.size(), 1u);
  EXPECT_EQ(polygon.holes[0][0], glm::dvec2(3.0, -12.0));

  std::ifstream text(base + ".csv");
  std::string line;
  std::getline(text, line);
  EXPECT_EQ(line, "time,id,x,y,heading");
  TrajectoryFrame from_sqlite, from_csv;
  std::size_t frames = 0, rows_read = 0, first_agents = 0;
  bool more = sqlite3_step(rows) == SQLITE_ROW;
  while (sqlite.next_frame(from_sqlite)) {
    ASSERT_TRUE(csv.next_frame(from_csv));
    if (frames == 0) first_agents = from_sqlite.ids.size();
    EXPECT_EQ(from_sqlite.index, static_cast<std::int64_t>(frames));
    EXPECT_EQ(from_csv.index, from_sqlite.index);
    EXPECT_EQ(from_csv.time, from_sqlite.time);
    EXPECT_EQ(from_csv.ids, from_sqlite.ids);
    EXPECT_EQ(from_csv.positions, from_sqlite.positions);
    for (std::size_t k = 0; k < from_sqlite.ids.size(); ++k, ++rows_read) {
      ASSERT_TRUE(more);
      EXPECT_EQ(sqlite3_column_int64(rows, 0), from_sqlite.index);
      EXPECT_EQ(sqlite3_column_int64(rows, 1), from_sqlite.ids[k]);
      EXPECT_EQ(from_sqlite.positions[k],
                glm::dvec3(sqlite3_column_double(rows, 2), 0.0, -sqlite3_column_double(rows, 3)));
      more = sqlite3_step(rows) == SQLITE_ROW;
      // The CSV's heading cell, an angle counter-clockwise from +x (empty when standing).
      ASSERT_TRUE(std::getline(text, line));
      const std::string heading = line.substr(line.rfind(',') + 1);
      if (heading.empty()) {
        EXPECT_TRUE(std::isnan(from_csv.headings[k]));
      } else {
        const double angle = std::stod(heading);
        expect_facing(from_csv.headings[k], std::cos(angle), std::sin(angle));
      }
    }
    ++frames;
  }
  EXPECT_FALSE(more) << "rows the reader did not deliver";
  EXPECT_FALSE(csv.next_frame(from_csv));
  sqlite3_finalize(rows);
  sqlite3_close(db);
  EXPECT_EQ(first_agents, 40u);
  EXPECT_LT(from_sqlite.ids.size(), first_agents) << "agents leave through the door";
  EXPECT_GT(rows_read, 0u);
  EXPECT_EQ(sqlite.warnings().time_gaps + sqlite.warnings().teleports, 0u);
  EXPECT_EQ(csv.warnings().time_gaps + csv.warnings().teleports, 0u);
}

TEST(Trajectories, CsvOrdersRowsByIdAndReadsTheOptions) {
  // TSV with a quoted header, a comment, CRLF line ends, rows of a frame in any id order.
  const std::string tsv =
      "# exported\r\n\"Frame\"\tID\tx\ty\tz\tyaw\r\n"
      "10\t7\t100\t200\t5\t90\r\n10\t2\t-50\t0\t0\t\r\n\r\n11\t2\t-48\t0\t0\t180\r\n";
  TrajectoryReader reader = open_trajectories_from_memory(
      tsv, {.unit = LengthUnit::centimetres, .heading_unit = AngleUnit::degrees, .fps = 50}, "walk.tsv");
  EXPECT_EQ(reader.format(), TrajectoryFormat::csv);
  EXPECT_EQ(reader.fps(), 50.0);
  EXPECT_TRUE(reader.has_headings());
  EXPECT_TRUE(reader.areas().empty());
  const auto frames = read_all(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].index, 10);
  EXPECT_DOUBLE_EQ(frames[0].time, 0.2);
  EXPECT_EQ(frames[0].area, TrajectoryFrame::no_area);
  EXPECT_EQ(frames[0].ids, (std::vector<std::int64_t>{2, 7}));
  EXPECT_EQ(frames[0].positions[0], glm::dvec3(-0.5, 0.0, -0.0));
  EXPECT_EQ(frames[0].positions[1], glm::dvec3(1.0, 0.05, -2.0)) << "z-up: (x, z, -y), centimetres";
  EXPECT_TRUE(std::isnan(frames[0].headings[0]));
  expect_facing(frames[0].headings[1], 0.0, 1.0);   // 90° from +x: +y
  expect_facing(frames[1].headings[0], -1.0, 0.0);  // 180°
  EXPECT_DOUBLE_EQ(frames[1].time, 0.22);

  // y-up, ';' separated, named columns, a time column: the file's (x, y, z) is the world's.
  const std::string semicolons = "when;who;px;py;pz\n0.5;1;1;2;3\n0.5;4;0;0;0\n1.0;1;2;2;3\n";
  TrajectoryReader named = open_trajectories_from_memory(
      semicolons, {.columns = {.time = "WHEN", .id = "who", .x = "px", .y = "py", .z = "pz"}, .up = UpAxis::y},
      "named.csv");
  EXPECT_EQ(named.fps(), 0.0);
  EXPECT_FALSE(named.has_headings());
  const auto timed = read_all(named);
  ASSERT_EQ(timed.size(), 2u);
  EXPECT_EQ(timed[0].index, 0);
  EXPECT_EQ(timed[1].index, 1) << "a time column numbers frames from 0";
  EXPECT_EQ(timed[1].time, 1.0);
  EXPECT_EQ(timed[0].positions[0], glm::dvec3(1.0, 2.0, 3.0));
  EXPECT_EQ(timed[1].ids, std::vector<std::int64_t>{1});
}

TEST(Trajectories, FramesStreamInOrderIntoTheCallersArrays) {
  // 200 frames of 50 agents; the reader holds one frame at a time, and the caller's arrays are
  // refilled in place (sizes shrink and grow with the frame).
  std::string csv = "frame,id,x,y\n";
  for (int f = 0; f < 200; ++f) {
    const int agents = f % 2 == 0 ? 50 : 30;
    for (int id = agents; id >= 1; --id) csv += std::to_string(f) + "," + std::to_string(id) + ",0,0\n";
  }
  TrajectoryReader reader = open_trajectories_from_memory(csv, {.fps = 25});
  TrajectoryFrame frame;
  std::int64_t expected = 0;
  while (reader.next_frame(frame)) {
    EXPECT_EQ(frame.index, expected);
    ASSERT_EQ(frame.ids.size(), expected % 2 == 0 ? 50u : 30u);
    EXPECT_TRUE(std::is_sorted(frame.ids.begin(), frame.ids.end()));
    EXPECT_EQ(frame.positions.size(), frame.ids.size());
    EXPECT_EQ(frame.headings.size(), frame.ids.size());
    ++expected;
  }
  EXPECT_EQ(expected, 200);
  EXPECT_FALSE(reader.next_frame(frame)) << "stays at the end";
}

TEST(Trajectories, EmptyInputs) {
  const std::filesystem::path empty = test::scratch_dir("trajectories_empty") / "empty.csv";
  std::ofstream(empty).close();
  Error error = error_of([&] { return open_trajectories(empty); });
  EXPECT_EQ(error.rule(), "trajectory_empty");
  EXPECT_EQ(error.path(), empty.string());
  EXPECT_EQ(error_of([&] { return open_trajectories(empty.parent_path() / "missing.csv"); }).rule(), "file_open");
  EXPECT_EQ(csv_error("# only a comment\n\n").rule(), "trajectory_empty");
  error = csv_error("time,id,x,y\n");
  EXPECT_EQ(error.rule(), "trajectory_empty");
  EXPECT_STREQ(error.what(), "walk.csv: has a header but no rows");

  TestDatabase db;
  db.exec(kVersion3Schema).exec("INSERT INTO metadata VALUES('version', 3), ('fps', '25.0');");
  error = error_of([&] { return open_trajectories(db.file()); });
  EXPECT_EQ(error.rule(), "trajectory_empty");
  EXPECT_EQ(error.path(), db.file().string() + ": trajectory_data");
}

TEST(Trajectories, MissingTablesAndColumns) {
  {
    TestDatabase db;
    db.exec("CREATE TABLE trajectory_data(frame, id, pos_x, pos_y);");
    const Error error = error_of([&] { return open_trajectories(db.file()); });
    EXPECT_EQ(error.rule(), "trajectory_missing_table");
    EXPECT_NE(std::string(error.what()).find("has no table metadata"), std::string::npos) << error.what();
  }
  Error error = version3_error("DROP TABLE frame_data;");
  EXPECT_EQ(error.rule(), "trajectory_missing_table");
  EXPECT_NE(std::string(error.what()).find("frame_data"), std::string::npos) << error.what();
  error = version3_error("UPDATE metadata SET value = '2' WHERE key = 'version';");  // without ori_x, ori_y
  EXPECT_EQ(error.rule(), "trajectory_missing_column");
  EXPECT_TRUE(error.path().ends_with("run.sqlite: trajectory_data")) << error.path();
  EXPECT_NE(std::string(error.what()).find("ori_x"), std::string::npos) << error.what();
  error = csv_error("time,id,x\n0,1,2\n");
  EXPECT_EQ(error.rule(), "trajectory_missing_column");
  EXPECT_EQ(error.path(), "walk.csv:1");
  EXPECT_NE(std::string(error.what()).find("a y column"), std::string::npos) << error.what();
  EXPECT_EQ(csv_error("id,x,y\n1,2,3\n").rule(), "trajectory_missing_column") << "no time or frame";
  error = csv_error("time,id,x,y\n0,1,2,3\n", {.columns = {.heading = "dir"}});
  EXPECT_EQ(error.rule(), "trajectory_missing_column");
  EXPECT_NE(std::string(error.what()).find("'dir'"), std::string::npos) << error.what();
}

TEST(Trajectories, VersionFpsAndOptions) {
  for (const std::string version : {"4", "0", "three", "2.5"}) {
    const Error error = version3_error("UPDATE metadata SET value = '" + version + "' WHERE key = 'version';");
    EXPECT_EQ(error.rule(), "trajectory_version") << version;
  }
  EXPECT_EQ(version3_error("DELETE FROM metadata WHERE key = 'version';").rule(), "trajectory_version");
  for (const std::string fps : {"0", "-25", "fast", "inf"}) {
    const Error error = version3_error("UPDATE metadata SET value = '" + fps + "' WHERE key = 'fps';");
    EXPECT_EQ(error.rule(), "trajectory_fps") << fps;
    EXPECT_TRUE(error.path().ends_with("run.sqlite: metadata")) << error.path();
  }
  EXPECT_EQ(csv_error("frame,id,x,y\n0,1,0,0\n").rule(), "trajectory_fps") << "a frame column needs fps";
  EXPECT_EQ(csv_error("time,id,x,y\n0,1,0,0\n", {.fps = -1}).rule(), "trajectory_fps");
  EXPECT_EQ(csv_error("time,id,x,y\n0,1,0,0\n", {.teleport_speed = 0}).rule(), "trajectory_option");
  EXPECT_EQ(csv_error("time,id,x,y\n0,1,0,0\n", {.delimiter = '.'}).rule(), "trajectory_option");
  EXPECT_EQ(csv_error("time,id,x,y\n0,1,0,0\n", {.columns = {.time = "time", .frame = "id"}}).rule(),
            "trajectory_option");
}

TEST(Trajectories, NonFinitePositions) {
  // JuPedSim's columns are NOT NULL, and SQLite stores a NaN as NULL: a table without the
  // constraint holds both.
  std::string loose = kVersion3Schema;
  for (std::size_t at; (at = loose.find(" NOT NULL")) != std::string::npos;) loose.erase(at, 9);
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    TestDatabase db;
    write_version3(db, loose);
    db.row(2, 5, 1.0, bad);
    const Error error = error_of([&] { return open_trajectories(db.file()); });
    EXPECT_EQ(error.rule(), "not_finite");
    EXPECT_EQ(error.path(), db.file().string() + ": trajectory_data");
    EXPECT_NE(std::string(error.what()).find("pos_y of agent 5 in frame 2"), std::string::npos) << error.what();
  }
  const Error error = csv_error("time,id,x,y\n0,1,0,0\n0.04,1,nan,0\n");
  EXPECT_EQ(error.rule(), "not_finite");
  EXPECT_STREQ(error.what(), "walk.csv:3: x of agent 1 at time 0.04 s is not finite");
  EXPECT_EQ(csv_error("time,id,x,y\n0,1,0,inf\n").rule(), "not_finite");
  EXPECT_EQ(csv_error("time,id,x,y\n0,1,0,north\n").rule(), "trajectory_value");
  EXPECT_EQ(csv_error("time,id,x,y\n0,1.5,0,0\n").rule(), "trajectory_value") << "a fractional id";
  EXPECT_EQ(csv_error("time,id,x,y\n0,1,0\n").rule(), "trajectory_syntax");
  EXPECT_EQ(csv_error("time,id,x,y\n0,\"1,0,0\n").rule(), "trajectory_syntax");
  EXPECT_EQ(version3_error("INSERT INTO trajectory_data VALUES(2, 6, 'left', 0);").rule(), "trajectory_value");
}

TEST(Trajectories, DuplicateRows) {
  Error error = version3_error("INSERT INTO trajectory_data VALUES(1, 2, 5.0, 3.0);");
  EXPECT_EQ(error.rule(), "trajectory_duplicate");
  EXPECT_TRUE(std::string(error.what()).ends_with("run.sqlite: trajectory_data: agent 2 appears twice in frame 1"))
      << error.what();
  error = csv_error("frame,id,x,y\n0,1,0,0\n0,2,0,0\n1,2,0,0\n1,3,0,0\n1,2,1,1\n", {.fps = 25});
  EXPECT_EQ(error.rule(), "trajectory_duplicate");
  EXPECT_STREQ(error.what(), "walk.csv:6: agent 2 appears twice in frame 1");
}

TEST(Trajectories, FramesOutOfOrder) {
  const Error error = csv_error("frame,id,x,y\n0,1,0,0\n1,1,0,0\n0,2,0,0\n", {.fps = 25});
  EXPECT_EQ(error.rule(), "trajectory_order");
  EXPECT_EQ(error.path(), "walk.csv:4");
  EXPECT_NE(std::string(error.what()).find("frame 0 follows frame 1"), std::string::npos) << error.what();
  EXPECT_EQ(csv_error("time,id,x,y\n0.1,1,0,0\n0.2,1,0,0\n0.1,1,0,0\n").rule(), "trajectory_order");
}

TEST(Trajectories, ErrorsRepeatAndLeaveTheFrame) {
  // Rows are read in order: the bad row (line 4) stops the frame it would start or join.
  TrajectoryReader reader = open_trajectories_from_memory("time,id,x,y\n0,1,0,0\n1,1,0,0\n2,1,0,x\n");
  TrajectoryFrame frame;
  ASSERT_TRUE(reader.next_frame(frame));
  const TrajectoryFrame before = frame;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      reader.next_frame(frame);
      ADD_FAILURE() << "no error";
    } catch (const Error& error) {
      EXPECT_EQ(error.rule(), "trajectory_value");
      EXPECT_EQ(error.path(), "<memory>:4");
    }
    EXPECT_EQ(frame.ids, before.ids);
    EXPECT_EQ(frame.positions, before.positions);
  }
}

TEST(Trajectories, TimeGapsAreCountedWarnings) {
  TestDatabase db;
  write_version3(db);
  db.row(6, 1, 1.24, 2.0);  // frames 3 to 5 missing; agent 1 moved 0.16 m in 0.16 s
  TrajectoryReader reader = open_trajectories(db.file());
  EXPECT_EQ(read_all(reader).size(), 4u);
  EXPECT_EQ(reader.warnings().time_gaps, 1u);
  EXPECT_EQ(reader.warnings().teleports, 0u);
  ASSERT_EQ(reader.warnings().listed.size(), 1u);
  EXPECT_EQ(reader.warnings().listed[0].rule, "trajectory_gap");
  EXPECT_EQ(reader.warnings().listed[0].message, "frame 6 follows frame 2: 3 frames missing");

  // A time column: steps above 1.5 nominal steps, 1 / fps or else the first step.
  const std::string csv = "time,id,x,y\n0,1,0,0\n0.1,1,0,0\n0.2,1,0,0\n0.34,1,0,0\n0.5,1,0,0\n0.6,1,0,0\n";
  TrajectoryReader first_step = open_trajectories_from_memory(csv);
  read_all(first_step);
  EXPECT_EQ(first_step.warnings().time_gaps, 1u) << "0.2 → 0.34 is 1.4 steps of 0.1 s, 0.34 → 0.5 is 1.6";
  TrajectoryReader with_fps = open_trajectories_from_memory(csv, {.fps = 20});
  read_all(with_fps);
  EXPECT_EQ(with_fps.warnings().time_gaps, 5u) << "every step is 2 or more steps of 0.05 s";
}

TEST(Trajectories, TeleportsAreCountedWarnings) {
  // Agent 2 jumps 5 m in one frame of 0.04 s (125 m/s); agent 1 walks 2 m/s.
  TestDatabase db;
  write_version3(db);
  db.row(3, 1, 1.16, 2.0);
  db.row(3, 2, 5.0, 7.96);
  TrajectoryReader reader = open_trajectories(db.file());
  read_all(reader);
  EXPECT_EQ(reader.warnings().teleports, 1u);
  ASSERT_EQ(reader.warnings().listed.size(), 1u);
  const Warning& warning = reader.warnings().listed[0];
  EXPECT_EQ(warning.rule, "trajectory_teleport");
  EXPECT_EQ(warning.path, db.file().string() + ": trajectory_data");
  EXPECT_NE(warning.message.find("agent 2 moves 5 m in 0.04 s from frame 2 to frame 3"), std::string::npos)
      << warning.message;
  TrajectoryReader lenient = open_trajectories(db.file(), {.teleport_speed = 200});
  read_all(lenient);
  EXPECT_EQ(lenient.warnings().teleports, 0u);
  // The listed warnings stop at max_listed; the count goes on.
  std::string csv = "time,id,x,y\n";
  for (int f = 0; f < 40; ++f) csv += std::to_string(f) + ",1," + std::to_string(f % 2 == 0 ? 0 : 100) + ",0\n";
  TrajectoryReader jumping = open_trajectories_from_memory(csv);
  read_all(jumping);
  EXPECT_EQ(jumping.warnings().teleports, 39u);
  EXPECT_EQ(jumping.warnings().listed.size(), TrajectoryWarnings::max_listed);
}

TEST(Trajectories, BadGeometry) {
  Error error = version3_error("INSERT INTO geometry VALUES(8, 'LINESTRING (0 0, 1 1)');");
  EXPECT_EQ(error.rule(), "trajectory_wkt");
  EXPECT_TRUE(error.path().ends_with("run.sqlite: geometry[1]")) << error.path();
  error = version3_error("DROP INDEX geometry_hash; INSERT INTO geometry VALUES(7, 'POLYGON EMPTY');");
  EXPECT_EQ(error.rule(), "trajectory_duplicate");
  EXPECT_TRUE(std::string(error.what()).ends_with("geometry[1]: hash 7 names two geometry rows")) << error.what();
  error = version3_error("INSERT INTO frame_data VALUES(1, 7);");
  EXPECT_EQ(error.rule(), "trajectory_duplicate");
  EXPECT_TRUE(std::string(error.what()).ends_with("frame_data: frame 1 has two rows")) << error.what();
  error = version3_error("INSERT INTO frame_data VALUES(3, 99); INSERT INTO trajectory_data VALUES(3, 1, 1.0, 2.0);");
  EXPECT_EQ(error.rule(), "trajectory_geometry");
  EXPECT_NE(std::string(error.what()).find("frame 3 names geometry hash 99"), std::string::npos) << error.what();
  // The SQLite magic, then garbage.
  std::string bytes("SQLite format 3\0", 16);
  bytes += std::string(1000, 'x');
  error = error_of([&] { return open_trajectories_from_memory(bytes, {}, "broken.sqlite"); });
  EXPECT_EQ(error.rule(), "trajectory_sqlite");
  EXPECT_EQ(error.path(), "broken.sqlite");
}

TEST(Trajectories, WktPolygons) {
  const auto nested = detail::parse_wkt(
      "GEOMETRYCOLLECTION (POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1)), MULTIPOLYGON (((2 2, 3 2, 3 3, 2 2)), "
      "EMPTY), geometrycollection EMPTY, POLYGON EMPTY)",
      "g");
  ASSERT_EQ(nested.size(), 2u);
  EXPECT_EQ(nested[0].outer, (std::vector<glm::dvec2>{{0, 0}, {1, 0}, {1, -1}}));
  EXPECT_EQ(nested[1].outer, (std::vector<glm::dvec2>{{2, -2}, {3, -2}, {3, -3}}));
  const auto bad = [](const char* wkt) {
    try {
      detail::parse_wkt(wkt, "g");
    } catch (const Error& error) {
      return error.rule();
    }
    return std::string("none");
  };
  EXPECT_EQ(bad("POLYGON ((0 0, 1 0, 0 0))"), "trajectory_wkt") << "3 points";
  EXPECT_EQ(bad("POLYGON ((0 0, 1 0, 1 1, 0 1))"), "trajectory_wkt") << "not closed";
  EXPECT_EQ(bad("POLYGON ((0 0, 1 0, 1 1, 0 0)"), "trajectory_wkt") << "unbalanced";
  EXPECT_EQ(bad("POLYGON ((0 0, 1 0, 1 1, 0 0)) x"), "trajectory_wkt") << "trailing text";
  EXPECT_EQ(bad("POINT (1 2)"), "trajectory_wkt");
  EXPECT_EQ(bad("POLYGON ((0 0, 1 nan, 1 1, 0 0))"), "not_finite");
  std::string deep;
  for (int i = 0; i < 9; ++i) deep += "GEOMETRYCOLLECTION (";
  EXPECT_EQ(bad((deep + "POLYGON EMPTY" + std::string(9, ')')).c_str()), "trajectory_wkt") << "nested 9 deep";
}

}  // namespace
}  // namespace gltf_crowd
