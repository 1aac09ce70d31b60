#include "python/bindings/numpy_arrays.hpp"

#include <fmt/format.h>
#include <memory>
#include <stdexcept>

namespace py = pybind11;

namespace pacflow::python {

namespace {

DType engine_dtype(const py::dtype& dtype) {
  const bool native = dtype.attr("isnative").cast<bool>();
  const auto kind = dtype.attr("kind").cast<std::string>();
  const py::ssize_t size = dtype.itemsize();
  if (native && kind == "f" && size == 4) return DType::Float32;
  if (native && kind == "f" && size == 8) return DType::Float64;
  if (native && kind == "i" && size == 2) return DType::Int16;
  if (native && kind == "i" && size == 4) return DType::Int32;
  throw std::invalid_argument(fmt::format("dtype {} is not read in place; give float32, float64, int16 or int32 in "
                                          "native byte order",
                                          dtype.attr("str").cast<std::string>()));
}

template <class T>
py::array owning(std::vector<T>&& values, const Shape& shape) {
  auto held = std::make_unique<std::vector<T>>(std::move(values));
  const T* data = held->data();
  // The capsule owns the values from here on; NumPy frees them with the array.
  const py::capsule owner(held.release(), [](void* p) { std::unique_ptr<std::vector<T>>(static_cast<std::vector<T>*>(p)); });
  return py::array_t<T>(std::vector<py::ssize_t>(shape.begin(), shape.end()), data, owner);
}

}  // namespace

std::shared_ptr<const stages::HostArray> host_array_of(const py::array& array, std::string name) {
  if (!(array.flags() & py::array::c_style))
    throw std::invalid_argument(name + " is not C-contiguous; pass np.ascontiguousarray(x)");
  auto host = std::make_shared<stages::HostArray>();
  host->dtype = engine_dtype(array.dtype());
  host->data = static_cast<const std::byte*>(array.data());
  host->shape.assign(array.shape(), array.shape() + array.ndim());
  host->name = std::move(name);
  return host;
}

py::array owning_array(std::vector<float>&& values, const Shape& shape) { return owning(std::move(values), shape); }
py::array owning_array(std::vector<double>&& values, const Shape& shape) { return owning(std::move(values), shape); }

py::tuple result_tuples(stages::ResultArrays&& results) {
  py::list arrays;
  for (stages::ResultArray& a : results.arrays)
    arrays.append(py::make_tuple(a.name, owning_array(std::move(a.values), a.shape), py::tuple(py::cast(a.dims)), a.doc));
  py::list coordinates;
  for (const Coordinate& c : results.coordinates)
    coordinates.append(py::make_tuple(c.name, owning_array(c.values(), {c.count}), c.unit, c.doc));
  return py::make_tuple(arrays, coordinates);
}

}  // namespace pacflow::python
