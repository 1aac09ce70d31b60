#include "stages/builtin.hpp"

#include "stages/field_vocabulary.hpp"

namespace pacflow::stages {

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    add_builtin_elements(r);
    add_field_vocabulary(r);
    return r;
  }();
  return registry;
}

}  // namespace pacflow::stages
