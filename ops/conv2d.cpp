#include "ops/conv2d.h"

#include "ir/error.h"
#include "ops/transform.h"

namespace tunectl::ops {

using ir::Expr;

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
  for (int64_t v : a.stride) user_check(v >= 1, name, ": stride must be positive");
  for (int64_t v : a.dilation) user_check(v >= 1, name, ": dilation must be positive");
  for (int64_t v : a.padding) user_check(v >= 0, name, ": padding must be non-negative");
  int64_t ph = h + a.padding[0] + a.padding[2], pw = w + a.padding[1] + a.padding[3];
  int64_t eff_r = a.dilation[0] * (r - 1) + 1, eff_s = a.dilation[1] * (s - 1) + 1;
  user_check(ph >= eff_r && pw >= eff_s, name, ": kernel ", r, "x", s, " (dilated) is larger than the padded input ",
             ph, "x", pw);
  int64_t oh = (ph - eff_r) / a.stride[0] + 1, ow = (pw - eff_s) / a.stride[1] + 1;

  te::Tensor in = data;
  bool padded = a.padding[0] || a.padding[1] || a.padding[2] || a.padding[3];
  if (padded) in = pad(data, {0, 0, a.padding[0], a.padding[1]}, {0, 0, a.padding[2], a.padding[3]}, 0.0,
                       name + "_pad");
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

}  // namespace tunectl::ops
