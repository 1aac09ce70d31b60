// A run split over ranks (engine/api/rank_link.hpp), with the ranks as threads of this process and a
// link between them that carries each batch's encoded bytes (engine/run/batch_wire.hpp) as MPI does
// for pipeline_cli: every rank count writes the single run's bytes.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <mutex>
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
  bool failed_ = false;
};

class ThreadLink final : public RankLink {
 public:
  ThreadLink(ThreadJob& job, int rank, int size) : job_(job), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
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

// Runs `elements` as a job of `size` ranks (threads); rank 0 writes into `out`. Returns the ranks'
// reports, or rethrows the first rank's error.
std::vector<json> run_job(const Elements& elements, int size, const fs::path& out, std::int64_t batch = 0) {
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
        reports[static_cast<std::size_t>(r)] = pipeline_of(elements, out).run(options);
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
    {ElementKind::Stage, "surrogates", {{"n", 20}, {"method", "swap_trials"}}, {}, {}},
    {ElementKind::Sink, "npy", {{"dir", "x"}}, {}, {}},
};

// Each run writes into the same folder (its path is in result.json), moved aside to be compared.
void expect_the_single_runs_bytes(const Elements& elements, std::int64_t batch) {
  const fs::path root = fs::temp_directory_path() / ("pacflow_ranks_" + std::to_string(::getpid()));
  const fs::path out = root / "out", single = root / "single";
  fs::remove_all(root);
  RunOptions one_process;
  one_process.batch_size = batch;
  pipeline_of(elements, out).run(one_process);
  fs::rename(out, single);
  for (int size : {1, 2, 3, 4}) {
    const std::vector<json> reports = run_job(elements, size, out, batch);
    EXPECT_EQ(reports[0]["run"]["ranks"], size);
    std::size_t compared = 0;
    for (const auto& file : fs::directory_iterator(single)) {
      if (file.path().filename() == "result.json") continue;
      EXPECT_EQ(bytes_of(out / file.path().filename()), bytes_of(file.path()))
          << file.path().filename() << " over " << size << " ranks";
      ++compared;
    }
    EXPECT_GE(compared, 3u);
    json written = json::parse(bytes_of(out / "result.json")), expected = json::parse(bytes_of(single / "result.json"));
    for (json* r : {&written, &expected})
      for (const char* volatile_key : {"run", "provenance"}) r->erase(volatile_key);  // timings, placement, machine
    EXPECT_EQ(written, expected) << "result.json over " << size << " ranks";
    fs::remove_all(out);
  }
  fs::remove_all(root);
}

TEST(Ranks, EveryRankCountWritesTheSingleRunsBytes) { expect_the_single_runs_bytes(kTrialPipeline, 12); }

// Whole groups (every pair of an epoch, every epoch for swap_trials) stay on one rank.
TEST(Ranks, PairsAndSwappedTrialsStayWholeOnOneRank) { expect_the_single_runs_bytes(kPairsPipeline, 0); }

TEST(Ranks, CheckpointsAndPinnedStagesAreRefusedOverSeveralRanks) {
  const fs::path out = fs::temp_directory_path() / ("pacflow_ranks_refused_" + std::to_string(::getpid()));
  ThreadJob job(2);
  ThreadLink link(job, 1, 2);
  RunOptions options;
  options.ranks = &link;
  options.checkpoint = out / "ck";
  EXPECT_THROW(pipeline_of(kTrialPipeline, out).run(options), InputError);
  Elements pinned = kTrialPipeline;
  pinned[4].params["on"] = "cpu:0";
  pinned[3].params["on"] = "cpu:1";
  options.checkpoint.clear();
  try {
    pipeline_of(pinned, out).run(options);
    FAIL() << "not refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be split over 2 ranks yet"), std::string::npos) << e.what();
  }
  fs::remove_all(out);
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
