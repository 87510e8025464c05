// Winograd convolution F(4x4, 3x3) in the channel-blocked layout (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks"): a 3x3, stride-1
// convolution as 36 products of the channels per 6x6 input tile, 36
// multiplications per input channel and 4x4 outputs instead of 144. Five
// reductions: the input transform B^T d B in two passes (rows, then
// columns), the 36 batched products over the input channels, and the output
// transform A^T M A in two passes into whole 4x4 tiles, which a last stage
// places in the image. Each transform's second pass reads its first and is
// tagged "winograd", so that the CPU sketch computes the first pass per tile
// inside the second (search/sketch.cpp). B^T and A^T are model constants
// (inputs, read from a 36- and 24-entry table that stays in L1) rather than
// expressions: as chains of selects on the indices they compiled 20x slower
// and ran 3x slower (2026-11-28, README). The weights are transformed once, where a
// model loads them (winograd_weights).
//
// Rounding: the transforms multiply by up to 8 and cancel, so the result
// differs from the direct convolution's by more than reassociation does
// (about 1e-5 of the output's largest magnitude on random data, see
// test/ops/winograd_test.cpp).
#pragma once

#include <string>

#include "runtime/ndarray.h"
#include "te/tensor.h"

namespace tunectl::ops {

inline constexpr int64_t kWinogradTile = 4;   // m: outputs per tile side
inline constexpr int64_t kWinogradAlpha = 6;  // m + r - 1: inputs per tile side

// data [N, C/bi, H, W, bi] (zero-padded by `pad` on every side), transformed
// weight [6, 6, K/bo, C/bi, bi, bo], bt [6, 6] (B^T), at [4, 6] (A^T) ->
// [N, K/bo, H + 2 pad - 2, W + 2 pad - 2, bo]. Images whose output is not a
// multiple of 4 are padded to whole tiles; the extra outputs are not kept.
te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& transformed_weight, const te::Tensor& bt,
                                 const te::Tensor& at, int64_t pad, const std::string& name = "conv2d_winograd");

// U = G g G^T of a blocked 3x3 weight [K/bo, C/bi, 3, 3, bi, bo] (fp32):
// [6, 6, K/bo, C/bi, bi, bo].
runtime::NDArray winograd_weights(const runtime::NDArray& weight);

// The values of conv2d_winograd_nchwc's bt [6, 6] and at [4, 6] inputs.
runtime::NDArray winograd_input_matrix();
runtime::NDArray winograd_output_matrix();

}  // namespace tunectl::ops
