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

}  // namespace tunectl::ops
