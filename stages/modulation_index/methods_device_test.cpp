// Every PAC measure on every device: the mi and surrogates stages' values equal the measure's CPU
// definition (Method::evaluate, itself checked per sample in methods_test.cpp) evaluated here on
// the same phases and amplitudes. On a GPU, tort, hr, mvl, ndpac and plv run their CUDA kernels:
// tort's and hr's sum their runs as the CPU does (bit for bit), the others sum in another order
// (within 1e-9 relative); gc runs on the CPU there (as fallback=cpu does).
#include <cmath>
#include <ostream>
#include <gtest/gtest.h>
#include <string>

#include "engine/placement/devices.hpp"
#include "stages/kernels/pac/methods/method.hpp"
#include "stages/kernels/surrogates/surrogate_math.hpp"
#include "tests/support/fixtures.hpp"

namespace pacflow {
namespace {

struct MethodOnDevice {
  std::string method;
  std::string device;
};
void PrintTo(const MethodOnDevice& p, std::ostream* os) { *os << p.method << " on " << p.device; }

class MeasureOn : public ::testing::TestWithParam<MethodOnDevice> {
 protected:
  void SetUp() override {
    if (GetParam().device.rfind("cuda", 0) == 0 && cuda_availability().count() == 0)
      GTEST_SKIP() << "no GPU visible: " << cuda_availability().why_none;
  }
};

TEST_P(MeasureOn, MiAndSurrogatesEqualTheMeasuresDefinition) {
  const auto& [method, device] = GetParam();
  const json m = testing::manifest("small");
  const auto x = testing::load_floats(testing::data_dir() / "small" / "x.npy");
  testing::StageHarness h(testing::fixture_stream("small"), device);
  h.add("bandpass", {{"pha", m["pha_bands_hz"]}, {"amp", m["amp_bands_hz"]}}).add("hilbert");
  const bool plv = method == "plv";
  if (plv) h.add("envelope_phase");
  h.add("mi", {{"method", method}});
  const std::vector<std::int64_t> shifts = {47, 300, 700, 901};
  h.add("surrogates", {{"shifts", shifts}});
  const std::int64_t series = 3, t = 1024, n_pha = 3, n_amp = 4, cells = n_pha * n_amp;
  const Batch batch = h.run(x, 2, series);

  const auto settings = mi::MethodSettings::from_json(h.context().attributes()["mi_settings"]);
  const auto reference = mi::make_method(settings, t);
  const auto phase = batch.at("phase").values<float>(), amplitude = batch.at("amplitude").values<float>();
  const float* envelope = plv ? batch.at("envelope_phase").values<float>().data() : nullptr;
  const auto pac = batch.at("pac").values<float>(), mean = batch.at("surrogate_mean").values<float>();
  const auto z = batch.at("pac_z").values<float>();
  const std::vector<std::int64_t> alignments = {0, 47, 300, 700, 901};
  const bool exact = method == "tort" || method == "hr";
  const auto close = [&](float ours, float expected, const std::string& what) {
    if (exact)
      EXPECT_EQ(ours, expected) << what;
    else
      EXPECT_NEAR(ours, expected, 1e-9 * std::abs(expected) + 1e-7) << what;  // float32 outputs
  };
  for (std::int64_t s = 0; s < series; ++s) {
    const mi::PairView view{phase.data() + s * n_pha * t, amplitude.data() + s * n_amp * t,
                            envelope ? envelope + s * cells * t : nullptr, n_pha, n_amp, t};
    std::vector<double> values(alignments.size() * static_cast<std::size_t>(cells));
    reference->evaluate(view, alignments, values.data());
    for (std::int64_t c = 0; c < cells; ++c) {
      const std::string where = method + " on " + device + ", series " + std::to_string(s) + ", cell " + std::to_string(c);
      close(pac[s * cells + c], static_cast<float>(values[c]), where + " (mi)");
      const auto stats = surrogates::cell_stats(values[c], values.data() + cells + c, 4, cells);
      close(mean[s * cells + c], static_cast<float>(stats.mean), where + " (surrogate mean)");
      if (std::isnan(stats.z))
        EXPECT_TRUE(std::isnan(z[s * cells + c])) << where;
      else
        EXPECT_NEAR(z[s * cells + c], stats.z, 1e-4 * std::abs(stats.z) + 1e-5) << where << " (z)";
    }
  }
}

std::vector<MethodOnDevice> every_method_on_every_device() {
  std::vector<MethodOnDevice> out;
  for (const auto& device : testing::test_devices())
    for (const char* method : {"tort", "hr", "mvl", "ndpac", "plv", "gc"}) out.push_back({method, device});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Devices, MeasureOn, ::testing::ValuesIn(every_method_on_every_device()),
                         [](const ::testing::TestParamInfo<MethodOnDevice>& param) {
                           std::string name = param.param.method + "_";
                           for (char c : param.param.device)
                             if (c != ':') name += c;
                           return name;
                         });

}  // namespace
}  // namespace pacflow
