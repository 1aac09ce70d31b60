#pragma once
// Internal to the executor: the fork and join around a branch group (engine/plan/branches.hpp).
//
//            ┌─► branch 1 (a stage's node) ─┐
//   fork ────┼─► branch 2 ──────────────────┼─► join ─► next
//            └─► branch k ──────────────────┘
//
// The fork gives each branch its own batch: the same series, with views of the batch's tensors (no
// copy), so the branches never touch one map at once. The join moves what each branch wrote into
// the batch, and once the last branch is back drops what the group was the last to read and sends
// the batch on. The batch's token (its place in flight, its ring slot) stays with it throughout.
//
// Not oneTBB's split_node and join_node (key_matching on the batch index): their ports are a tuple,
// one per branch, fixed when the program is compiled, while a group's branch count comes from the
// pipeline file. The fork and the join are a function_node and a multifunction_node around this.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/run/run_support.hpp"

namespace pacflow::detail {

class BranchJoin {
 public:
  // `drops`: the tensors the group's members are the last to read.
  BranchJoin(std::size_t branches, std::vector<std::string> drops);

  // One batch per branch, over the tensors of `batch`, which waits for them.
  std::vector<BatchPtr> fork(BatchPtr batch);
  // Takes a branch's batch back: returns the whole batch once every branch has come back, else null.
  BatchPtr join(BatchPtr branch);

 private:
  struct Waiting {
    BatchPtr batch;
    std::size_t left = 0;
    std::map<std::string, const std::byte*> given;  // the views each branch got, by where they point
  };
  std::size_t branches_;
  std::vector<std::string> drops_;
  std::mutex mutex_;
  std::map<std::int64_t, Waiting> waiting_;  // by batch index (unique within the segment)
};

}  // namespace pacflow::detail
