// Convolution over any number of spatial axes ([N, C, D1..Dk] data, [K,
// C / groups, R1..Rk] weight), for the volumetric (3-D) convolutions that
// conv2d_nchw's tuned 2-D form does not take. Padding is its own compute op
// (tag "pad"), as in conv2d.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

struct ConvNdAttrs {
  std::vector<int64_t> strides, dilations;  // one per spatial axis
  std::vector<int64_t> pads;                // k begins, then k ends
  int64_t groups = 1;
};

// -> [N, K, O1..Ok], O = (D + pads - dilation * (R - 1) - 1) / stride + 1.
te::Tensor conv_nd(const te::Tensor& data, const te::Tensor& weight, const ConvNdAttrs& attrs,
                   const std::string& name = "conv_nd");

}  // namespace tunectl::ops
