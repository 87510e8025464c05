#include "ops/deform_conv.h"

#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::ops {

using ir::Expr;

te::Tensor deform_conv2d(const te::Tensor& data, const te::Tensor& weight, const te::Tensor& offset,
                         const te::Tensor& mask, const Conv2dAttrs& a, int64_t offset_groups,
                         const std::string& name) {
  const auto& ds = data->shape();
  const auto& ws = weight->shape();
  user_check(ds.size() == 4 && ws.size() == 4, name, ": data and weight must have rank 4 (NCHW, OIHW)");
  user_check(ir::is_float(data->dtype()) && weight->dtype() == data->dtype() && offset->dtype() == data->dtype(),
             name, ": data, weight and offset must have one float type");
  const int64_t n = ds[0], c = ds[1], h = ds[2], w = ds[3], k = ws[0], cg = ws[1], r = ws[2], s = ws[3];
  user_check(a.groups >= 1 && c % a.groups == 0 && k % a.groups == 0 && cg == c / a.groups, name, ": groups ",
             a.groups, " do not split input channels ", c, " and output channels ", k, " with a weight of ", cg,
             " input channels");
  user_check(offset_groups >= 1 && c % offset_groups == 0, name, ": offset groups ", offset_groups,
             " must divide input channels ", c);
  const int64_t oh = (h + a.padding[0] + a.padding[2] - a.dilation[0] * (r - 1) - 1) / a.stride[0] + 1;
  const int64_t ow = (w + a.padding[1] + a.padding[3] - a.dilation[1] * (s - 1) - 1) / a.stride[1] + 1;
  user_check(oh > 0 && ow > 0, name, ": the kernel does not fit the padded input");
  const std::vector<int64_t> offset_shape{n, offset_groups * r * s * 2, oh, ow};
  user_check(offset->shape() == offset_shape, name, ": offset must have shape ", ir::shape_to_string(offset_shape),
             ", it has ", ir::shape_to_string(offset->shape()));
  const std::vector<int64_t> mask_shape{n, offset_groups * r * s, oh, ow};
  user_check(!mask || (mask->shape() == mask_shape && mask->dtype() == data->dtype()), name, ": mask must have shape ",
             ir::shape_to_string(mask_shape), " and the data's type");
  const ir::DType t = data->dtype();
  const int64_t k_per_group = k / a.groups, c_per_offset_group = c / offset_groups;
  ir::IterVar rc = te::reduce_axis(cg, "rc"), ry = te::reduce_axis(r, "ry"), rx = te::reduce_axis(s, "rx");
  return te::compute(
      name, {n, k, oh, ow},
      [&](const std::vector<ir::Var>& i) {
        Expr channel = a.groups == 1 ? Expr(rc.var) : (i[1] / k_per_group) * cg + rc.var;
        Expr tap = ((channel / c_per_offset_group) * r + ry.var) * s + rx.var;
        auto position = [&](int axis, const ir::Var& out, const ir::Var& kernel) {
          Expr regular = out * a.stride[axis] - a.padding[axis] + kernel * a.dilation[axis];
          return ir::make_cast(t, regular) + te::read(offset, {i[0], tap * 2 + axis, i[2], i[3]});
        };
        Expr y = position(0, i[2], ry.var), x = position(1, i[3], rx.var);
        Expr y0 = ir::make_call(ir::MathFunc::floor, {y}), x0 = ir::make_call(ir::MathFunc::floor, {x});
        Expr fy = y - y0, fx = x - x0;
        Expr iy = ir::make_cast(ir::kIndexType, y0), ix = ir::make_cast(ir::kIndexType, x0);
        // The four corners, each 0 outside the image (read at a clamped index).
        auto corner = [&](int dy, int dx, Expr weight) {
          Expr cy = iy + dy, cx = ix + dx;
          Expr inside = ir::make_and(ir::make_and(cy >= ir::make_int(0), cy < ir::make_int(h)),
                                     ir::make_and(cx >= ir::make_int(0), cx < ir::make_int(w)));
          Expr at_y = ir::make_min(ir::make_max(cy, ir::make_int(0)), ir::make_int(h - 1));
          Expr at_x = ir::make_min(ir::make_max(cx, ir::make_int(0)), ir::make_int(w - 1));
          return ir::make_select(inside, weight * te::read(data, {i[0], channel, at_y, at_x}), ir::make_const(t, 0));
        };
        Expr one = ir::make_const(t, 1);
        Expr sample = corner(0, 0, (one - fy) * (one - fx)) + corner(0, 1, (one - fy) * fx) +
                      corner(1, 0, fy * (one - fx)) + corner(1, 1, fy * fx);
        if (mask) sample = sample * te::read(mask, {i[0], tap, i[2], i[3]});
        return te::sum(te::read(weight, {i[1], rc.var, ry.var, rx.var}) * sample, {rc, ry, rx});
      },
      "deform_conv2d", t);
}

}  // namespace tunectl::ops
