#include "ops/pool.h"

#include <algorithm>
#include <limits>

#include "ir/error.h"
#include "ir/printer.h"
#include "ops/transform.h"

namespace tunectl::ops {

namespace {

using ir::Expr;

// Output extent of one spatial axis, and the extra elements past the end
// padding that ceil mode's last window needs.
struct PoolAxis {
  int64_t out = 0;
  int64_t extra = 0;
};

PoolAxis pool_axis(int64_t in, int64_t before, int64_t after, int64_t kernel, int64_t stride, bool ceil_mode,
                   const std::string& name) {
  int64_t span = in + before + after - kernel;
  user_check(span >= 0, name, ": kernel ", kernel, " is larger than the padded input ", in + before + after);
  PoolAxis a;
  a.out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // A window starting in the end padding would see no input at all.
  if (ceil_mode && (a.out - 1) * stride >= in + before) --a.out;
  a.extra = std::max<int64_t>(0, (a.out - 1) * stride + kernel - (in + before + after));
  return a;
}

// The spatial axes of x for attrs: 2 .. 2 + k of [N, C, D1..Dk] or of the
// channel-blocked [N, C/b, H, W, b] (k = 2).
size_t spatial_rank(const te::Tensor& x, const PoolAttrs& a, const std::string& name) {
  const size_t k = a.kernel.size(), rank = x->shape().size();
  user_check(k >= 1 && (rank == k + 2 || (k == 2 && rank == 5)), name, ": a ", k,
             "-D window needs input [N, C, spatial...] (or channel-blocked [N, C/b, H, W, b]), the input has rank ", rank);
  return k;
}

int64_t at_or(const std::vector<int64_t>& v, size_t d, int64_t fallback) { return v.empty() ? fallback : v.at(d); }

void check_attrs(const te::Tensor& x, const PoolAttrs& a, const std::string& name) {
  const size_t k = spatial_rank(x, a, name);
  user_check(a.stride.size() == k && (a.dilation.empty() || a.dilation.size() == k) &&
                 (a.pad_begin.empty() || a.pad_begin.size() == k) && (a.pad_end.empty() || a.pad_end.size() == k),
             name, ": strides, dilations and pads need one value per spatial axis (", k, ")");
  for (size_t d = 0; d < k; ++d) {
    const int64_t dilation = at_or(a.dilation, d, 1);
    user_check(a.kernel[d] >= 1 && a.stride[d] >= 1 && dilation >= 1, name,
               ": kernel, stride and dilation must be positive");
    const int64_t before = at_or(a.pad_begin, d, 0), after = at_or(a.pad_end, d, 0), extent = (a.kernel[d] - 1) * dilation + 1;
    user_check(before >= 0 && after >= 0, name, ": padding must be non-negative");
    user_check(before < extent && after < extent, name, ": padding must be smaller than the window");
  }
}

// The padded input and the output shape of a window reduction.
struct Windows {
  te::Tensor padded;
  std::vector<int64_t> out_shape;
};

Windows windows(const te::Tensor& x, const PoolAttrs& a, double pad_value, const std::string& name) {
  check_attrs(x, a, name);
  const auto& s = x->shape();
  std::vector<int64_t> begins(s.size(), 0), ends(s.size(), 0);
  Windows w{x, s};
  bool padded = false;
  for (size_t d = 0; d < a.kernel.size(); ++d) {
    const int64_t extent = (a.kernel[d] - 1) * at_or(a.dilation, d, 1) + 1;
    PoolAxis axis = pool_axis(s[2 + d], at_or(a.pad_begin, d, 0), at_or(a.pad_end, d, 0), extent, a.stride[d],
                              a.ceil_mode, name);
    begins[2 + d] = at_or(a.pad_begin, d, 0);
    ends[2 + d] = at_or(a.pad_end, d, 0) + axis.extra;
    padded = padded || begins[2 + d] || ends[2 + d];
    w.out_shape[2 + d] = axis.out;
  }
  if (padded) w.padded = pad(x, begins, ends, pad_value, name + "_pad");
  return w;
}

// One reduce axis per spatial axis: rx (1-D); ry, rx (2-D); rz, ry, rx (3-D); r0, r1, ... beyond.
std::vector<ir::IterVar> window_axes(const PoolAttrs& a) {
  static const char* const kNames[][3] = {{"rx"}, {"ry", "rx"}, {"rz", "ry", "rx"}};
  const size_t k = a.kernel.size();
  std::vector<ir::IterVar> axes;
  for (size_t d = 0; d < k; ++d)
    axes.push_back(te::reduce_axis(a.kernel[d], k <= 3 ? kNames[k - 1][d] : "r" + std::to_string(d)));
  return axes;
}

// The padded input's index of window tap `r` of output i.
std::vector<Expr> tap_index(const std::vector<ir::Var>& i, const PoolAttrs& a, const std::vector<ir::IterVar>& r) {
  std::vector<Expr> idx(i.begin(), i.end());
  for (size_t d = 0; d < r.size(); ++d) {
    const int64_t dilation = at_or(a.dilation, d, 1);
    idx[2 + d] = i[2 + d] * a.stride[d] + (dilation == 1 ? Expr(r[d].var) : r[d].var * dilation);
  }
  return idx;
}

// The window reduction of pooling: combiner over a padded copy of x.
te::Tensor window_reduce(const te::Tensor& x, const PoolAttrs& a, ir::ReduceOp op, double pad_value,
                         const std::string& name) {
  Windows w = windows(x, a, pad_value, name);
  std::vector<ir::IterVar> r = window_axes(a);
  return te::compute(
      name, w.out_shape,
      [&](const std::vector<ir::Var>& i) { return ir::make_reduce(op, te::read(w.padded, tap_index(i, a, r)), r); },
      "pool", x->dtype());
}

// Number of elements averaged along one axis for output index o: the taps
// inside the input (or, with include_pad, inside the padded input).
Expr window_count(Expr o, int64_t in, int64_t before, int64_t after, int64_t kernel, int64_t stride, int64_t dilation,
                  bool include_pad) {
  Expr start = o * stride - before;
  if (dilation == 1) {
    Expr end = ir::make_min(start + kernel, in + after);
    if (!include_pad) {
      start = ir::make_max(start, 0);
      end = ir::make_min(end, in);
    }
    return end - start;
  }
  // Dilated windows count as ONNX's reference does: with include_pad every
  // tap, even those past the end padding that ceil mode adds; otherwise the
  // taps j in [0, kernel) with 0 <= start + j * dilation < in.
  if (include_pad) return Expr(kernel);
  Expr first = ir::make_max((-start + (dilation - 1)) / dilation, 0);
  Expr last = ir::make_min((Expr(in - 1) - start) / dilation, kernel - 1);
  return last - first + 1;
}

// Padding that never wins a max: -inf, or the integer type's smallest value.
double max_pad_value(ir::DType t) {
  if (ir::is_float(t)) return -std::numeric_limits<double>::infinity();
  return static_cast<double>(ir::as_const_int(ir::reduce_identity(ir::ReduceOp::Max, t))[0]);
}

}  // namespace

te::Tensor max_pool(const te::Tensor& x, const PoolAttrs& attrs, const std::string& name) {
  user_check(ir::is_float(x->dtype()) || ir::is_int(x->dtype()), name, ": input must be numbers");
  return window_reduce(x, attrs, ir::ReduceOp::Max, max_pad_value(x->dtype()), name);
}

te::Tensor avg_pool(const te::Tensor& x, const PoolAttrs& a, const std::string& name) {
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
  te::Tensor total = window_reduce(x, a, ir::ReduceOp::Sum, 0.0, name + "_sum");
  const auto& s = x->shape();
  bool padded = false;
  int64_t size = 1;
  for (size_t d = 0; d < a.kernel.size(); ++d) {
    padded = padded || at_or(a.pad_begin, d, 0) || at_or(a.pad_end, d, 0);
    size *= a.kernel[d];
  }
  bool uniform = !a.ceil_mode && (a.count_include_pad || !padded);
  return te::compute(
      name, total->shape(),
      [&](const std::vector<ir::Var>& i) {
        Expr v = te::read(total, {i.begin(), i.end()});
        if (uniform) return v / ir::make_const(v.dtype(), static_cast<double>(size));
        Expr count;
        for (size_t d = 0; d < a.kernel.size(); ++d) {
          Expr n = window_count(i[2 + d], s[2 + d], at_or(a.pad_begin, d, 0), at_or(a.pad_end, d, 0), a.kernel[d],
                                a.stride[d], at_or(a.dilation, d, 1), a.count_include_pad);
          count = count ? count * n : n;
        }
        return v / ir::make_cast(v.dtype(), count);
      },
      "elemwise", x->dtype());
}

te::Tensor lp_pool(const te::Tensor& x, const PoolAttrs& attrs, int64_t p, const std::string& name) {
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
  user_check(p >= 1, name, ": p = ", p, " must be positive");
  const ir::DType t = x->dtype();
  te::Tensor powered = te::compute(
      name + "_pow", x->shape(),
      [&](const std::vector<ir::Var>& i) {
        Expr v = te::read(x, {i.begin(), i.end()});
        if (p == 2) return v * v;
        Expr a = ir::make_call(ir::MathFunc::abs, {v});
        return p == 1 ? a : ir::make_call(ir::MathFunc::pow, {a, ir::make_const(t, static_cast<double>(p))});
      },
      "elemwise", t);
  te::Tensor total = window_reduce(powered, attrs, ir::ReduceOp::Sum, 0.0, name + "_sum");
  if (p == 1) return total;
  return te::compute(
      name, total->shape(),
      [&](const std::vector<ir::Var>& i) {
        Expr s = te::read(total, {i.begin(), i.end()});
        return p == 2 ? ir::make_call(ir::MathFunc::sqrt, {s})
                      : ir::make_call(ir::MathFunc::pow, {s, ir::make_const(t, 1.0 / static_cast<double>(p))});
      },
      "elemwise", t);
}

te::Tensor max_pool_indices(const te::Tensor& x, const PoolAttrs& a, bool column_major, const std::string& name) {
  const auto& s = x->shape();
  user_check(s.size() == a.kernel.size() + 2, name, ": indices need an [N, C, spatial...] input");
  te::Tensor best = max_pool(x, a, name + "_max");
  Windows w = windows(x, a, max_pad_value(x->dtype()), name);
  std::vector<ir::IterVar> r = window_axes(a);
  const size_t k = a.kernel.size();
  return te::compute(
      name, w.out_shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> tap = tap_index(i, a, r);
        // The tap's flat index in x: (n * C + c) * D1 * ... * Dk + its spatial offset.
        Expr spatial;
        int64_t step = 1;
        for (size_t q = 0; q < k; ++q) {
          const size_t d = column_major ? q : k - 1 - q;
          Expr term = (tap[2 + d] - at_or(a.pad_begin, d, 0)) * step;
          spatial = spatial ? spatial + term : term;
          step *= s[2 + d];
        }
        Expr flat = (Expr(i[0]) * s[1] + i[1]) * step + spatial;
        Expr hit = ir::make_eq(te::read(w.padded, tap), te::read(best, {i.begin(), i.end()}));
        return ir::make_reduce(ir::ReduceOp::Min,
                               ir::make_select(hit, flat, Expr(std::numeric_limits<int64_t>::max())), r);
      },
      "pool", ir::DType::Int64);
}

te::Tensor global_avg_pool2d(const te::Tensor& x, const std::string& name) {
  user_check(x->shape().size() == 4 || x->shape().size() == 5, name, ": input must be NCHW or [N, C/b, H, W, b]");
  PoolAttrs a;
  a.kernel = {x->shape()[2], x->shape()[3]};
  a.stride = {1, 1};
  a.count_include_pad = true;
  return avg_pool(x, a, name);
}

te::Tensor global_max_pool2d(const te::Tensor& x, const std::string& name) {
  user_check(x->shape().size() == 4 || x->shape().size() == 5, name, ": input must be NCHW or [N, C/b, H, W, b]");
  PoolAttrs a;
  a.kernel = {x->shape()[2], x->shape()[3]};
  a.stride = {1, 1};
  return max_pool(x, a, name);
}

te::Tensor max_unpool(const te::Tensor& x, const te::Tensor& indices, const std::vector<int64_t>& kernel,
                      const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                      const std::vector<int64_t>& out_shape, const std::string& name) {
  const auto& xs = x->shape();
  const size_t k = kernel.size();
  user_check(xs.size() == k + 2 && strides.size() == k && pads.size() == 2 * k && out_shape.size() == k + 2, name,
             ": ", k, " kernel extents need an input of rank ", k + 2, " and as many strides, output extents and ",
             "pairs of pads");
  std::vector<int64_t> unpooled{xs[0], xs[1]};
  for (size_t d = 0; d < k; ++d) {
    unpooled.push_back((xs[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + k]);
    user_check(unpooled.back() > 0 && out_shape[d + 2] >= unpooled.back(), name, ": the output shape ",
               ir::shape_to_string(out_shape), " is smaller than the unpooled one (", unpooled.back(), " on axis ",
               d + 2, ")");
  }
  user_check(indices->shape() == xs && indices->dtype() == ir::DType::Int64, name,
             ": indices must be int64 of the input's shape ", ir::shape_to_string(xs));
  user_check(out_shape[0] == xs[0] && out_shape[1] == xs[1], name, ": the output shape ",
             ir::shape_to_string(out_shape), " must keep the input's batch and channels");
  std::vector<ir::IterVar> windows;
  for (size_t d = 0; d < k; ++d) {
    user_check(kernel[d] > 0 && strides[d] > 0, name, ": kernel and strides must be positive");
    windows.push_back(te::reduce_axis((kernel[d] + strides[d] - 1) / strides[d], "rw" + std::to_string(d)));
  }
  // The last window (greatest flat position in x's spatial axes) that
  // covers the output element and whose index names it; -1 when none does.
  te::Tensor source = te::compute(
      name + "_source", unpooled,
      [&](const std::vector<ir::Var>& o) {
        Expr flat = o[0];
        for (size_t d = 1; d < unpooled.size(); ++d) flat = flat * unpooled[d] + o[d];
        std::vector<Expr> at{o[0], o[1]};
        Expr position = ir::make_int(0), covers;
        for (size_t d = 0; d < k; ++d) {
          Expr shifted = o[d + 2] + pads[d];
          Expr window = ir::make_floordiv(shifted, ir::make_int(strides[d])) - windows[d].var;
          Expr ok = ir::make_and(ir::make_and(window >= ir::make_int(0), window < ir::make_int(xs[d + 2])),
                                 window * strides[d] + kernel[d] > shifted);
          covers = covers ? ir::make_and(covers, ok) : ok;
          at.push_back(ir::make_min(ir::make_max(window, ir::make_int(0)), ir::make_int(xs[d + 2] - 1)));
          position = position * xs[d + 2] + at.back();
        }
        Expr match = ir::make_and(covers, ir::make_eq(te::read(indices, at), flat));
        return te::max_reduce(ir::make_select(match, position, ir::make_int(-1)), windows);
      },
      "pool", ir::DType::Int64);
  return te::compute(
      name, out_shape,
      [&](const std::vector<ir::Var>& o) {
        // A larger output shape extends the unpooled one with zeros at the
        // end of each axis (the indices count in the unpooled shape).
        std::vector<Expr> within{o[0], o[1]};
        Expr inside = ir::make_bool(true);
        for (size_t d = 2; d < unpooled.size(); ++d) {
          within.push_back(ir::make_min(o[d], ir::make_int(unpooled[d] - 1)));
          if (out_shape[d] > unpooled[d]) inside = ir::make_and(inside, o[d] < ir::make_int(unpooled[d]));
        }
        Expr from = te::read(source, within);
        std::vector<Expr> at{o[0], o[1]};
        Expr rest = ir::make_max(from, ir::make_int(0));
        for (size_t d = k; d-- > 0;) {
          at.insert(at.begin() + 2, ir::make_floormod(rest, ir::make_int(xs[d + 2])));
          rest = ir::make_floordiv(rest, ir::make_int(xs[d + 2]));
        }
        return ir::make_select(ir::make_and(inside, from >= ir::make_int(0)), te::read(x, at),
                               ir::make_const(x->dtype(), 0));
      },
      "injective", x->dtype());
}

}  // namespace tunectl::ops
