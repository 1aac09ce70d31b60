// pacflow._core: the engine for the Python package (python/src/pacflow). Thin: it builds the
// pipeline a request describes, runs it while Python waits (Ctrl-C stops it) and hands the results
// over as NumPy arrays; everything else is the engine's, exactly as pipeline_cli runs it.
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "engine/api/json_text.hpp"
#include "engine/io/provenance.hpp"
#include "engine/placement/backends.hpp"
#include "engine/plan/run_time_estimate.hpp"
#include "pipelines/app/runners.hpp"
#include "pipelines/group/group_summary.hpp"
#include "pipelines/report/methods_text.hpp"
#include "pipelines/report/significance.hpp"
#include "python/bindings/errors.hpp"
#include "python/bindings/numpy_arrays.hpp"
#include "python/bindings/request.hpp"
#include "python/bindings/waiting_run.hpp"
#include "pipelines/app/registry.hpp"
#include "stages/common/lanes.hpp"

namespace py = pybind11;

namespace pacflow::python {

namespace {

// The input array as the engine reads it, or none.
std::shared_ptr<const stages::HostArray> input_of(const py::object& input, const std::string& name) {
  if (input.is_none()) return nullptr;
  return host_array_of(input.cast<py::array>(), name);
}

// A dataset (pipelines/dataset_run.hpp): every recording's run, each one's report and arrays kept;
// returns (the dataset's report as JSON text, None, [(id, report, result arrays, coordinates)…]).
py::tuple run_dataset_job(const app::Job& job, RunOptions options, const py::object& progress) {
  struct Recording {
    std::string id;
    json report;
    std::shared_ptr<stages::ResultArrays> results;  // the run's own, not a copy
  };
  std::vector<Recording> recordings;  // filled on the worker thread, read once it has ended
  const json report = run_while_python_waits(
      [&](const RunOptions& o) {
        return app::to_json(app::run_here(job, o,
                             [&](const std::string& id, const json& r, const std::shared_ptr<stages::ResultArrays>& a) {
                               recordings.push_back({id, r, a});
                             }));
      },
      std::move(options), progress);
  py::list out;
  for (auto& r : recordings) {
    const py::tuple arrays = result_tuples(std::move(*r.results));  // the run is over: ours alone
    out.append(py::make_tuple(r.id, json_text(r.report, -1), arrays[0], arrays[1]));
  }
  return py::make_tuple(json_text(report, -1), py::none(), out);
}

// The request's job; a stream's results go to the `arrays` sink when the request asks for them (a
// dataset's recordings hand their arrays over themselves).
app::Job request_job_of(const json& request, const Registry& registry) {
  json without_arrays = request;
  without_arrays["arrays"] = false;
  app::Job job(request_pipeline(without_arrays, registry));
  if (!job.is_dataset() && request.value("arrays", true)) job.pipeline().sink("arrays");
  return job;
}

// Runs the request; returns (report as JSON text, result arrays, coordinates), or for a dataset what
// run_dataset_job returns.
py::tuple run(const std::string& request_text, const py::object& input, const std::string& input_name,
              const py::object& progress, const std::vector<std::string>& command) {
  const json request = json::parse(request_text);
  auto results = std::make_shared<stages::ResultArrays>();
  const Registry registry = request_registry(input_of(input, input_name), results);
  const app::Job job = request_job_of(request, registry);
  RunOptions options = request_options(request);
  options.provenance = collect_provenance(command, simd::simd_width());
  if (job.is_dataset()) return run_dataset_job(job, std::move(options), progress);
  const json report = run_while_python_waits([&](const RunOptions& o) { return app::to_json(app::run_here(job, o)); },
                                             std::move(options), progress);
  const py::tuple arrays = result_tuples(std::move(*results));
  return py::make_tuple(json_text(report, -1), arrays[0], arrays[1]);
}

// Share `shard` ("i/N") of the request's .pipe file into the request's `out` folder, as `pipeline_cli
// run --shard i/N --out DIR` (pipelines/app/runners.hpp); returns the shard's report as JSON text.
std::string shard(const std::string& request_text, const std::string& shard_text, const py::object& progress,
                  const std::vector<std::string>& command) {
  const json request = json::parse(request_text);
  const app::JobSpec spec = request_job(request);
  const app::ShardSpec share = app::ShardSpec::parse(shard_text);
  RunOptions options = request_options(request);
  options.provenance = collect_provenance(command, simd::simd_width());
  const json report = run_while_python_waits(
      [&](const RunOptions& o) { return app::to_json(app::run_shard(spec, share, o, app::registry()).report); },
      std::move(options), progress);
  return json_text(report, -1);
}

// Every shard's batches through the pipeline's summaries and sinks into `out`, as `pipeline_cli merge`;
// returns the merged run's report as JSON text.
std::string merge(const std::string& out, const std::vector<std::string>& dirs, const py::object& progress,
                  const std::vector<std::string>& command) {
  RunOptions options;
  options.provenance = collect_provenance(command, simd::simd_width());
  const json report = run_while_python_waits(
      [&](const RunOptions& o) {
        return app::to_json(app::merge_shards({dirs.begin(), dirs.end()}, out, o, app::registry()).report);
      },
      std::move(options), progress);
  return json_text(report, -1);
}

// The group-level test of `values` ([subjects][...], float64, C order) whose axes after the first are
// `dims` (pipelines/group/group_summary.hpp): (report as JSON text, warnings, [(name, values, shape,
// dims, doc)…]).
py::tuple group_test(const py::array_t<double, py::array::c_style | py::array::forcecast>& values,
                     const std::vector<std::string>& dims, std::int64_t flips, std::uint64_t seed, double cluster_p,
                     const std::string& statistic) {
  if (values.ndim() < 3 || static_cast<std::size_t>(values.ndim() - 1) != dims.size())
    throw InputError("group: the values need a subjects axis, then the statistic's axes (the last two the bands)");
  const std::vector<std::size_t> shape(values.shape() + 1, values.shape() + values.ndim());
  const std::vector<double> all(values.data(), values.data() + values.size());
  group::Settings settings;
  settings.flips = flips;
  settings.seed = seed;
  settings.cluster_p = cluster_p;
  group::GroupOutcome outcome;
  {
    const py::gil_scoped_release released;
    outcome = group::group_tests(all, static_cast<std::int64_t>(values.shape(0)), shape, dims, settings, statistic);
  }
  py::list arrays;
  for (const auto& a : outcome.arrays)
    arrays.append(py::make_tuple(a.name, py::array_t<double>(a.shape, a.values.data()), a.dims, a.doc));
  return py::make_tuple(json_text(group::to_json(outcome.report), -1), outcome.warnings, arrays);
}

// One `NAME.key=value` override read with the CLI's grammar (`[a,b]` a list, `"a b"` a string):
// (element, key, value as JSON text).
py::tuple parse_set(const std::string& text) {
  const SetOverride o = parse_set_override(text);
  return py::make_tuple(o.element, o.key, json_text(o.value, -1));
}

// The checked plan as JSON text (what `pipeline_cli validate` prints from).
std::string validate(const std::string& request_text, const py::object& input, const std::string& input_name) {
  const json request = json::parse(request_text);
  const Registry registry = request_registry(input_of(input, input_name), std::make_shared<stages::ResultArrays>());
  RunOptions options = request_options(request);
  options.rates = measured_rates(simd::simd_width());
  const py::gil_scoped_release released;
  return json_text(request_pipeline(request, registry).validate(options).to_json(), -1);
}

// The pipeline as a Graphviz DOT digraph (what `pipeline_cli graph` prints).
std::string graph(const std::string& request_text, const py::object& input, const std::string& input_name) {
  const json request = json::parse(request_text);
  const Registry registry = request_registry(input_of(input, input_name), std::make_shared<stages::ResultArrays>());
  const RunOptions options = request_options(request);
  const py::gil_scoped_release released;
  return request_pipeline(request, registry).graph(options);
}

// Every element and its parameters, as JSON text (what `pipeline_cli stages` lists).
std::string elements() {
  json out = json::array();
  const auto params_of = [](const std::vector<ParamSpec>& specs) {
    json list = json::array();
    for (const ParamSpec& p : specs)
      list.push_back({{"name", p.name},
                      {"type", param_type_name(p.type)},
                      {"default", p.default_value},
                      {"required", p.default_value.is_null() && !p.optional},
                      {"unit", p.unit},
                      {"allowed", p.constraint_text()},
                      {"doc", p.doc}});
    return list;
  };
  for (const ElementInfo& info : app::registry().all())
    out.push_back({{"kind", kind_name(info.kind)}, {"name", info.name}, {"summary", info.summary},
                   {"params", params_of(info.params)}});
  return json_text(json{{"elements", out}, {"placement", params_of(placement_params())}}, -1);
}

// Throws the engine's InputError (ValueError) when no element of `kind` is called `name`, with a
// spelling suggestion, as Pipeline::add does.
void check_element(const std::string& kind, const std::string& name) {
  Pipeline pipeline(app::registry());
  pipeline.add({kind == "source" ? ElementKind::Source : kind == "sink" ? ElementKind::Sink : ElementKind::Stage, name,
                json::object(), {}, {}});
}

// A run's methods paragraph and references (pipelines/report/methods_text.hpp), from its report as
// JSON text (Result.report), in Markdown.
std::string methods(const std::string& report_text) {
  return report::methods_text(parse_json_record(report_text)).markdown();
}

// The p-values to report (`array` empty) or those of `array`, and their test, correction, family and
// smallest value (pipelines/report/significance.hpp), as JSON text.
std::string describe_test(const std::string& report_text, const std::string& array) {
  const report::TestDescription d =
      report::describe_test(report::read_run_facts(parse_json_record(report_text)), array);
  return json_text(json{{"array", d.array},
                        {"test", d.test},
                        {"correction", d.correction},
                        {"family", d.family},
                        {"p_floor", d.p_floor}});
}

std::vector<std::string> devices() {
  std::vector<std::string> lines;
  for (const auto& backend : builtin_device_backends().all())
    for (const auto& line : backend->listing()) lines.push_back(line);
  return lines;
}

}  // namespace

}  // namespace pacflow::python

PYBIND11_MODULE(_core, m) {
  using namespace pacflow::python;
  m.doc() = "pacflow's engine (C++); use the pacflow package, not this module";
  register_error_translation();
  m.def("version", &pacflow::engine_version, "the engine's version");
  m.def("build", &pacflow::build_describe, "the build: commit, compiler, CUDA");
  m.def("run", &run, py::arg("request"), py::arg("input"), py::arg("input_name"), py::arg("progress"),
        py::arg("command"));
  m.def("shard", &shard, py::arg("request"), py::arg("shard"), py::arg("progress"), py::arg("command"));
  m.def("merge", &merge, py::arg("out"), py::arg("shards"), py::arg("progress"), py::arg("command"));
  m.def("parse_set", &parse_set, py::arg("text"));
  m.def("group_test", &group_test, py::arg("values"), py::arg("dims"), py::arg("flips"), py::arg("seed"),
        py::arg("cluster_p"), py::arg("statistic"));
  m.def("validate", &validate, py::arg("request"), py::arg("input"), py::arg("input_name"));
  m.def("graph", &graph, py::arg("request"), py::arg("input"), py::arg("input_name"));
  m.def("elements", &elements);
  m.def("devices", &devices);
  m.def("check_element", &check_element, py::arg("kind"), py::arg("name"));
  m.def("methods", &methods, py::arg("report"));
  m.def("describe_test", &describe_test, py::arg("report"), py::arg("array"));
}
