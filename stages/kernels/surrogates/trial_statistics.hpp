#pragma once
// Trial-level statistics (spec §6.4): the mean over epochs of each channel's (pair's, segment's)
// measure, tested against epoch permutations: surrogate k of the mean pairs each epoch's phase with
// the amplitude of another epoch of its block (B consecutive epochs, permuted by (seed, k, block)).
// Under the null (phase and amplitude independent, epochs exchangeable) the observed mean is one
// more draw of the same distribution, so the test is exact; per-series time-shift surrogates are
// not (spec §6.4 gives the measurements), and a mean over epochs would compound their bias. Sums
// are taken in series order in double, so the result does not depend on the batch size. With
// several conditions (events=[a, b]) the test is made per condition (epochs pair within their
// condition), and with two, their difference is tested against permutations of the condition labels.
#include <filesystem>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/api/stage.hpp"
#include "stages/common/tensor_names.hpp"

namespace pacflow::surrogates {

// How the p-value of the trial mean is corrected across a family's cells (band pairs of one channel,
// or of every channel: TrialFamily). Maxstat is the max-T procedure: each cell's mean standardised
// by its own permutations (its z), against the largest such z of each permutation over the
// family's cells, so cells whose measure is biased upward
// (wide bands, short series) do not drown the others. MaxstatRaw takes the maximum of the raw
// means instead, as TensorPAC's infer_pvalues(mcp="maxstat") does.
enum class TrialTest { None, Uncorrected, Maxstat, MaxstatRaw, Fdr, Bonferroni };
const char* trial_test_name(TrialTest test);

// Which p-values one correction covers. Channels (the default): every group's cells together (the
// channels', pairs' or segments' of a condition), for "is there coupling anywhere"; the epoch and
// label permutations are the same for every group, so max-T over them all keeps the family-wise
// error whatever the groups' correlation. Cells: each group's cells apart (one family per channel).
enum class TrialFamily { Channels, Cells };
const char* trial_family_name(TrialFamily family);

struct TrialLayout {
  RowLayout rows;           // of the measure's rows (one per series, or per pair of a group)
  std::int64_t epochs = 0;  // the leading dimension of those rows
  std::int64_t groups = 0;  // rows per epoch: channels (× segments) or pairs
  std::int64_t n_perm = 0;
  Shape cells;  // {n_pha, n_amp}
  TrialTest test = TrialTest::Maxstat;
  std::vector<std::int64_t> excluded_series;   // the source's stand-ins (NaN rows): left out of the means
  std::int64_t conditions = 1;                 // StreamInfo::condition_names, at least one
  std::vector<std::int64_t> epoch_conditions;  // per epoch (empty: all in condition 0)
  std::uint64_t seed = 42;                     // of the epoch and condition-label permutations
  std::int64_t block = 8;                      // epochs per block (the last block may be shorter)
  TrialFamily family = TrialFamily::Channels;
  // Every ordering of the epochs within their blocks instead of n_perm random ones (then n_perm is
  // their number less the observed one): an exact test when they are few (four epochs: 24). One
  // condition, no excluded series (left-out epochs are fine).
  bool enumerate = false;
  // Epochs the test leaves out (ascending): those that overlap in time with the ones it keeps
  // (StreamInfo::exchangeable_epochs), so that every pairing it permutes is of disjoint samples.
  std::vector<std::int64_t> left_out_epochs;
  // What the test may keep of the permutations' sums ([conditions][groups][n_perm + 1][cells]),
  // and of a family's values at the finish, in bytes. Beyond it, when each block's pairings take
  // less, the test keeps those instead and computes the permutations' sums again at the finish a
  // chunk of permutations at a time (same order of additions, so the same bits): its memory then
  // does not grow with n_perm. A contrast's statistics are chunked alike.
  double state_limit_bytes = 256.0 * (1 << 20);
};

// How the test keeps its state (TrialLayout::state_limit_bytes says which), and the bytes it holds
// at most: what it keeps between batches, and with the finish's chunks.
bool keeps_pairings(const TrialLayout& layout);
double trial_sums_bytes(const TrialLayout& layout);  // what the sums would take
double trial_state_bytes(const TrialLayout& layout);
double trial_peak_bytes(const TrialLayout& layout);

// The summary tensors, float32 [conditions (when several)][groups][n_pha][n_amp], and with two
// conditions the contrast's [groups][n_pha][n_amp]. The contrast compares each epoch's z against
// its own surrogates (the batch's pac_z), not its measure, so a condition whose amplitude has more
// power (which moves the measure's null level) does not make a contrast by itself (issue 36).
// Kept per measure row: [block][n_pha][n_amp] float64, the measure of the row's phase with the
// amplitude of its group in each epoch of its block (NaN past a short last block).
inline constexpr const char* kTrialPairingsTensor = "trial_pairings";
inline constexpr const char* kEpochZ = stages::tensors::kPacZ;  // read per row, with two conditions
inline constexpr const char* kTrialPac = "trial_pac";
inline constexpr const char* kTrialZ = "trial_z";
inline constexpr const char* kTrialPvalues = "trial_pvalues";
inline constexpr const char* kTrialRankZ = "trial_rank_z";
inline constexpr const char* kContrastPac = "contrast_pac";
inline constexpr const char* kContrastZ = "contrast_z";
inline constexpr const char* kContrastPvalues = "contrast_pvalues";

class TrialStatistics final : public RunSummary {
 public:
  explicit TrialStatistics(TrialLayout layout);
  void add(const Batch& batch) override;
  void finish(Batch& out) override;
  void resume(const std::filesystem::path& dir, const json& state, std::int64_t series_done) override;
  json checkpoint() override;

 private:
  bool left_out(std::int64_t epoch) const;
  bool excluded_row(std::int64_t row) const;
  std::int64_t condition_of(std::int64_t epoch) const;
  // The epochs of [first, last) (a block) that one condition's group takes part with, into `out`.
  void block_epochs(std::int64_t first, std::int64_t last, std::int64_t condition, std::int64_t group,
                    std::vector<std::int64_t>& out) const;
  // Arrangement k's ordering of the m epochs of the block starting at epoch `first` (k > 0: the
  // permutation k - 1, or ordering k of them all when enumerating), into `out`.
  void ordering(std::uint64_t key, std::int64_t first, std::int64_t k, std::int64_t m, std::int64_t* out) const;
  // Adds the observed and permuted pairings of one group in the block of epochs [first, last);
  // throws RunCancelled soon after `stop` is requested.
  void add_block(const double* pairings, std::int64_t first_row, std::int64_t group, std::int64_t first,
                 std::int64_t last, const std::stop_token& stop);
  // The means of arrangements [first, last) of one slot (condition · groups + group) into
  // out [last - first][cells], from the kept pairings, each summed as add_block sums it.
  void permuted_means(std::int64_t slot, std::int64_t first, std::int64_t last, double* out,
                      const std::stop_token& stop) const;
  // Welch's t of the conditions' mean z of one group for arrangements [first, last) of [0, n_perm]
  // (0: observed), into statistics [last - first][cells], and with arrangement 0 the observed
  // difference of those means [cells].
  void contrast(std::int64_t group, std::int64_t first, std::int64_t last, double* statistics, double* difference,
                const std::stop_token& stop) const;
  // The groups tested together (one family each).
  std::vector<std::vector<std::int64_t>> families() const;
  // Arrangements per chunk of a family of `groups` groups at the finish.
  std::int64_t rows_per_chunk(std::size_t groups) const;
  // What a checkpoint records of the sums (or pairings) after `rows` measure rows.
  std::span<double> kept(std::int64_t rows);

  TrialLayout layout_;
  bool keeps_pairings_ = false;
  std::int64_t row_values_ = 0;       // (n_perm + 1) · cells: the observed mean's sums, then each permutation's
  std::vector<double> sums_;          // [conditions][groups][n_perm + 1][cells], unless keeps_pairings_
  std::vector<double> pairings_;      // keeps_pairings_: [epochs · groups][block][cells], each row's with its block
  std::vector<std::int64_t> counts_;  // epochs summed per condition and group
  std::vector<double> observed_;      // two conditions: [epochs][groups][cells], each epoch's z
  std::int64_t rows_seen_ = 0;
  std::vector<std::int64_t> excluded_groups_;  // row groups (rows.group series each) holding an excluded series
  std::vector<std::uint64_t> orderings_before_;  // enumerate: the orderings of the blocks before each block
  std::vector<std::uint64_t> block_orderings_;   // and of each block (m!)
  std::filesystem::path dir_;                  // checkpointed runs: sums-0.bin and sums-1.bin in turn
  int last_file_ = 1;
};

}  // namespace pacflow::surrogates
