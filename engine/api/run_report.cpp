#include "engine/api/run_report.hpp"

namespace pacflow {

json RunStats::to_json() const {
  json out{{"series", series},
           {"batch_size", batch_size},
           {"batches", batches},
           {"max_in_flight", max_in_flight},
           {"tensor_bytes_per_series", tensor_bytes_per_series},
           {"threads", threads},
           {"wall_s", wall_s},
           {"rings", rings},
           {"stages", stages}};
  if (checkpoint) out["checkpoint"] = {{"dir", checkpoint->dir.string()}, {"resumed_at_series", checkpoint->at_series}};
  if (ranks) out["ranks"] = *ranks;
  if (!rank_devices.is_null()) out["rank_devices"] = rank_devices;
  if (!rank_transfers.is_null()) out["rank_transfers"] = rank_transfers;
  out.update(devices);
  return out;
}

json RunReport::to_json() const {
  json out = plan.to_json();
  out["files"] = files;
  out["run"] = run.to_json();
  if (!provenance.is_null()) out["provenance"] = provenance;
  return out;
}

}  // namespace pacflow
