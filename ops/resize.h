// Resize (ONNX Resize, and Upsample before it): each output element maps
// back to a coordinate in the input, per axis, by a coordinate
// transformation; nearest mode reads the input element it rounds to, linear
// mode blends the two neighbours on every resized axis (2^k reads for k
// resized axes), both with indices clamped to the input (edge padding, as
// ONNX's reference). One injective compute op; coordinates in float64.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

enum class ResizeMode { Nearest, Linear };
enum class CoordinateTransform { HalfPixel, HalfPixelSymmetric, PytorchHalfPixel, AlignCorners, Asymmetric };
enum class NearestRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

struct ResizeAttrs {
  ResizeMode mode = ResizeMode::Nearest;
  CoordinateTransform transform = CoordinateTransform::HalfPixel;
  NearestRounding rounding = NearestRounding::RoundPreferFloor;
  std::vector<int64_t> out_shape;  // one extent per input dimension
  std::vector<double> scales;      // per dimension: output / input, as given or computed from the sizes
};

te::Tensor resize(const te::Tensor& x, const ResizeAttrs& attrs, const std::string& name = "resize");

}  // namespace tunectl::ops
