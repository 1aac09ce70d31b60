#pragma once
// A modelled accelerator (SimModel) read from a JSON file, e.g. one calibrated from a GPU's measured
// rates (bench/calibrate_sim.py writes bench/sim_models/*.json from gpu_bench's results):
//
//   {"name": "H100, rates measured by gpu_bench", "flops_per_s": 6.7e13, "memory_bytes_per_s": 3.35e12,
//    "host_to_device_bytes_per_s": 6.4e10, "device_to_host_bytes_per_s": 6.4e10,
//    "peer_bytes_per_s": 4.5e11, "launch_s": 5e-6,
//    "stage_flops_per_s": {"bandpass": 3.1e11, "surrogates": 4.3e11}}
//
// Every key is optional (the H100 datasheet's figure stays); any other key is kept as a note (a
// string: the calibration's source). Numbers must be finite and positive (launch_s may be 0).
#include <filesystem>

#include "engine/devices/sim/sim_device.hpp"

namespace pacflow {

// Throws InputError naming the file and the key at fault.
SimModel read_sim_model(const std::filesystem::path& file);

}  // namespace pacflow
