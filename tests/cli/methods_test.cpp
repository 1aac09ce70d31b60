// `pipeline_cli methods OUT` (issue 36, item 6): the methods paragraph of the default run, from its
// folder, its result.json or an hdf5 sink's file; written atomically with --out; a missing or
// malformed report exits 2 naming the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/folder_state.hpp"

namespace pacflow {
namespace {

using testing::contains;
using testing::read_file;
using testing::run_cli;
using testing::ScratchDir;
namespace fs = std::filesystem;

TEST(CliMethods, WritesTheDefaultRunsMethodsParagraphWithItsReferences) {
  const ScratchDir dir("cli_methods");
  testing::copy_shipped_pipelines(dir.path());
  ASSERT_EQ(run_cli("run -q pipelines/pac.pipe", dir.path()).exit_code, 0);
  const auto r = run_cli("methods out/pac", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"Phase-amplitude coupling (PAC) was computed with pacflow",
                           "8 epochs of 16 channels",
                           "4 s long",
                           "512 Hz",
                           "9 phase bands (centres 4–20 Hz",
                           "10 amplitude bands (centres 60–160 Hz",
                           "18 phase bins",
                           "200 surrogates",
                           "(512–1536 samples)",
                           "seed 42",
                           "max-T",
                           "200 random permutations of the epochs",
                           "trial_pvalues",
                           "α = 0.05",
                           "\n\nReferences\n\n",
                           "- Tort ABL, Komorowski R, Eichenbaum H, Kopell N (2010)",
                           "J Neurophysiol 104:1195–1210.",
                           "- Nichols TE, Holmes AP (2002)",
                           "Hum Brain Mapp 15:1–25.",
                           "Stat Appl Genet Mol Biol 9:Article 39."})
    EXPECT_TRUE(contains(r.out, part)) << "missing \"" << part << "\" in:\n" << r.out;
  EXPECT_FALSE(contains(r.out, "Özkurt")) << "ndPAC was not used";
  EXPECT_FALSE(contains(r.out, "Benjamini")) << "no FDR";
  // The same from the result.json itself; --out writes it, complete, and nothing else.
  const auto file = run_cli("methods out/pac/result.json", dir.path());
  EXPECT_EQ(file.out, r.out);
  const auto saved = run_cli("methods out/pac --out methods.md", dir.path());
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_EQ(saved.out, "");
  EXPECT_EQ(read_file(dir / "methods.md"), r.out);
  EXPECT_FALSE(testing::has_temporary(dir.path()));
  // --out never replaces the report it reads.
  const std::string report = read_file(dir / "out" / "pac" / "result.json");
  const auto over = run_cli("methods out/pac --out out/pac/result.json", dir.path());
  EXPECT_EQ(over.exit_code, 2) << over.err;
  EXPECT_EQ(read_file(dir / "out" / "pac" / "result.json"), report);
  // Nor a file of the run it describes (result.json lists them).
  const std::string array = read_file(dir / "out" / "pac" / "pac.npy");
  const auto over_result = run_cli("methods out/pac --out out/pac/pac.npy", dir.path());
  EXPECT_EQ(over_result.exit_code, 2) << over_result.err;
  EXPECT_EQ(read_file(dir / "out" / "pac" / "pac.npy"), array);
}

TEST(CliMethods, ReadsTheReportAnHdf5SinkWrote) {
  const ScratchDir dir("cli_methods_hdf5");
  dir.write("p.pipe",
            "source synthetic fs=256 epochs=4 channels=2 seconds=2\n"
            "stage bandpass pha=[[4,8]] amp=[[60,80]]\nstage hilbert\nstage mi method=mvl\n"
            "stage surrogates n=20 min_shift=0.5s trials=none\nsink hdf5 path=out/r.h5\n");
  ASSERT_EQ(run_cli("run -q p.pipe", dir.path()).exit_code, 0);
  const auto r = run_cli("methods out/r.h5", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "mean vector length")) << r.out;
  EXPECT_TRUE(contains(r.out, "pvalues_maxstat")) << "no trial test: the per-series p-values are reported\n" << r.out;
  EXPECT_TRUE(contains(r.out, "Canolty RT")) << r.out;
}

TEST(CliMethods, AMissingOrMalformedReportExitsTwoNamingTheFile) {
  const ScratchDir dir("cli_methods_bad");
  const auto missing = run_cli("methods nowhere", dir.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "nowhere: no such file or folder")) << missing.err;
  fs::create_directories(dir / "empty");
  const auto empty = run_cli("methods empty", dir.path());
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_TRUE(contains(empty.err, "empty: no result.json in this folder")) << empty.err;
  fs::create_directories(dir / "bad");
  fs::create_directories(dir / "other");
  dir.write("bad/result.json", "{\"input\": [");
  const auto malformed = run_cli("methods bad", dir.path());
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_TRUE(contains(malformed.err, "bad/result.json: not a run's report")) << malformed.err;
  dir.write("other/result.json", "{\"pipeline\": []}");
  const auto other = run_cli("methods other/result.json", dir.path());
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_TRUE(contains(other.err, "result.json: input is missing")) << other.err;
  EXPECT_EQ(run_cli("methods", dir.path()).exit_code, 2) << "OUT is required";
  const auto help = run_cli("methods --help", dir.path());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "--out")) << help.out;
}

}  // namespace
}  // namespace pacflow
