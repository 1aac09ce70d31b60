#pragma once
// Internal to the executor and the device backends' nodes: the run's observers as one
// (ObserverList), and each element's voice to them (ElementReporter).
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/run_observer.hpp"
#include "engine/run/run_support.hpp"

namespace pacflow::detail {

// Hands every call to each observer in turn.
class ObserverList final : public RunObserver {
 public:
  void add(RunObserver& observer) {
    observers_.push_back(&observer);
    wants_spans_ = wants_spans_ || observer.wants_spans();
  }
  void on_work(const ElementWork& w) override {
    for (auto* o : observers_) o->on_work(w);
  }
  void on_span(const Span& s) override {
    for (auto* o : observers_) o->on_span(s);
  }
  void on_device_time(std::size_t stage, double seconds) override {
    for (auto* o : observers_) o->on_device_time(stage, seconds);
  }
  void on_delivered(const Batch& batch) override {
    for (auto* o : observers_) o->on_delivered(batch);
  }
  bool wants_spans() const override { return wants_spans_; }  // asked per batch: known when added

 private:
  std::vector<RunObserver*> observers_;
  bool wants_spans_ = false;
};

// One element's voice, handed to its node: what it reports names it.
class ElementReporter {
 public:
  ElementReporter(RunObserver& observer, ElementKind kind, std::size_t position, const std::string& name)
      : observer_(&observer), kind_(kind), position_(position), name_(&name) {}

  const std::string& name() const { return *name_; }
  // The element worked on `batch` on this thread from `start` to `end`: counted and drawn.
  void worked(std::string_view device, const Batch& batch, Clock::time_point start,
              Clock::time_point end = Clock::now()) const {
    counted(batch.index, start, end);
    drawn(kind_name(kind_), name(), device, batch.index, batch.series_count, Span::kThisThread, start, end);
  }
  // Counted in its timings only (its spans are drawn on device lanes).
  void counted(std::int64_t batch, Clock::time_point start, Clock::time_point end) const {
    observer_->on_work({kind_, position_, batch, start, end});
  }
  void drawn(const char* kind, std::string_view label, std::string_view device, std::int64_t batch,
             std::int64_t series, int lane, Clock::time_point start, Clock::time_point end) const {
    observer_->on_span({kind, label, device, batch, series, lane, start, end});
  }
  bool drawing() const { return observer_->wants_spans(); }
  void device_time(double seconds) const { observer_->on_device_time(position_, seconds); }

 private:
  RunObserver* observer_;
  ElementKind kind_;
  std::size_t position_;
  const std::string* name_;
};

}  // namespace pacflow::detail
