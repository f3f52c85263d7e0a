// CLI11 validators for the tools' numeric options (issue 14) and file names. CLI11's own Range and
// PositiveNumber let "nan" through (every comparison with NaN is false), call a word "not in
// range" and print their bounds as 309-digit numbers; these say in words what is wrong. CLI11
// prefixes each message with the option's name ("--actors: 'abc' is not an integer; ...").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace gltf_crowd {
struct ExternalFile;
}

namespace gltf_crowd::tools {

// "1 actor", "2 actors": `n` and `noun` (plural with an s unless n is 1), for messages.
std::string count_of(std::uint64_t n, std::string_view noun);

// An integer in [min, max], in decimal: "'abc' is not an integer; it must be an integer in
// [1, 1000000]", "'0' is out of range; it must be an integer in [1, 1000000]".
CLI::Validator integer_in(std::uint64_t min, std::uint64_t max);

// Floating-point values, finite as a float (every floating-point option of the tools is a float)
// and within a range: "'nan' is not finite; it must be finite and > 0", "'abc' is not a number;
// ...", "'0' is out of range; it must be finite and > 0".
CLI::Validator finite_number();                    // any finite value
CLI::Validator finite_in(double min, double max);  // min <= x <= max
CLI::Validator finite_above(double min);           // x > min
CLI::Validator finite_at_least(double min);        // x >= min

// A comma-separated list of finite numbers into `values` (replaced when the option is given):
// unlike CLI11's delimiter, which silently drops empty items ("0.5,,0.25" would read as two
// numbers), an empty or non-finite item is an error naming it: "item 2 of '0.5,,0.25' is empty;
// it must be a comma-separated list of finite numbers". `values` must outlive the parse.
CLI::Option* add_finite_list(CLI::App* app, const std::string& name, std::vector<float>& values,
                             const std::string& description);

// Any text but the empty string, which would otherwise read as "not given" and silently pick a
// default: "it must not be empty".
CLI::Validator non_empty();

// A file to write: not empty, not a folder, in a folder that exists, so that a command fails
// before its work rather than after: "folder '/nonexistent' does not exist".
CLI::Validator output_file();

// Throws UsageError (path `option`, rule out_extension) unless `file` ends in `extension`, ASCII case
// ignored: a command writes one format, and a name that says another misleads whoever opens it
// ("'crowd.jpg' does not end in .png: render writes a PNG image").
void require_extension(const std::string& option, const std::string& file, std::string_view extension,
                       std::string_view written);

// One file a command reads or writes, named by its option ("asset" for the positional); an
// empty `file` is an option not given.
struct NamedFile {
  std::string_view option;
  const std::string& file;
};

// Throws UsageError (path: the output's option, rule out_overwrites) when an output names the same file
// as an input or an earlier output, by its path or, where both exist, as one file under two names:
// `lod crowd.glb --out crowd.glb` would replace the asset it reads, and `render --stats` equal to
// `--out` would leave JSON where the picture was. Called before any work, so nothing is written.
void require_distinct_files(std::initializer_list<NamedFile> inputs, std::initializer_list<NamedFile> outputs);

// The same check against the files the loaded asset's buffers and images read (Asset::external_files),
// each named as "the asset's buffers[0]": `render robot.gltf --out robot.bin` would replace the
// asset's data. Called after loading, before anything is written (docs/spec.md §8).
void require_outputs_spare(std::span<const ExternalFile> inputs, std::initializer_list<NamedFile> outputs);

}  // namespace gltf_crowd::tools
