#include "ops/conv2d.h"

#include <array>

#include "ir/error.h"
#include "ops/transform.h"

namespace tunectl::ops {

using ir::Expr;

namespace {

// Output height and width of a convolution of an h x w image with an r x s
// kernel; UserError for attributes that make no convolution.
std::array<int64_t, 2> output_size(int64_t h, int64_t w, int64_t r, int64_t s, const Conv2dAttrs& a,
                                   const std::string& name) {
  for (int64_t v : a.stride) user_check(v >= 1, name, ": stride must be positive");
  for (int64_t v : a.dilation) user_check(v >= 1, name, ": dilation must be positive");
  for (int64_t v : a.padding) user_check(v >= 0, name, ": padding must be non-negative");
  int64_t ph = h + a.padding[0] + a.padding[2], pw = w + a.padding[1] + a.padding[3];
  int64_t eff_r = a.dilation[0] * (r - 1) + 1, eff_s = a.dilation[1] * (s - 1) + 1;
  user_check(ph >= eff_r && pw >= eff_s, name, ": kernel ", r, "x", s, " (dilated) is larger than the padded input ",
             ph, "x", pw);
  return {(ph - eff_r) / a.stride[0] + 1, (pw - eff_s) / a.stride[1] + 1};
}

// data padded on its two spatial axes (2 and 3, whatever the rank).
te::Tensor pad_spatial(const te::Tensor& data, const Conv2dAttrs& a, const std::string& name) {
  if (!a.padding[0] && !a.padding[1] && !a.padding[2] && !a.padding[3]) return data;
  std::vector<int64_t> begins(data->shape().size(), 0), ends(data->shape().size(), 0);
  begins[2] = a.padding[0];
  begins[3] = a.padding[1];
  ends[2] = a.padding[2];
  ends[3] = a.padding[3];
  return pad(data, begins, ends, 0.0, name + "_pad");
}

}  // namespace

te::Tensor conv2d_nchw(const te::Tensor& data, const te::Tensor& weight, const Conv2dAttrs& a,
                       const std::string& name) {
  user_check(data->shape().size() == 4 && weight->shape().size() == 4, name,
             ": data and weight must have rank 4 (NCHW, OIHW)");
  user_check(data->dtype() == weight->dtype(), name, ": data and weight types differ");
  int64_t n = data->shape()[0], c = data->shape()[1], h = data->shape()[2], w = data->shape()[3];
  int64_t k = weight->shape()[0], cg = weight->shape()[1], r = weight->shape()[2], s = weight->shape()[3];
  user_check(a.groups >= 1 && c % a.groups == 0 && k % a.groups == 0, name, ": groups ", a.groups,
             " must divide input channels ", c, " and output channels ", k);
  user_check(cg == c / a.groups, name, ": weight has ", cg, " input channels per group, expected ", c / a.groups);
  auto [oh, ow] = output_size(h, w, r, s, a, name);

  te::Tensor in = pad_spatial(data, a, name);
  int64_t k_per_group = k / a.groups;
  ir::IterVar rc = te::reduce_axis(cg, "rc");
  ir::IterVar ry = te::reduce_axis(r, "ry");
  ir::IterVar rx = te::reduce_axis(s, "rx");
  return te::compute(
      name, {n, k, oh, ow},
      [&](const std::vector<ir::Var>& i) {
        Expr channel = a.groups == 1 ? Expr(rc.var) : (i[1] / k_per_group) * cg + rc.var;
        Expr y = i[2] * a.stride[0] + ry.var * a.dilation[0];
        Expr x = i[3] * a.stride[1] + rx.var * a.dilation[1];
        return te::sum(te::read(in, {i[0], channel, y, x}) * te::read(weight, {i[1], rc.var, ry.var, rx.var}),
                       {rc, ry, rx});
      },
      "conv2d", data->dtype());
}

te::Tensor bias_add_nchw(const te::Tensor& x, const te::Tensor& bias, const std::string& name) {
  user_check(x->shape().size() == 4 && bias->shape().size() == 1 && bias->shape()[0] == x->shape()[1], name,
             ": bias must have one value per channel of an NCHW tensor");
  return te::compute(
      name, x->shape(), [&](const std::vector<ir::Var>& i) { return te::read(x, {i.begin(), i.end()}) + te::read(bias, {i[1]}); },
      "elemwise", x->dtype());
}

te::Tensor conv2d_nchwc(const te::Tensor& data, const te::Tensor& weight, const Conv2dAttrs& a,
                        const std::string& name) {
  user_check(data->shape().size() == 5 && weight->shape().size() == 6, name,
             ": channel-blocked data and weight must have rank 5 and 6");
  user_check(data->dtype() == weight->dtype(), name, ": data and weight types differ");
  const auto& ds = data->shape();
  const auto& ws = weight->shape();
  int64_t n = ds[0], c_blocks = ds[1], h = ds[2], w = ds[3], bi = ds[4];
  int64_t k_blocks = ws[0], r = ws[2], s = ws[3], bo = ws[5];
  bool depthwise = a.groups != 1;
  if (depthwise) {
    user_check(a.groups == c_blocks * bi && k_blocks == c_blocks && bo == bi && ws[1] == 1 && ws[4] == 1, name,
               ": a blocked grouped convolution must be depthwise, weight [C/b, 1, R, S, 1, b]");
  } else {
    user_check(ws[1] == c_blocks && ws[4] == bi, name, ": weight [", ws[0], ", ", ws[1], ", ", r, ", ", s, ", ", ws[4],
               ", ", bo, "] does not match data blocks [", c_blocks, ", ", bi, "]");
  }
  auto [oh, ow] = output_size(h, w, r, s, a, name);
  te::Tensor in = pad_spatial(data, a, name);
  ir::IterVar ry = te::reduce_axis(r, "ry");
  ir::IterVar rx = te::reduce_axis(s, "rx");
  if (depthwise) {
    return te::compute(
        name, {n, k_blocks, oh, ow, bo},
        [&](const std::vector<ir::Var>& i) {
          Expr y = i[2] * a.stride[0] + ry.var * a.dilation[0];
          Expr x = i[3] * a.stride[1] + rx.var * a.dilation[1];
          return te::sum(te::read(in, {i[0], i[1], y, x, i[4]}) * te::read(weight, {i[1], 0, ry.var, rx.var, 0, i[4]}),
                         {ry, rx});
        },
        "conv2d", data->dtype());
  }
  ir::IterVar rco = te::reduce_axis(c_blocks, "rco");
  ir::IterVar rci = te::reduce_axis(bi, "rci");
  return te::compute(
      name, {n, k_blocks, oh, ow, bo},
      [&](const std::vector<ir::Var>& i) {
        Expr y = i[2] * a.stride[0] + ry.var * a.dilation[0];
        Expr x = i[3] * a.stride[1] + rx.var * a.dilation[1];
        return te::sum(te::read(in, {i[0], rco.var, y, x, rci.var}) *
                           te::read(weight, {i[1], rco.var, ry.var, rx.var, rci.var, i[4]}),
                       {rco, ry, rx, rci});
      },
      "conv2d", data->dtype());
}

te::Tensor bias_add_nchwc(const te::Tensor& x, const te::Tensor& bias, const std::string& name) {
  const auto& s = x->shape();
  user_check(s.size() == 5 && bias->shape() == std::vector<int64_t>{s[1], s[4]}, name,
             ": bias must be [K/b, b] for a channel-blocked tensor");
  return te::compute(
      name, s, [&](const std::vector<ir::Var>& i) { return te::read(x, {i.begin(), i.end()}) + te::read(bias, {i[1], i[4]}); },
      "elemwise", x->dtype());
}

}  // namespace tunectl::ops
