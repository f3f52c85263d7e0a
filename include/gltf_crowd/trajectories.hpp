// Layer replay (GPU-free, above crowd): pedestrian trajectories read frame by frame (docs/spec.md §15).
//
// A TrajectoryReader streams the frames of a simulation's output in order, one frame per
// next_frame() call, into arrays the caller owns, so memory is O(agents), not O(agents × frames).
// It reads JuPedSim's SQLite output (database versions 1–3) and CSV/TSV files with a header.
// Positions come out in the library's world: metres, +Y up, the file's ground plane on y = 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/export.hpp"

GLTF_CROWD_API_BEGIN
namespace gltf_crowd {

// What a trajectory source was, chosen by content: SQLite's 16-byte magic, else CSV/TSV.
enum class TrajectoryFormat : std::uint8_t { jupedsim_sqlite, csv };

// The unit of a CSV file's x, y and z (JuPedSim's SQLite is always metres).
enum class LengthUnit : std::uint8_t { metres, centimetres };

// A CSV file's up axis. z: x and y span the ground and z is the height (JuPedSim, most
// simulators); y: x and z span the ground and y is the height (glTF, Unity).
enum class UpAxis : std::uint8_t { z, y };

// The unit of a CSV file's heading column.
enum class AngleUnit : std::uint8_t { radians, degrees };

// CSV/TSV column names, matched without regard to case; an empty name is found among the
// defaults of docs/spec.md §15.2 (time: time, t; frame: frame, fr; id: id, agent, agent_id,
// ped_id; x: x, pos_x; y: y, pos_y; z: z, pos_z; heading: heading, yaw).
struct CsvColumns {
  std::string time;     // seconds
  std::string frame;    // integer frame numbers; time = frame / fps
  std::string id;       // integer agent id
  std::string x, y, z;  // the two ground axes are required, the height is optional (0)
  std::string heading;  // optional; an empty cell = no heading that frame
};

// How to read a trajectory file. teleport_speed applies to every format; the rest to CSV/TSV.
struct TrajectoryOptions {
  // Ground speed in m/s above which an agent's step between two consecutive frames is counted
  // as a teleport warning (docs/spec.md §15.3). Finite and > 0, else Error "trajectory_option".
  double teleport_speed = 10.0;

  // CSV/TSV only.
  CsvColumns columns;
  // Field separator; '\0' = from the header line: a tab if it has one, else ';' if it has one
  // and no ',', else ','.
  char delimiter = '\0';
  LengthUnit unit = LengthUnit::metres;
  UpAxis up = UpAxis::z;
  AngleUnit heading_unit = AngleUnit::radians;
  // Frames per second: required with a frame column (time = frame / fps); with a time column,
  // the nominal step 1 / fps for time-gap warnings (0 = the file's first step). 0 or finite > 0.
  double fps = 0.0;
};

// One polygon of a walkable area: rings in the world's ground plane as (world x, world z) pairs
// in metres (a JuPedSim point (x, y) is (x, -y)), without the closing repeat of the first point.
struct AreaPolygon {
  std::vector<glm::dvec2> outer;
  std::vector<std::vector<glm::dvec2>> holes;  // obstacles inside outer
};

// A walkable area: one row of JuPedSim's geometry table, its WKT parsed into polygons.
struct WalkableArea {
  std::int64_t hash = 0;  // the row's hash (version 2+); 0 in version 1
  std::vector<AreaPolygon> polygons;
};

// One frame. Each array has one entry per agent present in the frame, ordered by ascending id.
struct TrajectoryFrame {
  static constexpr std::size_t no_area = std::numeric_limits<std::size_t>::max();

  // The file's frame number (JuPedSim, a CSV frame column), or with a CSV time column the
  // frame's ordinal from 0.
  std::int64_t index = 0;
  double time = 0.0;                  // seconds: frame / fps, or the CSV time column
  std::size_t area = no_area;         // index into TrajectoryReader::areas() in force; no_area if none
  std::vector<std::int64_t> ids;      // strictly ascending
  std::vector<glm::dvec3> positions;  // world metres, +Y up
  // Facing as a yaw in radians about +Y, in (-pi, pi]: the agent faces (sin yaw, 0, cos yaw), so
  // a glTF character (facing +Z) is rotated by it. NaN where the row gives none (no heading
  // column, an empty cell, a JuPedSim orientation of (0, 0), version 3's missing orientation).
  std::vector<float> headings;
};

// The warnings of docs/spec.md §15.3, counted over the frames read so far.
struct TrajectoryWarnings {
  static constexpr std::size_t max_listed = 16;

  std::size_t time_gaps = 0;    // rule trajectory_gap: frame steps longer than the nominal step
  std::size_t teleports = 0;    // rule trajectory_teleport: agent steps above teleport_speed
  std::vector<Warning> listed;  // the first max_listed of them, path and message each
};

namespace detail {
class TrajectorySource;
}

// Streams one trajectory file's frames in increasing time. Movable, not copyable. Not
// synchronized: one thread at a time.
class TrajectoryReader {
 public:
  // Made by open_trajectories and open_trajectories_from_memory around one of the library's
  // sources (src/replay/source.hpp); teleport_speed as in TrajectoryOptions.
  TrajectoryReader(std::unique_ptr<detail::TrajectorySource> source, double teleport_speed);
  TrajectoryReader(TrajectoryReader&&) noexcept;
  TrajectoryReader& operator=(TrajectoryReader&&) noexcept;
  ~TrajectoryReader();

  // Fills `frame` with the next frame and returns true, or returns false after the last one.
  // The arrays keep their capacity: once they have held the largest frame, reading allocates
  // only to list a warning (docs/spec.md §15.4). Throws Error for bad input (docs/spec.md §15.3)
  // naming the file, the table or line, the frame and the agent; `frame` is then unchanged and
  // every later call throws the same Error.
  bool next_frame(TrajectoryFrame& frame);

  TrajectoryFormat format() const noexcept;
  // JuPedSim's database version (1, 2 or 3); 0 for CSV.
  int version() const noexcept;
  // Frames per second: JuPedSim's metadata fps or the fps option; 0 when unknown (CSV time
  // column without the option).
  double fps() const noexcept;
  // Whether the file has orientations or a heading column (JuPedSim versions 1 and 2, or a
  // version 3 database that kept ori_x and ori_y).
  bool has_headings() const noexcept;
  // JuPedSim's walkable areas, in the geometry table's row order; empty for CSV.
  const std::vector<WalkableArea>& areas() const noexcept;
  const TrajectoryWarnings& warnings() const noexcept;
  // The name errors and warnings give the file: its path, or the name given with the bytes.
  const std::string& name() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Opens a trajectory file, JuPedSim SQLite or CSV/TSV by content, reading its header (the
// schema, metadata and geometry of a database) and its first row. Throws Error: file_open (the
// file cannot be read), trajectory_empty (no bytes, no header or no row) and the other rules of
// docs/spec.md §15.3.
TrajectoryReader open_trajectories(const std::filesystem::path& file, const TrajectoryOptions& options = {});

// The same from bytes in memory (copied), which errors and warnings call `name`.
TrajectoryReader open_trajectories_from_memory(std::string_view bytes, const TrajectoryOptions& options = {},
                                               std::string name = "<memory>");

}  // namespace gltf_crowd
GLTF_CROWD_API_END
