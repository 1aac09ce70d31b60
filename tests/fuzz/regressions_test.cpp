// Every seed of the fuzz corpora and every input a fuzzer once crashed on, fed through the fuzz
// targets' entry points in the normal suite (and under ASan+UBSan in CI): each must be accepted or
// refused with one clear InputError, never crash.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <vector>

#include "tests/fuzz/entry_points.hpp"

namespace pacflow::fuzz {
namespace {

namespace fs = std::filesystem;

struct Target {
  const char* name;
  Outcome (*entry)(Input);
  friend std::ostream& operator<<(std::ostream& out, const Target& t) { return out << t.name; }
};

std::vector<std::uint8_t> regression_bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The files of tests/fuzz/<target>/<folder>/, sorted.
std::vector<fs::path> inputs(const char* target, const char* folder) {
  const fs::path dir = fs::path(PACFLOW_SOURCE_DIR) / "tests" / "fuzz" / target / folder;
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::is_directory(dir, ec))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class FuzzCorpus : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzCorpus, EverySeedAndRegressionIsAcceptedOrRefusedWithOneClearError) {
  const Target target = GetParam();
  const auto seeds = inputs(target.name, "seeds");
  EXPECT_GE(seeds.size(), 3u) << "the seed corpus of " << target.name << " is missing";
  std::size_t accepted = 0;
  std::string refusals;
  for (const char* folder : {"seeds", "regressions"}) {
    for (const auto& path : inputs(target.name, folder)) {
      const auto data = regression_bytes_of(path);
      Outcome outcome;
      EXPECT_NO_THROW(outcome = target.entry(Input(data.data(), data.size()))) << path;
      if (outcome.accepted) {
        ++accepted;
      } else {
        EXPECT_FALSE(outcome.error.empty()) << path;
        refusals += "\n  " + path.filename().string() + ": " + outcome.error;
        EXPECT_EQ(outcome.error.find('\n'), std::string::npos) << path << ": one line: " << outcome.error;
      }
    }
  }
  EXPECT_GT(accepted, 0u) << "no seed of " << target.name << " gets past the input checks:" << refusals;
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpus,
                         ::testing::Values(Target{"pipe_format", pipe_format}, Target{"npy_reader", npy_reader},
                                           Target{"edf_reader", edf_reader}, Target{"hdf5_metadata", hdf5_metadata},
                                           Target{"brainvision_reader", brainvision_reader}),
                         [](const auto& test) { return std::string(test.param.name); });

}  // namespace
}  // namespace pacflow::fuzz
