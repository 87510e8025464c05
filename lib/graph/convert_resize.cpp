// Converters of Resize (opsets 10-21) and Upsample (7-9) onto ops::resize,
// and of GridSample (16-21) and AffineGrid (20-21) onto ops::grid_sample
// and ops::affine_grid. Resize:
// the output shape from sizes or scales (optionally on listed axes, with
// keep_aspect_ratio_policy), the coordinate transformation and rounding.
// Antialiasing is refused by name.
#include <algorithm>
#include <cmath>

#include "graph/convert_util.h"
#include "ir/printer.h"
#include "ops/resize.h"

namespace tunectl::graph {

namespace {

ops::CoordinateTransform coordinate_transform(const NodeContext& c) {
  // Resize of opset 10 and Upsample address the input as x / scale.
  if (c.node.op_type == "Upsample" || c.opset() < 11) return ops::CoordinateTransform::Asymmetric;
  const std::string m = c.attr_string("coordinate_transformation_mode", "half_pixel");
  if (m == "half_pixel") return ops::CoordinateTransform::HalfPixel;
  if (m == "half_pixel_symmetric") return ops::CoordinateTransform::HalfPixelSymmetric;
  if (m == "pytorch_half_pixel") return ops::CoordinateTransform::PytorchHalfPixel;
  if (m == "align_corners") return ops::CoordinateTransform::AlignCorners;
  if (m == "asymmetric") return ops::CoordinateTransform::Asymmetric;
  if (m == "tf_crop_and_resize") return ops::CoordinateTransform::TfCropAndResize;
  c.fail("attribute 'coordinate_transformation_mode' = '", m, "' is not supported (half_pixel, half_pixel_symmetric, ",
         "pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize)");
}

ops::NearestRounding nearest_rounding(const NodeContext& c) {
  if (c.node.op_type == "Upsample" || c.opset() < 11) return ops::NearestRounding::Floor;
  const std::string m = c.attr_string("nearest_mode", "round_prefer_floor");
  if (m == "round_prefer_floor") return ops::NearestRounding::RoundPreferFloor;
  if (m == "round_prefer_ceil") return ops::NearestRounding::RoundPreferCeil;
  if (m == "floor") return ops::NearestRounding::Floor;
  if (m == "ceil") return ops::NearestRounding::Ceil;
  c.fail("attribute 'nearest_mode' = '", m, "' is not supported (round_prefer_floor, round_prefer_ceil, floor, ceil)");
}

ops::ResizeMode resize_mode(const NodeContext& c) {
  const std::string m = c.attr_string("mode", "nearest");
  if (m == "nearest") return ops::ResizeMode::Nearest;
  if (m == "linear" || m == "bilinear") return ops::ResizeMode::Linear;
  if (m == "cubic") return ops::ResizeMode::Cubic;
  c.fail("attribute 'mode' = '", m, "' is not supported (nearest, linear, cubic)");
}

// The float values of a constant input.
std::vector<double> const_floats(const NodeContext& c, size_t i, const std::string& what) {
  const runtime::NDArray& a = c.constant(i, what);
  std::vector<double> v(static_cast<size_t>(a.num_elements()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = a.get(static_cast<int64_t>(k));
  return v;
}

// Whether optional input i is there and not empty (a constant, else the
// error says which).
bool given(const NodeContext& c, size_t i, const std::string& what) {
  return i < c.node.inputs.size() && !c.node.inputs[i].empty() && c.constant(i, what).num_elements() > 0;
}

std::vector<te::Tensor> convert_resize(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const std::vector<int64_t> in = c.shape(0);
  const size_t rank = in.size();
  std::vector<int64_t> axes = c.attr_ints("axes", {});
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  for (int64_t& a : axes) {
    c.check(a >= -static_cast<int64_t>(rank) && a < static_cast<int64_t>(rank), "axis ", a, " is out of range");
    if (a < 0) a += static_cast<int64_t>(rank);
  }
  ops::ResizeAttrs attrs;
  attrs.mode = resize_mode(c);
  attrs.transform = coordinate_transform(c);
  attrs.rounding = nearest_rounding(c);
  attrs.cubic_coeff_a = c.attr_float("cubic_coeff_a", -0.75);
  attrs.exclude_outside = c.attr_int("exclude_outside", 0) != 0;
  attrs.antialias = c.attr_int("antialias", 0) != 0;
  attrs.extrapolation_value = c.attr_float("extrapolation_value", 0.0);
  attrs.roi_start.assign(rank, 0.0);
  attrs.roi_end.assign(rank, 1.0);
  if (attrs.transform == ops::CoordinateTransform::TfCropAndResize) {
    // Input 1: the starts of the listed axes, then their ends.
    c.check(given(c, 1, "the region of interest"), "coordinate_transformation_mode 'tf_crop_and_resize' needs roi");
    const std::vector<double> roi = const_floats(c, 1, "the region of interest");
    c.check(roi.size() == 2 * axes.size(), "has ", roi.size(), " roi values for ", axes.size(), " axes");
    for (size_t k = 0; k < axes.size(); ++k) {
      attrs.roi_start[static_cast<size_t>(axes[k])] = roi[k];
      attrs.roi_end[static_cast<size_t>(axes[k])] = roi[axes.size() + k];
    }
  }
  attrs.out_shape = in;
  attrs.scales.assign(rank, 1.0);
  // Where scales and sizes are: Upsample 7 has an attribute, Upsample 9 and
  // Resize 10 input 1, Resize 11+ inputs 2 and 3.
  const bool upsample = c.node.op_type == "Upsample";
  const size_t scales_input = upsample || c.opset() < 11 ? 1 : 2, sizes_input = 3;
  std::vector<double> scales;
  if (upsample && c.opset() < 9) {
    const auto* v = std::get_if<std::vector<double>>(&c.node.attrs.values.at("scales"));
    c.check(v != nullptr, "attribute 'scales' must be a list of floats");
    scales = *v;
  } else if (given(c, scales_input, "the scales")) {
    scales = const_floats(c, scales_input, "the scales");
  }
  if (!scales.empty()) {
    c.check(scales.size() == axes.size(), "has ", scales.size(), " scales for ", axes.size(), " axes");
    for (size_t k = 0; k < axes.size(); ++k) {
      const size_t d = static_cast<size_t>(axes[k]);
      attrs.scales[d] = scales[k];
      attrs.out_shape[d] = static_cast<int64_t>(std::floor(static_cast<double>(in[d]) * scales[k]));
    }
  } else {
    c.check(!upsample && given(c, sizes_input, "the sizes"), "needs scales or sizes");
    const std::vector<int64_t> sizes = c.const_ints(sizes_input, "the sizes");
    c.check(sizes.size() == axes.size(), "has ", sizes.size(), " sizes for ", axes.size(), " axes");
    const std::string policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
    c.check(policy == "stretch" || policy == "not_larger" || policy == "not_smaller",
            "attribute 'keep_aspect_ratio_policy' = '", policy, "' is not supported");
    // not_larger / not_smaller: one scale for every listed axis, the
    // smallest (largest) of their ratios.
    double common = policy == "not_larger" ? INFINITY : 0;
    for (size_t k = 0; k < axes.size(); ++k) {
      const double ratio = static_cast<double>(sizes[k]) / static_cast<double>(in[static_cast<size_t>(axes[k])]);
      common = policy == "not_larger" ? std::min(common, ratio) : std::max(common, ratio);
    }
    for (size_t k = 0; k < axes.size(); ++k) {
      const size_t d = static_cast<size_t>(axes[k]);
      if (policy == "stretch") {
        attrs.out_shape[d] = sizes[k];
        attrs.scales[d] = static_cast<double>(sizes[k]) / static_cast<double>(in[d]);
      } else {
        attrs.scales[d] = common;
        attrs.out_shape[d] = static_cast<int64_t>(std::round(static_cast<double>(in[d]) * common));
      }
    }
  }
  return {ops::resize(x, attrs, c.out_name())};
}

std::vector<te::Tensor> convert_grid_sample(const NodeContext& c) {
  ops::GridSampleAttrs a;
  // Opset 20 renamed bilinear and bicubic to linear and cubic.
  const std::string mode = c.attr_string("mode", c.opset() < 20 ? "bilinear" : "linear");
  if (mode == "bilinear" || mode == "linear") {
    a.mode = ops::ResizeMode::Linear;
  } else if (mode == "bicubic" || mode == "cubic") {
    a.mode = ops::ResizeMode::Cubic;
  } else {
    c.check(mode == "nearest", "attribute 'mode' = '", mode, "' is not supported (linear, nearest, cubic)");
    a.mode = ops::ResizeMode::Nearest;
  }
  const std::string padding = c.attr_string("padding_mode", "zeros");
  if (padding == "border") {
    a.padding = ops::GridPadding::Border;
  } else if (padding == "reflection") {
    a.padding = ops::GridPadding::Reflection;
  } else {
    c.check(padding == "zeros", "attribute 'padding_mode' = '", padding, "' is not supported (zeros, border, reflection)");
  }
  a.align_corners = c.attr_int("align_corners", 0) != 0;
  return {ops::grid_sample(c.in(0), c.in(1), a, c.out_name())};
}

}  // namespace

void add_resize_converters(ConverterTable& t) {
  t["Resize"] = convert_resize;
  t["Upsample"] = convert_resize;
  t["GridSample"] = convert_grid_sample;
  t["AffineGrid"] = [](const NodeContext& c) {
    const std::vector<int64_t> size = c.const_ints(1, "the output size");
    c.check(size.size() >= 3 && size[0] == c.shape(0)[0], "input 'size' ", ir::shape_to_string(size),
            " must be [N, C, spatial...] with theta's N");
    return std::vector<te::Tensor>{ops::affine_grid(c.in(0), {size.begin() + 2, size.end()},
                                                    c.attr_int("align_corners", 0) != 0, c.out_name())};
  };
}

}  // namespace tunectl::graph
