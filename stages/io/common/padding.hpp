#pragma once
// `pad=` of the file sources: context samples at each end of every series, filtered with it and
// cropped by the hilbert stage (StreamInfo::pad), so short windows keep their full filters.
#include <cstdint>
#include <optional>
#include <string>

#include "engine/api/params.hpp"

namespace pacflow::stages {

// The parameter, with what the padding is for this source.
ParamSpec pad_param(const std::string& doc);

// pad= in samples at `fs` (0 when not given). Throws ParamError("pad", …) when it is not at least
// one sample, or when `series_length` samples would keep fewer than 2 once both ends are cropped
// (`series_length` < 0: no such check).
std::int64_t pad_samples(const std::optional<Duration>& pad, double fs, std::int64_t series_length);

}  // namespace pacflow::stages
