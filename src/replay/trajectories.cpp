// TrajectoryReader (docs/spec.md §15): opens a source by content, then per frame orders the
// rows by id, rejects a repeated id and counts time gaps and teleports.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numbers>
#include <numeric>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "asset/checks.hpp"
#include "gltf_crowd/trajectories.hpp"
#include "replay/source.hpp"

namespace gltf_crowd {
namespace {

// A step longer than this many nominal steps is a time gap (docs/spec.md §15.3).
constexpr double kGapFactor = 1.5;
constexpr std::array<char, 16> kSqliteMagic = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                               'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};

bool is_sqlite(std::string_view head) {
  return head.size() >= kSqliteMagic.size() && std::memcmp(head.data(), kSqliteMagic.data(), kSqliteMagic.size()) == 0;
}

void check_options(const TrajectoryOptions& options) {
  if (!std::isfinite(options.teleport_speed) || options.teleport_speed <= 0.0) {
    throw Error("TrajectoryOptions::teleport_speed", Rule::trajectory_option,
                fmt::format("{} is not a finite speed > 0", options.teleport_speed));
  }
}

}  // namespace

float detail::yaw_of_direction(double dx, double dy) noexcept {
  if (dx == 0.0 && dy == 0.0) return std::numeric_limits<float>::quiet_NaN();
  return static_cast<float>(std::atan2(dx, -dy));
}

struct TrajectoryReader::State {
  std::unique_ptr<detail::TrajectorySource> source;
  double teleport_speed = 0.0;
  TrajectoryFrame building;  // swapped with the caller's frame once checked
  // The last frame delivered, for gaps and teleports.
  bool has_previous = false;
  std::int64_t previous_index = 0;
  double previous_time = 0.0;
  double first_step = 0.0;  // a CSV time column without fps: the nominal step
  std::vector<std::int64_t> previous_ids;
  std::vector<glm::dvec3> previous_positions;
  // Reordering by id: sorted row k was file row order[k] (identity when `reordered` is false).
  bool reordered = false;
  std::vector<std::uint32_t> order;
  std::vector<std::int64_t> sorted_ids;
  std::vector<glm::dvec3> sorted_positions;
  std::vector<float> sorted_headings;
  TrajectoryWarnings warnings;
  std::optional<Error> failure;

  std::string frame_path() const { return building.ids.empty() ? source->info.name : source->row_path(0); }

  void warn(std::size_t& count, std::string path, Rule rule, std::string message) {
    ++count;
    if (warnings.listed.size() < TrajectoryWarnings::max_listed) {
      warnings.listed.push_back(detail::make_warning(std::move(path), rule, std::move(message)));
    }
  }

  // Rows by ascending id; a repeated id is an error naming the later row.
  void order_by_id() {
    auto& ids = building.ids;
    reordered = !std::is_sorted(ids.begin(), ids.end());
    if (!reordered) {
      const auto repeat = std::adjacent_find(ids.begin(), ids.end());
      if (repeat != ids.end()) duplicate(static_cast<std::size_t>(repeat - ids.begin()) + 1);
      return;
    }
    order.resize(ids.size());
    std::iota(order.begin(), order.end(), 0u);
    // By (id, row): stable without std::stable_sort's temporary buffer.
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return ids[a] < ids[b] || (ids[a] == ids[b] && a < b); });
    for (std::size_t k = 1; k < order.size(); ++k) {
      if (ids[order[k]] == ids[order[k - 1]]) duplicate(order[k]);
    }
    sorted_ids.resize(ids.size());
    sorted_positions.resize(ids.size());
    sorted_headings.resize(ids.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      sorted_ids[k] = ids[order[k]];
      sorted_positions[k] = building.positions[order[k]];
      sorted_headings[k] = building.headings[order[k]];
    }
    ids.swap(sorted_ids);
    building.positions.swap(sorted_positions);
    building.headings.swap(sorted_headings);
  }

  [[noreturn]] void duplicate(std::size_t row) const {
    throw Error(source->row_path(row), Rule::trajectory_duplicate,
                fmt::format("agent {} appears twice in frame {}", building.ids[row], building.index));
  }

  void count_gap() {
    const auto& info = source->info;
    if (!info.keyed_by_time) {
      // Indices increase, so the unsigned difference is exact even across the int64 range.
      const auto step = static_cast<std::uint64_t>(building.index) - static_cast<std::uint64_t>(previous_index);
      if (step > 1) {
        warn(warnings.time_gaps, frame_path(), Rule::trajectory_gap,
             fmt::format("frame {} follows frame {}: {} frames missing", building.index, previous_index, step - 1));
      }
      return;
    }
    const double step = building.time - previous_time;
    const double nominal = info.fps > 0.0 ? 1.0 / info.fps : first_step;
    if (nominal == 0.0) {
      first_step = step;
      return;
    }
    if (step > kGapFactor * nominal) {
      warn(warnings.time_gaps, frame_path(), Rule::trajectory_gap,
           fmt::format("time {} s follows {} s: a step of {} s, {:.3g} nominal steps of {} s", building.time,
                       previous_time, step, step / nominal, nominal));
    }
  }

  // Agents in this frame and the previous one: their ground speed between the two.
  void count_teleports() {
    const double step = building.time - previous_time;
    if (!(step > 0.0)) return;
    std::size_t p = 0;
    for (std::size_t k = 0; k < building.ids.size(); ++k) {
      while (p < previous_ids.size() && previous_ids[p] < building.ids[k]) ++p;
      if (p == previous_ids.size()) break;
      if (previous_ids[p] != building.ids[k]) continue;
      const glm::dvec3 move = building.positions[k] - previous_positions[p];
      const double distance = std::hypot(move.x, move.z);
      if (distance > teleport_speed * step) {
        warn(warnings.teleports, source->row_path(reordered ? order[k] : k), Rule::trajectory_teleport,
             fmt::format("agent {} moves {:.3g} m in {:.3g} s from frame {} to frame {} ({:.3g} m/s, above the "
                         "teleport speed {} m/s)",
                         building.ids[k], distance, step, previous_index, building.index, distance / step,
                         teleport_speed));
      }
    }
  }

  bool next(TrajectoryFrame& frame) {
    if (!source->read_frame(building)) return false;
    // Every source orders its frames, but a damaged SQLite index can return rows out of order.
    if (has_previous && building.index <= previous_index) {
      throw Error(frame_path(), Rule::trajectory_order,
                  fmt::format("frame {} follows frame {}", building.index, previous_index));
    }
    order_by_id();
    if (has_previous) {
      count_gap();
      count_teleports();
    }
    has_previous = true;
    previous_index = building.index;
    previous_time = building.time;
    previous_ids.assign(building.ids.begin(), building.ids.end());
    previous_positions.assign(building.positions.begin(), building.positions.end());
    std::swap(frame, building);
    return true;
  }
};

TrajectoryReader::TrajectoryReader(std::unique_ptr<detail::TrajectorySource> source, double teleport_speed)
    : state_(std::make_unique<State>()) {
  state_->source = std::move(source);
  state_->teleport_speed = teleport_speed;
}
TrajectoryReader::TrajectoryReader(TrajectoryReader&&) noexcept = default;
TrajectoryReader& TrajectoryReader::operator=(TrajectoryReader&&) noexcept = default;
TrajectoryReader::~TrajectoryReader() = default;

bool TrajectoryReader::next_frame(TrajectoryFrame& frame) {
  if (state_->failure) throw *state_->failure;
  try {
    return state_->next(frame);
  } catch (const Error& error) {
    state_->failure = error;
    throw;
  }
}

TrajectoryFormat TrajectoryReader::format() const noexcept { return state_->source->info.format; }
int TrajectoryReader::version() const noexcept { return state_->source->info.version; }
double TrajectoryReader::fps() const noexcept { return state_->source->info.fps; }
bool TrajectoryReader::has_headings() const noexcept { return state_->source->info.headings; }
const std::vector<WalkableArea>& TrajectoryReader::areas() const noexcept { return state_->source->info.areas; }
const TrajectoryWarnings& TrajectoryReader::warnings() const noexcept { return state_->warnings; }
const std::string& TrajectoryReader::name() const noexcept { return state_->source->info.name; }

TrajectoryReader open_trajectories(const std::filesystem::path& file, const TrajectoryOptions& options) {
  check_options(options);
  const std::string name = file.string();
  auto in = std::make_unique<std::ifstream>(file, std::ios::binary);
  std::error_code error;
  if (!*in || std::filesystem::is_directory(file, error)) throw Error(name, Rule::file_open, "cannot open the file");
  std::array<char, kSqliteMagic.size()> head{};
  in->read(head.data(), head.size());
  const auto got = static_cast<std::size_t>(in->gcount());
  if (got == 0) throw Error(name, Rule::trajectory_empty, "the file is empty");
  if (is_sqlite({head.data(), got})) return {detail::open_jupedsim(file, name), options.teleport_speed};
  in->clear();
  in->seekg(0);
  return {detail::open_csv(std::move(in), options, name), options.teleport_speed};
}

TrajectoryReader open_trajectories_from_memory(std::string_view bytes, const TrajectoryOptions& options,
                                               std::string name) {
  check_options(options);
  if (bytes.empty()) throw Error(name, Rule::trajectory_empty, "the input is empty");
  if (is_sqlite(bytes)) return {detail::open_jupedsim_from_memory(bytes, std::move(name)), options.teleport_speed};
  return {detail::open_csv(std::make_unique<std::istringstream>(std::string(bytes)), options, std::move(name)),
          options.teleport_speed};
}

}  // namespace gltf_crowd
