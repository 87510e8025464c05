// Pooling over the spatial axes of [N, C, D1, ..., Dk] tensors (1-D, 2-D,
// 3-D, ...) or of channel-blocked 2-D ones ([N, C/b, H, W, b]): windowed
// max/average pooling (strides, dilations, padding, ceil mode), MaxPool's
// indices, and global pooling. Each window reduction is one reduce op (tag
// "pool"); padding is its own op (tag "injective") and averaging divides in
// a following elementwise op, so both can be inlined or fused like any other
// stage.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

struct PoolAttrs {
  // One value per spatial axis; the number of spatial axes is kernel's size.
  std::vector<int64_t> kernel{2, 2};
  std::vector<int64_t> stride{2, 2};
  std::vector<int64_t> dilation;   // empty: all 1
  std::vector<int64_t> pad_begin;  // empty: all 0
  std::vector<int64_t> pad_end;    // empty: all 0
  // Output size rounded up (the last window may hang over the end padding;
  // it never starts past it).
  bool ceil_mode = false;
  // Average pooling: divide by the window size including padded elements
  // (true) or by the number of real input elements in the window (false).
  bool count_include_pad = false;
};

// x [N, C, D1..Dk] -> [N, C, O1..Ok]; x [N, C/b, H, W, b] -> [N, C/b, OH, OW, b].
te::Tensor max_pool(const te::Tensor& x, const PoolAttrs& attrs, const std::string& name = "max_pool2d");
te::Tensor avg_pool(const te::Tensor& x, const PoolAttrs& attrs, const std::string& name = "avg_pool2d");
// MaxPool's second output (int64, NCHW layouts only): the flat index into x
// of each window's maximum, the first one where several are equal; with
// column_major (ONNX's storage_order = 1) the spatial axes count first-axis
// fastest.
te::Tensor max_pool_indices(const te::Tensor& x, const PoolAttrs& attrs, bool column_major,
                            const std::string& name = "max_pool_indices");

// MaxUnpool, MaxPool's partial inverse: x [N, C, D1..Dk] and its indices
// (int64, flat into the unpooled shape (D - 1) * stride + kernel - pads, as
// max_pool_indices gives them) scattered into zeros; out_shape (the
// original input's, no smaller) extends the unpooled shape with zeros at the
// end of each axis. An output element takes the x of the last (in x's
// order) pooling window that covers it and whose index names it: as a pure
// function of the output position it searches only the ceil(kernel /
// stride) windows per axis that cover it, so an index outside its own
// window is not written. pads: k begins, then k ends.
te::Tensor max_unpool(const te::Tensor& x, const te::Tensor& indices, const std::vector<int64_t>& kernel,
                      const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                      const std::vector<int64_t>& out_shape, const std::string& name = "max_unpool");

// (sum of |x|^p over each window)^(1/p), p a positive integer (ONNX LpPool;
// padding adds 0).
te::Tensor lp_pool(const te::Tensor& x, const PoolAttrs& attrs, int64_t p, const std::string& name = "lp_pool");

// x [N, C, H, W] -> [N, C, 1, 1]; x [N, C/b, H, W, b] -> [N, C/b, 1, 1, b].
te::Tensor global_avg_pool2d(const te::Tensor& x, const std::string& name = "global_avg_pool2d");
te::Tensor global_max_pool2d(const te::Tensor& x, const std::string& name = "global_max_pool2d");

}  // namespace tunectl::ops
