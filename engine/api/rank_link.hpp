#pragma once
// A run split over several processes (MPI ranks, engine/run/batch_wire.hpp for what travels): rank r
// of `size` reads and computes the batches r, r + size, r + 2 size, … of the run, each on its own flow
// graph and devices; every rank but 0 hands each finished batch to rank 0, which takes them, with its
// own, in index order, and alone runs the run summaries and the sinks. So the outputs are the bytes a
// single process writes, and rank 0 holds a batch at a time of another rank's (each send waits for its
// receive: back-pressure). The link itself (MPI, shards written to disk and merged later, or threads
// in a test) is the caller's: the engine knows only this interface.
#include <cstdint>
#include <memory>
#include <stop_token>

#include "engine/api/batch.hpp"
#include "engine/api/params.hpp"

namespace pacflow {

class RankLink {
 public:
  virtual ~RankLink() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank but 0: hands a finished batch (its host tensors) to rank 0; returns once the batch may
  // be reused. Called serially, in the rank's index order.
  virtual void send(const Batch& batch) = 0;
  // Rank 0: the batch `index` from rank `from`, as sent. Called serially, in index order. Throws
  // RunCancelled soon after `stop` is requested (a signal while the other rank still computes).
  virtual Batch receive(std::int64_t index, int from, const std::stop_token& stop) = 0;
  // The rank that computes batch `index`.
  int owner(std::int64_t index) const { return static_cast<int>(index % size()); }
  // Whether this process collects: takes every other rank's batches and runs the summaries and sinks
  // (MPI's rank 0, a merge of shards); the others send.
  virtual bool collects() const { return rank() == 0; }
  // Where this process sits on its node: its rank among the node's processes of this run and their
  // number, which say which of the node's GPUs `cuda` names for it (DeviceShare,
  // engine/placement/devices.hpp).
  virtual int local_rank() const { return 0; }
  virtual int local_size() const { return 1; }
  // Every process's `mine` (the devices it runs on), in rank order, for the collecting process's
  // report; the others get null, as does every process of a link that does not gather (shards).
  virtual json gather(const json& /*mine*/) { return nullptr; }
  // What the link measured, for the collecting process's report (result.json's run.rank_transfers):
  // e.g. the bytes received and the time spent waiting for and taking them.
  virtual json report() const { return json::object(); }
  // Whether this process computes its rank's batches (a merge of shards computes none: it receives
  // every batch).
  virtual bool computes() const { return true; }
  // Called once the run is planned, on every process, with what identifies it (the engine's version,
  // the input and its checksum, every element's resolved parameters, the tensors) and the series the
  // collecting process's checkpoint resumes at (0 on the others, and without one). Returns the series
  // every process starts at: the collector's, since only it holds the checkpoint (so a run stopped on
  // N ranks resumes on any number). A link that stores batches records the plan, one that reads them
  // back or joins processes refuses a plan other than the collector's (throws InputError).
  virtual std::int64_t begin(const json& /*plan*/, std::int64_t resume_at) { return resume_at; }
};

}  // namespace pacflow
