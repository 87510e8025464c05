// Normalisations over an axis: softmax and layer normalisation, the row-wise
// ops of transformer models. Each is a chain of reductions followed by an
// elementwise normalize op, so the schedule sees the stages separately
// (reduce into a small intermediate, then a fusable elementwise stage).
#pragma once

#include <string>

#include "te/tensor.h"

namespace tunectl::ops {

// exp(x - max) / sum(exp(x - max)) along axis, in three stages: max, exp-sum,
// normalize.
te::Tensor softmax(const te::Tensor& x, int64_t axis = -1, const std::string& name = "softmax");

// Normalises over the trailing axes from `axis` on: (x - mean) /
// sqrt(var + epsilon) * scale + bias, with scale and bias (each may be null)
// of the normalised trailing shape. Three stages: mean, variance, normalize.
te::Tensor layer_norm(const te::Tensor& x, const te::Tensor& scale, const te::Tensor& bias, int64_t axis = -1,
                      double epsilon = 1e-5, const std::string& name = "layer_norm");

}  // namespace tunectl::ops
