#pragma once
// Preprocessing stages (notch, reref, evoked): they transform the source's series as they are read, before
// any other stage runs. A transform works on single series, or on whole epochs (a montage combines
// the channels of an epoch, and may change them: a bipolar montage has a channel per pair).
#include <cstdint>

#include "engine/api/stage.hpp"

namespace pacflow {

class Transform {
 public:
  virtual ~Transform() = default;
  // The stream after the transform, made from the one before (labels, series left out and
  // description carried over or remade; series_length and pad unchanged). Checks the parameters
  // against `before` and fills `resolved`. Throws InputError (ParamError naming a parameter).
  virtual StreamInfo plan(const StreamInfo& before, json& resolved) = 0;
  // True when apply() needs whole epochs (every series of an epoch), false for single series.
  virtual bool per_epoch() const = 0;
  // Transforms `count` units (epochs when per_epoch(), else series) from unit `first` on: `in` holds
  // them as the stream before lays them out, `out` receives them as the stream after does. `in` may
  // be `out` when a unit holds as many series after as before. Called serially, from the source's
  // reads; may use threads inside.
  virtual void apply(const float* in, float* out, std::int64_t first, std::int64_t count) const = 0;
  // Host memory apply() keeps beside the batches (an upper bound), valid after plan().
  virtual double host_workspace_bytes() const { return 0; }
  // True when apply() needs the whole input first (the evoked response: a mean over epochs). The
  // run then passes every series of the stream before through learn(), in order and in batches of
  // whole epochs, before its first read; validate() does not.
  virtual bool learns() const { return false; }
  virtual void learn(const float* /*in*/, std::int64_t /*first*/, std::int64_t /*count*/) {}
};

}  // namespace pacflow
