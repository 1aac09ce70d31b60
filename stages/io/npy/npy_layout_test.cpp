// The npy source's layouts (layout=ECT, ET, TC, …) and .npz archives (key=).
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>

#include "engine/api/errors.hpp"
#include "engine/io/npy.hpp"
#include "stages/io/common/array_layout.hpp"
#include "stages/io/npy/npy_source.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow::stages {
namespace {

NpySource npy_make_source(const json& params) { return std::move(*make_element<NpySource>(params)); }

std::string npy_refusal(const json& params) {
  try {
    npy_make_source(params).open({});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Reads every series of an open source, `batch` at a time.
std::vector<float> npy_read_all(NpySource& source, const StreamInfo& info, std::int64_t batch) {
  std::vector<float> all(static_cast<std::size_t>(info.series_count() * info.series_length));
  for (std::int64_t first = 0; first < info.series_count(); first += batch)
    source.read(first, std::min(batch, info.series_count() - first), all.data() + first * info.series_length);
  return all;
}

// A distinct value for every (epoch, channel, segment, sample).
float sample_value(std::int64_t e, std::int64_t c, std::int64_t s, std::int64_t t) {
  return static_cast<float>(((e * 16 + c) * 8 + s) * 1000 + t);
}

// Writes the array of sizes `sizes` (E, C, S, T) with its axes stored in the order `axes`, a subset
// of "ECST" holding every axis of size above 1 and T, and returns the series in pacflow's order.
std::vector<float> write_in_layout(const std::filesystem::path& path, const std::string& axes,
                                   const std::map<char, std::int64_t>& sizes) {
  const auto size = [&](char axis) { return sizes.count(axis) ? sizes.at(axis) : 1; };
  Shape shape;
  for (const char axis : axes) shape.push_back(size(axis));
  std::vector<float> file(static_cast<std::size_t>(element_count(shape)));
  std::vector<float> expected;
  for (std::int64_t e = 0; e < size('E'); ++e)
    for (std::int64_t c = 0; c < size('C'); ++c)
      for (std::int64_t s = 0; s < size('S'); ++s)
        for (std::int64_t t = 0; t < size('T'); ++t) {
          const std::map<char, std::int64_t> index{{'E', e}, {'C', c}, {'S', s}, {'T', t}};
          std::int64_t at = 0;
          for (const char axis : axes) at = at * size(axis) + index.at(axis);
          file[static_cast<std::size_t>(at)] = sample_value(e, c, s, t);
          expected.push_back(sample_value(e, c, s, t));
        }
  NpyWriter writer(path, shape);
  writer.append(file.data(), static_cast<std::int64_t>(file.size()));
  writer.commit();
  return expected;
}

TEST(NpyLayout, EveryOrderOfTheAxesGivesTheSeriesInPacflowsOrder) {
  const testing::ScratchDir dir("pacflow_layouts");
  const std::map<char, std::int64_t> sizes{{'E', 3}, {'C', 4}, {'S', 2}, {'T', 37}};
  std::vector<std::string> layouts;
  for (std::string axes : {"ECST", "ECT", "EST", "CST", "ET", "CT", "ST"}) {
    std::sort(axes.begin(), axes.end());
    do layouts.push_back(axes);
    while (std::next_permutation(axes.begin(), axes.end()));
  }
  layouts.emplace_back("T");
  for (const auto& layout : layouts) {
    std::map<char, std::int64_t> used;
    for (const char axis : layout) used[axis] = sizes.at(axis);
    const auto path = dir / (layout + ".npy");
    const auto expected = write_in_layout(path, layout, used);
    NpySource source = npy_make_source({{"path", path.string()}, {"fs", 100}, {"layout", layout}});
    const StreamInfo info = source.open({});
    const bool segmented = layout.find('S') != std::string::npos;
    const auto size = [&](char axis) { return used.count(axis) ? used.at(axis) : 1; };
    Shape leading{size('E'), size('C')};
    if (segmented) leading.push_back(size('S'));
    EXPECT_EQ(info.leading_dims, leading) << layout;
    EXPECT_EQ(info.series_length, 37) << layout;
    EXPECT_TRUE(info.warnings.empty()) << layout;
    for (const std::int64_t batch : {1, 5, 24}) ASSERT_EQ(npy_read_all(source, info, batch), expected) << layout << ", batches of " << batch;
  }
}

// The scan of nan_policy reads pieces of series (samples [offset, offset + n)); any layout gives
// the same pieces.
TEST(NpyLayout, PiecesOfSeriesAreTheSameSamplesInAnyLayout) {
  const testing::ScratchDir dir("pacflow_layout_pieces");
  const std::map<char, std::int64_t> sizes{{'E', 2}, {'C', 3}, {'T', 50}};
  for (const std::string layout : {"ECT", "TCE", "CTE", "ETC"}) {
    const auto path = dir / (layout + ".npy");
    const auto expected = write_in_layout(path, layout, sizes);
    ArrayLayout parsed = ArrayLayout::parse(layout);
    NpyRowReader reader(path);
    parsed.bind(reader.header().shape, path.string());
    std::vector<float> piece(4 * 20);
    parsed.read(reader, 1, 4, 13, 20, piece.data(), false);  // series 1..4, samples 13..32
    for (std::int64_t s = 0; s < 4; ++s)
      for (std::int64_t t = 0; t < 20; ++t)
        ASSERT_EQ(piece[static_cast<std::size_t>(s * 20 + t)], expected[static_cast<std::size_t>((1 + s) * 50 + 13 + t)])
            << layout << " series " << 1 + s << " sample " << 13 + t;
  }
}

TEST(NpyLayout, LayoutsThatAreNotAxesAreRefusedNamingWhy) {
  const auto x = (testing::data_dir() / "small" / "x.npy").string();  // [2][3][1024]
  auto with = [&](const std::string& layout) { return npy_refusal({{"path", x}, {"fs", 256}, {"layout", layout}}); };
  EXPECT_NE(with("ECX").find("'X' is not an axis"), std::string::npos);
  EXPECT_NE(with("EET").find("names axis E twice"), std::string::npos);
  EXPECT_NE(with("EC").find("has no time axis T"), std::string::npos);
  EXPECT_NE(with("ET").find("the array has shape [2, 3, 1024] (3 axes), layout=ET names 2"), std::string::npos)
      << with("ET");
  EXPECT_EQ(with("ECT"), "");
}

TEST(NpyLayout, ATwoDimensionalArrayWithoutLayoutIsReadAsChannelsWithAWarningSayingHowToSayOtherwise) {
  const testing::ScratchDir dir("pacflow_layout_2d");
  const auto path = dir / "epochs_times.npy";
  const auto expected = write_in_layout(path, "ET", {{'E', 5}, {'T', 40}});
  NpySource guessed = npy_make_source({{"path", path.string()}, {"fs", 100}});
  const StreamInfo as_channels = guessed.open({});
  EXPECT_EQ(as_channels.leading_dims, (Shape{1, 5}));
  ASSERT_EQ(as_channels.warnings.size(), 1u);
  EXPECT_NE(as_channels.warnings[0].find("is read as layout=CT: 5 channels of one epoch, 40 samples each; say layout=ET "
                                         "for 5 epochs of one channel (TensorPAC's (n_epochs, n_times))"),
            std::string::npos)
      << as_channels.warnings[0];
  NpySource said = npy_make_source({{"path", path.string()}, {"fs", 100}, {"layout", "ET"}});
  const StreamInfo as_epochs = said.open({});
  EXPECT_EQ(as_epochs.leading_dims, (Shape{5, 1}));
  EXPECT_TRUE(as_epochs.warnings.empty());
  EXPECT_EQ(as_epochs.description["layout"], "ET");
  EXPECT_EQ(npy_read_all(said, as_epochs, 2), expected);
}

// pad= on an array: the context is already in each series (epochs cut with margins); the stream
// says how much, for the hilbert stage to crop.
TEST(NpySource, PadNamesContextHeldInTheSeries) {
  const auto x = (testing::data_dir() / "small" / "x.npy").string();  // 1024 samples at 256 Hz
  NpySource padded = npy_make_source({{"path", x}, {"fs", 256}, {"pad", "1s"}});
  const StreamInfo info = padded.open({});
  EXPECT_EQ(info.series_length, 1024);
  EXPECT_EQ(info.pad, 256);
  EXPECT_EQ(info.description["pad_samples"], 256);
  EXPECT_NE(npy_refusal({{"path", x}, {"fs", 256}, {"pad", "2s"}}).find("512 samples at each end of series of 1024 samples "
                                                                     "leave 0 to analyse"),
            std::string::npos);
  EXPECT_NE(npy_refusal({{"path", x}, {"fs", 256}, {"pad", "1ms"}}).find("padding must be at least one sample"),
            std::string::npos);
}

// An array of epochs cut from one recording says so with epoch_step=: those closer than their
// length overlap, which the trial-level test must know (issue 36); without epochs, refused.
TEST(NpySource, EpochStepDeclaresEpochsThatOverlap) {
  const auto x = (testing::data_dir() / "small" / "x.npy").string();  // [2][3][1024] at 256 Hz: 4 s epochs
  const StreamInfo half = npy_make_source({{"path", x}, {"fs", 256}, {"layout", "ECT"}, {"epoch_step", "2s"}}).open({});
  EXPECT_EQ(half.description["epoching"]["overlapping_pairs"], 1);
  EXPECT_NE(half.epochs_not_exchangeable.find("1 pair of consecutive epochs overlap in time (the first at 0 s; epochs "
                                              "of 4 s every 2 s)"),
            std::string::npos)
      << half.epochs_not_exchangeable;
  EXPECT_EQ(half.exchangeable_epochs, (std::vector<std::int64_t>{0}));
  const StreamInfo apart = npy_make_source({{"path", x}, {"fs", 256}, {"layout", "ECT"}, {"epoch_step", "4s"}}).open({});
  EXPECT_TRUE(apart.epochs_not_exchangeable.empty());
  EXPECT_EQ(apart.description["epoching"]["overlapping_pairs"], 0);
  EXPECT_NE(npy_refusal({{"path", x}, {"fs", 256}, {"layout", "CST"}, {"epoch_step", "2s"}}).find("no epochs axis"),
            std::string::npos);
  EXPECT_NE(npy_refusal({{"path", x}, {"fs", 256}, {"layout", "ECT"}, {"epoch_step", "1ms"}}).find("whole number of samples"),
            std::string::npos);
}

// tests/data/npz/ holds archives NumPy wrote (make_npz.py there): x is small/x.npy's six series as
// TensorPAC's (n_epochs, n_times), in float64, beside two other arrays.
TEST(Npz, StoredAndDeflatedMembersGiveTheArrayNumPyWrote) {
  const auto small = testing::load_floats(testing::data_dir() / "small" / "x.npy");
  for (const std::string archive : {"tensorpac_like.npz", "tensorpac_like_compressed.npz"}) {
    const auto path = (testing::data_dir() / "npz" / archive).string();
    NpySource source = npy_make_source({{"path", path}, {"fs", 256}, {"key", "x"}, {"layout", "ET"}});
    const StreamInfo info = source.open({});
    EXPECT_EQ(info.leading_dims, (Shape{6, 1})) << archive;
    EXPECT_EQ(info.description["dtype"], "float64");
    EXPECT_EQ(info.description["key"], "x");
    EXPECT_EQ(info.description["member_compression"], archive == "tensorpac_like.npz" ? "stored" : "deflated");
    EXPECT_EQ(npy_read_all(source, info, 4), small) << archive;
    // Reading again from the start (a deflated member inflates again) gives the same values.
    std::vector<float> second(1024);
    source.read(1, 1, second.data());
    EXPECT_TRUE(std::equal(second.begin(), second.end(), small.begin() + 1024)) << archive;
  }
}

TEST(Npz, KeysAreListedWhenMissingOrAmbiguousAndAnArchiveOfOneArrayNeedsNone) {
  const auto archive = (testing::data_dir() / "npz" / "tensorpac_like.npz").string();
  const std::string keys = "it holds key=x, key=sf, key=channels";
  EXPECT_NE(npy_refusal({{"path", archive}, {"fs", 256}, {"layout", "ET"}}).find("the archive holds 3 arrays; say which with key=x, key=sf, key=channels"),
            std::string::npos);
  EXPECT_NE(npy_refusal({{"path", archive}, {"fs", 256}, {"key", "y"}}).find("has no array \"y\"; " + keys), std::string::npos);
  EXPECT_EQ(npy_refusal({{"path", archive}, {"fs", 256}, {"key", "x.npy"}, {"layout", "ET"}}), "");
  // np.savez(file, x): one positional array, arr_0, read without key=.
  NpySource positional = npy_make_source({{"path", (testing::data_dir() / "npz" / "positional.npz").string()}, {"fs", 256}});
  const StreamInfo info = positional.open({});
  EXPECT_EQ(info.leading_dims, (Shape{2, 3}));
  EXPECT_EQ(info.description["key"], "arr_0");
  EXPECT_EQ(npy_read_all(positional, info, 6), testing::load_floats(testing::data_dir() / "small" / "x.npy"));
  // key= on an .npy file names what it is for.
  EXPECT_NE(npy_refusal({{"path", (testing::data_dir() / "small" / "x.npy").string()}, {"fs", 256}, {"key", "x"}})
                .find("is an .npy file, which holds one array; key= picks an array of an .npz archive"),
            std::string::npos);
}

TEST(Npz, ACompressedMemberOutOfPacflowsOrderIsRefusedWithWhatToDo) {
  const auto archive = (testing::data_dir() / "npz" / "tensorpac_like_compressed.npz").string();
  const std::string why = npy_refusal({{"path", archive}, {"fs", 256}, {"key", "x"}, {"layout", "TE"}});
  EXPECT_NE(why.find("tensorpac_like_compressed.npz:x.npy: the member is compressed (np.savez_compressed) and "
                     "layout=TE"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("save it with np.savez, or as an .npy file"), std::string::npos);
}

TEST(Npz, DamagedArchivesAreRefusedNamingTheArchiveAndMember) {
  const testing::ScratchDir dir("pacflow_npz_damaged");
  const std::string bytes = testing::read_file(testing::data_dir() / "npz" / "tensorpac_like_compressed.npz");
  ASSERT_GT(bytes.size(), 20000u);
  // Bytes changed inside x.npy's deflated data: inflating fails, or the CRC-32 does not match.
  std::string flipped = bytes;
  for (std::size_t at = 9000; at < 9064; ++at) flipped[at] = static_cast<char>(~flipped[at]);
  const auto damaged = dir.write("damaged.npz", flipped);
  NpySource source = npy_make_source({{"path", damaged.string()}, {"fs", 256}, {"key", "x"}, {"layout", "ET"}});
  const StreamInfo info = source.open({});
  try {
    npy_read_all(source, info, 6);
    FAIL() << "a damaged member was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("damaged.npz:x.npy: damaged .npz archive"), std::string::npos) << e.what();
  }
  // Cut short: the zip directory at the end is gone.
  const auto cut = dir.write("cut.npz", bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(npy_refusal({{"path", cut.string()}, {"fs", 256}, {"key", "x"}}).find("not a readable .npz archive: its zip "
                                                                               "directory is missing or damaged"),
            std::string::npos);
}

}  // namespace
}  // namespace pacflow::stages
