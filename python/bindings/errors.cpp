#include "python/bindings/errors.hpp"

#include <pybind11/pybind11.h>

#include "engine/api/errors.hpp"

namespace py = pybind11;

namespace pacflow::python {

namespace {

bool holds_missing_file(const std::exception& error) {
  if (dynamic_cast<const MissingFileError*>(&error)) return true;
  try {
    std::rethrow_if_nested(error);
  } catch (const std::exception& cause) {
    return holds_missing_file(cause);
  } catch (...) {
  }
  return false;
}

}  // namespace

void register_error_translation() {
  py::register_exception_translator([](std::exception_ptr failure) {
    try {
      if (failure) std::rethrow_exception(failure);
    } catch (const py::error_already_set&) {
      throw;  // already a Python exception
    } catch (const py::builtin_exception&) {
      throw;  // pybind11's own (TypeError for a bad argument, …)
    } catch (const RunCancelled& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const std::exception& e) {
      PyObject* type = holds_missing_file(e) ? PyExc_FileNotFoundError
                       : caused_by_input(e)  ? PyExc_ValueError
                                             : PyExc_RuntimeError;
      PyErr_SetString(type, e.what());
    }
  });
}

}  // namespace pacflow::python
