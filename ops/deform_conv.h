// Deformable convolution (ONNX DeformConv, 2-D): each kernel tap of each
// output position reads the input at its regular position moved by a
// learned offset, bilinearly interpolated (a corner outside the image
// reads 0), and weighted by an optional mask; channels in `groups` as Conv
// does, offsets and masks shared by the input channels of each of
// `offset_groups`. One reduction over input channels and taps.
#pragma once

#include <string>

#include "ops/conv2d.h"
#include "te/tensor.h"

namespace tunectl::ops {

// data [N, C, H, W], weight [K, C / groups, R, S], offset [N, G * R * S * 2,
// OH, OW] (per tap: the row offset, then the column offset), mask null or
// [N, G * R * S, OH, OW] -> [N, K, OH, OW], G = offset_groups.
te::Tensor deform_conv2d(const te::Tensor& data, const te::Tensor& weight, const te::Tensor& offset,
                         const te::Tensor& mask, const Conv2dAttrs& attrs, int64_t offset_groups,
                         const std::string& name = "deform_conv2d");

}  // namespace tunectl::ops
