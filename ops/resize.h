// Resize (ONNX Resize, and Upsample before it): each output element maps
// back to a coordinate in the input, per axis, by a coordinate
// transformation; nearest mode reads the input element it rounds to, linear
// mode blends the two neighbours on every resized axis (2^k reads for k
// resized axes), cubic mode the four nearest with the cubic kernel of
// parameter A (4^k reads), all with indices clamped to the input (edge
// padding, as ONNX's reference) unless exclude_outside drops the taps
// outside it and renormalizes the rest. One injective compute op;
// coordinates and weights in float64. Antialiased downscaling reads 2/s
// (linear) or 4/s (cubic) taps per axis scaled by s: a weight table per
// such axis (normalized kernel values) and a float64 reduction over the taps.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

enum class ResizeMode { Nearest, Linear, Cubic };
enum class CoordinateTransform {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfCropAndResize  // the region of interest [roi_start, roi_end] (fractions of the extent - 1) to the output
};
enum class NearestRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

struct ResizeAttrs {
  ResizeMode mode = ResizeMode::Nearest;
  CoordinateTransform transform = CoordinateTransform::HalfPixel;
  NearestRounding rounding = NearestRounding::RoundPreferFloor;
  std::vector<int64_t> out_shape;  // one extent per input dimension
  std::vector<double> scales;      // per dimension: output / input, as given or computed from the sizes
  double cubic_coeff_a = -0.75;    // cubic mode's A
  bool exclude_outside = false;    // cubic mode: taps outside the input weigh 0, the rest renormalized
  // Linear and cubic modes: an axis scaled by s < 1 widens its kernel by 1/s
  // (a low-pass filter, as ONNX's antialias = 1).
  bool antialias = false;
  // TfCropAndResize: per dimension, the region's start and end (0 and 1: the
  // whole axis), and the value of an output whose coordinate falls outside
  // the input.
  std::vector<double> roi_start, roi_end;
  double extrapolation_value = 0;
};

te::Tensor resize(const te::Tensor& x, const ResizeAttrs& attrs, const std::string& name = "resize");

// GridSample (ONNX, any number of spatial axes): x [N, C, D1..Dr] sampled
// at the points of grid [N, O1..Or, r] (normalized to [-1, 1], the last
// spatial axis first) into [N, C, O1..Or]: nearest (half to even), linear
// or cubic (A = -0.75) over the neighbours of each point; a point or
// neighbour outside the input reads 0 (zeros), the edge (border) or its
// reflection at the borders (reflection), as ONNX's reference.
enum class GridPadding { Zeros, Border, Reflection };
struct GridSampleAttrs {
  ResizeMode mode = ResizeMode::Linear;
  GridPadding padding = GridPadding::Zeros;
  bool align_corners = false;
};
te::Tensor grid_sample(const te::Tensor& x, const te::Tensor& grid, const GridSampleAttrs& attrs,
                       const std::string& name = "grid_sample");

// AffineGrid (ONNX): the sampling grid [N, S1..Sr, r] of the affine maps
// theta [N, r, r + 1] over spatial extents `sizes` (S1..Sr), normalized
// coordinates in [-1, 1] (pixel centers unless align_corners), the last
// axis first in each point, as grid_sample reads them.
te::Tensor affine_grid(const te::Tensor& theta, const std::vector<int64_t>& sizes, bool align_corners,
                       const std::string& name = "affine_grid");

}  // namespace tunectl::ops
