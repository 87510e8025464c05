// ONNX Col2Im, the inverse of im2col: column l of the input [N, C x
// prod(block), L] holds the block (patch) at output position l of every
// channel; the output [N, C, image...] sums at each pixel every block
// position that covers it. Any number of spatial dimensions.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

struct Col2ImAttrs {
  std::vector<int64_t> image;      // the output's spatial shape
  std::vector<int64_t> block;      // the block's shape
  std::vector<int64_t> dilations;  // per spatial axis
  std::vector<int64_t> pads;       // begins, then ends
  std::vector<int64_t> strides;    // per spatial axis
};

// UserError when the attributes disagree with x's shape.
te::Tensor col2im(const te::Tensor& x, const Col2ImAttrs& a, const std::string& name = "col2im");

}  // namespace tunectl::ops
