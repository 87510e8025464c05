// 2-D pooling over NCHW tensors (or channel-blocked ones, [N, C/b, H, W, b]):
// windowed max/average pooling and global pooling. Each window reduction is one reduce op (tag "pool"); padding is its
// own op (tag "injective") and averaging divides in a following elementwise
// op, so both can be inlined or fused like any other stage.
#pragma once

#include <array>
#include <string>

#include "te/tensor.h"

namespace tunectl::ops {

struct Pool2dAttrs {
  std::array<int64_t, 2> kernel{2, 2};
  std::array<int64_t, 2> stride{2, 2};
  // top, left, bottom, right.
  std::array<int64_t, 4> padding{0, 0, 0, 0};
  // Output size rounded up (the last window may hang over the bottom/right
  // padding; it never starts past it).
  bool ceil_mode = false;
  // Average pooling: divide by the window size including padded elements
  // (true) or by the number of real input elements in the window (false).
  bool count_include_pad = false;
};

// x [N, C, H, W] -> [N, C, OH, OW]; x [N, C/b, H, W, b] -> [N, C/b, OH, OW, b].
te::Tensor max_pool2d(const te::Tensor& x, const Pool2dAttrs& attrs, const std::string& name = "max_pool2d");
te::Tensor avg_pool2d(const te::Tensor& x, const Pool2dAttrs& attrs, const std::string& name = "avg_pool2d");

// x [N, C, H, W] -> [N, C, 1, 1]; x [N, C/b, H, W, b] -> [N, C/b, 1, 1, b].
te::Tensor global_avg_pool2d(const te::Tensor& x, const std::string& name = "global_avg_pool2d");
te::Tensor global_max_pool2d(const te::Tensor& x, const std::string& name = "global_max_pool2d");

}  // namespace tunectl::ops
