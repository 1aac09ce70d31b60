// A run split over ranks (engine/api/rank_link.hpp), with the ranks as threads of this process and a
// link between them that carries each batch's encoded bytes (engine/run/batch_wire.hpp) as MPI does
// for pipeline_cli: every rank count writes the single run's bytes.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/rank_link.hpp"
#include "engine/run/batch_wire.hpp"
#include "stages/builtin.hpp"

namespace pacflow {
namespace {

namespace fs = std::filesystem;

// What the threads of one job share: each rank's batches in flight to rank 0, one at a time.
class ThreadJob {
 public:
  explicit ThreadJob(int size) : queues_(static_cast<std::size_t>(size)) {}
  void put(int from, std::vector<std::byte> bytes) {
    std::unique_lock lock(mutex_);
    wait(lock, [&] { return queues_[from].empty(); });  // the send returns once the last one was taken
    queues_[from].push_back(std::move(bytes));
    changed_.notify_all();
  }
  std::vector<std::byte> take(int from) {
    std::unique_lock lock(mutex_);
    wait(lock, [&] { return !queues_[from].empty(); });
    std::vector<std::byte> bytes = std::move(queues_[from].front());
    queues_[from].pop_front();
    changed_.notify_all();
    return bytes;
  }
  // Rank 0's plan and resume point, which the other ranks wait for (MPI_Bcast's part).
  void post_start(json plan, std::int64_t resume_at) {
    const std::lock_guard lock(mutex_);
    start_ = {std::move(plan), resume_at};
    changed_.notify_all();
  }
  std::pair<json, std::int64_t> start() {
    std::unique_lock lock(mutex_);
    wait(lock, [&] { return start_.has_value(); });
    return *start_;
  }
  // Every rank's `mine`, for rank 0 (MPI_Gather's part).
  json gather(int rank, const json& mine) {
    std::unique_lock lock(mutex_);
    gathered_.push_back({{"from", rank}, {"mine", mine}});
    changed_.notify_all();
    if (rank != 0) return nullptr;
    wait(lock, [&] { return gathered_.size() == queues_.size(); });
    json all = json::array();
    for (int r = 0; r < static_cast<int>(queues_.size()); ++r)
      for (const json& g : gathered_)
        if (g["from"] == r) all.push_back(g["mine"]);
    return all;
  }
  void fail() {
    const std::lock_guard lock(mutex_);
    failed_ = true;
    changed_.notify_all();
  }

 private:
  template <class Ready>
  void wait(std::unique_lock<std::mutex>& lock, Ready ready) {
    if (!changed_.wait_for(lock, std::chrono::seconds(60), [&] { return failed_ || ready(); }) || failed_)
      throw std::runtime_error("another rank failed or the job stalled");
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::deque<std::vector<std::byte>>> queues_;
  std::optional<std::pair<json, std::int64_t>> start_;
  std::vector<json> gathered_;
  bool failed_ = false;
};

class ThreadLink final : public RankLink {
 public:
  ThreadLink(ThreadJob& job, int rank, int size) : job_(job), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::int64_t begin(const json& plan, std::int64_t resume_at) override {
    if (rank_ == 0) job_.post_start(plan, resume_at);
    const auto [rank0_plan, start] = job_.start();
    if (plan != rank0_plan) throw InputError(fmt::format("rank {} planned another run than rank 0", rank_));
    return start;
  }
  int local_rank() const override { return rank_; }  // every thread on this one node
  int local_size() const override { return size_; }
  json gather(const json& mine) override { return job_.gather(rank_, mine); }
  void send(const Batch& batch) override { job_.put(rank_, detail::encode_batch(batch)); }
  Batch receive(std::int64_t index, int from, const std::stop_token&) override {
    const std::vector<std::byte> bytes = job_.take(from);
    Batch batch = detail::decode_batch(bytes.data(), bytes.size());
    EXPECT_EQ(batch.index, index);
    return batch;
  }

 private:
  ThreadJob& job_;
  int rank_, size_;
};

using Elements = std::vector<ElementSpec>;

Pipeline pipeline_of(const Elements& elements, const fs::path& out) {
  Pipeline pipeline(stages::builtin_registry());
  for (const auto& e : elements) pipeline.add(e);
  pipeline.redirect_outputs(out.string());
  return pipeline;
}

// What a test adds to a rank's options (its rank given).
using RankOptions = std::function<void(RunOptions&, int)>;

// Runs `elements` as a job of `size` ranks (threads); rank 0 writes into `out`. Returns the ranks'
// reports, or rethrows the first rank's error.
std::vector<json> run_job(const Elements& elements, int size, const fs::path& out, std::int64_t batch = 0,
                          const RankOptions& rank_options = {}) {
  ThreadJob job(size);
  std::vector<ThreadLink> links;
  for (int r = 0; r < size; ++r) links.emplace_back(job, r, size);
  std::vector<json> reports(static_cast<std::size_t>(size));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(size));
  std::vector<std::thread> ranks;
  for (int r = 0; r < size; ++r)
    ranks.emplace_back([&, r] {
      try {
        RunOptions options;
        options.ranks = &links[static_cast<std::size_t>(r)];
        options.batch_size = batch;
        if (rank_options) rank_options(options, r);
        reports[static_cast<std::size_t>(r)] = pipeline_of(elements, out).run(options).to_json();
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
        job.fail();
      }
    });
  for (auto& t : ranks) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return reports;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

const Elements kTrialPipeline = {
    {ElementKind::Source, "synthetic", {{"epochs", 12}, {"channels", 3}, {"n_times", 1024}, {"fs", 256}, {"seed", 4}}, {}, {}},
    {ElementKind::Stage, "bandpass", {{"pha", "4:12:3"}, {"amp", "60:100:3"}}, {}, {}},
    {ElementKind::Stage, "hilbert", json::object(), {}, {}},
    {ElementKind::Stage, "mi", json::object(), {}, {}},
    {ElementKind::Stage, "surrogates", {{"n", 30}, {"trial_block", 4}}, {}, {}},
    {ElementKind::Sink, "npy", {{"dir", "x"}}, {}, {}},
    {ElementKind::Sink, "png", {{"path", "x/comodulogram.png"}}, {}, {}},
};

const Elements kPairsPipeline = {
    {ElementKind::Source, "synthetic", {{"epochs", 6}, {"channels", 3}, {"n_times", 768}, {"fs", 256}, {"seed", 9}}, {}, {}},
    {ElementKind::Stage, "bandpass", {{"pha", "4:8:2"}, {"amp", "60:90:2"}}, {}, {}},
    {ElementKind::Stage, "hilbert", json::object(), {}, {}},
    {ElementKind::Stage, "mi", {{"pairs", "all"}, {"method", "mvl"}}, {}, {}},
    {ElementKind::Stage, "surrogates", {{"n", 20}, {"method", "swap_trials"}, {"gain_confound", "warn"}}, {}, {}},
    {ElementKind::Sink, "npy", {{"dir", "x"}}, {}, {}},
};

// Every file in `single` has the same bytes in `out`; result.json the same apart from what describes
// the run (timings, placement, ranks) and the machine, and with `other_batches` (a resumed run, rings
// over ranks) the batches it carried and the memory they take.
void ranks_expect_same_outputs(const fs::path& out, const fs::path& single, const std::string& what,
                         bool other_batches = false) {
  std::size_t compared = 0;
  for (const auto& file : fs::directory_iterator(single)) {
    if (file.path().filename() == "result.json") continue;
    EXPECT_EQ(bytes_of(out / file.path().filename()), bytes_of(file.path())) << file.path().filename() << " " << what;
    ++compared;
  }
  EXPECT_GE(compared, 3u);
  json written = json::parse(bytes_of(out / "result.json")), expected = json::parse(bytes_of(single / "result.json"));
  for (json* r : {&written, &expected})
    for (const char* volatile_key : {"run", "provenance"}) r->erase(volatile_key);
  if (other_batches)
    for (json* r : {&written, &expected})
      for (const char* batches_key : {"segments", "host_memory_estimate"}) r->erase(batches_key);
  EXPECT_EQ(written, expected) << "result.json " << what << ": " << json::diff(expected, written).dump();
}

// A folder for one test's runs; each run writes into the same folder (its path is in result.json),
// moved aside to be compared.
struct JobFolders {
  explicit JobFolders(const std::string& name)
      : root(fs::temp_directory_path() / ("pacflow_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(root);
  }
  ~JobFolders() { fs::remove_all(root); }
  // The single process's outputs, in `single`.
  void run_single(const Elements& elements, std::int64_t batch) const {
    RunOptions one_process;
    one_process.batch_size = batch;
    pipeline_of(elements, out).run(one_process);
    fs::rename(out, single);
  }
  fs::path root, out = root / "out", single = root / "single", checkpoint = root / "ck";
};

void expect_the_single_runs_bytes(const Elements& elements, std::int64_t batch) {
  const JobFolders folders("ranks");
  folders.run_single(elements, batch);
  for (int size : {1, 2, 3, 4}) {
    const std::vector<json> reports = run_job(elements, size, folders.out, batch);
    EXPECT_EQ(reports[0]["run"]["ranks"], size);
    const json& placed = reports[0]["run"]["rank_devices"];  // every rank's, in rank order, on rank 0
    ASSERT_EQ(placed.size(), static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
      EXPECT_EQ(placed[r]["rank"], r);
      EXPECT_EQ(placed[r]["local_rank"], r);
      EXPECT_EQ(placed[r]["stages"]["hilbert"], "cpu");
    }
    ranks_expect_same_outputs(folders.out, folders.single, fmt::format("over {} ranks", size));
    fs::remove_all(folders.out);
  }
}

TEST(Ranks, EveryRankCountWritesTheSingleRunsBytes) { expect_the_single_runs_bytes(kTrialPipeline, 12); }

// Whole groups (every pair of an epoch, every epoch for swap_trials) stay on one rank.
TEST(Ranks, PairsAndSwappedTrialsStayWholeOnOneRank) { expect_the_single_runs_bytes(kPairsPipeline, 0); }

// Stops the job (every rank's stop token, as mpirun's signal does) once rank 0 has delivered `after`
// batches, which its checkpoint then holds.
class StopAfter final : public RunObserver {
 public:
  StopAfter(std::stop_source& stop, int after) : stop_(stop), after_(after) {}
  void on_delivered(const Batch&) override {
    if (++delivered_ == after_) stop_.request_stop();
  }

 private:
  std::stop_source& stop_;
  int after_;
  int delivered_ = 0;
};

// Rank 0 alone keeps the checkpoint, of the batches in index order: a job stopped on N ranks resumes
// on any number, and writes the bytes of a run never stopped.
TEST(Ranks, ACheckpointedJobStoppedOnNRanksResumesOnAnyNumber) {
  Elements elements = kTrialPipeline;
  elements[0].params["epochs"] = 24;  // 6 batches of 12 series (4 epochs of 3 channels)
  const JobFolders folders("ranks_checkpoint");
  folders.run_single(elements, 12);
  for (const auto& [stopped_on, resumed_on] : {std::pair{3, 2}, {2, 1}, {1, 4}, {4, 3}}) {
    const std::string what = fmt::format("stopped on {} ranks, resumed on {}", stopped_on, resumed_on);
    std::stop_source stop;
    StopAfter stopper(stop, 2);
    EXPECT_THROW(run_job(elements, stopped_on, folders.out, 12,
                         [&](RunOptions& options, int rank) {
                           options.checkpoint = folders.checkpoint;
                           options.stop = stop.get_token();
                           if (rank == 0) options.observers.push_back(&stopper);
                         }),
                 RunCancelled)
        << what;
    EXPECT_FALSE(fs::exists(folders.out / "result.json")) << what;
    const std::vector<json> reports = run_job(elements, resumed_on, folders.out, 12, [&](RunOptions& options, int) {
      options.checkpoint = folders.checkpoint;
    });
    const std::int64_t resumed_at = reports[0]["run"]["checkpoint"]["resumed_at_series"];
    EXPECT_GE(resumed_at, 24) << what;
    EXPECT_LT(resumed_at, 72) << what;
    for (const json& report : reports) EXPECT_EQ(report["run"]["series"], 72);
    ranks_expect_same_outputs(folders.out, folders.single, what, true);
    EXPECT_FALSE(fs::exists(folders.checkpoint / "checkpoint.json")) << what;
    fs::remove_all(folders.out);
  }
}

// With trial_memory=0 the trial-level test keeps each block's pairings instead of the permutations'
// sums, and sums them at the finish: every array and figure is the bytes of the run that kept the
// sums, in one process and for a job stopped on two ranks and resumed on three (its checkpoint then
// records the pairings).
TEST(Ranks, AJobKeepingThePairingsWritesTheBytesOfOneKeepingTheSums) {
  Elements elements = kTrialPipeline;
  elements[0].params["epochs"] = 24;
  elements[4].params["n"] = 100;  // so that the sums (3 x 101 rows) take more than the pairings (24 x 3 x 4)
  const JobFolders folders("ranks_pairings");
  folders.run_single(elements, 12);
  elements[4].params["trial_memory"] = 0;
  const auto expect_the_sums_bytes = [&](const std::string& what) {
    std::size_t compared = 0;
    for (const auto& file : fs::directory_iterator(folders.single)) {
      if (file.path().filename() == "result.json") continue;
      EXPECT_EQ(bytes_of(folders.out / file.path().filename()), bytes_of(file.path())) << file.path().filename() << " " << what;
      ++compared;
    }
    EXPECT_GE(compared, 8u) << "the trial-level test's arrays among them";
    const json report = json::parse(bytes_of(folders.out / "result.json"));
    EXPECT_EQ(report["pipeline"][4]["params"]["trial_state"].get<std::string>().rfind("each block's pairings", 0), 0u)
        << what;
    fs::remove_all(folders.out);
  };
  RunOptions one_process;
  one_process.batch_size = 12;
  pipeline_of(elements, folders.out).run(one_process);
  expect_the_sums_bytes("in one process");
  std::stop_source stop;
  StopAfter stopper(stop, 2);
  EXPECT_THROW(run_job(elements, 2, folders.out, 12,
                       [&](RunOptions& options, int rank) {
                         options.checkpoint = folders.checkpoint;
                         options.stop = stop.get_token();
                         if (rank == 0) options.observers.push_back(&stopper);
                       }),
               RunCancelled);
  const std::vector<json> reports = run_job(elements, 3, folders.out, 12, [&](RunOptions& options, int) {
    options.checkpoint = folders.checkpoint;
  });
  EXPECT_GE(reports[0]["run"]["checkpoint"]["resumed_at_series"].get<std::int64_t>(), 24);
  expect_the_sums_bytes("stopped on two ranks, resumed on three");
}

// Stages pinned to different devices, with rings between them that re-cut batches in one process:
// over ranks every segment takes one batch size and the rings pass each rank's batches on whole.
TEST(Ranks, StagesPinnedToDifferentDevicesSplitOverRanks) {
  Elements pinned = kTrialPipeline;
  pinned[0].params["epochs"] = 24;
  pinned[1].params["on"] = "cpu:0";
  pinned[2].params["on"] = "cpu:1";
  pinned[2].params["batch"] = 24;  // a ring of batches twice the first segment's
  pinned[3].params["on"] = "cpu:0";
  const JobFolders folders("ranks_pinned");
  folders.run_single(pinned, 12);
  for (int size : {2, 3}) {
    const std::vector<json> reports = run_job(pinned, size, folders.out, 12);
    const json& segments = reports[0]["segments"];
    ASSERT_GE(segments.size(), 2u);
    for (const json& seg : segments) EXPECT_EQ(seg["batch_series"], 12) << seg;
    ranks_expect_same_outputs(folders.out, folders.single, fmt::format("pinned, over {} ranks", size), true);
    fs::remove_all(folders.out);
  }
}

TEST(BatchWire, ABatchRoundTripsAndDamagedBytesAreRefused) {
  Batch batch;
  batch.index = 7;
  batch.first_series = 21;
  batch.series_count = 3;
  auto& pac = batch.emplace("pac", {2, 2}, DType::Float32);
  for (std::size_t i = 0; i < 12; ++i) pac.values<float>()[i] = static_cast<float>(i) * 0.5f;
  batch.emplace_rows("kept", 1, {4}, DType::Float64).values<double>()[3] = 2.5;
  const std::vector<std::byte> bytes = detail::encode_batch(batch);
  const Batch back = detail::decode_batch(bytes.data(), bytes.size());
  EXPECT_EQ(back.index, 7);
  EXPECT_EQ(back.first_series, 21);
  EXPECT_EQ(back.series_count, 3);
  EXPECT_EQ(back.at("pac").shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(back.at("pac").values<float>()[11], 5.5f);
  EXPECT_EQ(back.at("kept").values<double>()[3], 2.5);
  EXPECT_THROW(detail::decode_batch(bytes.data(), bytes.size() - 1), std::runtime_error);
  EXPECT_THROW(detail::decode_batch(bytes.data() + 1, bytes.size() - 1), std::runtime_error);
}

}  // namespace
}  // namespace pacflow
