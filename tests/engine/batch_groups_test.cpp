// Stages that combine the series of a group (PlanContext::require_batch_multiple, RowLayout): every
// batch they see holds whole groups, whatever batch size the run or a ring's `batch=` asks for,
// tensors with rows per group cross rings intact, and the results never depend on the batching.
#include <gtest/gtest.h>
#include <numeric>

#include "engine/api/errors.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"

namespace pacflow {
namespace {

// Source: `epochs` x `channels` series; series i holds the value i in every sample.
class CountingSource final : public Source {
 public:
  explicit CountingSource(const Params& p) : epochs_(p.integer("epochs")), channels_(p.integer("channels")) {}
  StreamInfo open(const std::stop_token&) override {
    StreamInfo s;
    s.leading_dims = {epochs_, channels_};
    s.leading_names = {"epochs", "channels"};
    s.series_length = 4;
    s.sample_rate = 100;
    return s;
  }
  void read(std::int64_t first, std::int64_t count, float* dst) override {
    for (std::int64_t i = 0; i < count * 4; ++i) dst[i] = static_cast<float>(first + i / 4);
  }

 private:
  std::int64_t epochs_, channels_;
};

// Stage: for every group of `group` consecutive series, writes `rows` rows: row r holds the group's
// sum plus r. Throws when a batch does not hold whole groups.
class GroupSumStage final : public Stage {
 public:
  GroupSumStage(const Params& p) : group_(p.integer("group")), rows_(p.integer("rows")), name_(p.string("name")) {}
  void plan(PlanContext& ctx) override {
    ctx.require("signal", name_);
    const std::int64_t groups = ctx.stream().series_count() / group_;
    ctx.declare({name_, {1}, DType::Float64, true, "", RowLayout{group_, rows_, {groups, rows_}, {"groups", "rows"}}});
  }
  void process(Batch& batch) override {
    if (batch.first_series % group_ != 0 || batch.series_count % group_ != 0)
      throw std::logic_error("batch of series [" + std::to_string(batch.first_series) + ", " +
                             std::to_string(batch.first_series + batch.series_count) + ") splits a group");
    const auto signal = batch.at("signal").values<float>();
    const std::int64_t groups = batch.series_count / group_;
    auto out = batch.emplace_rows(name_, groups * rows_, {1}, DType::Float64).values<double>();
    for (std::int64_t g = 0; g < groups; ++g) {
      double sum = 0;
      for (std::int64_t s = 0; s < group_; ++s) sum += signal[static_cast<std::size_t>((g * group_ + s) * 4)];
      for (std::int64_t r = 0; r < rows_; ++r) out[static_cast<std::size_t>(g * rows_ + r)] = sum + static_cast<double>(r);
    }
  }

 private:
  std::int64_t group_, rows_;
  std::string name_;
};

// Stage: passes batches on untouched (a place to put a ring).
class PassStage final : public Stage {
 public:
  void plan(PlanContext& ctx) override { ctx.require("signal", "pass"); }
  void process(Batch&) override {}
};

// Sink: every row of the result tensors, in order, and the batch sizes it saw.
struct GroupRecord {
  std::map<std::string, std::vector<double>> rows;
  std::vector<std::int64_t> batch_series;
};

class GroupRecordSink final : public Sink {
 public:
  explicit GroupRecordSink(GroupRecord* record) : record_(record) {}
  void plan(const PlanContext& ctx) override {
    for (const auto& t : ctx.results()) names_.push_back(t.name);
  }
  void consume(const Batch& batch) override {
    record_->batch_series.push_back(batch.series_count);
    for (const auto& name : names_)
      for (double v : batch.at(name).values<double>()) record_->rows[name].push_back(v);
  }
  std::vector<std::filesystem::path> output_files() const override { return {}; }
  void finish(const json&, OutputSet&) override {}

 private:
  GroupRecord* record_;
  std::vector<std::string> names_;
};

struct GroupRegistry {
  GroupRecord record;
  Registry registry;
  GroupRegistry() {
    registry.add({ElementKind::Source, "count", "",
                  {{"epochs", ParamType::Integer, 4, "", ""}, {"channels", ParamType::Integer, 3, "", ""}},
                  [](const Params& p) { return std::make_unique<CountingSource>(p); }, {}, {}});
    registry.add({ElementKind::Stage, "group_sum", "",
                  {{"group", ParamType::Integer, 3, "", ""},
                   {"rows", ParamType::Integer, 1, "", ""},
                   {"name", ParamType::String, "sums", "", ""}},
                  {}, [](const Params& p) { return std::make_unique<GroupSumStage>(p); }, {}});
    registry.add({ElementKind::Stage, "pass", "", {}, {}, [](const Params&) { return std::make_unique<PassStage>(); }, {}});
    registry.add({ElementKind::Sink, "record", "", {}, {}, {}, [this](const Params&) { return std::make_unique<GroupRecordSink>(&record); }});
  }
};

// Rows for groups of `group` consecutive series of 0 … series−1: sum of the group plus r.
std::vector<double> expected_rows(std::int64_t series, std::int64_t group, std::int64_t rows) {
  std::vector<double> out;
  for (std::int64_t first = 0; first < series; first += group) {
    const double sum = static_cast<double>(group * first + group * (group - 1) / 2);
    for (std::int64_t r = 0; r < rows; ++r) out.push_back(sum + static_cast<double>(r));
  }
  return out;
}

TEST(BatchGroups, EveryBatchHoldsWholeGroupsForAnyRunBatchSize) {
  for (std::int64_t batch : {0, 1, 2, 3, 4, 5, 7, 100}) {
    GroupRegistry t;
    const json report = Pipeline(t.registry)
                            .source("count")
                            .stage("group_sum", {{"group", 3}, {"rows", 2}})
                            .sink("record")
                            .run({batch, 2, {}}).to_json();
    EXPECT_EQ(t.record.rows["sums"], expected_rows(12, 3, 2)) << "batch " << batch;
    for (std::int64_t n : t.record.batch_series) EXPECT_EQ(n % 3, 0) << "batch " << batch;
    EXPECT_EQ(report["run"]["batch_size"].get<std::int64_t>() % 3, 0) << "batch " << batch;
    EXPECT_EQ(report["batch_multiple"]["series"], 3);
    EXPECT_EQ(report["batch_multiple"]["required_by"], "group_sum");
  }
}

TEST(BatchGroups, BatchesHoldTheLeastCommonMultipleOfEveryStagesGroup) {
  for (std::int64_t batch : {1, 4, 5}) {
    GroupRegistry t;
    Pipeline(t.registry)
        .source("count", {{"epochs", 4}, {"channels", 3}})
        .stage("group_sum", {{"group", 2}, {"name", "pairs"}})
        .stage("group_sum", {{"group", 3}, {"name", "triples"}})
        .sink("record")
        .run({batch, 3, {}});
    for (std::int64_t n : t.record.batch_series) EXPECT_EQ(n % 6, 0) << "batch " << batch;
    EXPECT_EQ(t.record.rows["pairs"], expected_rows(12, 2, 1));
    EXPECT_EQ(t.record.rows["triples"], expected_rows(12, 3, 1));
  }
}

// A ring's `batch=` is rounded up too, before a grouped stage and after one (its per-group rows
// cross the ring and are re-cut with their series).
TEST(BatchGroups, RingsRecutBatchesIntoWholeGroupsAndCarryRowsPerGroup) {
  for (std::int64_t edge : {1, 2, 4, 8}) {
    for (std::int64_t run_batch : {1, 3, 5}) {
      GroupRegistry t;
      Pipeline(t.registry)
          .source("count", {{"epochs", 6}, {"channels", 2}})
          .stage("pass", {{"batch", edge}})
          .stage("group_sum", {{"group", 4}, {"rows", 3}, {"batch", edge + 1}})
          .stage("pass", {{"batch", edge}})
          .sink("record")
          .run({run_batch, 2, {}});
      EXPECT_EQ(t.record.rows["sums"], expected_rows(12, 4, 3)) << "edge " << edge << " run " << run_batch;
      for (std::int64_t n : t.record.batch_series) EXPECT_EQ(n % 4, 0);
    }
  }
}

TEST(BatchGroups, GroupsThatDoNotDivideTheInputAreRejectedNamingTheStage) {
  GroupRegistry t;
  try {
    Pipeline(t.registry).source("count", {{"epochs", 5}, {"channels", 1}}).stage("group_sum", {{"group", 2}}).sink("record").run();
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("group_sum"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("whole groups of 2 series"), std::string::npos) << e.what();
  }
}

TEST(BatchGroups, ReportDescribesRowsPerGroup) {
  GroupRegistry t;
  const json plan =
      Pipeline(t.registry).source("count").stage("group_sum", {{"group", 3}, {"rows", 2}}).sink("record").validate().to_json();
  json sums;
  for (const auto& tensor : plan["tensors"])
    if (tensor["name"] == "sums") sums = tensor;
  ASSERT_FALSE(sums.is_null());
  EXPECT_EQ(sums["rows"]["group_series"], 3);
  EXPECT_EQ(sums["rows"]["rows_per_group"], 2);
  EXPECT_EQ(sums["rows"]["leading_shape"], json::array({4, 2}));
  EXPECT_DOUBLE_EQ(sums["bytes_per_series"].get<double>(), 8.0 * 2 / 3);
}

}  // namespace
}  // namespace pacflow
