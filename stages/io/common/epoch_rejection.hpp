#pragma once
// Epochs that artefacts spoil, left out before a run: those overlapping annotations marked bad
// (MNE's reject_by_annotation: annotations whose text begins with "BAD", in any case) and those
// whose peak-to-peak amplitude exceeds a limit on some channel (MNE's reject=).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stages/io/common/recording_file.hpp"

namespace pacflow::stages {

// The annotations whose text (or alias) begins with one of `prefixes`, compared without regard to
// case.
std::vector<RecordingAnnotation> bad_annotations(const std::vector<RecordingAnnotation>& annotations,
                                                 const std::vector<std::string>& prefixes);

// The first of `bad` that overlaps the epoch of samples [start, start + length) at `fs`, by MNE's
// rule in seconds: onset < (start + length) / fs and onset + duration > start / fs. An annotation
// without a duration overlaps the epochs its onset lies strictly inside.
const RecordingAnnotation* overlapping_annotation(const std::vector<RecordingAnnotation>& bad, std::int64_t start,
                                                  std::int64_t length, double fs);

// Peak-to-peak amplitude (max - min) of `n` samples.
double peak_to_peak(const double* samples, std::int64_t n);

}  // namespace pacflow::stages
