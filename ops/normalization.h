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
// (x - max) - log(sum(exp(x - max))): the same stages.
te::Tensor log_softmax(const te::Tensor& x, int64_t axis = -1, const std::string& name = "log_softmax");

// Normalises over the trailing axes from `axis` on: (x - mean) /
// sqrt(var + epsilon) * scale + bias, with scale and bias (each may be null)
// of the normalised trailing shape. Three stages: mean, variance, normalize.
te::Tensor layer_norm(const te::Tensor& x, const te::Tensor& scale, const te::Tensor& bias, int64_t axis = -1,
                      double epsilon = 1e-5, const std::string& name = "layer_norm");

// Batch normalisation in inference form over channel axis 1 of x (rank at
// least 2): scale * (x - mean) / sqrt(var + epsilon) + bias, the four
// parameters of shape [C]. One elementwise op.
te::Tensor batch_norm(const te::Tensor& x, const te::Tensor& scale, const te::Tensor& bias, const te::Tensor& mean,
                      const te::Tensor& var, double epsilon = 1e-5, const std::string& name = "batch_norm");

// Local response normalisation across channels (axis 1, rank at least 3):
// x / (bias + alpha / size * sum of x^2 over the size channels around c)^beta,
// the window reaching floor((size-1)/2) channels before c and
// ceil((size-1)/2) after. Two stages: the windowed square sum, then an
// elementwise normalize.
te::Tensor lrn(const te::Tensor& x, int64_t size, double alpha = 1e-4, double beta = 0.75, double bias = 1.0,
               const std::string& name = "lrn");

}  // namespace tunectl::ops
