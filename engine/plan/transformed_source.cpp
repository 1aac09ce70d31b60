#include "engine/plan/transformed_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "engine/api/errors.hpp"

namespace pacflow::detail {

namespace {
std::int64_t per_epoch(const StreamInfo& s) { return s.series_count() / s.leading_dims.at(0); }
}  // namespace

TransformedSource::TransformedSource(std::unique_ptr<Source> inner, const StreamInfo& before,
                                     std::unique_ptr<Transform> transform, const StreamInfo& after)
    : inner_(std::move(inner)),
      transform_(std::move(transform)),
      after_(after),
      before_per_epoch_(per_epoch(before)),
      after_per_epoch_(per_epoch(after)),
      epochs_(before.leading_dims.at(0)) {
  if (after.series_length != before.series_length || after.leading_dims.at(0) != before.leading_dims.at(0))
    throw std::logic_error("a transform keeps the epochs and their length");
}

StreamInfo TransformedSource::open(const std::stop_token& stop) {
  stop_ = stop;
  return after_;
}

std::int64_t TransformedSource::learning_epochs() const {
  constexpr std::int64_t kBatchFloats = std::int64_t{16} << 20;  // 64 MiB
  const std::int64_t epoch_floats = std::max<std::int64_t>(before_per_epoch_ * after_.series_length, 1);
  return std::clamp<std::int64_t>(kBatchFloats / epoch_floats, 1, std::max<std::int64_t>(epochs_, 1));
}

void TransformedSource::learn_once() {
  learned_ = true;
  const std::int64_t epochs = learning_epochs();
  std::vector<float> batch(static_cast<std::size_t>(epochs * before_per_epoch_ * after_.series_length));
  for (std::int64_t first = 0; first < epochs_; first += epochs) {
    if (stop_.stop_requested()) throw RunCancelled(-1);
    const std::int64_t count = std::min(epochs, epochs_ - first);
    inner_->read(first * before_per_epoch_, count * before_per_epoch_, batch.data());
    transform_->learn(batch.data(), first * before_per_epoch_, count * before_per_epoch_);
  }
}

void TransformedSource::read(std::int64_t first, std::int64_t count, float* dst) {
  if (transform_->learns() && !learned_) learn_once();
  if (!transform_->per_epoch()) {
    inner_->read(first, count, dst);
    transform_->apply(dst, dst, first, count);
    return;
  }
  if (first % after_per_epoch_ != 0 || count % after_per_epoch_ != 0)
    throw std::logic_error(fmt::format("series {}..{} are not whole epochs of {}", first, first + count,
                                       after_per_epoch_));
  const std::int64_t epoch = first / after_per_epoch_, epochs = count / after_per_epoch_;
  if (before_per_epoch_ == after_per_epoch_) {
    inner_->read(epoch * before_per_epoch_, epochs * before_per_epoch_, dst);
    transform_->apply(dst, dst, epoch, epochs);
    return;
  }
  scratch_.resize(static_cast<std::size_t>(epochs * before_per_epoch_ * after_.series_length));
  inner_->read(epoch * before_per_epoch_, epochs * before_per_epoch_, scratch_.data());
  transform_->apply(scratch_.data(), dst, epoch, epochs);
}

double TransformedSource::host_workspace_bytes(std::int64_t batch_series) const {
  const std::int64_t before_series = (batch_series + after_per_epoch_ - 1) / after_per_epoch_ * before_per_epoch_;
  const double scratch = before_per_epoch_ == after_per_epoch_
                             ? 0.0
                             : static_cast<double>(before_series * after_.series_length) * sizeof(float);
  const double learning =  // learn_once()'s batch, freed before the run's reads
      transform_->learns()
          ? static_cast<double>(learning_epochs() * before_per_epoch_ * after_.series_length) * sizeof(float)
          : 0.0;
  return inner_->host_workspace_bytes(before_series) + scratch + transform_->host_workspace_bytes() + learning;
}

}  // namespace pacflow::detail
