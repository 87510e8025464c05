#include "ops/resize.h"

#include <functional>

#include "ir/error.h"

namespace tunectl::ops {

namespace {

using ir::Expr;

Expr f64(double v) { return ir::make_const(ir::DType::Float64, v); }

// The input coordinate of output index i on an axis of `in` elements
// resized by `scale` into `out` (ONNX's coordinate_transformation_mode;
// its "length_resized" is in x scale, not floored, when scales are given).
Expr input_coordinate(CoordinateTransform t, Expr i, int64_t in, int64_t out, double scale) {
  Expr x = ir::make_cast(ir::DType::Float64, i);
  const double resized = static_cast<double>(in) * scale;
  switch (t) {
    case CoordinateTransform::HalfPixel:
      return (x + f64(0.5)) / f64(scale) - f64(0.5);
    case CoordinateTransform::HalfPixelSymmetric: {
      const double adjustment = static_cast<double>(out) / resized;
      const double offset = static_cast<double>(in) * (1 - adjustment) / 2;
      return f64(offset) + (x + f64(0.5)) / f64(scale) - f64(0.5);
    }
    case CoordinateTransform::PytorchHalfPixel:
      return resized > 1 ? (x + f64(0.5)) / f64(scale) - f64(0.5) : f64(0);
    case CoordinateTransform::AlignCorners:
      return resized > 1 ? x * f64(static_cast<double>(in - 1) / (resized - 1)) : f64(0);
    case CoordinateTransform::Asymmetric:
      return x / f64(scale);
  }
  internal_fail("resize: bad coordinate transformation");
}

Expr call(ir::MathFunc f, Expr x) { return ir::make_call(f, {std::move(x)}); }

// The integer index of coordinate x (float64) clamped to [0, in - 1].
Expr clamped_index(Expr x, int64_t in) {
  Expr i = ir::make_cast(ir::kIndexType, x);
  return ir::make_min(ir::make_max(i, ir::make_int(0)), ir::make_int(in - 1));
}

Expr nearest(NearestRounding r, Expr x) {
  switch (r) {
    case NearestRounding::RoundPreferFloor: return call(ir::MathFunc::ceil, x - f64(0.5));
    case NearestRounding::RoundPreferCeil: return call(ir::MathFunc::floor, x + f64(0.5));
    case NearestRounding::Floor: return call(ir::MathFunc::floor, x);
    case NearestRounding::Ceil: return call(ir::MathFunc::ceil, x);
  }
  internal_fail("resize: bad rounding");
}

}  // namespace

te::Tensor resize(const te::Tensor& x, const ResizeAttrs& a, const std::string& name) {
  const auto& in = x->shape();
  user_check(a.out_shape.size() == in.size() && a.scales.size() == in.size(), name, ": ", in.size(),
             " dimensions need ", in.size(), " output extents and scales");
  user_check(ir::is_float(x->dtype()) || a.mode == ResizeMode::Nearest, name, ": linear mode needs a float input");
  for (size_t d = 0; d < in.size(); ++d)
    user_check(a.out_shape[d] > 0 && a.scales[d] > 0, name, ": dimension ", d, " resizes to ", a.out_shape[d],
               " with scale ", a.scales[d]);
  return te::compute(
      name, a.out_shape,
      [&](const std::vector<ir::Var>& i) {
        // Per axis: the index to read (nearest, unresized) or the two
        // neighbours and the weight of the upper one (linear).
        std::vector<Expr> index(in.size()), upper(in.size()), weight(in.size());
        for (size_t d = 0; d < in.size(); ++d) {
          if (a.out_shape[d] == in[d] && a.scales[d] == 1.0) {
            index[d] = i[d];
            continue;
          }
          Expr coord = input_coordinate(a.transform, i[d], in[d], a.out_shape[d], a.scales[d]);
          if (a.mode == ResizeMode::Nearest) {
            index[d] = clamped_index(nearest(a.rounding, coord), in[d]);
            continue;
          }
          Expr lower = call(ir::MathFunc::floor, coord);
          index[d] = clamped_index(lower, in[d]);
          upper[d] = clamped_index(lower + f64(1), in[d]);
          weight[d] = coord - lower;
        }
        // Linear: the sum over the corners of the resized axes, each read
        // weighted by the product of its axes' weights.
        std::function<Expr(size_t, std::vector<Expr>&, Expr)> corners = [&](size_t d, std::vector<Expr>& at,
                                                                            Expr w) -> Expr {
          if (d == in.size()) return w * ir::make_cast(ir::DType::Float64, te::read(x, at));
          if (!weight[d]) {
            at[d] = index[d];
            return corners(d + 1, at, w);
          }
          at[d] = index[d];
          Expr low = corners(d + 1, at, w * (f64(1) - weight[d]));
          at[d] = upper[d];
          return low + corners(d + 1, at, w * weight[d]);
        };
        if (a.mode == ResizeMode::Nearest) return te::read(x, index);
        std::vector<Expr> at(in.size());
        return ir::make_cast(x->dtype(), corners(0, at, f64(1)));
      },
      "injective", x->dtype());
}

}  // namespace tunectl::ops
