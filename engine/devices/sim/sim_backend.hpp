#pragma once
// The sim backend: `sim:k` (0 <= k < 64), modelled accelerators that do no arithmetic and take the
// time their model (sim_device.hpp, RunOptions::sim_model) gives for each batch's copies and work.
#include "engine/placement/device_backend.hpp"
#include "engine/run/device_run.hpp"

namespace pacflow {

inline constexpr int kSimDeviceLimit = 64;   // sim:0 … sim:63
inline constexpr int kSimDevicesByStar = 8;  // sim:*

class SimBackend final : public DeviceBackend {
 public:
  std::string_view kind() const override { return "sim"; }
  std::string noun() const override { return "modelled device"; }
  Residency residency() const override { return Residency::Modelled; }
  BareKind bare() const override { return BareKind::Refused; }
  int count() const override { return kSimDeviceLimit; }
  int star_count() const override { return kSimDevicesByStar; }
  std::string available() const override;
  std::vector<std::string> listing() const override;
  std::unique_ptr<detail::DeviceRun> start(const detail::RunStart& start) const override;
};

}  // namespace pacflow
