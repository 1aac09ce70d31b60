#include "engine/placement/devices.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <oneapi/tbb/info.h>

#include "engine/placement/backends.hpp"

namespace pacflow {

std::string DeviceRef::name() const {
  return index < 0 ? std::string(backend->kind()) : fmt::format("{}:{}", backend->kind(), index);
}

int cpu_device_count() { return std::max(1, oneapi::tbb::info::default_concurrency()); }

namespace {

std::string available(const DeviceBackends& backends) {
  std::string list;
  for (const auto& b : backends.all()) {
    const std::string mine = b->available();
    if (!mine.empty()) list += (list.empty() ? "" : ", ") + mine;
  }
  return list;
}

// A device list of one kind being read.
struct ListReader {
  const std::string& text;
  const std::string& param;
  const DeviceBackends& backends;

  [[noreturn]] void bad(const std::string& why) const {
    const std::string kinds = backends.kinds();
    const std::string first(backends.all().front()->kind());
    const std::string others = kinds.size() > first.size() ? kinds.substr(first.size() + 2) : "";
    throw ParamError(param, fmt::format("device list \"{0}\": {1}; write {2}, {2}:K, {2}:K,L, {2}:K-L or {2}:*{3} "
                                        "(available here: {4})",
                                        text, why, first, others.empty() ? "" : " (" + others + ": likewise)",
                                        available(backends)));
  }

  int index(std::string_view digits, const DeviceBackend& backend, int count) const {
    int value = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
      bad(fmt::format("\"{}\" is not a device number", digits));
    if (value >= count) bad(fmt::format("{}:{} does not exist on this machine", backend.kind(), value));
    return value;
  }

  // "0,2-3": the indices, each once.
  std::vector<DeviceRef> indices(const std::string& list, const DeviceBackend& backend, int count) const {
    std::vector<DeviceRef> out;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      const std::string_view item(list.data() + start, comma - start);
      const auto dash = item.find('-');
      const int first = index(item.substr(0, dash), backend, count);
      const int last = dash == std::string_view::npos ? first : index(item.substr(dash + 1), backend, count);
      if (last < first) bad(fmt::format("range {} runs backwards", item));
      for (int k = first; k <= last; ++k) {
        const DeviceRef d{&backend, k};
        if (std::find(out.begin(), out.end(), d) != out.end()) bad(fmt::format("{} is listed twice", d.name()));
        out.push_back(d);
      }
      start = comma + 1;
    }
    return out;
  }
};

std::vector<DeviceRef> first_of(const DeviceBackend& backend, int count) {
  std::vector<DeviceRef> out;
  for (int k = 0; k < count; ++k) out.push_back({&backend, k});
  return out;
}

// `kind:*` for this process: every device, or its share of the node's (DeviceShare).
std::vector<DeviceRef> star_of(const DeviceBackend& backend, int count, const DeviceShare& share) {
  if (!backend.node_shared() || share.local_size <= 1 || count == 0) return first_of(backend, count);
  if (share.local_size >= count) return {DeviceRef{&backend, share.local_rank % count}};
  std::vector<DeviceRef> out;
  for (int k = share.local_rank; k < count; k += share.local_size) out.push_back({&backend, k});
  return out;
}

}  // namespace

std::vector<DeviceRef> parse_devices(const std::string& text, const std::string& param,
                                     const DeviceBackends& backends, const DeviceShare& share) {
  const ListReader reader{text, param, backends};
  const auto colon = text.find(':');
  const DeviceBackend* backend = backends.find(std::string_view(text).substr(0, colon));
  if (!backend) reader.bad(fmt::format("unknown device \"{}\"", text));
  if (colon == std::string::npos && backend->bare() == BareKind::WholeMachine) return {DeviceRef{backend, -1}};
  if (colon == std::string::npos && backend->bare() == BareKind::Refused)
    reader.bad(fmt::format("unknown device \"{}\"", text));
  // With none of the kind here, a well-formed list is a DeviceUnavailable error (checked once read).
  const std::string none = backend->why_none();
  const int count = none.empty() ? backend->count() : 1 << 20;
  const std::string list = colon == std::string::npos ? "*" : text.substr(colon + 1);
  std::vector<DeviceRef> out = list == "*" ? star_of(*backend, none.empty() ? backend->star_count() : 0, share)
                                           : reader.indices(list, *backend, count);
  if (!none.empty())
    throw DeviceUnavailable(param, fmt::format("{} asks for a {}, but none is visible: {}", text, backend->noun(), none),
                            none);
  return out;
}

std::string device_list_name(const std::vector<DeviceRef>& devices) {
  if (devices.size() == 1) return devices.front().name();
  std::string out = std::string(devices.front().backend->kind()) + ":";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (i > 0) out += ',';  // not `"," + std::to_string(…)`: g++ 12 -O3 warns falsely on that (-Wrestrict)
    out += std::to_string(devices[i].index);
  }
  return out;
}

}  // namespace pacflow
