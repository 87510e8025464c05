// The shape of a 2-D convolution the vendor baselines take (oneDNN's and
// cuDNN's): NCHW input, KCRS filters (C / groups input channels each), the
// same stride and padding on both axes and sides.
#pragma once

#include <cstdint>

namespace tunectl::baseline {

struct Conv2dShape {
  int64_t n = 1, c = 64, h = 56, w = 56;  // input NCHW
  int64_t k = 64, r = 3, s = 3;           // K filters of C x R x S (OIHW)
  int64_t stride = 1, pad = 1;            // the same on both axes and sides
  int64_t groups = 1;                     // C and K split into groups; C = K = groups is depthwise
  int64_t out_h() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - s) / stride + 1; }
};

}  // namespace tunectl::baseline
