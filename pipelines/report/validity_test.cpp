// Validity diagnostics by their definitions (validity.hpp): cycles of the phase band in the window,
// Aru et al.'s bandwidth rule, samples within one filter length of an end (net of the context read
// past the window), and filter orders cut short.
#include <gtest/gtest.h>

#include "pipelines/report/validity.hpp"

namespace pacflow::report {
namespace {

RunFacts facts(std::int64_t pad_samples = 0) {
  RunFacts f;
  f.input.samples = 2048;
  f.input.sample_rate_hz = 512;
  f.input.pad_samples = pad_samples;
  FilterFacts filters;
  filters.phase = {{{{3, 5}}, {{6, 10}}}, {4, 8}, {510, 170}, 3};  // the second cut from 255 (short series)
  filters.amplitude = {{{{52.5, 67.5}}, {{70, 90}}}, {60, 80}, {54, 42}, 6};
  f.filters = filters;
  return f;
}

TEST(Validity, EachBandAndCellFollowsItsDefinition) {
  const Validity v = validity_of(facts());
  ASSERT_EQ(v.phase.size(), 2u);
  ASSERT_EQ(v.amplitude.size(), 2u);
  EXPECT_DOUBLE_EQ(v.phase[0].cycles, 4 * 2048 / 512.0);  // 16 cycles of 4 Hz in 4 s
  EXPECT_DOUBLE_EQ(v.phase[1].cycles, 32);
  EXPECT_EQ(v.phase[0].order_asked, 3 * 170);  // cycles × floor(512 / 3)
  EXPECT_EQ(v.phase[1].order_asked, 3 * 85);   // cycles × floor(512 / 6)
  EXPECT_FALSE(v.phase[0].order_cut());
  EXPECT_TRUE(v.phase[1].order_cut());
  EXPECT_EQ(v.phase[0].edge_samples, 1020);  // 510 at each end
  EXPECT_NEAR(v.phase[0].edge_fraction, 1020 / 2048.0, 1e-15);
  EXPECT_EQ(v.amplitude[1].order_asked, 6 * 7);  // 6 × floor(512 / 70)
  // Aru et al.: 15 Hz holds 4 Hz sidebands (needs 8) but not 8 Hz ones (needs 16); 20 Hz holds both.
  EXPECT_FALSE(v.narrow_amplitude(0, 0));
  EXPECT_TRUE(v.narrow_amplitude(1, 0));
  EXPECT_FALSE(v.narrow_amplitude(1, 1));
  EXPECT_EQ(v.flags(0, 0), "E");   // half the window within 510 samples of an end
  EXPECT_EQ(v.flags(1, 0), "BO");  // 340 of 2048 samples (17 %): no E; the order cut
  EXPECT_EQ(v.flags(1, 1), "O");
  EXPECT_EQ(v.cells_flagged('O'), 2);
  EXPECT_EQ(v.cells_flagged('C'), 0);
}

TEST(Validity, ContextReadPastTheWindowAbsorbsTheEdgesAndShortWindowsHaveFewCycles) {
  const Validity padded = validity_of(facts(600));  // 600 samples read on either side, dropped after the filters
  EXPECT_EQ(padded.phase[0].edge_samples, 0);
  EXPECT_EQ(padded.flags(0, 0), "");
  RunFacts short_window = facts();
  short_window.input.samples = 512;  // 1 s: 4 cycles of 4 Hz
  const Validity v = validity_of(short_window);
  EXPECT_TRUE(v.few_cycles(0));
  EXPECT_EQ(v.phase[0].edge_samples, 512) << "the filter's reach covers the whole window";
  EXPECT_NE(v.flags(0, 0).find('C'), std::string::npos);
  EXPECT_TRUE(validity_of(RunFacts{}).phase.empty()) << "no filters, no bands";
}

}  // namespace
}  // namespace pacflow::report
