// The default PAC pipeline written with the C++ DSL instead of a .pipe file.
// Build: part of the default build (target pac_example). Run: build/bin/pac_example [OUT_DIR]
#include <cstdio>
#include <fmt/format.h>

#include "engine/api/pipeline.hpp"
#include "stages/builtin.hpp"

int main(int argc, char** argv) {
  const std::string out = argc > 1 ? argv[1] : "out/pac_example";
  try {
    const pacflow::RunReport report = pacflow::Pipeline(pacflow::stages::builtin_registry())
        .source("synthetic", {{"epochs", 4}, {"channels", 8}, {"seconds", 4}, {"f_pha", 6}, {"f_amp", 80}})
        .stage("bandpass", {{"pha", "2:20:10"}, {"amp", "60:160:10"}})
        .stage("hilbert")
        .stage("mi", {{"bins", 18}})
        .stage("surrogates", {{"n", 100}, {"seed", 42}})
        .sink("npy", {{"dir", out}})
        .sink("png", {{"path", out + "/comodulogram.png"}})
        .run();
    fmt::print("{} series in {:.2f} s, results in {}\n", report.run.series, report.run.wall_s, out);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
