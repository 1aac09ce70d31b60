#include "engine/run/branch_join.hpp"

#include <stdexcept>

namespace pacflow::detail {

BranchJoin::BranchJoin(std::size_t branches, std::vector<std::string> drops)
    : branches_(branches), drops_(std::move(drops)) {}

std::vector<BatchPtr> BranchJoin::fork(BatchPtr batch) {
  std::vector<BatchPtr> forks;
  std::map<std::string, const std::byte*> given;
  for (const auto& [name, tensor] : batch->tensors) given.emplace(name, tensor.address());
  for (std::size_t b = 0; b < branches_; ++b) {
    auto branch = std::make_shared<Batch>();
    branch->index = batch->index;
    branch->first_series = batch->first_series;
    branch->series_count = batch->series_count;
    for (const auto& [name, tensor] : batch->tensors) branch->tensors.emplace(name, tensor.view(batch));
    forks.push_back(std::move(branch));
  }
  const std::int64_t index = batch->index;
  const std::lock_guard lock(mutex_);
  if (!waiting_.try_emplace(index, Waiting{std::move(batch), branches_, std::move(given)}).second)
    throw std::logic_error("two batches of one index at a branch fork");
  return forks;
}

BatchPtr BranchJoin::join(BatchPtr branch) {
  const std::lock_guard lock(mutex_);
  const auto it = waiting_.find(branch->index);
  if (it == waiting_.end()) throw std::logic_error("a branch came back to a join its batch never passed");
  Batch& batch = *it->second.batch;
  // What the branch wrote, or wrote anew: every tensor that is not still a view it was given (those
  // go with the branch; keeping one would also keep the batch alive through its own view).
  const std::map<std::string, const std::byte*>& given = it->second.given;
  for (auto& [name, tensor] : branch->tensors) {
    const auto view = given.find(name);
    if (view == given.end() || view->second != tensor.address()) batch.tensors.insert_or_assign(name, std::move(tensor));
  }
  if (--it->second.left > 0) return nullptr;
  BatchPtr whole = std::move(it->second.batch);
  waiting_.erase(it);
  for (const auto& name : drops_) whole->tensors.erase(name);
  return whole;
}

}  // namespace pacflow::detail
