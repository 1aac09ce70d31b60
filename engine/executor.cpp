// Pipeline::run: the chain executed on a oneTBB flow graph.
//
//   input_node ─► limiter_node(max_in_flight) ─► stage_1 … stage_n ─► sequencer_node ─► sinks
//        ▲                    ▲                                                     │
//        └─ reads in order    └────────────── decrementer (one per finished batch) ─┘
//
// Batches are tokens: at most `max_in_flight` exist at once (bounded memory, back-pressure);
// stages run different batches concurrently; the sequencer restores index order for the sinks.
//
// Placement: a stage on `cpu` runs in the graph's own arena, any number of batches at once. A stage
// on CPU devices (cpu:k, one or more replicas) is a node whose concurrency is its replica count; a
// batch arriving there leases a free replica from a lock-free queue (there always is one: the node
// admits no more batches than replicas) and runs inside that device's task_arena.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <thread>

#include <map>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/info.h>

#include "engine/built_pipeline.hpp"
#include "engine/placement.hpp"
#include "engine/sim_device.hpp"

namespace pacflow {

namespace {

using BatchPtr = std::shared_ptr<Batch>;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct StageTiming {
  std::atomic<std::int64_t> nanoseconds{0};
  std::atomic<std::int64_t> batches{0};
  void add(Clock::time_point start) {
    nanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    ++batches;
  }
};

// Runs `body`; turns any exception into a StageError naming the element and batch.
template <typename Body>
void guarded(const char* kind, const std::string& element, std::int64_t batch, Body&& body) {
  try {
    body();
  } catch (const StageError&) {
    throw;
  } catch (const InputError& e) {
    throw StageError(kind, element, batch, e.what(), true);
  } catch (const std::exception& e) {
    throw StageError(kind, element, batch, e.what(), false);
  } catch (...) {
    throw StageError(kind, element, batch, "unknown exception", false);
  }
}

}  // namespace

json Pipeline::run(const RunOptions& options) const {
  detail::BuiltPipeline built = detail::build(*registry_, elements_, device_pool_, force_pool_);
  const std::int64_t series = built.stream.series_count();
  const std::int64_t length = built.stream.series_length;
  const int threads = std::max(1, oneapi::tbb::info::default_concurrency());

  std::int64_t batch_size = options.batch_size;
  if (batch_size < 0) throw InputError(fmt::format("batch size must be >= 1, got {}", batch_size));
  // Every tensor a series can hold at once (an upper bound: intermediates are freed as they go).
  double bytes_per_series = 0;
  for (const auto& t : built.tensors) bytes_per_series += t["bytes_per_series"].get<double>();
  if (batch_size == 0) {
    // Enough batches to keep every thread busy, few enough to amortise overhead, each within 256 MiB.
    const auto by_memory = static_cast<std::int64_t>(0x1p28 / std::max(bytes_per_series, 1.0));
    batch_size = std::clamp<std::int64_t>(std::min(series / (4 * threads), by_memory), 1, 16);
  }
  const std::int64_t batch_count = (series + batch_size - 1) / batch_size;
  int in_flight = options.max_in_flight;
  if (in_flight < 0) throw InputError(fmt::format("in-flight limit must be >= 1, got {}", in_flight));
  if (in_flight == 0) {
    // Two batches per thread; with modelled devices, enough to keep every replica's three engines
    // (copy in, compute, copy out) busy.
    std::size_t sim_replicas = 0;
    for (const auto& s : built.stages)
      if (s.simulated()) sim_replicas = std::max(sim_replicas, s.devices.size());
    in_flight = std::max({2, 2 * threads, 3 * static_cast<int>(sim_replicas)});
  }

  std::vector<StageTiming> timings(built.stages.size());
  StageTiming source_timing;
  std::vector<StageTiming> sink_timings(built.sinks.size());
  const Clock::time_point run_start = Clock::now();

  namespace flow = oneapi::tbb::flow;
  flow::graph graph;
  std::int64_t next_batch = 0;  // touched only by the serial input_node body

  flow::input_node<BatchPtr> reader(graph, [&](oneapi::tbb::flow_control& control) -> BatchPtr {
    if (next_batch >= batch_count) {
      control.stop();
      return {};
    }
    auto batch = std::make_shared<Batch>();
    batch->index = next_batch++;
    batch->first_series = batch->index * batch_size;
    batch->series_count = std::min(batch_size, series - batch->first_series);
    const Clock::time_point start = Clock::now();
    guarded("source", built.source_name, batch->index, [&] {
      Tensor& signal = batch->emplace(built.stream.tensor, {length}, DType::Float32);
      built.source->read(batch->first_series, batch->series_count, signal.values<float>().data());
    });
    source_timing.add(start);
    if (options.trace)
      options.trace->record("source", built.source_name, "cpu", batch->index, batch->series_count, start, Clock::now());
    return batch;
  });

  flow::limiter_node<BatchPtr> limiter(graph, static_cast<std::size_t>(in_flight));
  flow::make_edge(reader, limiter);

  detail::CpuDevices cpu_devices(built.stages);
  SimDevices sim_devices(options.sim_model);
  std::vector<std::unique_ptr<detail::ReplicaLeases>> leases;
  std::vector<std::unique_ptr<flow::graph_node>> stage_nodes;
  using SimNode = flow::async_node<BatchPtr, BatchPtr>;
  DueTimeQueue due;  // declared after the nodes' dependencies, destroyed (joined) before them
  // Connects the previous node to the next one. make_edge needs the concrete node type: through a
  // plain sender<> reference an async_node's successors would never see its gateway's output.
  std::function<void(flow::receiver<BatchPtr>&)> connect_next = [&limiter](flow::receiver<BatchPtr>& next) {
    flow::make_edge(limiter, next);
  };
  for (std::size_t i = 0; i < built.stages.size(); ++i) {
    auto& stage = built.stages[i];
    auto& timing = timings[i];
    if (stage.simulated()) {
      // No arithmetic: zero-filled outputs, released when the model says the device is done.
      std::vector<int> devices;
      for (const auto& d : stage.devices) devices.push_back(d.index);
      const double flops_per_series = stage.stage->flops_per_series();
      auto node = std::make_unique<SimNode>(
          graph, flow::unlimited,
          [&stage, &timing, &options, &sim_devices, &due, devices, flops_per_series](
              BatchPtr batch, SimNode::gateway_type& gateway) {
            guarded("stage", stage.name, batch->index, [&] {
              for (const auto& out : stage.outputs) batch->emplace(out.name, out.per_series, out.dtype);
              for (const auto& name : stage.drop_after) batch->tensors.erase(name);
            });
            const auto n = static_cast<double>(batch->series_count);
            const SimWork work{flops_per_series * n, (stage.bytes_in_per_series + stage.bytes_out_per_series) * n,
                               stage.bytes_in_per_series * n, stage.bytes_out_per_series * n};
            const SimDevices::Booking b = sim_devices.book(devices, work, Clock::now());
            timing.nanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(b.done - b.copy_in_start).count();
            ++timing.batches;
            if (options.trace) {
              const std::string device = fmt::format("sim:{}", b.device);
              const int lane = 1000 + 3 * b.device;  // copy-in, compute, copy-out lanes per device
              options.trace->record_lane("copy", stage.name + " in", device, batch->index, batch->series_count, lane,
                                         b.copy_in_start, b.copy_in_end);
              options.trace->record_lane("stage", stage.name, device, batch->index, batch->series_count, lane + 1,
                                         b.compute_start, b.compute_end);
              options.trace->record_lane("copy", stage.name + " out", device, batch->index, batch->series_count,
                                         lane + 2, b.copy_out_start, b.done);
            }
            gateway.reserve_wait();
            due.push(b.done, [batch, &gateway] {
              gateway.try_put(batch);
              gateway.release_wait();
            });
          });
      connect_next(*node);
      connect_next = [n = node.get()](flow::receiver<BatchPtr>& next) { flow::make_edge(*n, next); };
      stage_nodes.push_back(std::move(node));
      continue;
    }
    // The whole machine needs no lease; CPU devices lend one replica per batch.
    const bool whole_machine = stage.devices.size() == 1 && stage.devices.front().index < 0;
    detail::ReplicaLeases* lease = nullptr;
    if (!whole_machine) {
      leases.push_back(std::make_unique<detail::ReplicaLeases>(stage.devices.size()));
      lease = leases.back().get();
    }
    const std::size_t concurrency = whole_machine ? std::size_t{flow::unlimited} : stage.devices.size();
    auto node = std::make_unique<flow::function_node<BatchPtr, BatchPtr>>(
        graph, concurrency, [&stage, &timing, &options, lease, &cpu_devices, whole_machine](BatchPtr batch) {
          const Clock::time_point start = Clock::now();
          std::string device = "cpu";
          guarded("stage", stage.name, batch->index, [&] {
            if (whole_machine) {
              stage.stage->process(*batch);
              return;
            }
            const detail::ReplicaLeases::Held held(*lease);
            const DeviceRef& where = stage.devices[held.replica()];
            device = where.name();
            // The error names the device it failed on.
            try {
              cpu_devices.arena(where.index).execute([&] { stage.stage->process(*batch); });
            } catch (const InputError& e) {
              throw InputError(fmt::format("on {}: {}", device, e.what()));
            } catch (const std::exception& e) {
              throw std::runtime_error(fmt::format("on {}: {}", device, e.what()));
            }
          });
          for (const auto& name : stage.drop_after) batch->tensors.erase(name);
          timing.add(start);
          if (options.trace)
            options.trace->record("stage", stage.name, device, batch->index, batch->series_count, start, Clock::now());
          return batch;
        });
    connect_next(*node);
    connect_next = [n = node.get()](flow::receiver<BatchPtr>& next) { flow::make_edge(*n, next); };
    stage_nodes.push_back(std::move(node));
  }

  flow::sequencer_node<BatchPtr> sequencer(
      graph, [](const BatchPtr& batch) { return static_cast<std::size_t>(batch->index); });
  connect_next(sequencer);

  std::int64_t delivered = 0;  // touched only by the serial sink body
  flow::function_node<BatchPtr, flow::continue_msg> deliver(
      graph, flow::serial, [&](BatchPtr batch) {
        for (std::size_t s = 0; s < built.sinks.size(); ++s) {
          const Clock::time_point start = Clock::now();
          guarded("sink", built.sinks[s].name, batch->index, [&] { built.sinks[s].sink->consume(*batch); });
          sink_timings[s].add(start);
          if (options.trace)
            options.trace->record("sink", built.sinks[s].name, "cpu", batch->index, batch->series_count, start,
                                  Clock::now());
        }
        ++delivered;
        if (options.on_progress) options.on_progress({delivered, batch_count, seconds_since(run_start)});
        return flow::continue_msg{};
      });
  flow::make_edge(sequencer, deliver);
  flow::make_edge(deliver, limiter.decrementer());

  try {
    reader.activate();
    graph.wait_for_all();
    if (delivered != batch_count)
      throw std::logic_error(fmt::format("engine delivered {} of {} batches", delivered, batch_count));
  } catch (...) {
    for (auto& sink : built.sinks) sink.sink->abort();
    throw;
  }
  const double compute_s = seconds_since(run_start);

  json report = detail::describe(built);
  auto stage_report = [](const std::string& kind, const std::string& name, const StageTiming& t) {
    const double total = static_cast<double>(t.nanoseconds.load()) * 1e-9;
    const auto n = t.batches.load();
    return json{{"kind", kind}, {"name", name}, {"batches", n}, {"busy_s", total},
                {"mean_ms_per_batch", n ? 1e3 * total / static_cast<double>(n) : 0.0}};
  };
  json per_stage = json::array();
  per_stage.push_back(stage_report("source", built.source_name, source_timing));
  for (std::size_t i = 0; i < built.stages.size(); ++i)
    per_stage.push_back(stage_report("stage", built.stages[i].name, timings[i]));
  for (std::size_t i = 0; i < built.sinks.size(); ++i)
    per_stage.push_back(stage_report("sink", built.sinks[i].name, sink_timings[i]));
  report["run"] = {{"series", series},
                   {"batch_size", batch_size},
                   {"batches", batch_count},
                   {"max_in_flight", in_flight},
                   {"tensor_bytes_per_series", bytes_per_series},
                   {"threads", threads},
                   {"threads_per_cpu_device", cpu_devices.threads_each()},
                   {"wall_s", compute_s},
                   {"stages", per_stage}};

  // Each sink commits its own files atomically; a sink that fails, and every sink after it, is aborted.
  std::size_t finished = 0;
  try {
    for (; finished < built.sinks.size(); ++finished) built.sinks[finished].sink->finish(report);
  } catch (...) {
    for (std::size_t i = finished; i < built.sinks.size(); ++i) built.sinks[i].sink->abort();
    throw;
  }
  return report;
}

}  // namespace pacflow
