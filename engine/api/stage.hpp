#pragma once
// The three kinds of pipeline element: a Source makes series, a Stage transforms batches, a Sink
// consumes them in order. Each declares before running what it reads and writes (PlanContext), so
// shapes are known and checked before the first batch moves.
#include <any>
#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/api/batch.hpp"
#include "engine/api/errors.hpp"
#include "engine/api/params.hpp"

namespace pacflow {

class OutputSet;  // engine/io/output_set.hpp: the run's outputs, moved into place together

// What a source delivers: series of `series_length` samples at `sample_rate`, arranged in
// `leading_dims` (e.g. {epochs, channels}); the series count is their product.
struct StreamInfo {
  Shape leading_dims;
  std::vector<std::string> leading_names;  // e.g. {"epochs", "channels"}
  std::int64_t series_length = 0;
  // Samples of context at each end of every series (a source's pad=), counted in series_length:
  // filtered with the series, then cropped by the hilbert stage, so later stages see
  // series_length - 2 pad samples.
  std::int64_t pad = 0;
  // Time in seconds of the first sample after the pad (the first one later stages see), relative to
  // the epoch's reference: an event's onset for epochs cut around events, else 0 (the epoch's start).
  double time_origin_s = 0;
  double sample_rate = 0;
  std::string tensor = "signal";  // name of the float32 [n][series_length] tensor it writes
  json description = json::object();  // shown in result.json (path, dtype, checksum, …)
  // Names along each leading dimension when the input has them (e.g. channel names): labels[d] is
  // empty or holds leading_dims[d] names; labels may also be shorter than leading_dims.
  std::vector<std::vector<std::string>> labels;
  // Facts about the input the user should hear (e.g. events skipped); reported with the warnings.
  std::vector<std::string> warnings;
  // Series the source delivers as stand-ins (e.g. zeros for a series with NaN samples): ascending.
  // Every result row computed from one of them (a row of its own, or of a group that holds it) is
  // set to NaN before the sinks see it.
  std::vector<std::int64_t> excluded_series;
  // The files the source reads: no output of the run may replace one of them.
  std::vector<std::filesystem::path> input_files;
  // Experimental conditions (several event types, e.g. events=[go, nogo]): their names, and the
  // condition of each epoch (leading dimension 0), whose epochs come grouped by condition. Empty:
  // one condition.
  std::vector<std::string> condition_names;
  std::vector<std::int64_t> epoch_conditions;
  // Why a circular shift of a series keeps its phase-amplitude coupling, when the source knows it
  // does (e.g. a strictly periodic slow rhythm): time-shift surrogates then cannot reject the null.
  // Empty: nothing known.
  std::string shifts_keep_coupling;
  // Why the epochs are not exchangeable, when the source knows it (e.g. epochs that overlap in time:
  // an epoch's phase paired with a neighbour's amplitude shares samples with its own): a test that
  // permutes epochs has no valid null then. Empty: nothing known.
  std::string epochs_not_exchangeable;
  // With epochs_not_exchangeable: the most epochs no two of which overlap (indices, ascending), among
  // which such a test stays valid. Empty: none known.
  std::vector<std::int64_t> exchangeable_epochs;

  std::int64_t series_count() const { return element_count(leading_dims); }
};

// How a tensor's rows map onto series. Most tensors have one row per series (the default). A
// tensor may instead have `rows_per_group` rows for every group of `group` consecutive series (a
// value per group, or per combination of a group's series), laid out in `leading` dims of its own
// (named `leading_names`) rather than the stream's. Batches then always hold whole groups.
struct RowLayout {
  std::int64_t group = 1;
  std::int64_t rows_per_group = 1;
  Shape leading;                           // empty: the stream's leading dims
  std::vector<std::string> leading_names;  // empty: the stream's names
  bool per_series() const { return group == 1 && rows_per_group == 1 && leading.empty(); }
  // Rows of a run of `series` consecutive series that starts and ends on group boundaries.
  std::int64_t rows(std::int64_t series) const { return series / group * rows_per_group; }
};

// A tensor a stage promises to write, with its shape per row (per series unless `rows` says
// otherwise).
struct TensorDecl {
  std::string name;
  Shape per_series;
  DType dtype = DType::Float32;
  bool result = false;  // a final result that sinks persist
  std::string doc;
  RowLayout rows{};
  // Read by the declaring stage's run summary (RunSummary) rather than by a later element: kept in
  // every batch until the summary has seen it, never persisted.
  bool kept = false;
  // Not in the batches: made once by the declaring stage's run summary after the last batch, with
  // one row per entry of `rows.leading` (empty: a single row) of shape `per_series`. A result like
  // any other for the sinks, which receive it through Sink::consume_summary.
  bool summary = false;
  // A name per axis of `per_series` (phase_bands, amplitude_bands, times, bins), for readers that
  // label arrays (the Python module's Result); empty: unnamed.
  std::vector<std::string> axes = {};
};

// A fact about the plan that one element decides and later ones build on (the bands a filter bank
// uses, the FFT length a transform chose, the measure's settings): declared with its type, once,
// in the publishing element's folder, e.g.
//   inline constexpr PlanFact<std::int64_t> kHilbertFftLength{"hilbert_fft_length", "hilbert"};
// The stages read the typed value; the report (result.json) shows it as JSON under its name.
//
// Its scope says whether the recordings of one dataset, run with one pipeline, may differ in it: the
// bands in Hz and the measure cannot (Study: a dataset checks and stacks them once, pipelines/
// dataset_run.hpp); a filter order, an FFT length or a shift in samples follows each recording's
// rate and length (Recording: only that recording's result.json holds it).
enum class FactScope { Recording, Study };

template <class T>
struct PlanFact {
  const char* name;       // its key in the report
  const char* publisher;  // the element that plans it, named when a reader comes without it
  FactScope scope = FactScope::Recording;
};

// An axis of the results labelled by the values start + k·step, k < count (erpac's time of each
// sample): published by a stage, written by the sinks beside the arrays, and shown compactly in the
// report under `coordinates` {name: {start, step, count, unit, doc}}.
struct Coordinate {
  std::string name;
  double start = 0;
  double step = 0;
  std::int64_t count = 0;
  std::string unit;
  std::string doc;
  // start + k step for each k (not a running sum, which would gather rounding errors).
  std::vector<double> values() const;
};

// Planning state threaded through the chain in order.
class PlanContext {
 public:
  explicit PlanContext(StreamInfo stream);

  const StreamInfo& stream() const { return stream_; }
  // Publishes a fact for later elements and the report. Throws std::logic_error when it is
  // published twice.
  template <class T>
  void publish(const PlanFact<T>& fact, std::type_identity_t<T> value) {
    if (!facts_.emplace(fact.name, value).second)
      throw std::logic_error(fmt::format("plan fact \"{}\" published twice", fact.name));
    if (fact.scope == FactScope::Study) study_facts_[fact.name] = value;
    attributes_[fact.name] = std::move(value);
  }
  // The fact when an earlier element published it, else null.
  template <class T>
  const T* find(const PlanFact<T>& fact) const {
    const auto it = facts_.find(fact.name);
    if (it == facts_.end()) return nullptr;
    const T* value = std::any_cast<T>(&it->second);
    if (!value) throw std::logic_error(fmt::format("plan fact \"{}\" read as another type than published", fact.name));
    return value;
  }
  // The fact an earlier element published; throws a clear InputError naming the element to add.
  template <class T>
  const T& require(const PlanFact<T>& fact, const std::string& reader) const {
    if (const T* value = find(fact)) return *value;
    throw InputError(fmt::format("\"{}\" needs the {} that stage \"{}\" plans; add \"stage {}\" before it", reader,
                                 fact.name, fact.publisher, fact.publisher));
  }
  // Publishes a coordinate for the sinks and the report. Throws std::logic_error when its name is
  // published twice.
  void publish_coordinate(Coordinate coordinate);
  const std::vector<Coordinate>& coordinates() const { return coordinates_; }
  // Every fact and coordinate published so far as JSON: the report's view (result.json), not for
  // elements to read back.
  const json& attributes() const { return attributes_; }
  // The facts published so far with FactScope::Study, by name, as the report shows them.
  const json& study_facts() const { return study_facts_; }
  // Resolved parameters of the element being planned (defaults filled, derived values added).
  json& resolved() { return resolved_; }

  // Declares a tensor the current stage writes. Throws if the name is already taken.
  void declare(TensorDecl decl);
  // The declaration of a tensor an earlier element wrote; throws a clear InputError otherwise.
  const TensorDecl& require(const std::string& name, const std::string& reader) const;
  bool provides(const std::string& name) const;
  const std::vector<TensorDecl>& tensors() const { return tensors_; }
  // Every batch of the run must hold a whole multiple of `series` consecutive series (e.g. a stage
  // that combines the series of one group). Batch sizes, the run's and each ring's, are rounded up
  // to the least common multiple of all such requests; a tensor declared per group requests its
  // group itself. Throws InputError when the stream's series count is not a multiple.
  void require_batch_multiple(std::int64_t series);
  // Every batch of the run starts at a multiple of `series` (a stage that combines a block of
  // consecutive series); unlike require_batch_multiple, the last batch may hold fewer.
  void align_batches(std::int64_t series);
  std::int64_t batch_multiple() const { return batch_multiple_; }
  // A warning for the user (printed by the CLI, kept in result.json).
  void warn(const std::string& message) { warnings_.push_back(message); }
  const std::vector<std::string>& warnings() const { return warnings_; }
  std::vector<TensorDecl> results() const;

  // Bookkeeping used by the builder.
  void begin_element();
  json take_resolved();
  const std::vector<std::string>& reads_of_current() const { return reads_; }

 private:
  StreamInfo stream_;
  std::map<std::string, std::any, std::less<>> facts_;
  std::vector<Coordinate> coordinates_;
  json attributes_ = json::object();
  json study_facts_ = json::object();
  json resolved_ = json::object();
  std::vector<TensorDecl> tensors_;
  std::vector<std::string> warnings_;
  std::int64_t batch_multiple_ = 1;
  mutable std::vector<std::string> reads_;
};

// What a stage computes over the whole run rather than per batch (statistics across epochs): fed
// every batch serially, in index order, after the source's excluded series were set to NaN and
// before the sinks; it emplaces the stage's `summary` tensors once the last batch is in. Its state
// travels with a checkpoint like a sink's.
class RunSummary {
 public:
  virtual ~RunSummary() = default;
  virtual void add(const Batch& batch) = 0;
  // Emplaces every summary tensor the stage declared into `out` (rows = product of rows.leading).
  virtual void finish(Batch& out) = 0;
  // Checkpointed runs: as Sink::resume and Sink::checkpoint, with a folder of its own.
  virtual void resume(const std::filesystem::path& dir, const json& state, std::int64_t series_done) = 0;
  virtual json checkpoint() = 0;
};

// The work of a stage's run summary, estimated: as each series comes in (add) and once after the
// last (finish). Modelled devices charge it to the stage's devices; the run-time estimate shows it.
struct SummaryWork {
  double flops_per_series = 0;
  double bytes_per_series = 0;  // memory traffic
  double finish_flops = 0;
  double finish_bytes = 0;
  double state_bytes = 0;  // what it keeps (its sums): what replicas that each summed a share combine
};

// A stage is CPU code. On an accelerator it runs through its kernel for that backend
// (engine/api/stage_kernel.hpp), which reads what plan() decided.
class Stage {
 public:
  virtual ~Stage() = default;
  // Checks parameters against the stream, declares outputs, fills ctx.resolved(). Sizes what the
  // stage needs but allocates nothing that grows with the input (prepare() does).
  virtual void plan(PlanContext& ctx) = 0;
  // Makes what plan() sized (filter spectra, FFT plans, tables), once, before the first batch: the run
  // calls it after checking its memory estimate (host_workspace_bytes included) against its limit, so
  // a run too large for the machine is refused before any of it is allocated. validate() never calls it.
  virtual void prepare() {}
  // Transforms one batch. Called concurrently for different batches: no shared mutable state.
  virtual void process(Batch& batch) = 0;
  // Floating-point operations per series, an estimate for modelled devices (`sim`); the bytes a
  // stage moves are known from the tensors it reads and writes. Valid after plan().
  virtual double flops_per_series() const { return 0; }
  // Bytes a CPU kernel of the stage reads again from memory per series beyond its tensors, when its
  // working set outgrows the caches (long series: every surrogate re-reads the amplitudes). For the
  // run-time estimate; valid after plan().
  virtual double streamed_bytes_per_series() const { return 0; }
  // The stage's run summary when, as planned, it declared summary tensors; null otherwise. Called
  // once per run, after plan().
  virtual std::unique_ptr<RunSummary> make_summary() const { return nullptr; }
  // What that summary costs; valid after plan().
  virtual SummaryWork summary_work() const { return {}; }
  // Host memory the stage keeps beside the batches' tensors when `threads` threads run it: what it
  // made when planned (filter spectra, tables) plus each thread's buffers (FFT work areas, scratch).
  // For the run's memory estimate: an upper bound; valid after plan().
  virtual double host_workspace_bytes(int /*threads*/) const { return 0; }
};

class Source {
 public:
  virtual ~Source() = default;
  // Opens the input and tells its shape; throws InputError on a missing or malformed input. Work
  // that reads the whole input (its checksum, a scan for NaN) throws RunCancelled soon after `stop`
  // is requested. Opening allocates nothing that grows with the input beyond a bounded scan buffer:
  // read buffers are made by read(), and counted by host_workspace_bytes().
  virtual StreamInfo open(const std::stop_token& stop) = 0;
  // Writes `count` series starting at series `first` into dst (count × series_length floats).
  // Called serially, in batch order.
  virtual void read(std::int64_t first, std::int64_t count, float* dst) = 0;
  // Host memory read() keeps beside the batches for batches of `batch_series` series (conversion
  // buffers), for the run's memory estimate: an upper bound; valid after open().
  virtual double host_workspace_bytes(std::int64_t /*batch_series*/) const { return 0; }
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void plan(const PlanContext& ctx) = 0;
  // Every file the sink will write, after plan(). Before the run the engine refuses a path that is
  // not a regular file (a device, a FIFO, a directory), that names an input or another output, and
  // it locks and creates the folders (engine/io/output_set.hpp); so a sink never checks these itself.
  virtual std::vector<std::filesystem::path> output_files() const = 0;
  // What one of output_files() holds, in a few words, for result.json's `files` ("" when obvious).
  virtual std::string describe_output(const std::filesystem::path& /*file*/) const { return ""; }
  // Receives every batch once, serially, in index order.
  virtual void consume(const Batch& batch) = 0;
  // After the last batch and before finish(): the summary results (TensorDecl::summary), complete,
  // as rows of `summary`. A sink that persists results persists these too.
  virtual void consume_summary(const Batch& /*summary*/) {}
  // All batches delivered: writes every output completely under a temporary name and hands each to
  // `outputs` (OutputSet::add); the engine moves them into place together, with every other sink's,
  // once all are written. `report` is result.json's content. Throws on failure (a full disk).
  virtual void finish(const json& report, OutputSet& outputs) = 0;
  // About how long finish() takes on one thread beyond writing its arrays (drawing, encoding), for
  // the run-time estimate; valid after plan().
  virtual double finish_seconds() const { return 0; }
  // The run failed or was cancelled: discard partial outputs (in a checkpointed run, keep what the
  // last checkpoint() described, for a later resume); never throws.
  virtual void abort() noexcept {}

  // Checkpointed runs (RunOptions::checkpoint). A sink that can resume a run returns "" here;
  // otherwise why it cannot (the run is then refused up front).
  virtual std::string why_not_checkpointable() const { return "it cannot resume from a checkpoint"; }
  // Called once, after plan() and before any batch, in a checkpointed run. The sink keeps its partial
  // output in `dir` (a folder of its own inside the checkpoint, already created) rather than in
  // temporaries. `state` is null for a fresh start; when resuming it is what checkpoint() returned
  // after the last batch recorded, when the sinks held series [0, series_done), and the sink restores
  // its output as it was then (anything written after that is discarded); the batches that follow
  // begin at series_done. Throws InputError when the state does not describe exactly those series.
  virtual void resume(const std::filesystem::path& dir, const json& state, std::int64_t series_done);
  // After each batch of a checkpointed run: hands everything consumed so far to the operating system
  // (so a killed process loses none of it) and returns what resume() needs to pick it up again.
  virtual json checkpoint();
};

}  // namespace pacflow
