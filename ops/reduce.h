// Reductions over chosen axes, the ONNX Reduce* family. One reduce op each
// (tag "reduce"; L2, LogSum and LogSumExp add elementwise ops after it);
// the reduced axes are reduce axes of the op in increasing order.
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
te::Tensor reduce_min(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                      const std::string& name = "reduce_min");
te::Tensor reduce_prod(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                       const std::string& name = "reduce_prod");
// The sum of |x|, of x^2, and the square root of the latter.
te::Tensor reduce_l1(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                     const std::string& name = "reduce_l1");
te::Tensor reduce_sum_square(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                             const std::string& name = "reduce_sum_square");
te::Tensor reduce_l2(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                     const std::string& name = "reduce_l2");
// log(sum x), and log(sum e^x) computed as m + log(sum e^(x - m)) with m the
// maximum, which overflows for no input that fits the type.
te::Tensor reduce_log_sum(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                          const std::string& name = "reduce_log_sum");
// The int64 index of the largest (max) or smallest element along axis, the
// first such or with select_last the last: the extremum (kept dimension),
// then the least (greatest) index where x equals it.
te::Tensor arg_extreme(const te::Tensor& x, int64_t axis, bool keepdims, bool max, bool select_last,
                       const std::string& name);
// Running sums along axis (ONNX CumSum): element i sums x up to i, or from
// i on when reverse; exclusive leaves out x[i] itself. A reduction over the
// whole axis masked to the running range.
te::Tensor cumsum(const te::Tensor& x, int64_t axis, bool exclusive = false, bool reverse = false,
                  const std::string& name = "cumsum");
// 1 where x is the first largest along axis, 0 elsewhere (ONNX Hardmax).
te::Tensor hardmax(const te::Tensor& x, int64_t axis = -1, const std::string& name = "hardmax");
te::Tensor reduce_log_sum_exp(const te::Tensor& x, const std::vector<int64_t>& axes, bool keepdims = false,
                              const std::string& name = "reduce_log_sum_exp");

// The k largest (or smallest) elements along axis, sorted, and their int64
// indices; equal elements in index order (ONNX TopK). Each element's rank is
// counted against the whole axis (n^2 comparisons a row), then rank r's
// element and its index are picked for output r.
struct TopK {
  te::Tensor values, indices;
};
TopK top_k(const te::Tensor& x, int64_t k, int64_t axis = -1, bool largest = true, const std::string& name = "top_k",
          const std::string& indices_name = "top_k_indices");

}  // namespace tunectl::ops
