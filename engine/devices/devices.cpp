#include "engine/devices/devices.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <oneapi/tbb/info.h>

#include "engine/devices/gpu_plugin.hpp"

namespace pacflow {

std::string DeviceRef::name() const {
  switch (kind) {
    case Kind::Sim: return fmt::format("sim:{}", index);
    case Kind::Cuda: return fmt::format("cuda:{}", index);
    case Kind::Cpu: break;
  }
  return index < 0 ? "cpu" : fmt::format("cpu:{}", index);
}

int cpu_device_count() { return std::max(1, oneapi::tbb::info::default_concurrency()); }

const GpuAvailability& cuda_availability() { return gpu_plugin().availability; }

namespace {

std::string available() {
  const int n = cpu_device_count();
  std::string list = n == 1 ? std::string("cpu, cpu:0") : fmt::format("cpu, cpu:0 to cpu:{}", n - 1);
  const int gpus = cuda_availability().count();
  if (gpus == 1) list += ", cuda:0";
  if (gpus > 1) list += fmt::format(", cuda:0 to cuda:{}", gpus - 1);
  return list + fmt::format(", sim:0 to sim:{} (modelled)", kSimDeviceLimit - 1);
}

[[noreturn]] void bad(const std::string& param, const std::string& text, const std::string& why) {
  throw ParamError(param, fmt::format("device list \"{}\": {}; write cpu, cpu:K, cpu:K,L, cpu:K-L or cpu:* "
                                      "(cuda and sim: likewise) (available here: {})",
                                      text, why, available()));
}

int parse_index(const std::string& param, const std::string& text, std::string_view digits, const std::string& kind,
                int count) {
  int value = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
    bad(param, text, fmt::format("\"{}\" is not a device number", digits));
  if (value >= count) bad(param, text, fmt::format("{}:{} does not exist on this machine", kind, value));
  return value;
}

}  // namespace

std::vector<DeviceRef> parse_devices(const std::string& text, const std::string& param) {
  if (text == "cpu") return {DeviceRef{}};
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  if (kind != "cpu" && kind != "sim" && kind != "cuda") bad(param, text, fmt::format("unknown device \"{}\"", text));
  if (kind != "cuda" && colon == std::string::npos) bad(param, text, fmt::format("unknown device \"{}\"", text));
  const auto device_kind = kind == "sim"    ? DeviceRef::Kind::Sim
                           : kind == "cuda" ? DeviceRef::Kind::Cuda
                                            : DeviceRef::Kind::Cpu;
  // With no GPU at all, a well-formed cuda list is a NoCudaDevice error (checked once parsed).
  const bool no_gpu = device_kind == DeviceRef::Kind::Cuda && cuda_availability().count() == 0;
  const auto none_visible = [&] {
    return NoCudaDevice(param, fmt::format("{} asks for a GPU, but none is visible: {}", text,
                                           cuda_availability().why_none));
  };
  const int count = device_kind == DeviceRef::Kind::Sim    ? kSimDeviceLimit
                    : device_kind == DeviceRef::Kind::Cuda ? (no_gpu ? 1 << 20 : cuda_availability().count())
                                                           : cpu_device_count();
  const std::string list = colon == std::string::npos ? "*" : text.substr(colon + 1);
  std::vector<DeviceRef> out;
  if (list == "*") {
    if (no_gpu) throw none_visible();
    for (int k = 0; k < (device_kind == DeviceRef::Kind::Sim ? kSimDevicesByStar : count); ++k)
      out.push_back({device_kind, k});
    return out;
  }
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view item(list.data() + start, comma - start);
    const auto dash = item.find('-');
    const int first = parse_index(param, text, item.substr(0, dash), kind, count);
    const int last =
        dash == std::string_view::npos ? first : parse_index(param, text, item.substr(dash + 1), kind, count);
    if (last < first) bad(param, text, fmt::format("range {} runs backwards", item));
    for (int k = first; k <= last; ++k) {
      const DeviceRef d{device_kind, k};
      if (std::find(out.begin(), out.end(), d) != out.end()) bad(param, text, fmt::format("{} is listed twice", d.name()));
      out.push_back(d);
    }
    start = comma + 1;
  }
  if (no_gpu) throw none_visible();
  return out;
}

std::string device_list_name(const std::vector<DeviceRef>& devices) {
  if (devices.size() == 1) return devices.front().name();
  const DeviceRef::Kind kind = devices.front().kind;
  std::string out = kind == DeviceRef::Kind::Sim ? "sim:" : kind == DeviceRef::Kind::Cuda ? "cuda:" : "cpu:";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (i > 0) out += ',';  // not `"," + std::to_string(…)`: g++ 12 -O3 warns falsely on that (-Wrestrict)
    out += std::to_string(devices[i].index);
  }
  return out;
}

}  // namespace pacflow
