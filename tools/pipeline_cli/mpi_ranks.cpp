// start_ranks with MPI: every batch travels from its rank to rank 0 as one message of its encoded
// bytes (engine/run/batch_wire.hpp), sent and received in index order; MPI's ordering between two
// ranks keeps them matched. Sends block until rank 0 receives (MPI_Ssend): back-pressure, so rank 0
// never holds more than the batch it takes.
#include <chrono>
#include <climits>
#include <thread>
#include <cstdlib>
#include <optional>
#include <fmt/format.h>
#include <mpi.h>
#include <stdexcept>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/run/batch_wire.hpp"
#include "tools/pipeline_cli/ranks.hpp"

namespace pacflow::cli {

namespace {

constexpr int kBatchTag = 17;

void check(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw std::runtime_error(fmt::format("MPI {}: {}", what, std::string(text, static_cast<std::size_t>(length))));
}

class MpiLink final : public RankLink {
 public:
  MpiLink() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "size");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void send(const Batch& batch) override {
    const std::vector<std::byte> bytes = detail::encode_batch(batch);
    if (bytes.size() > static_cast<std::size_t>(INT_MAX))
      throw InputError(fmt::format("batch {} holds {:.1f} GiB of results, more than one MPI message carries (2 GiB); "
                                   "run with a smaller --batch",
                                   batch.index, static_cast<double>(bytes.size()) / 0x1p30));
    check(MPI_Ssend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kBatchTag, MPI_COMM_WORLD), "send");
  }

  Batch receive(std::int64_t index, int from, const std::stop_token& stop) override {
    // Polled rather than waited for, so that a signal stops rank 0 while the other rank computes.
    MPI_Status status;
    for (int arrived = 0;;) {
      check(MPI_Iprobe(from, kBatchTag, MPI_COMM_WORLD, &arrived, &status), "probe");
      if (arrived) break;
      if (stop.stop_requested()) throw RunCancelled(index);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    int size = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &size), "count");
    std::vector<std::byte> bytes(static_cast<std::size_t>(size));
    check(MPI_Recv(bytes.data(), size, MPI_BYTE, from, kBatchTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "receive");
    Batch batch = detail::decode_batch(bytes.data(), bytes.size());
    if (batch.index != index)
      throw std::logic_error(fmt::format("rank {} sent batch {} where batch {} was due", from, batch.index, index));
    return batch;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

class MpiRanks final : public Ranks {
 public:
  MpiRanks() {
    int provided = 0;
    // Each rank's engine calls MPI from one thread at a time (its delivery node, then its main thread).
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "initialisation");
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throw std::runtime_error("this MPI library cannot be called from several threads in turn "
                               "(MPI_THREAD_SERIALIZED)");
    }
    link_.emplace();
  }
  ~MpiRanks() override { MPI_Finalize(); }
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  RankLink& link() override { return *link_; }
  [[noreturn]] void abort_job(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; should it, end this process anyway
  }

 private:
  std::optional<MpiLink> link_;
};

}  // namespace

std::unique_ptr<Ranks> start_ranks() {
  if (launched_processes() <= 1) return nullptr;  // alone: MPI is never touched
  return std::make_unique<MpiRanks>();
}

}  // namespace pacflow::cli
