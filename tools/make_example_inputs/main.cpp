// make_example_inputs: writes the small recordings the example pipelines read (EDF+, BDF+ and HDF5)
// from the synthetic generator, so the repository carries no binary data files.
//
//   make_example_inputs [DIR]          (default: out/example_inputs)
//   make_example_inputs --gpac [DIR]   (default: out/bench): only DIR/gpac.npy, below
//   make_example_inputs --sim-trials [DIR]  (default: out/bench): only DIR/sim_trials.npy, below
//
//   DIR/recording.edf  EDF+, 8 EEG channels (Fz Cz Pz Oz C3 C4 T7 T8), 60 s at 256 Hz, in uV, with a
//                      "stim" annotation every 5 s from 2.5 s on
//   DIR/recording.bdf  the same recording as BDF+ (24-bit samples)
//   DIR/recording.h5   dataset /eeg [8 epochs][8 channels][1024 samples] float32, chunked one epoch
//                      per chunk, attributes fs = 256 and channel_names
// Channels Fz, Cz and C3 carry 6 Hz -> 80 Hz coupling; the others do not.
//
//   DIR/gpac.npy       the input of gPAC's paper scenario (pipelines/bench/gpac.pipe): 256 channels
//                      of 10 minutes at 1 kHz, float32 [256][600000] (614 MB), every third channel
//                      coupled 6 Hz -> 80 Hz
//   DIR/sim_trials.npy the input of the heavy scaling job on modelled devices with the trial-level
//                      test (pipelines/bench/sim_trials.pipe): float32 [64 epochs][16 channels][4096]
//                      at 512 Hz (16 MB), read in milliseconds so that the devices' model is measured
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/io/npy.hpp"
#include "engine/io/output_checks.hpp"
#include "stages/io/common/output_paths.hpp"
#include "stages/io/edf/edf_writer.hpp"
#include "stages/io/hdf5/hdf5_attributes.hpp"
#include "stages/io/hdf5/hdf5_handle.hpp"
#include "stages/synthetic/synthetic_source.hpp"

namespace {

using namespace pacflow;
namespace fs = std::filesystem;

const std::vector<std::string> kLabels = {"Fz", "Cz", "Pz", "Oz", "C3", "C4", "T7", "T8"};
constexpr int kRate = 256;
constexpr double kMicrovoltsPerUnit = 20.0;  // scales the generator's unit-amplitude signals to EEG size

stages::SyntheticConfig config(std::int64_t epochs, std::int64_t samples) {
  stages::SyntheticConfig c;
  c.fs = kRate;
  c.epochs = epochs;
  c.channels = static_cast<std::int64_t>(kLabels.size());
  c.n_times = samples;
  c.pha_bw = 0.5;
  c.seed = 7;
  c.coupled = {0, 1, 4};
  return c;
}

// One continuous series per channel, in uV.
std::vector<std::vector<double>> continuous_recording(int seconds) {
  const auto c = config(1, std::int64_t{seconds} * kRate);
  std::vector<std::vector<double>> channels;
  std::vector<float> series(static_cast<std::size_t>(c.n_times));
  for (std::int64_t ch = 0; ch < c.channels; ++ch) {
    stages::synthesize_series(c, ch, series.data());
    channels.emplace_back();
    for (float v : series) channels.back().push_back(kMicrovoltsPerUnit * v);
  }
  return channels;
}

void write_edf(const fs::path& path, bool bdf) {
  constexpr int kSeconds = 60;
  const auto channels = continuous_recording(kSeconds);
  std::vector<stages::EdfSignalSpec> signals;
  for (const auto& label : kLabels) {
    stages::EdfSignalSpec s;
    s.label = label;
    s.sample_rate = kRate;
    s.physical_min = -400;
    s.physical_max = 400;
    if (bdf) s.digital_min = -8388608, s.digital_max = 8388607;
    signals.push_back(s);
  }
  stages::EdfWriter writer(path.string(), bdf, signals);
  for (int r = 0; r < kSeconds; ++r) {
    std::vector<std::vector<double>> record;
    for (const auto& ch : channels) record.emplace_back(ch.begin() + r * kRate, ch.begin() + (r + 1) * kRate);
    writer.write_record(record);
  }
  for (double onset = 2.5; onset < kSeconds; onset += 5.0) writer.annotate(onset, "stim");
  writer.close();
}

void write_hdf5(const fs::path& path) {
  const auto c = config(8, 4 * kRate);
  std::vector<float> values(static_cast<std::size_t>(c.epochs * c.channels * c.n_times));
  for (std::int64_t s = 0; s < c.epochs * c.channels; ++s) {
    float* series = values.data() + s * c.n_times;
    stages::synthesize_series(c, s, series);
    for (std::int64_t t = 0; t < c.n_times; ++t) series[t] *= static_cast<float>(kMicrovoltsPerUnit);
  }
  const hdf5::QuietErrors quiet;
  const std::string where = path.string();
  const hdf5::Id file = hdf5::check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, where,
                                    "cannot create");
  const hsize_t dims[3] = {static_cast<hsize_t>(c.epochs), static_cast<hsize_t>(c.channels),
                           static_cast<hsize_t>(c.n_times)};
  const hsize_t chunk[3] = {1, dims[1], dims[2]};
  const hdf5::Id space = hdf5::check(H5Screate_simple(3, dims, nullptr), H5Sclose, where, "cannot make a dataspace");
  const hdf5::Id layout = hdf5::check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, where, "cannot make a property list");
  hdf5::check(H5Pset_chunk(layout.get(), 3, chunk), where, "cannot set chunks");
  const hdf5::Id dataset = hdf5::check(
      H5Dcreate2(file.get(), "/eeg", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, layout.get(), H5P_DEFAULT), H5Dclose,
      where, "cannot create /eeg");
  hdf5::check(H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), where,
              "cannot write /eeg");
  hdf5::write_attributes(dataset.get(), {{"fs", kRate}, {"channel_names", kLabels}, {"units", "uV"}}, where);
}

// gPAC's scenario, channel by channel (the file is written whole or not at all).
void write_gpac(const fs::path& path) {
  stages::SyntheticConfig c;
  c.fs = 1000;
  c.epochs = 1;
  c.channels = 256;
  c.n_times = 600'000;
  c.seed = 11;
  for (std::int64_t ch = 0; ch < c.channels; ch += 3) c.coupled.push_back(ch);
  NpyWriter writer(path, {c.channels, c.n_times});
  std::vector<float> series(static_cast<std::size_t>(c.n_times));
  for (std::int64_t ch = 0; ch < c.channels; ++ch) {
    stages::synthesize_series(c, ch, series.data());
    writer.append(series.data(), c.n_times);
  }
  writer.commit();
}

// The heavy scaling job's input: the synthetic generator's series, epoch by epoch.
void write_sim_trials(const fs::path& path) {
  stages::SyntheticConfig c;
  c.fs = 512;
  c.epochs = 64;
  c.channels = 16;
  c.n_times = 4096;
  c.seed = 1;
  NpyWriter writer(path, {c.epochs, c.channels, c.n_times});
  std::vector<float> series(static_cast<std::size_t>(c.n_times));
  for (std::int64_t s = 0; s < c.epochs * c.channels; ++s) {
    stages::synthesize_series(c, s, series.data());
    writer.append(series.data(), c.n_times);
  }
  writer.commit();
}

// Where an output goes, checked as every pacflow output is (engine/io/output_checks.hpp): a FIFO, a
// device node or a folder at the path is refused rather than replaced by the renamed file, and a
// symbolic link is followed (the file it points to is replaced, the link stays).
fs::path output(const fs::path& path) {
  pacflow::check_output_target(path);
  return pacflow::resolved_output(path);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const bool gpac = !args.empty() && args[0] == "--gpac";
  const bool sim_trials = !args.empty() && args[0] == "--sim-trials";
  const std::size_t rest = args.size() - (gpac || sim_trials ? 1 : 0);
  if (rest > 1 || (!args.empty() && (args[0] == "-h" || args[0] == "--help"))) {
    std::fprintf(stderr,
                 "usage: make_example_inputs [DIR]          the example recordings (default DIR: out/example_inputs)\n"
                 "       make_example_inputs --gpac [DIR]   gPAC's scenario, DIR/gpac.npy (default DIR: out/bench)\n"
                 "       make_example_inputs --sim-trials [DIR]  the heavy scaling job's input, DIR/sim_trials.npy "
                 "(default DIR: out/bench)\n");
    return rest > 1 ? 2 : 0;
  }
  const fs::path dir = rest == 1 ? args.back() : (gpac || sim_trials ? "out/bench" : "out/example_inputs");
  try {
    pacflow::stages::create_directories_or_throw(dir);
    if (gpac || sim_trials) {
      const char* name = gpac ? "gpac.npy" : "sim_trials.npy";
      gpac ? write_gpac(output(dir / name)) : write_sim_trials(output(dir / name));
      fmt::print("wrote {}/{}\n", dir.string(), name);
      return 0;
    }
    const fs::path edf = output(dir / "recording.edf"), bdf = output(dir / "recording.bdf"),
                   h5 = output(dir / "recording.h5");
    write_edf(edf, false);
    write_edf(bdf, true);
    write_hdf5(h5);
  } catch (const pacflow::InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  fmt::print("wrote {0}/recording.edf, {0}/recording.bdf, {0}/recording.h5\n", dir.string());
  return 0;
}
