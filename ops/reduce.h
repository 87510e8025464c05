// Reductions over chosen axes (sum, mean, max), the ONNX ReduceSum/Mean/Max
// family. One reduce op each (tag "reduce"); the reduced axes are reduce
// axes of the op in increasing order.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

// axes: the dimensions to reduce (negative counts from the end); empty means
// all. keepdims keeps them as extent 1. Reducing every axis without keepdims
// gives shape [1] (tunectl has no rank-0 tensors).
te::Tensor reduce_sum(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                      const std::string& name = "reduce_sum");
// The sum times 1 / (number of reduced elements), in one op.
te::Tensor reduce_mean(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                       const std::string& name = "reduce_mean");
te::Tensor reduce_max(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                      const std::string& name = "reduce_max");

}  // namespace tunectl::ops
