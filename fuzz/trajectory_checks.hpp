// What the trajectory fuzz targets (fuzz_trajectories_csv.cpp, fuzz_trajectories_sqlite.cpp)
// require of every frame a TrajectoryReader delivers (docs/spec.md §15); a broken one aborts.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "gltf_crowd/trajectories.hpp"

namespace gltf_crowd::fuzz {

inline void require_trajectory(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

// Reads every frame of `bytes` (an Error ends it, as it may); each frame has equal array sizes,
// strictly ascending ids, finite positions, headings NaN or within [-pi, pi], an area in range,
// and frames follow in increasing index and time.
inline void read_trajectories(std::string_view bytes, const TrajectoryOptions& options) {
  try {
    TrajectoryReader reader = open_trajectories_from_memory(bytes, options, "fuzz");
    TrajectoryFrame frame;
    bool first = true;
    std::int64_t index = 0;
    double time = 0.0;
    while (reader.next_frame(frame)) {
      require_trajectory(frame.positions.size() == frame.ids.size() && frame.headings.size() == frame.ids.size(),
                         "array sizes differ");
      for (std::size_t k = 0; k < frame.ids.size(); ++k) {
        require_trajectory(k == 0 || frame.ids[k - 1] < frame.ids[k], "ids not strictly ascending");
        const glm::dvec3& p = frame.positions[k];
        require_trajectory(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z), "position not finite");
        require_trajectory(std::isnan(frame.headings[k]) || std::fabs(frame.headings[k]) <= 3.1416f, "heading range");
      }
      require_trajectory(frame.area == TrajectoryFrame::no_area || frame.area < reader.areas().size(), "area range");
      require_trajectory(first || (frame.index > index && frame.time >= time), "frames out of order");
      first = false;
      index = frame.index;
      time = frame.time;
    }
    require_trajectory(reader.warnings().listed.size() <= TrajectoryWarnings::max_listed, "too many listed");
  } catch (const Error&) {
  }
}

}  // namespace gltf_crowd::fuzz
