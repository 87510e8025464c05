// Index-driven reads and writes that ONNX gives whole index tuples or
// positions: GatherND, ScatterElements and ScatterND. A scatter is computed
// as a pure function of its output position: the last update aimed at it
// (found by a reduction over the updates), or all of them combined with a
// reduction; positions no update aims at keep the data's value. Negative
// indices count from the end; others out of range are clamped, so that no
// read leaves a buffer.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tunectl::ops {

enum class ScatterReduction : uint8_t { None, Add, Mul, Max, Min };

// out[b.., j.., r..] = data[b.., indices[b.., j.., :], r..]: the last axis of
// indices holds a tuple of indices into data's axes after the batch_dims
// leading ones, which indices and data share.
te::Tensor gather_nd(const te::Tensor& data, const te::Tensor& indices, int64_t batch_dims = 0,
                     const std::string& name = "gather_nd");

// data with updates[i] written at i with its axis coordinate replaced by
// indices[i] (indices and updates have one shape, of data's rank).
te::Tensor scatter_elements(const te::Tensor& data, const te::Tensor& indices, const te::Tensor& updates,
                            int64_t axis, ScatterReduction reduction = ScatterReduction::None,
                            const std::string& name = "scatter_elements");

// data with updates[j.., r..] written at data[indices[j.., :], r..].
te::Tensor scatter_nd(const te::Tensor& data, const te::Tensor& indices, const te::Tensor& updates,
                      ScatterReduction reduction = ScatterReduction::None, const std::string& name = "scatter_nd");

}  // namespace tunectl::ops
