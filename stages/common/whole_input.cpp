#include "stages/common/whole_input.hpp"

#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow::stages {

std::int64_t epochs_of(const StreamInfo& stream, const std::string& refusal) {
  if (stream.leading_names.empty() || stream.leading_names[0] != "epochs") throw InputError(refusal);
  return stream.leading_dims[0];
}

void warn_if_whole_input_is_large(PlanContext& ctx, const std::string& who, std::int64_t n_pha, std::int64_t n_amp,
                                  std::int64_t length) {
  const double bytes = static_cast<double>(ctx.stream().series_count() * (n_pha + n_amp) * length) * 4.0;
  if (bytes > 0x1p30)
    ctx.warn(fmt::format("{} holds the whole input in one batch: {:.1f} GiB of phase and amplitude", who, bytes / 0x1p30));
}

}  // namespace pacflow::stages
