// build(): a pipeline's elements instantiated and planned, pass by pass
// (engine/plan/built_pipeline.hpp).
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "engine/api/memory_budget.hpp"
#include "engine/placement/backends.hpp"
#include "engine/plan/built_pipeline.hpp"
#include "engine/plan/transformed_source.hpp"

namespace pacflow::detail {

[[noreturn]] void rethrow_located(const ElementSpec& spec) {
  const std::string who = fmt::format("{} \"{}\"", kind_name(spec.kind), spec.name);
  try {
    throw;
  } catch (const ParamError& e) {
    const auto it = spec.param_where.find(e.param());
    const SourceLocation where = it != spec.param_where.end() ? it->second : spec.where;
    const bool names_itself = e.param().empty() || e.bare_message().rfind("unknown parameter", 0) == 0 ||
                              e.bare_message().rfind("missing required", 0) == 0;
    std::throw_with_nested(InputError(names_itself ? fmt::format("{}: {}", who, e.bare_message())
                                                   : fmt::format("{}, parameter \"{}\": {}", who, e.param(),
                                                                 e.bare_message()),
                                      where));
  } catch (const InputError& e) {
    if (!e.where().empty()) throw;
    std::throw_with_nested(InputError(fmt::format("{}: {}", who, e.bare_message()), spec.where));
  }
}

namespace {

// An element's own parameters checked against its schema and, for a stage (not a preprocessing
// stage), its placement parameters against the engine's group.
struct CheckedParams {
  Params own;
  Params placement;
};

CheckedParams checked_params(const Registry& registry, const ElementInfo& info, const ElementSpec& spec) {
  const bool placed = info.kind == ElementKind::Stage && !info.make_transform;
  json own = spec.params;
  json placement = json::object();
  if (placed && own.is_object())
    for (const auto& p : placement_params())
      if (own.contains(p.name)) {
        placement[p.name] = own[p.name];
        own.erase(p.name);
      }
  try {
    try {
      return {Params(own, info.params), placed ? Params(placement, placement_params()) : Params()};
    } catch (const ParamError& e) {
      if (e.bare_message().rfind("unknown parameter", 0) != 0) throw;
      // Another tool's name for a parameter: say where its meaning lives here.
      if (const std::string* hint = registry.foreign_name_hint(e.param()))
        throw ParamError(e.param(), fmt::format("unknown parameter \"{}\": {}", e.param(), *hint));
      if (!placed) throw;
      std::vector<std::string> names;
      for (const auto* group : {&info.params, &placement_params()})
        for (const auto& p : *group) names.push_back(p.name);
      const std::string hint = suggest(e.param(), names);
      throw ParamError(e.param(), fmt::format("unknown parameter \"{}\"{}", e.param(), hint.empty() ? "" : "; " + hint));
    }
  } catch (...) {
    rethrow_located(spec);
  }
}

std::int64_t bytes_per_row(const TensorDecl& t) {
  return element_count(t.per_series) * static_cast<std::int64_t>(dtype_size(t.dtype));
}

// A tensor with rows per group of series spreads their bytes over the group's series. A summary
// tensor is made once at the end and travels in no batch.
double bytes_per_series(const TensorDecl& t) {
  if (t.summary) return 0;
  return static_cast<double>(bytes_per_row(t) * t.rows.rows_per_group) / static_cast<double>(t.rows.group);
}

// `ring=`, `batch=` and `overflow=` of a stage: the edge into it (ranges and choices checked with
// the placement parameters).
EdgeSettings edge_settings(const Params& placement) {
  EdgeSettings edge;
  if (placement.has("ring")) edge.ring = placement.integer("ring");
  if (placement.has("batch")) edge.batch = placement.integer("batch");
  if (placement.has("overflow")) edge.overflow = parse_overflow(placement.string("overflow"));
  edge.given = placement.has("ring") || placement.has("batch") || placement.has("overflow");
  return edge;
}

// Rings go where a stage runs on other devices than the stage before it, or where the user set the
// edge; between two stages on one backend's devices with memory of their own (GPUs) a batch moves
// device to device instead (peer to peer, no host hop).
void place_rings(BuiltPipeline& built) {
  for (std::size_t s = 0; s < built.stages.size(); ++s) {
    BuiltStage& stage = built.stages[s];
    const bool moves = s > 0 && stage.devices != built.stages[s - 1].devices;
    const bool device_to_device =
        s > 0 && stage.in_device_memory() && &stage.backend() == &built.stages[s - 1].backend();
    stage.ring_before = stage.input.given || (moves && !device_to_device);
  }
}

// What is alive where: each ring carries the tensors written before it and not yet dropped, and
// each stage counts the bytes alive while it runs. The members of a branch group run at once, so
// every member sees all of the group's outputs alive, and its inputs stay until the last is done.
void plan_liveness(BuiltPipeline& built, const std::vector<TensorDecl>& decls) {
  const auto decl_of = [&](const std::string& name) {
    return *std::find_if(decls.begin(), decls.end(), [&](const TensorDecl& d) { return d.name == name; });
  };
  std::vector<std::string> alive = built.source_writes;
  for (std::size_t s = 0; s < built.stages.size();) {
    const std::optional<std::size_t> in = group_containing(built.branches, s);
    const BranchGroup group = in ? built.branches[*in] : BranchGroup{s, s + 1};
    BuiltStage& first = built.stages[group.first];
    if (first.ring_before)
      for (const auto& name : alive) {
        const TensorDecl& decl = decl_of(name);
        first.crossing.push_back(SlotTensor{name, decl.per_series, decl.dtype,
                                            static_cast<std::size_t>(bytes_per_row(decl)), 0, decl.rows.group,
                                            decl.rows.rows_per_group});
      }
    for (std::size_t m = group.first; m < group.end; ++m)
      for (const auto& w : built.stages[m].writes)
        if (!decl_of(w).summary) alive.push_back(w);
    double alive_bytes = 0;
    for (const auto& name : alive) alive_bytes += static_cast<double>(bytes_per_series(decl_of(name)));
    for (std::size_t m = group.first; m < group.end; ++m) {
      built.stages[m].alive_bytes_per_series = alive_bytes;
      std::erase_if(alive, [&](const std::string& name) {
        const auto& drops = built.stages[m].drop_after;
        return std::find(drops.begin(), drops.end(), name) != drops.end();
      });
    }
    s = group.end;
  }
}

// The run's device pool; `unavailable` holds why, when it names devices that are not there (GPUs
// where none is visible: each stage that uses it then falls back to the CPU or stops).
struct Pool {
  std::vector<DeviceRef> devices{DeviceRef{}};
  std::string unavailable;
  std::string why_none;
};

// The stages that run on the CPU instead of where they were placed, and why the devices they asked
// for are not here (empty when each stage has its own reason).
struct Fallbacks {
  std::vector<std::string> stages;
  std::string why_none;
};

// The devices a stage asks for (`on=`, else the run's pool), with devices that are not here (GPUs
// where none is visible) swapped for the CPU when the fallback allows it (noting the stage in
// `fell_back`).
std::vector<DeviceRef> stage_devices(const ElementSpec& spec, const Params& params, const Pool& pool,
                                     const Placement& placement, bool fallback, std::vector<std::string>& forced,
                                     Fallbacks& fell_back) {
  if (!params.has("on")) {
    if (pool.unavailable.empty()) return pool.devices;
    if (!fallback)
      throw InputError(fmt::format("devices: {}; add fallback=cpu to the stage, or run with --fallback cpu, to use "
                                   "the CPU instead",
                                   pool.unavailable));
    fell_back.stages.push_back(fmt::format("{} (devices {})", spec.name, placement.pool));
    fell_back.why_none = pool.why_none;
    return {DeviceRef{}};
  }
  const std::string on = params.string("on");
  const DeviceBackend* asked = placement.backends->find(std::string_view(on).substr(0, on.find(':')));
  if (placement.force_pool && asked && asked->residency() != Residency::Host) {
    forced.push_back(fmt::format("{} (on={})", spec.name, on));
    return pool.devices;
  }
  try {
    return parse_devices(on, "on", *placement.backends, placement.share);
  } catch (const DeviceUnavailable& e) {
    if (!fallback)
      throw DeviceUnavailable("on",
                              e.bare_message() + "; add fallback=cpu (or run with --fallback cpu) to run it on the "
                                                 "CPU instead, or --devices cpu to run everything there",
                              e.why_none());
    fell_back.stages.push_back(fmt::format("{} (on={})", spec.name, on));
    fell_back.why_none = e.why_none();
    return {DeviceRef{}};
  }
}

bool wants_fallback(const std::string& policy, const std::string& where) {
  if (policy == "cpu") return true;
  if (policy.empty() || policy == "none") return false;
  throw ParamError(where, fmt::format("\"{}\" is not a fallback; use none (stop with an error) or cpu", policy));
}

}  // namespace

namespace {

// The chain's shape: one source, first; stages; at least one sink, last.
void check_chain(const std::vector<ElementSpec>& elements) {
  const auto source_count = std::count_if(elements.begin(), elements.end(), [](const auto& e) {
    return e.kind == ElementKind::Source;
  });
  if (source_count != 1)
    throw InputError(fmt::format("a pipeline needs exactly one source, found {}", source_count),
                     elements.empty() ? SourceLocation{} : elements.front().where);
  if (elements.front().kind != ElementKind::Source)
    throw InputError("the source must come first", elements.front().where);
  bool seen_sink = false;
  for (const auto& e : elements) {
    if (e.kind == ElementKind::Sink) seen_sink = true;
    if (e.kind == ElementKind::Stage && seen_sink)
      throw InputError(fmt::format("stage \"{}\" comes after a sink; sinks end the chain", e.name),
                       e.where);
  }
  if (!seen_sink) throw InputError("a pipeline needs at least one sink", elements.back().where);
}

// The report's description of every declared tensor.
json tensors_json(const std::vector<TensorDecl>& tensors) {
  json out = json::array();
  for (const auto& t : tensors) {
    json entry = {{"name", t.name},
                  {"per_series_shape", t.per_series},
                  {"dtype", dtype_name(t.dtype)},
                  {"bytes_per_series", bytes_per_series(t)},
                  {"result", t.result},
                  {"doc", t.doc}};
    if (t.kept) entry["kept_for_summary"] = true;
    if (t.summary) entry["summary"] = true;
    if (!t.rows.per_series())
      entry["rows"] = {{"group_series", t.rows.group},
                       {"rows_per_group", t.rows.rows_per_group},
                       {"leading_shape", t.rows.leading},
                       {"leading_dims", t.rows.leading_names}};
    out.push_back(std::move(entry));
  }
  return out;
}

// One pipeline being built, pass by pass (build() below runs them in order).
class Builder {
 public:
  Builder(const Registry& registry, const std::vector<ElementSpec>& elements, const Placement& placement)
      : registry_(registry), elements_(elements), placement_(placement) {
    built_.device_backends = placement.backends;
    try {
      run_fallback_ = wants_fallback(placement.fallback, "fallback");
      if (!placement.vram.is_null()) built_.vram = parse_memory_budget("vram", placement.vram);
    } catch (const ParamError& e) {
      throw InputError(fmt::format("--{}: {}", e.param(), e.bare_message()));
    }
    if (!placement.pool.empty()) {
      try {
        pool_.devices = parse_devices(placement.pool, "devices", *placement.backends, placement.share);
      } catch (const DeviceUnavailable& e) {
        pool_.unavailable = e.bare_message();
        pool_.why_none = e.why_none();
      } catch (const ParamError& e) {
        throw InputError(fmt::format("devices: {}", e.bare_message()));
      }
    }
  }

  // Opens the source: the stream's shape is known from here on.
  void open_source(const std::stop_token& stop) {
    const ElementSpec& source_spec = elements_.front();
    const ElementInfo* source_info = registry_.find(ElementKind::Source, source_spec.name);
    const Params source_params = checked_params(registry_, *source_info, source_spec).own;
    try {
      built_.source = source_info->make_source(source_params);
      built_.stream = built_.source->open(stop);
    } catch (...) {
      rethrow_located(source_spec);
    }
    built_.source_name = source_spec.name;
    built_.source_resolved = source_params.all();
    if (built_.stream.series_count() <= 0 || built_.stream.series_length <= 0)
      throw InputError(fmt::format("source \"{}\" delivers no samples (shape {} × {})",
                                   source_spec.name, shape_string(built_.stream.leading_dims),
                                   built_.stream.series_length),
                       source_spec.where);
  }

  // Preprocessing stages, right after the source: they become part of its reads. Returns the index
  // of the first element after them, and whether one of them needs whole epochs per batch.
  std::pair<std::size_t, bool> fold_preprocessing() {
    std::size_t next = 1;
    bool whole_epochs = false;
    for (; next < elements_.size(); ++next) {
      const ElementSpec& spec = elements_[next];
      const ElementInfo* info = spec.kind == ElementKind::Stage ? registry_.find(spec.kind, spec.name) : nullptr;
      if (!info || !info->make_transform) break;
      for (const auto& placement_param : placement_params()) {
        if (!spec.params.contains(placement_param.name)) continue;
        try {
          throw ParamError(placement_param.name, fmt::format("a preprocessing stage runs on the CPU as the source reads, "
                                                             "so it takes no {}=",
                                                             placement_param.name));
        } catch (...) {
          rethrow_located(spec);
        }
      }
      const Params params = checked_params(registry_, *info, spec).own;
      try {
        std::unique_ptr<Transform> transform = info->make_transform(params);
        json resolved = params.all();
        StreamInfo after = transform->plan(built_.stream, resolved);
        whole_epochs = whole_epochs || transform->per_epoch();
        const bool learns = transform->learns();
        built_.source = std::make_unique<TransformedSource>(std::move(built_.source), built_.stream,
                                                            std::move(transform), after);
        built_.stream = std::move(after);
        built_.preprocessing.push_back({spec.name, resolved, learns});
      } catch (...) {
        rethrow_located(spec);
      }
    }
    return {next, whole_epochs};
  }

  // Places and plans the stages and sinks from element `first` on, in chain order.
  void plan_elements(std::size_t first, PlanContext& ctx) {
    for (std::size_t i = first; i < elements_.size(); ++i) {
      const ElementSpec& spec = elements_[i];
      const ElementInfo* info = registry_.find(spec.kind, spec.name);
      if (info->make_transform)
        throw InputError(fmt::format("stage \"{}\" is a preprocessing stage: it transforms the source's series as "
                                     "they are read, so it comes right after the source (with the other "
                                     "preprocessing stages), before stage \"{}\"",
                                     spec.name, elements_[first].name),
                         spec.where);
      const CheckedParams params = checked_params(registry_, *info, spec);
      ctx.begin_element();
      try {
        if (spec.kind == ElementKind::Stage)
          plan_stage(spec, *info, params, ctx);
        else
          plan_sink(i, *info, params.own, ctx);
      } catch (...) {
        rethrow_located(spec);
      }
    }
  }

  // Frees each intermediate tensor right after its last reader.
  void free_after_last_reader(const PlanContext& ctx) {
    for (const auto& decl : ctx.tensors()) {
      if (decl.result || decl.kept || decl.summary) continue;
      for (std::size_t s = built_.stages.size(); s-- > 0;) {
        const std::vector<std::string>& reads = built_.stages[s].reads;
        if (std::find(reads.begin(), reads.end(), decl.name) != reads.end()) {
          built_.stages[s].drop_after.push_back(decl.name);
          break;
        }
      }
    }
  }

  // What the plan tells the run and the report: attributes, results, warnings, tensors.
  void collect(const PlanContext& ctx) {
    built_.attributes = ctx.attributes();
    built_.results = ctx.results();
    built_.masked = built_.results;
    for (const auto& decl : ctx.tensors())
      if (decl.kept) built_.masked.push_back(decl);
    built_.warnings = ctx.warnings();
    add_placement_warnings();
    built_.tensors = tensors_json(ctx.tensors());
  }

  BuiltPipeline& built() { return built_; }

 private:
  void plan_stage(const ElementSpec& spec, const ElementInfo& info, const CheckedParams& params, PlanContext& ctx) {
    const std::size_t declared_before = ctx.tensors().size();
    const Params& placed = params.placement;
    const bool fallback = run_fallback_ || wants_fallback(placed.string("fallback"), "fallback");
    std::vector<DeviceRef> devices = stage_devices(spec, placed, pool_, placement_, fallback, forced_, fell_back_);
    BuiltStage stage{spec.name, "", devices, info.make_stage(params.own), nullptr, {}, {}, {}, {}, {}, 0, 0,
                     edge_settings(placed), false, {}, 0, {}};
    if (placed.has("vram")) stage.vram = parse_memory_budget("vram", placed.raw("vram"));
    stage.stage->plan(ctx);
    std::string why;
    if (stage.in_device_memory()) stage.device_kernel = stage.backend().kernel(info, *stage.stage, why);
    if (!why.empty()) {
      if (!fallback)
        throw ParamError("on", fmt::format("stage \"{}\" cannot run on a {}{}: {}; place it on cpu, or add "
                                           "fallback=cpu", spec.name, stage.backend().noun(),
                                           placed.has("on") ? "" : " (where the device pool puts it)", why));
      fell_back_.stages.push_back(fmt::format("{} ({})", spec.name, why));
      stage.devices = {DeviceRef{}};
    }
    stage.device = device_list_name(stage.devices);
    if (ctx.batch_multiple() > built_.batch_multiple) {
      built_.batch_multiple = ctx.batch_multiple();
      built_.batch_multiple_by = spec.name;
    }
    stage.resolved = params.own.all();
    stage.resolved.update(placed.all());
    stage.resolved["on"] = stage.device;
    stage.resolved.update(ctx.take_resolved());
    stage.reads = ctx.reads_of_current();
    for (std::size_t t = declared_before; t < ctx.tensors().size(); ++t) stage.writes.push_back(ctx.tensors()[t].name);
    for (const auto& t : ctx.tensors()) {
      const double bytes = bytes_per_series(t);
      if (std::find(stage.reads.begin(), stage.reads.end(), t.name) != stage.reads.end()) stage.bytes_in_per_series += bytes;
      if (std::find(stage.writes.begin(), stage.writes.end(), t.name) != stage.writes.end()) {
        stage.bytes_out_per_series += bytes;
        stage.outputs.push_back(t);
      }
    }
    built_.stages.push_back(std::move(stage));
  }

  void plan_sink(std::size_t element, const ElementInfo& info, const Params& params, PlanContext& ctx) {
    BuiltSink sink{elements_[element].name, info.make_sink(params), {}, {}, element};
    sink.sink->plan(ctx);
    sink.resolved = params.all();
    sink.resolved.update(ctx.take_resolved());
    sink.reads = ctx.reads_of_current();
    built_.sinks.push_back(std::move(sink));
  }

  void add_placement_warnings() {
    if (!forced_.empty())
      built_.warnings.push_back(fmt::format("the device pool {} overrides the accelerator placement of {}",
                                            device_list_name(pool_.devices), fmt::join(forced_, ", ")));
    if (!fell_back_.stages.empty())
      built_.warnings.push_back(fmt::format("fallback=cpu: {} run{} on the CPU instead of a GPU ({})",
                                            fmt::join(fell_back_.stages, ", "), fell_back_.stages.size() == 1 ? "s" : "",
                                            fell_back_.why_none.empty() ? "see each stage" : fell_back_.why_none));
    std::vector<std::string> simulated;
    for (const auto& st : built_.stages)
      if (st.simulated()) simulated.push_back(fmt::format("{} on {}", st.name, st.device));
    if (!simulated.empty())
      built_.warnings.push_back(fmt::format(
          "modelled devices only: {} did no arithmetic; their outputs (and everything computed from them) are "
          "zeros standing in for data, and the timings are the model's",
          fmt::join(simulated, ", ")));
  }

  const Registry& registry_;
  const std::vector<ElementSpec>& elements_;
  const Placement& placement_;
  BuiltPipeline built_;
  bool run_fallback_ = false;
  Pool pool_;
  std::vector<std::string> forced_;     // stages whose accelerator placement the pool overrode
  Fallbacks fell_back_;                 // stages placed on GPUs that run on the CPU instead
};

}  // namespace

// The passes, in order: run-wide settings, the chain's shape, the source, its preprocessing, each
// stage and sink placed and planned, each tensor freed after its last reader, rings, branches (the
// stages that run side by side on each batch), what is alive where, and what the report needs.
BuiltPipeline build(const Registry& registry, const std::vector<ElementSpec>& elements, const Placement& placement,
                    const std::stop_token& stop) {
  Builder builder(registry, elements, placement);
  check_chain(elements);
  builder.open_source(stop);
  const auto [first, whole_epochs] = builder.fold_preprocessing();
  BuiltPipeline& built = builder.built();
  PlanContext ctx(built.stream);
  if (whole_epochs) {
    ctx.require_batch_multiple(built.stream.series_count() / built.stream.leading_dims.at(0));
    built.batch_multiple = ctx.batch_multiple();
    built.batch_multiple_by = built.preprocessing.back().name;
  }
  for (const auto& t : ctx.tensors()) built.source_writes.push_back(t.name);
  builder.plan_elements(first, ctx);
  builder.free_after_last_reader(ctx);
  place_rings(built);
  built.branches = plan_branches(built.stages);
  plan_liveness(built, ctx.tensors());
  builder.collect(ctx);
  return std::move(built);
}

}  // namespace pacflow::detail
