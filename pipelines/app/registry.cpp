#include "pipelines/app/registry.hpp"

#include "pipelines/report/report_sink.hpp"
#include "stages/builtin.hpp"

namespace pacflow::app {

const Registry& registry() {
  static const Registry all = [] {
    Registry r = stages::builtin_registry();
    report::add_report_elements(r);
    return r;
  }();
  return all;
}

}  // namespace pacflow::app
