// Well-known text polygons (OGC 06-103r4 §7), as JuPedSim's geometry table stores its walkable
// area (docs/spec.md §15.1).
#pragma once

#include <string_view>
#include <vector>

#include "gltf_crowd/trajectories.hpp"

namespace gltf_crowd::detail {

// Parses POLYGON, MULTIPOLYGON or GEOMETRYCOLLECTION (of those, nested up to 8 deep), each
// possibly EMPTY, with 2 to 4 numbers per point (Z and M are dropped). Rings need 4 or more
// points, the last equal to the first; points map (x, y) → (x, -y) and the closing point is
// dropped (AreaPolygon). Throws Error(path, Rule::trajectory_wkt) naming the character offset,
// or not_finite for a NaN or infinite coordinate.
std::vector<AreaPolygon> parse_wkt(std::string_view text, std::string_view path);

}  // namespace gltf_crowd::detail
