#include "replay/numbers.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace gltf_crowd::detail {

std::string_view trim(std::string_view text) noexcept {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool parse_double(std::string_view text, double& value) noexcept {
  // from_chars takes no '+'; a second sign after it must still fail.
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) return false;
  }
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

bool parse_integer(std::string_view text, std::int64_t& value) noexcept {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') {
    digits.remove_prefix(1);
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) return false;
  }
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error == std::errc() && end == digits.data() + digits.size()) return true;
  double number = 0.0;
  constexpr double kExact = 9007199254740992.0;  // 2^53: every integer up to it is a double
  if (!parse_double(text, number) || !(std::fabs(number) <= kExact) || std::trunc(number) != number) return false;
  value = static_cast<std::int64_t>(number);
  return true;
}

}  // namespace gltf_crowd::detail
