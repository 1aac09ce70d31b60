#include "engine/api/stage.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <fmt/format.h>

#include "engine/api/errors.hpp"

namespace pacflow {

PlanContext::PlanContext(StreamInfo stream) : stream_(std::move(stream)), warnings_(stream_.warnings) {
  tensors_.push_back(TensorDecl{stream_.tensor, {stream_.series_length}, DType::Float32, false,
                                "source samples"});
}

void PlanContext::declare(TensorDecl decl) {
  if (provides(decl.name))
    throw InputError(fmt::format("it writes \"{}\", which an earlier element already wrote; a stage may "
                                 "appear only once in a chain", decl.name));
  const RowLayout& rows = decl.rows;
  if (rows.group < 1 || rows.rows_per_group < 1 || rows.leading_names.size() != rows.leading.size() ||
      (!decl.summary && !rows.leading.empty() && element_count(rows.leading) != stream_.series_count() / rows.group * rows.rows_per_group))
    throw std::logic_error(fmt::format("tensor \"{}\": row layout inconsistent with the stream", decl.name));
  if (rows.group > 1) require_batch_multiple(rows.group);
  tensors_.push_back(std::move(decl));
}

void PlanContext::require_batch_multiple(std::int64_t series) {
  if (series < 1) throw std::logic_error("a batch multiple must be at least one series");
  if (stream_.series_count() % series != 0)
    throw InputError(fmt::format("it needs batches of whole groups of {} series, but the input has {} series",
                                 series, stream_.series_count()));
  align_batches(series);
}

void PlanContext::align_batches(std::int64_t series) {
  if (series < 1) throw std::logic_error("a batch alignment must be at least one series");
  batch_multiple_ = std::lcm(batch_multiple_, series);
}

bool PlanContext::provides(const std::string& name) const {
  return std::any_of(tensors_.begin(), tensors_.end(),
                     [&](const TensorDecl& t) { return t.name == name; });
}

const TensorDecl& PlanContext::require(const std::string& name, const std::string& reader) const {
  const auto it = std::find_if(tensors_.begin(), tensors_.end(),
                               [&](const TensorDecl& t) { return t.name == name; });
  if (it == tensors_.end()) {
    std::vector<std::string> have;
    for (const auto& t : tensors_) have.push_back(t.name);
    throw InputError(fmt::format("\"{}\" needs the tensor \"{}\", which no earlier element writes "
                                 "(available: {}); check the order of the pipeline",
                                 reader, name, fmt::join(have, ", ")));
  }
  if (std::find(reads_.begin(), reads_.end(), name) == reads_.end()) reads_.push_back(name);
  return *it;
}

std::vector<double> Coordinate::values() const {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  for (std::int64_t k = 0; k < count; ++k) out.push_back(start + static_cast<double>(k) * step);
  return out;
}

void PlanContext::publish_coordinate(Coordinate coordinate) {
  for (const auto& c : coordinates_)
    if (c.name == coordinate.name)
      throw std::logic_error(fmt::format("coordinate \"{}\" published twice", coordinate.name));
  attributes_["coordinates"][coordinate.name] = {{"start", coordinate.start},
                                                 {"step", coordinate.step},
                                                 {"count", coordinate.count},
                                                 {"unit", coordinate.unit},
                                                 {"doc", coordinate.doc}};
  coordinates_.push_back(std::move(coordinate));
}

std::vector<TensorDecl> PlanContext::results() const {
  std::vector<TensorDecl> out;
  std::copy_if(tensors_.begin(), tensors_.end(), std::back_inserter(out),
               [](const TensorDecl& t) { return t.result; });
  return out;
}

void PlanContext::begin_element() {
  resolved_ = json::object();
  reads_.clear();
}

json PlanContext::take_resolved() { return std::exchange(resolved_, json::object()); }

}  // namespace pacflow

namespace pacflow {

void Sink::resume(const std::filesystem::path&, const json&, std::int64_t) {
  throw std::logic_error("this sink cannot resume (the executor should have refused the checkpoint)");
}

json Sink::checkpoint() {
  throw std::logic_error("this sink cannot checkpoint (the executor should have refused the checkpoint)");
}

}  // namespace pacflow
