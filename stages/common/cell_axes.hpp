#pragma once
// The axis names (TensorDecl::axes) of the results the PAC stages declare per cell: phase bands by
// amplitude bands, then what a result adds (erpac's times, the amplitude distribution's bins).
#include <initializer_list>

#include "engine/api/stage.hpp"

namespace pacflow::stages {

inline TensorDecl over_cells(TensorDecl decl, std::initializer_list<const char*> more = {}) {
  decl.axes = {"phase_bands", "amplitude_bands"};
  for (const char* axis : more) decl.axes.emplace_back(axis);
  return decl;
}

}  // namespace pacflow::stages
