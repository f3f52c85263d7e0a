// The formats behind TrajectoryReader (docs/spec.md §15): each source reads one frame's rows in
// file order, checking each row; the reader orders them by id and checks the frame as a whole.
#pragma once

#include <cstddef>
#include <filesystem>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gltf_crowd/trajectories.hpp"

namespace gltf_crowd::detail {

// What a source knows once open.
struct SourceInfo {
  TrajectoryFormat format = TrajectoryFormat::csv;
  int version = 0;
  double fps = 0.0;
  bool headings = false;
  // A CSV time column: frame.index is an ordinal and gaps are measured in time (§15.3).
  bool keyed_by_time = false;
  std::vector<WalkableArea> areas;
  std::string name;
};

class TrajectorySource {
 public:
  explicit TrajectorySource(SourceInfo source_info) : info(std::move(source_info)) {}
  virtual ~TrajectorySource() = default;
  TrajectorySource(const TrajectorySource&) = delete;
  TrajectorySource& operator=(const TrajectorySource&) = delete;

  // Fills index, time, area, ids, positions and headings with the next frame's rows in file
  // order (ids may repeat or be unordered), or returns false after the last frame. Throws
  // Error for a bad row.
  virtual bool read_frame(TrajectoryFrame& frame) = 0;
  // The error path of row `row` of the frame last read: "walk.csv:12", "run.sqlite: trajectory_data".
  virtual std::string row_path(std::size_t row) const = 0;

  SourceInfo info;
};

// JuPedSim's SQLite output, versions 1–3 (src/replay/jupedsim.cpp), from a file or from bytes.
std::unique_ptr<TrajectorySource> open_jupedsim(const std::filesystem::path& file, std::string name);
std::unique_ptr<TrajectorySource> open_jupedsim_from_memory(std::string_view bytes, std::string name);

// CSV/TSV with a header (src/replay/csv.cpp), read from `in` as it streams.
std::unique_ptr<TrajectorySource> open_csv(std::unique_ptr<std::istream> in, const TrajectoryOptions& options,
                                           std::string name);

// The facing yaw of a ground direction (dx, dy) given in a z-up file's x-y plane (JuPedSim's
// orientation, a CSV heading's cosine and sine): atan2(dx, -dy) in [-pi, pi], since the world
// direction is (dx, 0, -dy); NaN for (0, 0).
float yaw_of_direction(double dx, double dy) noexcept;

}  // namespace gltf_crowd::detail
