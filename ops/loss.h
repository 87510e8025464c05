// Classification losses (ONNX NegativeLogLikelihoodLoss, and through a log
// softmax SoftmaxCrossEntropyLoss): the negated input at each sample's target
// class, weighted per class, with an ignored target value; reduced to their
// sum, their weighted mean, or kept per sample.
#pragma once

#include <optional>
#include <string>

#include "te/tensor.h"

namespace tunectl::ops {

enum class LossReduction : uint8_t { None, Sum, Mean };

// input [N, C, d..] (log-probabilities), target [N, d..] (integers in
// [0, C), or ignore_index), weight [C] or null. None: [N, d..]; Sum and
// Mean: one value (shape [1]); Mean divides by the summed weights of the
// targets not ignored.
te::Tensor nll_loss(const te::Tensor& input, const te::Tensor& target, const te::Tensor& weight,
                    LossReduction reduction, std::optional<int64_t> ignore_index, const std::string& name = "nll_loss");

}  // namespace tunectl::ops
