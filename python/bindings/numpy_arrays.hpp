#pragma once
// NumPy arrays in and out of the engine. In: a C-contiguous array of a dtype the engine reads
// (float32, float64, int16, int32, native byte order) is handed over in place, never copied (the
// Python layer converts anything else once before). Out: each result's values are moved into the
// NumPy array that owns them, never copied.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "stages/io/memory/host_array.hpp"
#include "stages/io/memory/memory_sink.hpp"

namespace pacflow::python {

// The array in place. Throws std::invalid_argument (TypeError) for an array the engine cannot read
// in place. The caller keeps `array` alive while the engine may read it.
std::shared_ptr<const stages::HostArray> host_array_of(const pybind11::array& array, std::string name);

// A float32 array of `shape` that takes `values` over, and a float64 one.
pybind11::array owning_array(std::vector<float>&& values, const Shape& shape);
pybind11::array owning_array(std::vector<double>&& values, const Shape& shape);

// (name, array, dims, doc) for each result, then (name, values, unit, doc) for each coordinate.
pybind11::tuple result_tuples(stages::ResultArrays&& results);

}  // namespace pacflow::python
