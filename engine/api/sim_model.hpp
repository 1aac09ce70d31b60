#pragma once
// The figures of the modelled accelerator behind `sim:k` devices
// (engine/devices/sim/sim_device.hpp): a run option (RunOptions::sim_model), and the accelerator the
// run-time estimate assumes.
#include <map>
#include <string>

namespace pacflow {

// Defaults: an NVIDIA H100 SXM5 on PCIe Gen5 x16 (NVIDIA H100 datasheet: 67 TFLOPS FP32 without
// tensor cores, 3.35 TB/s HBM3, NVLink 900 GB/s in both directions together; PCIe Gen5 x16: 64 GB/s
// per direction). Launch: 5 µs per batch. A model read from a file
// (engine/devices/sim/sim_model_file.hpp) may give stages their own measured rates instead of the
// peak: a stage's flops (Stage::flops_per_series) at its rate in stage_flops_per_s, by element name.
struct SimModel {
  std::string name = "H100 SXM5, datasheet peak";
  double flops_per_s = 67e12;
  double memory_bytes_per_s = 3.35e12;
  double host_to_device_bytes_per_s = 64e9;
  double device_to_host_bytes_per_s = 64e9;
  double peer_bytes_per_s = 450e9;  // device to device over NVLink, one direction
  double launch_s = 5e-6;
  std::map<std::string, double> stage_flops_per_s;  // measured rates by element name ("surrogates")

  // The rate of stage `element`: its measured one, else the peak.
  double flops_per_s_of(const std::string& element) const {
    const auto rate = stage_flops_per_s.find(element);
    return rate == stage_flops_per_s.end() ? flops_per_s : rate->second;
  }
};

}  // namespace pacflow
