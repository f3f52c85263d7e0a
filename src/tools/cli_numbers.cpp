#include "tools/cli_numbers.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gltf_crowd/asset.hpp"
#include "gltf_crowd/error.hpp"
#include "tools/as_option.hpp"

namespace gltf_crowd::tools {
namespace {

// The whole of `text` as a T, or false.
template <typename T>
bool parse_all(std::string_view text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

// `requirement` completes "it must be ..."; `accepts` is called with a finite value.
CLI::Validator finite_validator(const std::string& requirement, std::function<bool(double)> accepts) {
  return CLI::Validator(
      [requirement, accepts = std::move(accepts)](std::string& text) -> std::string {
        double x = 0.0;
        const char* problem = nullptr;
        // from_chars reads "nan" and "inf", and gives result_out_of_range for 1e999.
        if (!parse_all(text, x)) {
          problem = std::from_chars(text.data(), text.data() + text.size(), x).ec == std::errc::result_out_of_range
                        ? "is out of range"
                        : "is not a number";
        } else if (!std::isfinite(x)) {
          problem = "is not finite";
        } else if (std::abs(x) > std::numeric_limits<float>::max()) {
          problem = "is beyond the largest float";
        } else if (!accepts(x)) {
          problem = "is out of range";
        } else if (static_cast<float>(x) == 0.0f && !accepts(0.0)) {  // 1e-46 for "> 0"
          problem = "is below the smallest float";
        }
        return problem == nullptr ? std::string() : fmt::format("'{}' {}; it must be {}", text, problem, requirement);
      },
      requirement);
}

// `text` cut at every comma, empty items kept ("0.5,,0.25" is three items, "" one).
std::vector<std::string> split_items(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t begin = 0;;) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    items.push_back(text.substr(begin, end - begin));
    if (end == text.size()) return items;
    begin = end + 1;
  }
}

}  // namespace

std::string count_of(std::uint64_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

CLI::Validator integer_in(std::uint64_t min, std::uint64_t max) {
  const std::string requirement = fmt::format("an integer in [{}, {}]", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::uint64_t n = 0;
        std::int64_t negative = 0;
        const char* problem = nullptr;
        if (parse_all(text, n)) {
          if (n < min || n > max) problem = "is out of range";
        } else {
          // A negative integer, or one beyond 64 bits, is an integer out of range.
          const bool integer =
              parse_all(text, negative) ||
              std::from_chars(text.data(), text.data() + text.size(), n).ec == std::errc::result_out_of_range;
          problem = integer ? "is out of range" : "is not an integer";
        }
        return problem == nullptr ? std::string() : fmt::format("'{}' {}; it must be {}", text, problem, requirement);
      },
      requirement);
}

CLI::Validator finite_number() {
  return finite_validator("finite", [](double) { return true; });
}

CLI::Validator finite_in(double min, double max) {
  return finite_validator(fmt::format("finite and in [{}, {}]", min, max),
                          [=](double x) { return x >= min && x <= max; });
}

CLI::Validator finite_above(double min) {
  return finite_validator(fmt::format("finite and > {}", min), [=](double x) { return x > min; });
}

CLI::Validator finite_at_least(double min) {
  return finite_validator(fmt::format("finite and >= {}", min), [=](double x) { return x >= min; });
}

CLI::Option* add_finite_list(CLI::App* app, const std::string& name, std::vector<float>& values,
                             const std::string& description) {
  const CLI::Validator finite = finite_number();
  const CLI::Validator items(
      [finite](std::string& text) -> std::string {
        const std::vector<std::string> pieces = split_items(text);
        for (std::size_t i = 0; i < pieces.size(); ++i) {
          std::string piece = pieces[i];
          if (piece.empty())
            return fmt::format("item {} of '{}' is empty; it must be a comma-separated list of finite numbers", i + 1,
                               text);
          const std::string problem = finite(piece);
          if (!problem.empty()) return fmt::format("{} (item {} of '{}')", problem, i + 1, text);
        }
        return std::string();
      },
      "finite");
  std::string shown;
  for (std::size_t i = 0; i < values.size(); ++i) shown += fmt::format("{}{}", i == 0 ? "" : ",", values[i]);
  return app
      ->add_option_function<std::string>(
          name,
          [&values](const std::string& text) {
            values.clear();
            for (const std::string& piece : split_items(text)) {
              float x = 0.0f;
              parse_all(piece, x);  // checked by `items`
              values.push_back(x);
            }
          },
          description)
      ->check(items)
      ->type_name("FLOAT,...")
      ->default_str(shown);
}

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& text) { return text.empty() ? std::string("it must not be empty") : std::string(); }, "TEXT");
}

CLI::Validator output_file() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty()) return "it must be a file name, not empty";
        const std::filesystem::path file(text);
        std::error_code error;
        if (std::filesystem::is_directory(file, error)) return fmt::format("'{}' is a folder, not a file", text);
        const std::filesystem::path folder = file.parent_path();
        if (!folder.empty() && !std::filesystem::is_directory(folder, error))
          return std::filesystem::exists(folder, error) ? fmt::format("'{}' is not a folder", folder.string())
                                                        : fmt::format("folder '{}' does not exist", folder.string());
        return {};
      },
      "FILE");
}

void require_extension(const std::string& option, const std::string& file, std::string_view extension,
                       std::string_view written) {
  const std::string actual = std::filesystem::path(file).extension().string();
  const auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  if (!std::ranges::equal(actual, extension, same))
    throw UsageError(option, Rule::out_extension, fmt::format("'{}' does not end in {}: {}", file, extension, written));
}

namespace {

// Whether `a` and `b` name one file: the same absolute, normalized path (a file not written yet:
// made absolute first, as weakly_canonical leaves a relative path with no existing part relative),
// or, where both exist, one file (links, "./x" and "x").
bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  if (std::filesystem::equivalent(a, b, error)) return true;
  const auto normal = [&error](const std::string& file) {
    const std::filesystem::path absolute = std::filesystem::absolute(file, error);
    return error ? std::filesystem::path() : std::filesystem::weakly_canonical(absolute, error);
  };
  const std::filesystem::path pa = normal(a);
  if (error) return false;
  const std::filesystem::path pb = normal(b);
  return !error && pa == pb;
}

// Throws out_overwrites (UsageError at `out`'s option) when `out` and `other` name one file.
void require_other_file(const NamedFile& out, const NamedFile& other, std::string_view what) {
  if (!out.file.empty() && !other.file.empty() && same_file(out.file, other.file))
    throw UsageError(std::string(out.option), Rule::out_overwrites,
                     fmt::format("'{}' is the same file as {} '{}'{}", out.file, other.option, other.file, what));
}

constexpr std::string_view kRead = ", which this command reads";

}  // namespace

void require_distinct_files(std::initializer_list<NamedFile> inputs, std::initializer_list<NamedFile> outputs) {
  for (auto out = outputs.begin(); out != outputs.end(); ++out) {
    for (const NamedFile& in : inputs) require_other_file(*out, in, kRead);
    for (auto earlier = outputs.begin(); earlier != out; ++earlier)
      require_other_file(*out, *earlier, ", which this command also writes");
  }
}

void require_outputs_spare(std::span<const ExternalFile> inputs, std::initializer_list<NamedFile> outputs) {
  for (const ExternalFile& in : inputs) {
    const std::string option = "the asset's " + in.path;
    const std::string file = in.file.string();
    for (const NamedFile& out : outputs) require_other_file(out, {option, file}, kRead);
  }
}

}  // namespace gltf_crowd::tools
