// Number text as trajectory files write it (CSV cells, WKT coordinates, JuPedSim's metadata).
#pragma once

#include <cstdint>
#include <string_view>

namespace gltf_crowd::detail {

// `text` without leading and trailing spaces and tabs.
std::string_view trim(std::string_view text) noexcept;

// Parses all of `text` as a decimal number (an optional sign, digits, '.', an exponent; "nan" and
// "inf" parse and are left to the caller's finiteness check). False when anything else is left.
bool parse_double(std::string_view text, double& value) noexcept;

// Parses all of `text` as an integer: digits with an optional sign, or a decimal number of
// integer value within ±2^53 ("12.0", written by tools whose integer columns became floats).
bool parse_integer(std::string_view text, std::int64_t& value) noexcept;

}  // namespace gltf_crowd::detail
