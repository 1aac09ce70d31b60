#pragma once
// What a methods section needs from a run's report (result.json), read once into types: the input,
// the preprocessing, the filters, the measure, the surrogates, the trial-level test and its family,
// event-related PAC and the software. The report is the only place these are read from JSON; the
// writers (methods_text.hpp, significance.hpp) take this struct.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pacflow::report {

using json = nlohmann::json;

struct InputFacts {
  std::string source;  // synthetic, npy, edf, hdf5, array
  std::string path;    // the file read, when there is one
  std::string format;  // edf: "EDF+", "BDF"…
  std::int64_t epochs = 1;
  std::int64_t channels = 1;
  std::int64_t segments = 1;     // [E][C][S][T] inputs
  std::int64_t samples = 0;      // per series, without the padding
  std::int64_t pad_samples = 0;  // context read on either side and dropped after the filters
  double sample_rate_hz = 0;
  std::vector<std::string> channel_labels;
  std::string epoching;                 // edf: "fixed windows", "event windows", "whole recording"
  std::int64_t epoch_step_samples = 0;  // fixed windows
  std::vector<std::string> events;      // event windows: the annotations
  double window_start_s = 0, window_end_s = 0;
  std::int64_t rejected_epochs = 0;
  std::int64_t overlapping_pairs = 0;
  struct Condition {
    std::string name;
    std::int64_t epochs = 0;
  };
  std::vector<Condition> conditions;   // two event types or more
  std::optional<double> f_pha, f_amp;  // synthetic: the coupled rhythms
  std::string model;                   // synthetic
  std::optional<double> seconds;
};

struct PreprocessingFacts {
  std::string name;  // notch, reref
  json params;       // its resolved parameters
};

struct BandSet {
  std::vector<std::array<double, 2>> edges;
  std::vector<double> centres;
  std::vector<std::int64_t> orders;  // filter orders (bandpass), empty for given bands
  double cycles = 0;
};

struct FilterFacts {
  bool given = false;  // given_bands: phases and amplitudes computed elsewhere
  std::string design;  // "fir1 (Hamming), filtfilt padtype=odd padlen=order"
  BandSet phase, amplitude;
  std::string hilbert_pad;  // fast, none ("" without a hilbert stage)
  std::int64_t fft_length = 0;
};

struct MeasureFacts {
  std::string method;  // tort, mvl, ndpac, plv, hr, gc
  int bins = 18;
  double ndpac_p = 0.05;
  bool gc_unbiased = false;
  std::string pairs = "diag";   // diag, all, or a list
  std::int64_t pair_count = 0;  // rows of [E][pair] outputs, pairs other than diag
  bool envelope_phase = false;  // plv's envelope_phase stage ran
};

struct SurrogateFacts {
  std::string method;  // timeshift, timelag, swap_trials
  std::int64_t n = 0;
  std::int64_t seed = 0;
  std::int64_t min_shift_samples = 0;
  std::string min_shift;         // as given ("1s"), empty for the default rule
  bool explicit_shifts = false;  // shifts=[…]
  std::string norm = "z";        // z, subtract, divide, both
  double p_floor = 0;            // 1 / (n + 1)
};

struct TrialFacts {
  std::string test;                  // maxstat, maxstat_raw, fdr, bonferroni, uncorrected
  std::string family = "cells";      // cells: each channel's cells; channels: every channel's cells jointly
  std::int64_t epochs = 0;           // the epochs the test used
  std::int64_t left_out_epochs = 0;  // overlapping epochs it left out (the rest do not overlap)
  std::int64_t block = 0;
  std::int64_t permutations = 0;  // drawn, or every ordering but the observed one when `exhaustive`
  bool exhaustive = false;        // few orderings: each one once, an exact test
  double p_floor = 0;
  std::vector<std::string> conditions;  // two or more event types
  // What the contrast of two conditions compares (result.json's contrast_statistic): "welch_z"
  // (Welch's t of the epochs' pac_z), or "mean" (the means of the measure, in earlier versions).
  std::string contrast = "mean";
  double contrast_p_floor = 0;  // its smallest p-value (0: not recorded)
};

struct ErpacFacts {
  std::string correction;  // fdr, bonferroni, none
};

struct SoftwareFacts {
  std::string version;
  std::string commit;
  std::string describe;
};

struct RunFacts {
  InputFacts input;
  std::vector<PreprocessingFacts> preprocessing;
  std::optional<FilterFacts> filters;
  std::optional<MeasureFacts> measure;
  std::optional<SurrogateFacts> surrogates;
  std::optional<TrialFacts> trial;  // only when the trial-level test ran
  std::optional<ErpacFacts> erpac;
  SoftwareFacts software;
  double alpha = 0.05;          // the level the png sink outlines at (0.05 without one)
  std::int64_t cells() const;   // phase bands × amplitude bands
  std::int64_t panels() const;  // channels, or channel pairs
};

// Reads `report` (a run's result.json, or Result.report in Python). Throws InputError naming the
// missing or mistyped member ("result.json: input.shape is missing") when it is not a run's report.
RunFacts read_run_facts(const json& report);

}  // namespace pacflow::report
