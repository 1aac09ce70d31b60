#pragma once
// The fuzz targets' entry points, shared by the libFuzzer programs (built by the `fuzz` preset with
// clang) and by the regression test of the normal suite, which feeds every seed and every input a
// fuzzer once crashed on (tests/fuzz/<target>/{seeds,regressions}/) through the same code.
//
// An entry returns normally when the input was accepted or refused with an InputError (a clean
// error, returned for the test to check). Anything else is a bug: another exception escapes (and
// aborts the fuzzer), a crash, a hang, or a sanitizer report.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace pacflow::fuzz {

using Input = std::span<const std::uint8_t>;

struct Outcome {
  bool accepted = false;
  std::string error;  // the InputError's message when refused
};

// `.pipe` text: parse_pipe_text, then each element's parameters against its schema, and the
// sinks' output paths as the engine checks them before a run (check_output_target, find_output_clash).
Outcome pipe_format(Input data);
// An `.npy` file (header parsing, the memory-mapped row reader, the whole-array reader) or an `.npz`
// archive (its directory, a stored member mapped in place or a deflated one inflated, read twice).
Outcome npy_reader(Input data);
// An EDF/BDF file: the header check, EDFlib's open (with annotations) and a few samples per signal.
Outcome edf_reader(Input data);
// A BrainVision recording: the input is the header (.vhdr), then kBrainVisionSeparator and the
// marker file (.vmrk), then the separator again and the data file, written as rec.vhdr, rec.vmrk and
// rec.eeg in one folder (the seeds' header names them); opened with its markers, a few samples read
// per channel.
inline constexpr std::string_view kBrainVisionSeparator = "\n#8<#\n";
Outcome brainvision_reader(Input data);
// An HDF5 file built from a recipe in the input (dataset shape and type, layout=, fs and channel-name
// attributes of any type or shape, samples, nan_policy), opened and read by the hdf5 source.
Outcome hdf5_metadata(Input data);

}  // namespace pacflow::fuzz
