#pragma once
// `pad=` of the file sources: context samples at each end of every series, filtered with it and
// cropped by the hilbert stage (StreamInfo::pad), so short windows keep their full filters.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "engine/api/param_binding.hpp"

namespace pacflow::stages {

// Declares the parameter on a source's binder, bound to `field` (a std::optional<Duration>: unset
// means no padding), with what the padding is for this source.
template <class E, class Field>
void declare_pad(ParamBinder<E>& p, Field field, std::string doc) {
  p.optional(field, "pad", std::move(doc)).unit("s, ms or smp");
}

// pad= in samples at `fs` (0 when not given). Throws ParamError("pad", …) when it is not at least
// one sample, or when `series_length` samples would keep fewer than 2 once both ends are cropped
// (`series_length` < 0: no such check).
std::int64_t pad_samples(const std::optional<Duration>& pad, double fs, std::int64_t series_length);

}  // namespace pacflow::stages
