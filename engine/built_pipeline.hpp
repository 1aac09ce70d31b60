#pragma once
// Internal: a pipeline whose elements are instantiated and planned, ready to execute.
#include <memory>
#include <string>
#include <vector>

#include "engine/devices.hpp"
#include "engine/pipeline.hpp"

namespace pacflow::detail {

struct BuiltStage {
  std::string name;
  std::string device;  // the device list as text, e.g. "cpu" or "cpu:0,1"
  std::vector<DeviceRef> devices;  // one per replica
  std::unique_ptr<Stage> stage;
  std::vector<std::string> drop_after;  // tensors no later element reads
  json resolved;
  std::vector<std::string> reads, writes;
  std::vector<TensorDecl> outputs;  // what it declares: sim devices emplace zero-filled stand-ins
  double bytes_in_per_series = 0;   // of the tensors it reads
  double bytes_out_per_series = 0;  // of the tensors it writes
  bool simulated() const { return !devices.empty() && devices.front().kind == DeviceRef::Kind::Sim; }
};

struct BuiltSink {
  std::string name;
  std::unique_ptr<Sink> sink;
  json resolved;
  std::vector<std::string> reads;
};

struct BuiltPipeline {
  std::unique_ptr<Source> source;
  std::string source_name;
  json source_resolved;
  std::vector<std::string> source_writes;
  StreamInfo stream;
  std::vector<BuiltStage> stages;
  std::vector<BuiltSink> sinks;
  json attributes;
  json tensors;  // declared tensors, for the report
  std::vector<std::string> warnings;
};

// Instantiates and plans; errors carry the location of the element or parameter at fault.
// `device_pool` places the stages that name no device ("cpu" when empty); with `force_pool` (a
// CPU pool only) it also replaces every accelerator placement (sim, cuda), with a warning.
BuiltPipeline build(const Registry& registry, const std::vector<ElementSpec>& elements,
                    const std::string& device_pool = "", bool force_pool = false);

// The report skeleton shared by validate() and run().
json describe(const BuiltPipeline& built);

}  // namespace pacflow::detail
