#pragma once
// Epochs cut from one recording may share samples (step < epoch, event windows closer than their
// length). Epoch permutations (the trial-level test) need epochs that do not: the sources say
// which overlap, and which largest set of them does not (StreamInfo::epochs_not_exchangeable and
// exchangeable_epochs), in result.json's `epoching` too.
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/api/param_binding.hpp"
#include "engine/api/stage.hpp"

namespace pacflow::stages {

// `starts`: each epoch's first sample in the recording, in epoch order (any order in time);
// `length`: samples per epoch; `step`: the distance between starts when they are regular (said in
// the reason), else unset (event windows).
void describe_epoch_overlap(const std::vector<std::int64_t>& starts, std::int64_t length, double fs,
                            std::optional<std::int64_t> step, StreamInfo& info);

// `epoch_step=` of the array sources (npy, hdf5): the epochs of the array were cut from one
// recording this far apart; when closer than their length they overlap.
template <class E, class Field>
void declare_epoch_step(ParamBinder<E>& p, Field field) {
  p.optional(field, "epoch_step",
             "when the array's epochs were cut from one continuous recording: the distance between their starts "
             "(e.g. 2s for 4 s epochs every 2 s); epochs closer than their length overlap, and the trial-level test "
             "then permutes only epochs that do not")
      .unit("s, ms or smp");
}

// Applies epoch_step= to an array source's stream (epochs its leading dimension): ParamError when
// the array has no epochs axis (`epochs_axis`: its layout names one) or the step is not a positive
// whole number of samples.
void describe_array_epoch_step(const std::optional<Duration>& step, bool epochs_axis, StreamInfo& info);

}  // namespace pacflow::stages
