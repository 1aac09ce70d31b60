#pragma once
// A BIDS events file (…_events.tsv beside a recording): onset and duration of each event in seconds
// from the start of the recording, and its trial_type, read as the recording's annotations (the
// recording sources' events_file=, stages/io/common/recording_source.hpp). Rows whose trial_type is
// n/a name no event and are skipped; a duration of n/a is an instant.
#include <filesystem>
#include <vector>

#include "stages/io/common/recording_file.hpp"

namespace pacflow::stages {

// Throws MissingFileError or InputError naming the file (and its line): no onset or trial_type
// column, an onset that is not a number (n/a included), a duration that is not a number >= 0 or n/a.
std::vector<RecordingAnnotation> read_events_tsv(const std::filesystem::path& path);

}  // namespace pacflow::stages
