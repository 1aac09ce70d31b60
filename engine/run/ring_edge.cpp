#include "engine/run/ring_edge.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

namespace pacflow {

RingEdge::RingEdge(Ring& ring, std::int64_t first_series, std::int64_t end_series, int rank, int ranks)
    : ring_(ring), first_series_(first_series), end_series_(end_series), ranks_(ranks), next_index_(rank) {}

std::int64_t RingEdge::batch_count() const {
  return (end_series_ - first_series_ + ring_.batch_series() - 1) / ring_.batch_series();
}

bool RingEdge::open_next() {
  std::unique_ptr<RingSlot> slot = ring_.take();
  if (!slot) return false;
  auto batch = std::make_shared<Batch>();
  batch->index = next_index_;
  next_index_ += ranks_;
  batch->first_series = first_series_ + batch->index * ring_.batch_series();
  batch->series_count = std::min(ring_.batch_series(), end_series_ - batch->first_series);
  if (batch->series_count <= 0) throw std::logic_error(fmt::format("ring \"{}\" opened a batch past the stream's end", ring_.name()));
  for (const auto& t : ring_.tensors()) batch->tensors.emplace(t.name, slot->lend(t, batch->series_count, "cpu"));
  batch->slot = std::move(slot);
  open_ = std::move(batch);
  open_rows_ = 0;
  return true;
}

RingEdge::Step RingEdge::feed(BatchPtr upstream) {
  Step step;
  if (upstream) pending_.push_back(std::move(upstream));
  while (!pending_.empty()) {
    if (!open_ && !open_next()) break;  // every slot taken: wait until one comes back
    Batch& from = *pending_.front();
    if (from.first_series + pending_row_ != open_->first_series + open_rows_)
      throw std::logic_error(fmt::format("ring \"{}\": series {} arrived where {} was due", ring_.name(),
                                         from.first_series + pending_row_, open_->first_series + open_rows_));
    const std::int64_t rows = std::min(from.series_count - pending_row_, open_->series_count - open_rows_);
    // A batch gathered from one modelled device stays there; from several, it is on the host.
    if (open_rows_ == 0)
      open_->resident_device = from.resident_device;
    else if (open_->resident_device != from.resident_device)
      open_->resident_device = -1;
    // Batches hold whole groups, so every boundary here falls on one and series map to rows exactly.
    for (const auto& t : ring_.tensors()) {
      const std::size_t row_bytes = t.bytes_per_row;
      std::memcpy(open_->at(t.name).raw() + static_cast<std::size_t>(t.rows(open_rows_)) * row_bytes,
                  from.at(t.name).raw() + static_cast<std::size_t>(t.rows(pending_row_)) * row_bytes,
                  static_cast<std::size_t>(t.rows(rows)) * row_bytes);
    }
    pending_row_ += rows;
    open_rows_ += rows;
    if (open_rows_ == open_->series_count) step.ready.push_back(std::move(open_));
    if (pending_row_ == from.series_count) {
      step.consumed.push_back(std::move(pending_.front()));
      pending_.pop_front();
      pending_row_ = 0;
    }
  }
  return step;
}

}  // namespace pacflow
