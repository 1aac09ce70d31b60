#include "engine/devices/cuda/gpu_stage_node.hpp"

#include <fmt/format.h>

namespace pacflow::detail {

namespace {

// Trace rows for GPU work: one per device and batch slot (batches on different streams overlap).
int trace_lane(int device, std::int64_t batch) { return 2000 + 16 * device + static_cast<int>(batch % 16); }

// A failure the completion watcher saw: reported as the stage's body would have thrown it, and the
// run cancelled.
void fail_run(oneapi::tbb::flow::graph& graph, FirstFailure& failure, const BuiltStage& stage, std::int64_t batch,
              int device, std::exception_ptr error) {
  failure.set(stage_failure(stage.name, batch, cuda::device_name(device), std::move(error)));
  graph.cancel();
}

// Adds the stage's kernel time, and its trace span, once the GPU has done its work. The run waits
// for this too (reserve_wait), so its report counts every batch.
void account_when_done(cuda::Runtime& gpus, oneapi::tbb::flow::graph& graph, FirstFailure& failure,
                       const BuiltStage& stage, const ElementReporter& reporter, const Batch& batch, int device,
                       std::shared_ptr<cuda::Event> started, cuda::Event finished, Clock::time_point start,
                       GpuNode::gateway_type& gateway) {
  gateway.reserve_wait();
  gpus.completions().watch(
      std::move(finished), [&gpus, &graph, &failure, &stage, reporter, &gateway, started = std::move(started), start,
                            device, index = batch.index,
                            series = batch.series_count](const cuda::Event& done, std::exception_ptr error) {
        struct Release {
          GpuNode::gateway_type& gateway;
          ~Release() { gateway.release_wait(); }
        } const release{gateway};
        if (error) return;  // reported where the batch leaves the GPU
        try {
          const double ms = cuda::elapsed_ms(*started, done);
          reporter.device_time(ms * 1e-3);
          gpus.add_kernel_time(device, stage.name, ms);
          if (reporter.drawing())
            reporter.drawn("stage", stage.name, cuda::device_name(device), index, series, trace_lane(device, index),
                           start, Clock::now());
        } catch (...) {  // the events are the stage's own: a failure to read them fails the run
          fail_run(graph, failure, stage, index, device, std::current_exception());
        }
      });
}

// Sends the batch on once its download has arrived (or fails the run if the GPU work failed).
void send_on_arrival(cuda::Runtime& gpus, oneapi::tbb::flow::graph& graph, const BuiltStage& stage,
                     const ElementReporter& reporter, FirstFailure& failure, BatchPtr batch,
                     GpuNode::gateway_type& gateway, int device, cuda::Event arrived,
                     Clock::time_point download_start) {
  gateway.reserve_wait();
  gpus.completions().watch(std::move(arrived), [batch = std::move(batch), &gateway, &graph, &failure, &stage,
                                                reporter, download_start, device](const cuda::Event&,
                                                                                  std::exception_ptr error) {
    if (error) {
      fail_run(graph, failure, stage, batch->index, device, error);
    } else {
      if (reporter.drawing())
        reporter.drawn("copy", stage.name + " to host", cuda::device_name(device), batch->index,
                       batch->series_count, trace_lane(device, batch->index) + 1000, download_start, Clock::now());
      cuda::Runtime::release(*batch);
      gateway.try_put(batch);
    }
    gateway.release_wait();
  });
}

}  // namespace

std::unique_ptr<GpuNode> make_gpu_stage_node(oneapi::tbb::flow::graph& graph, const BuiltStage& stage, bool stays,
                                             const ElementReporter& reporter, cuda::Runtime& gpus,
                                             FirstFailure& failure) {
  std::vector<int> devices;
  for (const auto& d : stage.devices) devices.push_back(d.index);
  return std::make_unique<GpuNode>(
      graph, oneapi::tbb::flow::unlimited,
      [&graph, &stage, stays, reporter, &gpus, &failure, devices](BatchPtr batch, GpuNode::gateway_type& gateway) {
        const Clock::time_point start = Clock::now();
        guarded("stage", stage.name, batch->index, [&] {
          const int device = gpus.choose(*batch, devices);
          naming_device(cuda::device_name(device), [&] {
            // Timing events bracket the stage's copies up and kernels on the batch's stream.
            auto started = std::make_shared<cuda::Event>(gpus.gpu(device), true);
            const cuda::StageContext ctx = gpus.run_stage(*stage.device_kernel, *batch, device, stage.reads, started.get());
            for (const auto& name : stage.drop_after) batch->tensors.erase(name);
            cuda::Event finished(ctx.gpu(), true);
            finished.record(ctx.stream());
            account_when_done(gpus, graph, failure, stage, reporter, *batch, device, std::move(started),
                              std::move(finished), start, gateway);
            if (stays) {
              gateway.try_put(batch);  // its stream orders the next stage's work after this one's
              return;
            }
            const Clock::time_point download_start = Clock::now();
            cuda::Event arrived = gpus.download(*batch, ctx);
            send_on_arrival(gpus, graph, stage, reporter, failure, batch, gateway, device, std::move(arrived),
                            download_start);
          });
        });
        reporter.counted(batch->index, start, Clock::now());
      });
}

}  // namespace pacflow::detail
