#include "stages/io/memory/memory_sink.hpp"

#include <fmt/format.h>

#include "engine/api/huge_pages.hpp"
#include "stages/io/common/output_paths.hpp"

namespace pacflow::stages {

namespace {

SharedFacts shared_facts(const PlanContext& ctx) {
  SharedFacts facts{ctx.study_facts(), {}, ctx.stream().condition_names};
  // As the report has them: the labels a file names its channels by (a bipolar montage renames them,
  // stages/reref), not the names a montage gives unlabelled channels.
  if (const auto it = ctx.stream().description.find("channel_labels"); it != ctx.stream().description.end())
    facts.channel_names = it->get<std::vector<std::string>>();
  return facts;
}

}  // namespace

ElementInfo MemorySink::info(std::shared_ptr<ResultArrays> results, const std::string& name) {
  ElementInfo info = element_info<MemorySink>(name, "every result as an array in the caller's memory (the Python "
                                                    "module's Result); writes no file");
  info.make_sink = [make = info.make_sink, results = std::move(results)](const Params& params) {
    std::unique_ptr<Sink> sink = make(params);
    static_cast<MemorySink&>(*sink).results_ = results;
    return sink;
  };
  return info;
}

void MemorySink::plan(const PlanContext& ctx) {
  pending_.clear();
  for (const TensorDecl& decl : results_to_write(ctx)) {
    ResultLeading leading = result_leading(decl, ctx.stream());
    ResultArray array{decl.name, std::move(leading.dims), std::move(leading.names), decl.doc, {}};
    array.shape.insert(array.shape.end(), decl.per_series.begin(), decl.per_series.end());
    for (std::size_t k = 0; k < decl.per_series.size(); ++k)
      array.dims.push_back(k < decl.axes.size() ? decl.axes[k] : fmt::format("axis{}", k));
    pending_.push_back({decl, std::move(array)});
  }
  coordinates_ = ctx.coordinates();
  facts_ = shared_facts(ctx);
}

void MemorySink::append(Pending& out, const Tensor& t) {
  const std::span<const float> values = t.values<float>();
  std::vector<float>& all = out.array.values;
  if (all.empty()) {
    all.reserve(static_cast<std::size_t>(element_count(out.array.shape)));
    // One fresh block of the whole result: on huge pages where offered and it holds a whole one
    // (engine/api/huge_pages.hpp).
    advise_huge_pages(all.data(), all.capacity() * sizeof(float));
  }
  all.insert(all.end(), values.begin(), values.end());
}

void MemorySink::consume(const Batch& batch) {
  for (auto& out : pending_)
    if (!out.decl.summary) append(out, batch.at(out.decl.name));
}

void MemorySink::consume_summary(const Batch& summary) {
  for (auto& out : pending_)
    if (out.decl.summary) append(out, summary.at(out.decl.name));
}

void MemorySink::finish(const json& /*report*/, OutputSet& /*outputs*/) {
  if (!results_) throw std::logic_error("MemorySink: made without a place for its results");
  for (auto& out : pending_) {
    if (out.array.values.size() != static_cast<std::size_t>(element_count(out.array.shape)))
      throw std::logic_error(fmt::format("arrays sink: {} received {} values of {}", out.array.name,
                                         out.array.values.size(), element_count(out.array.shape)));
    results_->arrays.push_back(std::move(out.array));
  }
  results_->coordinates = coordinates_;
  results_->facts = facts_;
  pending_.clear();
}

void MemorySink::abort() noexcept { pending_.clear(); }

}  // namespace pacflow::stages
