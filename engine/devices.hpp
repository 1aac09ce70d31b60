#pragma once
// Devices a stage can run on, and the lists users write to name them (`on=cpu:1`,
// `on=cpu:0,1`, `on=cpu:0-3`, `on=cpu:*`, `--devices cpu:0,1`).
//
// - `cpu` is the whole machine: the default oneTBB arena, every thread.
// - `cpu:k` (0 <= k < threads) is one CPU device: a oneTBB task_arena of its own, so a stage pinned
//   there runs beside, not among, stages pinned elsewhere. The machine's threads are shared evenly
//   among the cpu:k devices a pipeline uses (at least one each).
// A stage given several devices is replicated: each batch goes to whichever replica is free.
#include <string>
#include <vector>

namespace pacflow {

struct DeviceRef {
  enum class Kind { Cpu } kind = Kind::Cpu;
  int index = -1;  // -1: the whole machine (`cpu`)

  std::string name() const;  // "cpu", "cpu:3"
  bool operator==(const DeviceRef&) const = default;
  auto operator<=>(const DeviceRef&) const = default;
};

// CPU devices this machine offers (oneTBB's default concurrency).
int cpu_device_count();

// Parses a device list; throws ParamError (parameter `param`) with the accepted forms and the
// devices available when the text is malformed, names an unknown kind or an absent device.
std::vector<DeviceRef> parse_devices(const std::string& text, const std::string& param = "on");

// "cpu:0,1" style text for a list.
std::string device_list_name(const std::vector<DeviceRef>& devices);

}  // namespace pacflow
