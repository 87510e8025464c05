#include "ops/conv_nd.h"

#include "ir/error.h"
#include "ir/printer.h"
#include "ops/transform.h"

namespace tunectl::ops {

te::Tensor conv_nd(const te::Tensor& data, const te::Tensor& weight, const ConvNdAttrs& a, const std::string& name) {
  const auto& ds = data->shape();
  const auto& ws = weight->shape();
  user_check(ds.size() >= 3 && ws.size() == ds.size(), name, ": data ", ir::shape_to_string(ds), " and weight ",
             ir::shape_to_string(ws), " need one rank of at least 3 (N, C, spatial axes)");
  user_check(data->dtype() == weight->dtype(), name, ": data and weight types differ");
  const size_t k = ds.size() - 2;
  user_check(a.strides.size() == k && a.dilations.size() == k && a.pads.size() == 2 * k, name, ": ", k,
             " spatial axes need as many strides and dilations and ", 2 * k, " pads");
  const int64_t c = ds[1], out_channels = ws[0], cg = ws[1];
  user_check(a.groups >= 1 && c % a.groups == 0 && out_channels % a.groups == 0 && cg == c / a.groups, name,
             ": groups ", a.groups, " do not split input channels ", c, " and output channels ", out_channels,
             " with a weight of ", cg, " input channels");
  std::vector<int64_t> out{ds[0], out_channels}, begins(ds.size(), 0), ends(ds.size(), 0);
  bool padded = false;
  for (size_t d = 0; d < k; ++d) {
    user_check(a.strides[d] >= 1 && a.dilations[d] >= 1 && a.pads[d] >= 0 && a.pads[d + k] >= 0, name,
               ": strides and dilations must be positive, pads not negative");
    const int64_t span = a.dilations[d] * (ws[d + 2] - 1) + 1, extent = ds[d + 2] + a.pads[d] + a.pads[d + k];
    user_check(extent >= span, name, ": the dilated kernel (", span, ") is larger than the padded axis ", d + 2, " (",
               extent, ")");
    out.push_back((extent - span) / a.strides[d] + 1);
    begins[d + 2] = a.pads[d];
    ends[d + 2] = a.pads[d + k];
    padded = padded || a.pads[d] || a.pads[d + k];
  }
  const te::Tensor in = padded ? pad(data, begins, ends, 0.0, name + "_pad") : data;
  ir::IterVar rc = te::reduce_axis(cg, "rc");
  std::vector<ir::IterVar> axes{rc};
  for (size_t d = 0; d < k; ++d) axes.push_back(te::reduce_axis(ws[d + 2], "r" + std::to_string(d)));
  const int64_t per_group = out_channels / a.groups;
  return te::compute(
      name, out,
      [&](const std::vector<ir::Var>& i) {
        ir::Expr channel = a.groups == 1 ? ir::Expr(rc.var) : (i[1] / per_group) * cg + rc.var;
        std::vector<ir::Expr> at{i[0], channel}, w_at{i[1], rc.var};
        for (size_t d = 0; d < k; ++d) {
          at.push_back(i[d + 2] * a.strides[d] + axes[d + 1].var * a.dilations[d]);
          w_at.push_back(axes[d + 1].var);
        }
        return te::sum(te::read(in, at) * te::read(weight, w_at), axes);
      },
      "conv_nd", data->dtype());
}

}  // namespace tunectl::ops
