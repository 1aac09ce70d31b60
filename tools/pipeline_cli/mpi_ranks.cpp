// start_ranks with MPI: every batch travels from its rank to rank 0 as one message of its encoded
// bytes (engine/run/batch_wire.hpp), sent and received in index order; MPI's ordering between two
// ranks keeps them matched. Sends block until rank 0 receives (MPI_Ssend): back-pressure, so rank 0
// never holds more than the batch it takes.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <fmt/format.h>
#include <iterator>
#include <mpi.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/run/batch_wire.hpp"
#include "tools/pipeline_cli/ranks.hpp"

namespace pacflow::cli {

namespace {

constexpr int kBatchTag = 17;
// The parts of a run's plan (engine/api/rank_link.hpp), as a user would name them.
constexpr const char* kPlanKeys[] = {"version", "input", "pipeline", "tensors", "batch_series"};
constexpr const char* kPlanParts[] = {"pacflow version", "input (or its checksum)",
                                      "pipeline (an element or a parameter)", "tensors",
                                      "batch size (--batch, or what its GPUs' memory allows)"};
constexpr int kPlanPartCount = static_cast<int>(std::size(kPlanKeys));
static_assert(std::size(kPlanParts) == std::size(kPlanKeys));

void check(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw std::runtime_error(fmt::format("MPI {}: {}", what, std::string(text, static_cast<std::size_t>(length))));
}

// Every rank's bytes, in rank order, on rank 0 (empty elsewhere).
std::vector<std::string> gather_text(const std::string& mine, int rank, int size) {
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "gather");
  std::string all;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    all.resize(static_cast<std::size_t>(offsets.back() + lengths.back()));
  }
  check(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "gather");
  std::vector<std::string> texts;
  if (rank == 0)
    for (int r = 0; r < size; ++r) texts.push_back(all.substr(offsets[r], lengths[r]));
  return texts;
}

using Clock = std::chrono::steady_clock;

// What rank 0 spent on the other ranks' batches: waiting for each to arrive (the other rank still
// computing it), and taking it (MPI_Recv and decoding): the transfer's own cost.
struct Transfers {
  std::int64_t batches = 0;
  double bytes = 0;
  Clock::duration waiting{}, taking{};

  void add(std::size_t batch_bytes, Clock::duration waited, Clock::duration took) {
    ++batches;
    bytes += static_cast<double>(batch_bytes);
    waiting += waited;
    taking += took;
  }
  json to_json() const {
    const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
    return {{"batches", batches}, {"bytes", bytes}, {"waiting_s", seconds(waiting)}, {"receiving_s", seconds(taking)}};
  }
};

class MpiLink final : public RankLink {
 public:
  MpiLink() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "size");
    // The ranks on this node (the processes that share its memory): what Open MPI's
    // OMPI_COMM_WORLD_LOCAL_RANK and SLURM's SLURM_LOCALID number, from MPI itself.
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "node split");
    check(MPI_Comm_rank(node, &local_rank_), "local rank");
    check(MPI_Comm_size(node, &local_size_), "local size");
    MPI_Comm_free(&node);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    check(MPI_Get_processor_name(name, &length), "processor name");
    host_.assign(name, static_cast<std::size_t>(length));
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  json report() const override { return received_.to_json(); }

  json gather(const json& mine) override {
    json entry = mine;
    entry["host"] = host_;
    const std::vector<std::string> texts = gather_text(entry.dump(), rank_, size_);
    if (rank_ != 0) return nullptr;
    json all = json::array();
    for (const auto& text : texts) all.push_back(json::parse(text));
    return all;
  }

  void send(const Batch& batch) override {
    const std::vector<std::byte> bytes = detail::encode_batch(batch);
    if (bytes.size() > static_cast<std::size_t>(INT_MAX))
      throw InputError(fmt::format("batch {} holds {:.1f} GiB of results, more than one MPI message carries (2 GiB); "
                                   "run with a smaller --batch",
                                   batch.index, static_cast<double>(bytes.size()) / 0x1p30));
    check(MPI_Ssend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kBatchTag, MPI_COMM_WORLD), "send");
  }

  // Rank 0's plan and resume point go to every rank; a rank that planned another run (a file that
  // differs between nodes, another build) stops the job before any batch, named by every rank alike.
  std::int64_t begin(const json& plan, std::int64_t resume_at) override {
    std::string text = plan.dump();
    std::int64_t header[2] = {static_cast<std::int64_t>(text.size()), resume_at};
    check(MPI_Bcast(header, 2, MPI_INT64_T, 0, MPI_COMM_WORLD), "broadcast");
    text.resize(static_cast<std::size_t>(header[0]));
    check(MPI_Bcast(text.data(), static_cast<int>(header[0]), MPI_CHAR, 0, MPI_COMM_WORLD), "broadcast");
    const json rank0_plan = json::parse(text);
    constexpr int kNone = INT_MAX;
    int mine = kNone;  // rank * kPlanPartCount + the first part of the plan that differs from rank 0's
    for (int part = 0; part < kPlanPartCount && mine == kNone; ++part)
      if (plan.value(kPlanKeys[part], json()) != rank0_plan.value(kPlanKeys[part], json()))
        mine = rank_ * kPlanPartCount + part;
    int first = kNone;
    check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "reduction");
    if (first != kNone)
      throw InputError(fmt::format("rank {} planned another run than rank 0: its {} differs; every rank must plan "
                                   "the same run (the same pipeline, parameters, input files and batch sizes on "
                                   "every node)",
                                   first / kPlanPartCount, kPlanParts[first % kPlanPartCount]));
    return header[1];
  }

  Batch receive(std::int64_t index, int from, const std::stop_token& stop) override {
    // Polled rather than waited for, so that a signal stops rank 0 while the other rank computes:
    // every 10 µs at first (a batch due soon is taken at once: at 200 µs, the latency cost 4 ranks of
    // 8 modelled GPUs a third of their speed, bench/README.md), backing off to 200 µs over a long wait.
    const Clock::time_point asked = Clock::now();
    MPI_Status status;
    for (auto pause = std::chrono::microseconds(10);; pause = std::min(2 * pause, std::chrono::microseconds(200))) {
      int arrived = 0;
      check(MPI_Iprobe(from, kBatchTag, MPI_COMM_WORLD, &arrived, &status), "probe");
      if (arrived) break;
      if (stop.stop_requested()) throw RunCancelled(index);
      std::this_thread::sleep_for(pause);
    }
    const Clock::time_point arrived = Clock::now();
    int size = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &size), "count");
    std::vector<std::byte> bytes(static_cast<std::size_t>(size));
    check(MPI_Recv(bytes.data(), size, MPI_BYTE, from, kBatchTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "receive");
    Batch batch = detail::decode_batch(bytes.data(), bytes.size());
    received_.add(bytes.size(), arrived - asked, Clock::now() - arrived);
    if (batch.index != index)
      throw std::logic_error(fmt::format("rank {} sent batch {} where batch {} was due", from, batch.index, index));
    return batch;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  std::string host_;
  Transfers received_;
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
