// 2-D convolution in NCHW layout with OIHW weights: the anchor op of most
// vision tasks. Padding is its own compute op (tag "pad", a Select), so the
// schedule may inline it into the convolution or compute it separately; bias
// is a separate elementwise op so a following activation fuses with it.
#pragma once

#include <array>
#include <string>

#include "te/tensor.h"

namespace tunectl::ops {

struct Conv2dAttrs {
  std::array<int64_t, 2> stride{1, 1};
  // top, left, bottom, right.
  std::array<int64_t, 4> padding{0, 0, 0, 0};
  std::array<int64_t, 2> dilation{1, 1};
  // Input channels and output channels split into this many groups; groups
  // equal to the channel count is a depthwise convolution.
  int64_t groups = 1;
};

// data [N, C, H, W], weight [K, C / groups, R, S] -> [N, K, OH, OW] with
// OH = (H + top + bottom - dilation_h * (R - 1) - 1) / stride_h + 1.
te::Tensor conv2d_nchw(const te::Tensor& data, const te::Tensor& weight, const Conv2dAttrs& attrs,
                       const std::string& name = "conv2d");

// x [N, C, H, W] + bias [C] broadcast over N, H, W.
te::Tensor bias_add_nchw(const te::Tensor& x, const te::Tensor& bias, const std::string& name = "bias_add");

// The channel-blocked convolution (NCHW[b]c, as oneDNN's nChw16c and TVM's
// NCHW16c): data [N, C/bi, H, W, bi], weight [K/bo, C/bi, R, S, bi, bo] ->
// [N, K/bo, OH, OW, bo]. The innermost axis of the output and of the weight
// is a block of output channels, so a vector of bo lanes is one contiguous
// load or store whatever the image width and stride. Depthwise (groups equal
// to the channels, bi == bo): weight [K/bo, 1, R, S, 1, bo]. Other groupings
// are not blocked.
te::Tensor conv2d_nchwc(const te::Tensor& data, const te::Tensor& weight, const Conv2dAttrs& attrs,
                        const std::string& name = "conv2d");

// x [N, K/b, H, W, b] + bias [K/b, b] broadcast over N, H, W.
te::Tensor bias_add_nchwc(const te::Tensor& x, const te::Tensor& bias, const std::string& name = "bias_add");

}  // namespace tunectl::ops
