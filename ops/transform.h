// Data movement operators: transpose, constant padding, concatenation,
// reshape, flatten and the channel-blocked layout's transforms. Each is one injective compute op (tag "injective"):
// every output element reads at most one input element, so the schedule can
// inline it into its reader. Out-of-range reads are guarded by a Select that
// evaluates only the chosen branch.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

// out[i_0..] = x[i_perm^-1...]: output dimension k is input dimension perm[k].
te::Tensor transpose(const te::Tensor& x, const std::vector<int64_t>& perm, const std::string& name = "transpose");

// begins/ends: elements added before/after each axis (one per dimension,
// non-negative); the new elements hold value.
te::Tensor pad(const te::Tensor& x, const std::vector<int64_t>& begins, const std::vector<int64_t>& ends,
               double value = 0.0, const std::string& name = "pad");

// Inputs joined along axis; all other dimensions must agree.
te::Tensor concat(const std::vector<te::Tensor>& inputs, int64_t axis, const std::string& name = "concat");

// The same elements in row-major order with a new shape; one dimension may
// be -1 (inferred) and a 0 copies the input's dimension at that position.
te::Tensor reshape(const te::Tensor& x, const std::vector<int64_t>& shape, const std::string& name = "reshape");

// Two dimensions: the product of dimensions before axis, and of the rest.
te::Tensor flatten(const te::Tensor& x, int64_t axis = 1, const std::string& name = "flatten");

// The upper (or lower) triangle of the last two dimensions: x where
// column - row >= k (<= k for the lower), 0 elsewhere (ONNX Trilu).
te::Tensor trilu(const te::Tensor& x, bool upper, int64_t k = 0, const std::string& name = "trilu");
// ReverseSequence (ONNX): along time_axis, the first lens[b] elements of
// each batch entry b (along batch_axis) reversed, the rest as they are.
te::Tensor reverse_sequence(const te::Tensor& x, const te::Tensor& lens, int64_t batch_axis, int64_t time_axis,
                            const std::string& name = "reverse_sequence");

// The channel-blocked layout NCHW[b]c: x [N, C, H, W] -> [N, C/b, H, W, b],
// channel c at block c / b, lane c % b (C a multiple of b).
te::Tensor to_channel_blocks(const te::Tensor& x, int64_t block, const std::string& name = "to_channel_blocks");
// Back: x [N, ceil(C/b), H, W, b] -> [N, C, H, W], the lanes past channel C
// (zero padding of the last block) dropped.
te::Tensor from_channel_blocks(const te::Tensor& x, int64_t channels,
                               const std::string& name = "from_channel_blocks");

}  // namespace tunectl::ops
