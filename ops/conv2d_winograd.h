// Winograd convolution F(m x m, 3x3) in the channel-blocked layout (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks"), m = 4 or 2: a
// 3x3, stride-1 convolution as alpha^2 products of the channels per
// alpha x alpha input tile (alpha = m + 2): F(4x4, 3x3) 36 multiplications
// per input channel and 4x4 outputs instead of 144, F(2x2, 3x3) 16 for 2x2
// instead of 36. F(2x2) saves less but transforms the weights to 16/9 of
// their size rather than 4x, and cuts a small image into more, fuller tiles
// (a 14x14 image: 49 tiles of 2x2 against 16 of 4x4, a quarter of them
// padding); which is faster is measured per convolution (cmd/model_layout.h).
// Five stages: the input transform B^T d B in two passes (rows, then
// columns), the alpha^2 batched products over the input channels (the one
// reduction), and the output transform A^T M A in two passes into whole
// m x m tiles, which a last stage places in the image. Each pass is tagged
// "winograd", so that the CPU sketch computes the first pass per tile inside
// the second and unrolls both over the tile (search/sketch.cpp). B^T and A^T
// are written out as constant formulas with their shared sums (a chain of
// selects on the row that the unrolled copies fold): 14 operations per
// column of the F(4x4) input transform where the dense 6x6 table took 36
// multiply-adds and as many loads of its entries. The weights are
// transformed once, where a model loads them (winograd_weights).
//
// Rounding: F(4x4)'s transforms multiply by up to 8 and cancel, so the result
// differs from the direct convolution's by more than reassociation does
// (about 1e-5 of the output's largest magnitude on random data, see
// test/ops/winograd_test.cpp); F(2x2)'s entries are 0, +-1 and +-1/2.
#pragma once

#include <string>

#include "runtime/ndarray.h"
#include "te/tensor.h"

namespace tunectl::ops {

// The tile sizes m there are matrices for.
bool winograd_tile_supported(int64_t m);
// alpha = m + 2: inputs per tile side.
inline constexpr int64_t winograd_alpha(int64_t m) { return m + 2; }

// data [N, C/bi, H, W, bi] (zero-padded by `pad` on every side), transformed
// weight [alpha, alpha, K/bo, C/bi, bi, bo] (its alpha says m) ->
// [N, K/bo, H + 2 pad - 2, W + 2 pad - 2, bo]. Images whose output is not a
// multiple of m are padded to whole tiles; the extra outputs are not kept.
te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& transformed_weight, int64_t pad,
                                 const std::string& name = "conv2d_winograd");

// U = G g G^T of a blocked 3x3 weight [K/bo, C/bi, 3, 3, bi, bo] (fp32):
// [alpha, alpha, K/bo, C/bi, bi, bo].
runtime::NDArray winograd_weights(const runtime::NDArray& weight, int64_t m);

}  // namespace tunectl::ops
