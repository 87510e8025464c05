// Indexing and data-creation operators: gather, strided slicing, broadcast
// (expand), select (where), type casts, and tensors that read no input
// (constant fills, ranges, small value tables). Each is one injective or
// elementwise compute op, so the graph partitioner can fuse it into a
// neighbouring anchor; the ONNX converters in lib/graph build on them.
// tunectl has no rank-0 tensors: a scalar is a tensor of shape [1].
#pragma once

#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "te/tensor.h"

namespace tunectl::ops {

// out[a.., j.., b..] = data[a.., indices[j..], b..] along axis. Negative
// indices count from the end; indices still out of range after that are
// clamped to the axis so that no read leaves the buffer. With scalar_index
// the indices tensor (shape [1]) stands for one index and its dimension is
// dropped from the output.
te::Tensor gather(const te::Tensor& data, const te::Tensor& indices, int64_t axis, bool scalar_index = false,
                  const std::string& name = "gather");
// out[i] = data[i with its axis coordinate replaced by indices[i]] (ONNX
// GatherElements); indices have data's rank, and its shape is the output's.
te::Tensor gather_elements(const te::Tensor& data, const te::Tensor& indices, int64_t axis,
                           const std::string& name = "gather_elements");

// out[i..] = x[begins[d] + i_d * steps[d] ..] with extents[d] elements per
// axis; every read must stay inside x (the caller resolves negative and
// clamped bounds). Steps are non-zero and may be negative.
te::Tensor strided_slice(const te::Tensor& x, const std::vector<int64_t>& begins, const std::vector<int64_t>& steps,
                         const std::vector<int64_t>& extents, const std::string& name = "slice");

// x broadcast (numpy rules, both ways) with shape.
te::Tensor broadcast_to(const te::Tensor& x, const std::vector<int64_t>& shape, const std::string& name = "expand");

// cond ? a : b elementwise over the broadcast of the three shapes; cond is bool.
te::Tensor where(const te::Tensor& cond, const te::Tensor& a, const te::Tensor& b, const std::string& name = "where");

// x converted to dtype (to bool: x != 0; float to int truncates toward zero).
te::Tensor cast(const te::Tensor& x, ir::DType dtype, const std::string& name = "cast");

// x unchanged, as a tensor of its own (Identity; Dropout at inference).
te::Tensor copy(const te::Tensor& x, const std::string& name = "copy");

// How pad_border fills: repeat the edge element (Edge), mirror the elements
// next to the edge, excluding it (Reflect; each pad smaller than the axis),
// or continue from the other end as if the axis were a ring (Wrap).
enum class BorderMode : uint8_t { Edge, Reflect, Wrap };

// Border padding: begins/ends elements before/after each axis (non-negative).
te::Tensor pad_border(const te::Tensor& x, const std::vector<int64_t>& begins, const std::vector<int64_t>& ends,
                      BorderMode mode, const std::string& name = "pad_border");

// A tensor of shape filled with value.
te::Tensor full(const std::vector<int64_t>& shape, ir::DType dtype, double value, const std::string& name = "full");

// out[.., d, ..] = values[1] where indices (negative counting from depth) is
// d, values[0] elsewhere; the depth axis is inserted at axis (ONNX OneHot).
te::Tensor one_hot(const te::Tensor& indices, int64_t depth, const te::Tensor& values, int64_t axis = -1,
                   const std::string& name = "one_hot");

// [start, start + delta, ...], n elements.
te::Tensor arange(double start, double delta, int64_t n, ir::DType dtype, const std::string& name = "range");

// A small tensor with the given values (a select over the flat index; meant
// for shape vectors and the like, at most kMaxTableElements elements).
inline constexpr int64_t kMaxTableElements = 64;
te::Tensor value_table(const runtime::NDArray& values, const std::string& name = "table");

}  // namespace tunectl::ops
