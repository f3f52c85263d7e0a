// fuzz/run_targets.sh, the part of scripts/fuzz.sh that runs the built fuzzers, on stand-ins for
// libFuzzer binaries: shell scripts that replay the files they are given, or write numbered lines
// for a while and then fail, as a fuzzer that found something does.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gltf_crowd {
namespace {

using test::quoted;

// A stand-in for libFuzzer named `name`: given files only, it replays them (a missing one fails,
// as libFuzzer's does); given a corpus folder, it writes 20 lines `delay` seconds apart, its
// execution count, and fails.
void write_fuzzer(const std::filesystem::path& build, const std::string& name, const char* delay) {
  const std::filesystem::path file = build / "fuzz" / name;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file)
      << "#!/bin/sh\n"
         "corpus=\n"
         "for a in \"$@\"; do case \"$a\" in -*) ;; *)\n"
         "  if [ -d \"$a\" ]; then corpus=$a; elif [ ! -f \"$a\" ]; then echo \"cannot open $a\"; exit 1; fi;;\n"
         "esac; done\n"
         "[ -n \"$corpus\" ] || { echo replayed; exit 0; }\n"
         "i=0; while [ $i -lt 20 ]; do echo \""
      << name << " line $i\"; i=$((i + 1)); sleep " << delay
      << "; done\n"
         "echo 'stat::number_of_executed_units: 7'\n"
         "exit 1\n";
  std::filesystem::permissions(file, std::filesystem::perms::owner_all);
}

// Two fuzzers at once: each one's report (its seeds, the tail of its log) is printed whole under
// its own header, in the order asked, though the second ends first. An empty regressions folder
// is nothing to replay, not a failed regression.
TEST(FuzzScript, ParallelFuzzersReportInOrderAndEmptyRegressionsPass) {
  const std::filesystem::path dir = test::scratch_dir("fuzz_script");
  write_fuzzer(dir / "build", "fuzz_slow", "0.05");
  write_fuzzer(dir / "build", "fuzz_fast", "0.001");
  std::filesystem::create_directories(dir / "regressions" / "fuzz_slow");  // empty
  std::filesystem::create_directories(dir / "regressions" / "fuzz_fast");
  std::ofstream(dir / "regressions" / "fuzz_fast" / "crash-1") << "x";
  const std::filesystem::path script = std::filesystem::path(GLTF_CROWD_TESTS_DIR) / ".." / "fuzz" / "run_targets.sh";
  const test::CommandOutput r =
      test::run_command("FUZZ_JOBS=2 GLTF_CROWD_FUZZ_REGRESSIONS=" + quoted(dir / "regressions") + " " +
                        quoted(script) + " " + quoted(dir / "build") + " 1 fuzz_slow fuzz_fast 2>&1");
  EXPECT_NE(r.exit_code, 0) << r.out;
  const std::size_t slow = r.out.find("== fuzz_slow\n"), fast = r.out.find("== fuzz_fast\n"),
                    summary = r.out.find("== fuzz summary\n");
  ASSERT_LT(slow, fast) << r.out;
  ASSERT_LT(fast, summary) << r.out;
  for (int i = 0; i < 20; ++i) {
    const std::size_t s = r.out.find("fuzz_slow line " + std::to_string(i) + "\n");
    const std::size_t f = r.out.find("fuzz_fast line " + std::to_string(i) + "\n");
    EXPECT_TRUE(s > slow && s < fast) << i << "\n" << r.out;
    EXPECT_TRUE(f > fast && f < summary) << i << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("fuzz_slow: FAILED, 7 executions in 1 s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fuzz_fast: FAILED, 7 executions in 1 s"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("regression FAILED"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gltf_crowd
