#include "engine/devices/sim/sim_stage_node.hpp"

#include <chrono>
#include <fmt/format.h>
#include <vector>

namespace pacflow::detail {

namespace flow = oneapi::tbb::flow;

std::unique_ptr<SimNode> make_sim_stage_node(flow::graph& graph, const BuiltStage& stage, std::set<std::string> unread,
                                             bool next_on_sim, const ElementReporter& reporter,
                                             SimDevices& sim_devices, DueTimeQueue& due) {
  std::vector<int> devices;
  for (const auto& d : stage.devices) devices.push_back(d.index);
  // A stage's run summary is modelled with it: each batch's share of the summary's sums is booked
  // with the batch (the devices sum what they compute), its finish at the end (the executor).
  const SummaryWork summary = stage.stage->summary_work();
  const double flops_per_series = stage.stage->flops_per_series() + summary.flops_per_series;
  const double summary_bytes_per_series = summary.bytes_per_series;
  const double flops_per_s = sim_devices.model().flops_per_s_of(stage.name);
  // The outputs a batch gets stand-ins for, chosen once here rather than for every batch.
  std::vector<const TensorDecl*> stand_ins;
  for (const auto& out : stage.outputs)
    if (!out.summary && !unread.contains(out.name)) stand_ins.push_back(&out);
  return std::make_unique<SimNode>(
      graph, flow::unlimited,
      [&stage, stand_ins = std::move(stand_ins), reporter, &sim_devices, &due, devices, flops_per_series, flops_per_s,
       next_on_sim, summary_bytes_per_series](BatchPtr batch, SimNode::gateway_type& gateway) {
        guarded("stage", stage.name, batch->index, [&] {
          for (const TensorDecl* out : stand_ins)
            batch->emplace_rows(out->name, out->rows.rows(batch->series_count), out->per_series, out->dtype);
          for (const auto& name : stage.drop_after) batch->tensors.erase(name);
        });
        const auto n = static_cast<double>(batch->series_count);
        const SimWork work{flops_per_series * n,
                           (stage.bytes_in_per_series + stage.bytes_out_per_series + summary_bytes_per_series) * n,
                           stage.bytes_in_per_series * n, stage.bytes_out_per_series * n, batch->resident_device,
                           next_on_sim, flops_per_s};
        const SimDevices::Booking b = sim_devices.book(devices, work, Clock::now());
        const int came_from = batch->resident_device;
        batch->resident_device = next_on_sim ? b.device : -1;
        reporter.counted(batch->index, b.copy_in_start, b.done);
        if (reporter.drawing()) {
          const std::string device = fmt::format("sim:{}", b.device);
          const int lane = 1000 + 3 * b.device;  // copy-in, compute, copy-out lanes per device
          const std::string in = came_from == b.device ? " in (in place)"
                                 : came_from >= 0      ? fmt::format(" in (peer from sim:{})", came_from)
                                                       : " in";
          reporter.drawn("copy", stage.name + in, device, batch->index, batch->series_count, lane, b.copy_in_start, b.copy_in_end);
          reporter.drawn("stage", stage.name, device, batch->index, batch->series_count, lane + 1, b.compute_start, b.compute_end);
          reporter.drawn("copy", stage.name + " out", device, batch->index, batch->series_count, lane + 2, b.copy_out_start, b.done);
        }
        gateway.reserve_wait();
        due.push(b.done, [batch, &gateway] {
          gateway.try_put(batch);
          gateway.release_wait();
        });
      });
}

}  // namespace pacflow::detail
