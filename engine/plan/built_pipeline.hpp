#pragma once
// Internal: a pipeline whose elements are instantiated and planned, ready to execute.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/memory_budget.hpp"
#include "engine/api/pipeline.hpp"
#include "engine/api/plan_report.hpp"
#include "engine/api/stage_kernel.hpp"
#include "engine/io/run_files.hpp"
#include "engine/placement/backends.hpp"
#include "engine/placement/device_backend.hpp"
#include "engine/placement/devices.hpp"
#include "engine/plan/branches.hpp"
#include "engine/plan/slot_layout.hpp"

namespace pacflow::detail {

// The settings of the edge into a stage (`ring=`, `batch=`, `overflow=`); 0 means "choose".
struct EdgeSettings {
  std::int64_t ring = 0;
  std::int64_t batch = 0;
  Overflow overflow = Overflow::Block;
  bool given = false;  // any of them written: the edge gets a ring even between equal devices
};

struct BuiltStage {
  std::string name;
  std::string device;  // the device list as text, e.g. "cpu" or "cpu:0,1"
  std::vector<DeviceRef> devices;  // one per replica
  std::unique_ptr<Stage> stage;
  // Its kernel from the backend of the devices it is placed on, when they have memory of their own
  // (GPUs; null elsewhere); destroyed before the stage it reads.
  std::unique_ptr<StageKernel> device_kernel;
  std::vector<std::string> drop_after;  // tensors no later element reads (in a branch group: dropped once all its branches are done)
  json resolved;
  std::vector<std::string> reads, writes;
  std::vector<TensorDecl> outputs;  // what it declares: sim devices emplace zero-filled stand-ins
  double bytes_in_per_series = 0;   // of the tensors it reads
  double bytes_out_per_series = 0;  // of the tensors it writes
  EdgeSettings input;                // of the edge into it
  bool ring_before = false;          // batches reach it through a ring
  std::vector<SlotTensor> crossing;  // the tensors alive on that edge (the ring's slot layout)
  double alive_bytes_per_series = 0;  // of every tensor alive while it runs (its inputs, outputs and the rest)
  MemoryBudget vram;                  // its devices' memory budget (`vram=`), if given
  const DeviceBackend& backend() const { return *devices.front().backend; }
  Residency residency() const { return backend().residency(); }
  bool simulated() const { return residency() == Residency::Modelled; }
  bool in_device_memory() const { return residency() == Residency::Device; }
  // On plain `cpu`, every thread of the machine, rather than on CPU devices (arenas).
  bool whole_machine() const { return devices.size() == 1 && devices.front().index < 0; }
};

struct BuiltSink {
  std::string name;
  std::unique_ptr<Sink> sink;
  json resolved;
  std::vector<std::string> reads;
  std::size_t element = 0;  // its index among the pipeline's elements (for error locations)
};

// A preprocessing stage (engine/api/transform.hpp), folded into the source's reads.
struct BuiltPreprocessing {
  std::string name;
  json resolved;
  bool reads_input_first = false;  // Transform::learns(): the run reads the input once more first
};

struct BuiltPipeline {
  std::unique_ptr<Source> source;  // with the preprocessing stages' transforms, if any
  std::string source_name;
  json source_resolved;
  std::vector<BuiltPreprocessing> preprocessing;
  std::vector<std::string> source_writes;
  StreamInfo stream;
  std::vector<BuiltStage> stages;
  std::vector<BranchGroup> branches;  // stages that run side by side on each batch (plan_branches)
  std::vector<BuiltSink> sinks;
  json attributes;
  json tensors;  // declared tensors, for the report
  std::vector<TensorDecl> results;  // the tensors sinks persist
  std::vector<TensorDecl> masked;   // set to NaN for the source's excluded series: results and kept tensors
  std::vector<std::string> warnings;
  MemoryBudget vram;  // the run's GPU memory budget (--vram), if given
  const DeviceBackends* device_backends = &builtin_device_backends();  // the kinds its lists could name
  // Every batch holds a multiple of this many series (PlanContext::require_batch_multiple), first
  // asked for by the stage named here.
  std::int64_t batch_multiple = 1;
  std::string batch_multiple_by;
};

// Run-wide placement settings (the CLI's --devices, --fallback and --vram; the DSL's setters).
struct Placement {
  std::string pool;         // places the stages that name no device ("cpu" when empty)
  bool force_pool = false;  // a CPU pool also replaces every accelerator placement (sim, cuda)
  std::string fallback;     // "cpu": stages placed on cuda run on the CPU when no GPU is visible
  json vram;                // memory budget for every GPU (null: 90% of each)
  const DeviceBackends* backends = &builtin_device_backends();  // the kinds of device lists may name
  DeviceShare share;  // this process's share of the node's GPUs, in a run over ranks
};

// Instantiates and plans; errors carry the location of the element or parameter at fault. The
// source's open() stops with RunCancelled once `stop` is requested.
BuiltPipeline build(const Registry& registry, const std::vector<ElementSpec>& elements, const Placement& placement = {},
                    const std::stop_token& stop = {});

// Every file the run will write (each sink's output_files(), then `trace_file` when given), checked
// before anything is written: check_output_target for each, find_output_clash against the source's
// input files and `inputs`, and none inside `checkpoint_dir` (which the run removes at its end).
// Errors are InputErrors located at the sink's output parameter.
std::vector<std::filesystem::path> check_outputs(const BuiltPipeline& built, const Registry& registry,
                                                 const std::vector<ElementSpec>& elements,
                                                 const std::filesystem::path& trace_file,
                                                 std::vector<std::filesystem::path> inputs,
                                                 const std::filesystem::path& checkpoint_dir = {});

// Rethrows the exception being handled, raised while building `spec`, as an InputError that points
// at it (the parameter at fault, else the element).
[[noreturn]] void rethrow_located(const ElementSpec& spec);

// Every file the run writes: each sink's output_files() (with its describe_output()), then the
// trace when `trace_file` is given; result.json's `files`.
std::vector<RunFile> run_files(const BuiltPipeline& built, const std::filesystem::path& trace_file);

// The folders the sinks' output parameters (dir=, path=) and `trace_file` name, known before the
// pipeline is built, so a run can hold them before it opens its input. Each named file and folder
// gets the checks that need no plan (check_output_target, check_output_folder), located like
// check_outputs' errors.
std::vector<std::filesystem::path> named_output_folders(const Registry& registry,
                                                        const std::vector<ElementSpec>& elements,
                                                        const std::filesystem::path& trace_file);

// The memory budget on each GPU the pipeline uses: the smallest `vram=` of the stages on it, else
// the run's, else 90% of the device.
std::map<int, std::size_t> gpu_budgets(const BuiltPipeline& built);

// The stages cut at their rings. Each segment has its own batch size and its own bound on the
// batches alive in it: the in-flight limit for the first (fed by the source), the ring's capacity
// for the others. Every batch size, chosen or given, is rounded up to the pipeline's batch multiple.
struct Segment {
  std::size_t first_stage = 0, end_stage = 0;  // stages [first, end)
  std::int64_t batch_series = 0;
  std::int64_t batch_count = 0;
  std::size_t slots = 0;
  bool ring = false;  // false for the first segment
  Overflow overflow = Overflow::Block;
  double gpu_bytes_per_batch = 0;  // GPU memory one batch holds at its peak (0: no GPU stage)
  // Batches that carry `series` series.
  std::int64_t batches(std::int64_t series) const { return (series + batch_series - 1) / batch_series; }
};
// `batch_option` and `in_flight_option` are the run's (0: choose); `threads` the machine's.
std::vector<Segment> plan_segments(const BuiltPipeline& built, std::int64_t batch_option, int in_flight_option,
                                   int threads);

// A run split over ranks passes each batch whole through its rings (engine/run/ring_edge.hpp): every
// segment takes the smallest segment's batch size (a whole multiple of the groups, within every
// segment's memory), and no more slots than it then has batches.
void uniform_batches(std::vector<Segment>& segments, std::int64_t series);

// The plan validate() returns and run()'s report starts from (engine/api/plan_report.hpp): with the
// segments the options give, or with the run's own (on a machine of `threads` threads).
Plan describe(const BuiltPipeline& built, std::int64_t batch_option = 0, int in_flight_option = 0);
Plan describe(const BuiltPipeline& built, const std::vector<Segment>& segments, int threads);
// The plan's segments: each one's stages, batch size and count, in-flight bound or ring. A run that
// resumes from a checkpoint reports its own segments, whose batches carry only the series left.
std::vector<PlannedSegment> describe_segments(const BuiltPipeline& built, const std::vector<Segment>& segments);

}  // namespace pacflow::detail
