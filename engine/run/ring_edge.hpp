#pragma once
// The producer end of a ring: takes the batches of the segment before it, in index order, and
// copies the tensors that cross into ring slots, re-cut to the ring's batch size. A downstream
// batch leaves when its slot is full (or holds the stream's last series); an upstream batch is
// handed back once every row of it has been copied.
//
// Not thread-safe: the executor drives it from one serial node, feeding it upstream batches and
// the news that a slot was given back.
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "engine/api/batch.hpp"
#include "engine/run/ring.hpp"

namespace pacflow {

class RingEdge {
 public:
  using BatchPtr = std::shared_ptr<Batch>;
  // Carries series [first_series, end_series) of the stream (a resumed run starts past 0). A rank of
  // `ranks` (engine/api/rank_link.hpp) carries batches rank, rank + ranks, … of it, which the rings
  // of a run over ranks pass on whole: every segment's batches are then the same size.
  RingEdge(Ring& ring, std::int64_t first_series, std::int64_t end_series, int rank = 0, int ranks = 1);

  struct Step {
    std::vector<BatchPtr> ready;     // downstream batches, in index order
    std::vector<BatchPtr> consumed;  // upstream batches fully copied, in index order
  };
  // Queues `upstream` (the next in index order), or nothing when null (a slot came free), and
  // copies as far as free slots allow. Throws what the ring throws when it is full (Fail).
  Step feed(BatchPtr upstream);

  std::int64_t batch_count() const;  // downstream batches in the whole run
  bool blocked() const { return !pending_.empty(); }  // waiting for a slot

 private:
  bool open_next();  // takes a slot for the next downstream batch; false when none is free

  Ring& ring_;
  std::int64_t first_series_;
  std::int64_t end_series_;
  std::deque<BatchPtr> pending_;  // upstream batches not yet fully copied
  std::int64_t pending_row_ = 0;  // rows of pending_.front() already copied
  BatchPtr open_;                 // the downstream batch being filled
  std::int64_t open_rows_ = 0;
  int ranks_;
  std::int64_t next_index_;
};

}  // namespace pacflow
