#include "ops/resize.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::ops {

namespace {

using ir::Expr;

Expr f64(double v) { return ir::make_const(ir::DType::Float64, v); }

// The input coordinate of output index i on an axis of `in` elements
// resized by `scale` into `out` (ONNX's coordinate_transformation_mode;
// its "length_resized" is in x scale, not floored, when scales are given).
Expr input_coordinate(const ResizeAttrs& a, size_t d, Expr i, int64_t in) {
  const CoordinateTransform t = a.transform;
  const int64_t out = a.out_shape[d];
  const double scale = a.scales[d];
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
    case CoordinateTransform::TfCropAndResize: {
      const double start = a.roi_start[d], end = a.roi_end[d], last = static_cast<double>(in - 1);
      if (out == 1) return f64(0.5 * (start + end) * last);
      return f64(start * last) + x * f64((end - start) * last / static_cast<double>(out - 1));
    }
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

// Cubic convolution weights of the taps at floor(x) - 1 ... floor(x) + 2
// for t = x - floor(x) (Keys' kernel with parameter a, as ONNX's reference).
std::vector<Expr> cubic_weights(Expr t, double a) {
  auto near = [&](Expr d) { return (f64(a + 2) * d - f64(a + 3)) * d * d + f64(1); };       // |d| <= 1
  auto far = [&](Expr d) { return ((f64(a) * d - f64(5 * a)) * d + f64(8 * a)) * d - f64(4 * a); };  // 1 < |d| < 2
  return {far(t + f64(1)), near(t), near(f64(1) - t), far(f64(2) - t)};
}

struct Tap {
  Expr index, weight;  // weight null: the only tap
};

// The taps of one resized axis: the input indices an output index reads and
// their weights.
std::vector<Tap> axis_taps(const ResizeAttrs& a, Expr coord, int64_t in) {
  if (a.mode == ResizeMode::Nearest) return {{clamped_index(nearest(a.rounding, coord), in), Expr()}};
  Expr lower = call(ir::MathFunc::floor, coord), t = coord - lower;
  if (a.mode == ResizeMode::Linear)
    return {{clamped_index(lower, in), f64(1) - t}, {clamped_index(lower + f64(1), in), t}};
  std::vector<Expr> w = cubic_weights(t, a.cubic_coeff_a);
  std::vector<Tap> taps;
  Expr total = f64(0);
  for (int k = 0; k < 4; ++k) {
    Expr at = lower + f64(k - 1);
    if (a.exclude_outside) {
      w[k] = ir::make_select(ir::make_and(at >= f64(0), at <= f64(static_cast<double>(in - 1))), w[k], f64(0));
      total = total + w[k];
    }
    taps.push_back({clamped_index(at, in), w[k]});
  }
  if (a.exclude_outside)
    for (Tap& tap : taps) tap.weight = tap.weight / total;
  return taps;
}

// ONNX's antialiasing kernel at distance d (in input elements) times the
// axis' scale: the tent (linear) or Keys' cubic, zero outside its support.
Expr antialias_kernel(const ResizeAttrs& a, Expr d) {
  Expr x = call(ir::MathFunc::abs, d);
  if (a.mode == ResizeMode::Linear) return ir::make_max(f64(1) - x, f64(0));
  const double A = a.cubic_coeff_a;
  Expr near = (f64(A + 2) * x - f64(A + 3)) * x * x + f64(1);
  Expr far = ((f64(A) * x - f64(5 * A)) * x + f64(8 * A)) * x - f64(4 * A);
  return ir::make_select(x <= f64(1), near, ir::make_select(x < f64(2), far, f64(0)));
}

// The taps of an antialiased axis: output index o reads input positions
// first(o) + k for k < count, where first(o) = ceil(x) - 1 + start so that
// the window holds the count positions nearest x (ONNX's reference).
struct AntialiasAxis {
  int64_t start = 0, count = 0;
  double scale = 1;  // min(s, 1): upscaling keeps the plain kernel
  Expr first(Expr coord) const { return call(ir::MathFunc::ceil, coord) - f64(static_cast<double>(1 - start)); }
};

AntialiasAxis antialias_axis(const ResizeAttrs& a, size_t d) {
  AntialiasAxis ax;
  ax.scale = std::min(a.scales[d], 1.0);
  const double support = a.mode == ResizeMode::Linear ? 1 : 2;
  ax.start = static_cast<int64_t>(std::floor(-support / ax.scale)) + 1;
  ax.count = 2 - 2 * ax.start;
  return ax;
}

// Weights [out, count] of an antialiased axis: the kernel at each tap over
// their sum (taps outside the input weigh 0 with exclude_outside).
te::Tensor antialias_weights(const ResizeAttrs& a, size_t d, int64_t in, const std::string& name) {
  const AntialiasAxis ax = antialias_axis(a, d);
  const auto raw = [&](Expr o, Expr k) {
    Expr coord = input_coordinate(a, d, o, in);
    Expr at = ax.first(coord) + ir::make_cast(ir::DType::Float64, k);
    Expr w = antialias_kernel(a, (at - coord) * f64(ax.scale));
    if (!a.exclude_outside) return w;
    return ir::make_select(ir::make_and(at >= f64(0), at <= f64(static_cast<double>(in - 1))), w, f64(0));
  };
  ir::IterVar k = te::reduce_axis(ax.count, "rk");
  te::Tensor total = te::compute(
      name + "_sum", {a.out_shape[d]}, [&](const std::vector<ir::Var>& i) { return te::sum(raw(i[0], k.var), {k}); },
      "reduce", ir::DType::Float64);
  return te::compute(
      name, {a.out_shape[d], ax.count},
      [&](const std::vector<ir::Var>& i) { return raw(i[0], i[1]) / te::read(total, {i[0]}); }, "injective",
      ir::DType::Float64);
}

te::Tensor resize_antialias(const te::Tensor& x, const ResizeAttrs& a, const std::vector<bool>& resized,
                            const std::string& name) {
  const auto& in = x->shape();
  std::vector<te::Tensor> weights(in.size());
  std::vector<ir::IterVar> taps;
  std::vector<size_t> tap_axis;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!resized[d]) continue;
    weights[d] = antialias_weights(a, d, in[d], name + "_w" + std::to_string(d));
    taps.push_back(te::reduce_axis(antialias_axis(a, d).count, "r" + std::to_string(d)));
    tap_axis.push_back(d);
  }
  te::Tensor acc = te::compute(
      name + "_acc", a.out_shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> at(i.begin(), i.end());
        Expr w = f64(1);
        for (size_t t = 0; t < taps.size(); ++t) {
          const size_t d = tap_axis[t];
          Expr first = antialias_axis(a, d).first(input_coordinate(a, d, i[d], in[d]));
          at[d] = clamped_index(first + ir::make_cast(ir::DType::Float64, taps[t].var), in[d]);
          w = w * te::read(weights[d], {i[d], taps[t].var});
        }
        return te::sum(w * ir::make_cast(ir::DType::Float64, te::read(x, at)), taps);
      },
      "reduce", ir::DType::Float64);
  return te::compute(
      name, a.out_shape,
      [&](const std::vector<ir::Var>& i) { return ir::make_cast(x->dtype(), te::read(acc, {i.begin(), i.end()})); },
      "elemwise", x->dtype());
}

}  // namespace

te::Tensor resize(const te::Tensor& x, const ResizeAttrs& a, const std::string& name) {
  const auto& in = x->shape();
  user_check(a.out_shape.size() == in.size() && a.scales.size() == in.size(), name, ": ", in.size(),
             " dimensions need ", in.size(), " output extents and scales");
  user_check(ir::is_float(x->dtype()) || a.mode == ResizeMode::Nearest, name, ": linear and cubic modes need a float input");
  for (size_t d = 0; d < in.size(); ++d)
    user_check(a.out_shape[d] > 0 && a.scales[d] > 0, name, ": dimension ", d, " resizes to ", a.out_shape[d],
               " with scale ", a.scales[d]);
  user_check(a.transform != CoordinateTransform::TfCropAndResize ||
                 (a.roi_start.size() == in.size() && a.roi_end.size() == in.size()),
             name, ": tf_crop_and_resize needs a region of interest per dimension");
  std::vector<bool> resized(in.size());
  bool downscaled = false;
  for (size_t d = 0; d < in.size(); ++d) {
    const bool whole = a.transform != CoordinateTransform::TfCropAndResize || (a.roi_start[d] == 0 && a.roi_end[d] == 1);
    resized[d] = !(a.out_shape[d] == in[d] && a.scales[d] == 1.0 && whole);
    downscaled = downscaled || (resized[d] && a.scales[d] < 1);
  }
  if (a.antialias && a.mode != ResizeMode::Nearest && downscaled) {
    user_check(a.transform != CoordinateTransform::TfCropAndResize, name,
               ": antialiasing does not combine with tf_crop_and_resize here");
    return resize_antialias(x, a, resized, name);
  }
  return te::compute(
      name, a.out_shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<std::vector<Tap>> taps(in.size());
        std::vector<Expr> coords(in.size());
        for (size_t d = 0; d < in.size(); ++d)
          taps[d] = !resized[d] ? std::vector<Tap>{{i[d], Expr()}}
                                : axis_taps(a, coords[d] = input_coordinate(a, d, i[d], in[d]), in[d]);
        Expr value;
        if (a.mode == ResizeMode::Nearest) {
          std::vector<Expr> index;
          for (const auto& t : taps) index.push_back(t[0].index);
          value = te::read(x, index);
        }
        // The sum over every combination of the axes' taps, each read
        // weighted by the product of its taps' weights.
        std::function<Expr(size_t, std::vector<Expr>&, Expr)> combine = [&](size_t d, std::vector<Expr>& at,
                                                                            Expr w) -> Expr {
          if (d == in.size()) return w * ir::make_cast(ir::DType::Float64, te::read(x, at));
          Expr sum;
          for (const Tap& t : taps[d]) {
            at[d] = t.index;
            Expr term = combine(d + 1, at, t.weight ? w * t.weight : w);
            sum = sum ? sum + term : term;
          }
          return sum;
        };
        if (!value) {
          std::vector<Expr> at(in.size());
          value = ir::make_cast(x->dtype(), combine(0, at, f64(1)));
        }
        if (a.transform != CoordinateTransform::TfCropAndResize) return value;
        // A coordinate outside the input on any resized axis: the extrapolation value.
        Expr inside;
        for (size_t d = 0; d < in.size(); ++d) {
          if (!coords[d]) continue;
          Expr c = ir::make_and(coords[d] >= f64(0), coords[d] <= f64(static_cast<double>(in[d] - 1)));
          inside = inside ? ir::make_and(inside, c) : c;
        }
        return inside ? ir::make_select(inside, value, ir::make_const(x->dtype(), a.extrapolation_value)) : value;
      },
      "injective", x->dtype());
}

namespace {

// x reflected at lo and hi until it lies between them (ONNX's _gs_reflect),
// as a triangle wave of period 2 (hi - lo): x is used twice, not five
// times, so that a reflected coordinate reflected again for each tap stays
// a small expression.
Expr reflect(Expr x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return f64(lo);
  Expr u = (x - f64(lo)) / f64(2 * range);
  Expr y = (u - call(ir::MathFunc::floor, u)) * f64(2 * range);  // in [0, 2 range)
  return f64(lo + range) - call(ir::MathFunc::abs, y - f64(range));
}

}  // namespace

te::Tensor grid_sample(const te::Tensor& x, const te::Tensor& grid, const GridSampleAttrs& a, const std::string& name) {
  const auto& xs = x->shape();
  const auto& gs = grid->shape();
  user_check(xs.size() >= 3, name, ": the input needs a batch, a channel and at least one spatial axis");
  const size_t r = xs.size() - 2;
  user_check(gs.size() == r + 2 && gs[0] == xs[0] && gs[r + 1] == static_cast<int64_t>(r), name, ": grid ",
             ir::shape_to_string(gs), " does not fit input ", ir::shape_to_string(xs), " (needs [N, O1..O",
             r, ", ", r, "])");
  user_check(ir::is_float(x->dtype()) && ir::is_float(grid->dtype()), name, ": needs float input and grid");
  std::vector<int64_t> out{xs[0], xs[1]};
  for (size_t d = 0; d < r; ++d) out.push_back(gs[d + 1]);
  return te::compute(
      name, out,
      [&](const std::vector<ir::Var>& i) {
        std::vector<std::vector<Tap>> taps(r);
        std::vector<std::vector<Expr>> valid(r);  // zeros padding: whether each tap is inside
        for (size_t d = 0; d < r; ++d) {
          const auto size = static_cast<double>(xs[d + 2]);
          const double lo = a.align_corners ? 0 : -0.5, hi = a.align_corners ? size - 1 : size - 0.5;
          std::vector<Expr> at{i[0]};
          for (size_t k = 0; k < r; ++k) at.push_back(i[k + 2]);
          at.push_back(ir::make_int(static_cast<int64_t>(r - 1 - d)));
          Expr g = ir::make_cast(ir::DType::Float64, te::read(grid, at));
          Expr c = a.align_corners ? (g + f64(1)) / f64(2) * f64(size - 1) : ((g + f64(1)) * f64(size) - f64(1)) / f64(2);
          if (a.mode == ResizeMode::Nearest) c = call(ir::MathFunc::round, c);
          if (a.padding == GridPadding::Border) {
            c = ir::make_select(ir::make_or(c < f64(lo), c > f64(hi)),
                                ir::make_min(ir::make_max(c, f64(0)), f64(size - 1)), c);
          } else if (a.padding == GridPadding::Reflection) {
            c = reflect(c, lo, hi);
          }
          // The taps' integer positions and weights along this axis.
          std::vector<std::pair<Expr, Expr>> points;
          if (a.mode == ResizeMode::Nearest) {
            points.push_back({c, Expr()});
          } else {
            Expr lower = call(ir::MathFunc::floor, c), t = c - lower;
            std::vector<Expr> w = a.mode == ResizeMode::Linear ? std::vector<Expr>{f64(1) - t, t} : cubic_weights(t, -0.75);
            const int first = a.mode == ResizeMode::Linear ? 0 : -1;
            for (size_t k = 0; k < w.size(); ++k) points.push_back({lower + f64(first + static_cast<int>(k)), w[k]});
          }
          for (auto& [p, w] : points) {
            // An integer position reflects to an integer (the borders are
            // integers or halves): rounded, so that the float error of
            // reflect() never truncates it to its neighbour.
            if (a.padding == GridPadding::Reflection) p = call(ir::MathFunc::round, reflect(p, lo, hi));
            if (a.padding == GridPadding::Zeros) valid[d].push_back(ir::make_and(p >= f64(0), p <= f64(size - 1)));
            taps[d].push_back({clamped_index(p, xs[d + 2]), w});
          }
        }
        // The sum over every combination of the axes' taps, each read
        // weighted by the product of its taps' weights (0 outside, zeros).
        std::function<Expr(size_t, std::vector<Expr>&, Expr, Expr)> combine =
            [&](size_t d, std::vector<Expr>& at, Expr w, Expr inside) -> Expr {
          if (d == r) {
            Expr v = ir::make_cast(ir::DType::Float64, te::read(x, at));
            if (inside) v = ir::make_select(inside, v, f64(0));
            return w ? w * v : v;
          }
          Expr sum;
          for (size_t k = 0; k < taps[d].size(); ++k) {
            at[d + 2] = taps[d][k].index;
            Expr tw = taps[d][k].weight;
            Expr ok = valid[d].empty() ? inside : inside ? ir::make_and(inside, valid[d][k]) : valid[d][k];
            Expr term = combine(d + 1, at, w && tw ? w * tw : (w ? w : tw), ok);
            sum = sum ? sum + term : term;
          }
          return sum;
        };
        std::vector<Expr> at(xs.size());
        at[0] = i[0];
        at[1] = i[1];
        return ir::make_cast(x->dtype(), combine(0, at, Expr(), Expr()));
      },
      "injective", x->dtype());
}

te::Tensor affine_grid(const te::Tensor& theta, const std::vector<int64_t>& sizes, bool align_corners,
                       const std::string& name) {
  const auto r = static_cast<int64_t>(sizes.size());
  const auto& ts = theta->shape();
  user_check(r >= 1 && ts.size() == 3 && ts[1] == r && ts[2] == r + 1, name, ": theta ", ir::shape_to_string(ts),
             " does not map ", r, " spatial axes (needs [N, ", r, ", ", r + 1, "])");
  user_check(ir::is_float(theta->dtype()), name, ": needs a float theta");
  std::vector<int64_t> out{ts[0]};
  out.insert(out.end(), sizes.begin(), sizes.end());
  out.push_back(r);
  const ir::DType t = theta->dtype();
  return te::compute(
      name, out,
      [&](const std::vector<ir::Var>& i) {
        const Expr k = i.back();
        Expr sum = te::read(theta, {i[0], k, ir::make_int(r)});
        for (int64_t m = 0; m < r; ++m) {
          // Column m of theta takes the normalized coordinate of spatial axis r - 1 - m.
          const int64_t axis = r - 1 - m;
          const auto extent = static_cast<double>(sizes[static_cast<size_t>(axis)]);
          Expr index = ir::make_cast(ir::DType::Float64, i[static_cast<size_t>(axis) + 1]);
          Expr base = align_corners ? (extent > 1 ? index * f64(2 / (extent - 1)) - f64(1) : f64(0))
                                    : (index * f64(2) + f64(1)) / f64(extent) - f64(1);
          sum = sum + te::read(theta, {i[0], k, ir::make_int(m)}) * ir::make_cast(t, base);
        }
        return sum;
      },
      "injective", t);
}

}  // namespace tunectl::ops
