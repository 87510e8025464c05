#include "ops/pool.h"

#include <algorithm>
#include <limits>

#include "ir/error.h"
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

void check_layout(const te::Tensor& x, const std::string& name) {
  user_check(x->shape().size() == 4 || x->shape().size() == 5, name,
             ": input must be NCHW or channel-blocked [N, C/b, H, W, b]");
}

void check_attrs(const te::Tensor& x, const Pool2dAttrs& a, const std::string& name) {
  check_layout(x, name);
  user_check(ir::is_float(x->dtype()), name, ": input must be float");
  for (int64_t v : a.kernel) user_check(v >= 1, name, ": kernel must be positive");
  for (int64_t v : a.stride) user_check(v >= 1, name, ": stride must be positive");
  for (int64_t v : a.padding) user_check(v >= 0, name, ": padding must be non-negative");
  user_check(a.padding[0] < a.kernel[0] && a.padding[2] < a.kernel[0] && a.padding[1] < a.kernel[1] &&
                 a.padding[3] < a.kernel[1],
             name, ": padding must be smaller than the kernel");
}

// The window reduction of pooling: combiner over a padded copy of x.
te::Tensor window_reduce(const te::Tensor& x, const Pool2dAttrs& a, ir::ReduceOp op, double pad_value,
                         const std::string& name) {
  check_attrs(x, a, name);
  const auto& s = x->shape();
  PoolAxis ay = pool_axis(s[2], a.padding[0], a.padding[2], a.kernel[0], a.stride[0], a.ceil_mode, name);
  PoolAxis ax = pool_axis(s[3], a.padding[1], a.padding[3], a.kernel[1], a.stride[1], a.ceil_mode, name);
  te::Tensor in = x;
  int64_t bottom = a.padding[2] + ay.extra, right = a.padding[3] + ax.extra;
  if (a.padding[0] || a.padding[1] || bottom || right) {
    std::vector<int64_t> begins(s.size(), 0), ends(s.size(), 0);
    begins[2] = a.padding[0];
    begins[3] = a.padding[1];
    ends[2] = bottom;
    ends[3] = right;
    in = pad(x, begins, ends, pad_value, name + "_pad");
  }
  ir::IterVar ry = te::reduce_axis(a.kernel[0], "ry");
  ir::IterVar rx = te::reduce_axis(a.kernel[1], "rx");
  std::vector<int64_t> out_shape = s;
  out_shape[2] = ay.out;
  out_shape[3] = ax.out;
  return te::compute(
      name, out_shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx(i.begin(), i.end());
        idx[2] = i[2] * a.stride[0] + ry.var;
        idx[3] = i[3] * a.stride[1] + rx.var;
        return ir::make_reduce(op, te::read(in, idx), {ry, rx});
      },
      "pool", x->dtype());
}

// Number of elements averaged along one axis for output index o.
Expr window_count(Expr o, int64_t in, int64_t before, int64_t after, int64_t kernel, int64_t stride,
                  bool include_pad) {
  Expr start = o * stride - before;
  Expr end = ir::make_min(start + kernel, in + after);
  if (!include_pad) {
    start = ir::make_max(start, 0);
    end = ir::make_min(end, in);
  }
  return end - start;
}

}  // namespace

te::Tensor max_pool2d(const te::Tensor& x, const Pool2dAttrs& attrs, const std::string& name) {
  return window_reduce(x, attrs, ir::ReduceOp::Max, -std::numeric_limits<double>::infinity(), name);
}

te::Tensor avg_pool2d(const te::Tensor& x, const Pool2dAttrs& a, const std::string& name) {
  te::Tensor total = window_reduce(x, a, ir::ReduceOp::Sum, 0.0, name + "_sum");
  const auto& s = x->shape();
  bool uniform = !a.ceil_mode && (a.count_include_pad || (!a.padding[0] && !a.padding[1] && !a.padding[2] &&
                                                          !a.padding[3]));
  return te::compute(
      name, total->shape(),
      [&](const std::vector<ir::Var>& i) {
        Expr v = te::read(total, {i.begin(), i.end()});
        if (uniform) return v / ir::make_const(v.dtype(), static_cast<double>(a.kernel[0] * a.kernel[1]));
        Expr ny = window_count(i[2], s[2], a.padding[0], a.padding[2], a.kernel[0], a.stride[0], a.count_include_pad);
        Expr nx = window_count(i[3], s[3], a.padding[1], a.padding[3], a.kernel[1], a.stride[1], a.count_include_pad);
        return v / ir::make_cast(v.dtype(), ny * nx);
      },
      "elemwise", x->dtype());
}

te::Tensor global_avg_pool2d(const te::Tensor& x, const std::string& name) {
  check_layout(x, name);
  Pool2dAttrs a;
  a.kernel = {x->shape()[2], x->shape()[3]};
  a.stride = {1, 1};
  a.count_include_pad = true;
  return avg_pool2d(x, a, name);
}

te::Tensor global_max_pool2d(const te::Tensor& x, const std::string& name) {
  check_layout(x, name);
  Pool2dAttrs a;
  a.kernel = {x->shape()[2], x->shape()[3]};
  a.stride = {1, 1};
  return max_pool2d(x, a, name);
}

}  // namespace tunectl::ops
