#pragma once
// Internal to the builder: the source a run reads when its pipeline starts with preprocessing
// stages. Each batch is read from the source before and passed through the transform (whole
// epochs at a time where the transform needs them: the builder makes every batch hold whole epochs).
#include <memory>
#include <stop_token>
#include <vector>

#include "engine/api/stage.hpp"
#include "engine/api/transform.hpp"

namespace pacflow::detail {

class TransformedSource final : public Source {
 public:
  // `inner` is open and delivers `before`; `transform` is planned and makes `after` of it.
  TransformedSource(std::unique_ptr<Source> inner, const StreamInfo& before, std::unique_ptr<Transform> transform,
                    const StreamInfo& after);
  // The stream after the transform (the source before is open already).
  StreamInfo open(const std::stop_token& stop) override;
  void read(std::int64_t first, std::int64_t count, float* dst) override;
  double host_workspace_bytes(std::int64_t batch_series) const override;

 private:
  std::unique_ptr<Source> inner_;
  std::unique_ptr<Transform> transform_;
  StreamInfo after_;
  std::int64_t before_per_epoch_;  // series of one epoch, before and after
  std::int64_t after_per_epoch_;
  // A transform that learns() reads the whole input once before the first read: in batches of
  // whole epochs of about 64 MiB, checking `stop` between them.
  void learn_once();
  std::int64_t learning_epochs() const;

  std::vector<float> scratch_;  // the epochs as read, when the transform changes their series count
  std::int64_t epochs_ = 0;
  bool learned_ = false;
  std::stop_token stop_;
};

}  // namespace pacflow::detail
