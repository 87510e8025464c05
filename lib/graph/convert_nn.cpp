// Converters of the ONNX anchor operators: convolution (and its transpose),
// Gemm/MatMul, pooling, normalisations, softmax and reductions. Pooling
// takes any number of spatial axes; convolution 1 or 2 (1-D as 2-D of unit
// height).
#include <array>

#include "graph/convert_util.h"
#include "ir/printer.h"
#include "ops/col2im.h"
#include "ops/conv2d.h"
#include "ops/conv2d_winograd.h"
#include "ops/conv_nd.h"
#include "ops/deform_conv.h"
#include "ops/dft.h"
#include "ops/einsum.h"
#include "ops/op_util.h"
#include "ops/elemwise.h"
#include "ops/index.h"
#include "ops/matmul.h"
#include "ops/normalization.h"
#include "ops/pool.h"
#include "ops/reduce.h"
#include "ops/transform.h"

namespace tunectl::graph {

namespace {

using ir::Expr;
using Pair = std::array<int64_t, 2>;

Pair attr_pair(const NodeContext& c, const std::string& name, int64_t fallback) {
  std::vector<int64_t> v = c.attr_ints(name, {fallback, fallback});
  c.check(v.size() == 2, "attribute '", name, "' needs 2 values for a 2-D operator, it has ", v.size());
  return {v[0], v[1]};
}

// The internal ops of the channel-blocked layout (graph::block_channels).
bool channel_blocked(const NodeContext& c) {
  const std::string& op = c.node.op_type;
  return op.size() > 5 && op.compare(op.size() - 5, 5, "NCHWc") == 0;
}

void check_2d(const NodeContext& c, const te::Tensor& x) {
  if (channel_blocked(c)) {
    c.check(x->shape().size() == 5, "channel-blocked input must have rank 5, it has ", x->shape().size());
    return;
  }
  c.check(x->shape().size() == 4, "only 2-D operators (4-D NCHW input) are supported, input has rank ",
          x->shape().size());
}

// Attribute `name` with one value per spatial axis (`k` of them), or all `fallback`.
std::vector<int64_t> attr_per_axis(const NodeContext& c, const std::string& name, size_t k, int64_t fallback) {
  std::vector<int64_t> v = c.attr_ints(name, std::vector<int64_t>(k, fallback));
  c.check(v.size() == k, "attribute '", name, "' needs ", k, " values for a ", k, "-D operator, it has ", v.size());
  return v;
}

// Padding before and after each spatial axis from pads or auto_pad, for
// input extents in, effective (dilated) kernel extents and strides.
struct Pads {
  std::vector<int64_t> begin, end;
};

Pads resolve_pads_nd(const NodeContext& c, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                     const std::vector<int64_t>& stride) {
  const size_t k = in.size();
  const std::string mode = c.attr_string("auto_pad", "NOTSET");
  if (mode == "NOTSET") {
    std::vector<int64_t> p = attr_per_axis(c, "pads", 2 * k, 0);
    return {{p.begin(), p.begin() + static_cast<int64_t>(k)}, {p.begin() + static_cast<int64_t>(k), p.end()}};
  }
  if (mode == "VALID") return {std::vector<int64_t>(k, 0), std::vector<int64_t>(k, 0)};
  c.check(mode == "SAME_UPPER" || mode == "SAME_LOWER", "attribute 'auto_pad' = '", mode, "' is not supported");
  Pads p{std::vector<int64_t>(k), std::vector<int64_t>(k)};
  for (size_t d = 0; d < k; ++d) {
    int64_t out = (in[d] + stride[d] - 1) / stride[d];
    int64_t total = std::max<int64_t>(0, (out - 1) * stride[d] + kernel[d] - in[d]);
    int64_t small = total / 2, large = total - small;
    p.begin[d] = mode == "SAME_UPPER" ? small : large;
    p.end[d] = mode == "SAME_UPPER" ? large : small;
  }
  return p;
}

// The 2-D form: [top, left, bottom, right].
std::array<int64_t, 4> resolve_pads(const NodeContext& c, Pair in, Pair kernel, Pair stride) {
  Pads p = resolve_pads_nd(c, {in[0], in[1]}, {kernel[0], kernel[1]}, {stride[0], stride[1]});
  return {p.begin[0], p.begin[1], p.end[0], p.end[1]};
}

std::vector<te::Tensor> convert_conv(const NodeContext& c);
std::vector<te::Tensor> convert_conv_transpose(const NodeContext& c);

// A 1-D Conv or ConvTranspose ([N, C, L]) as the 2-D one of unit height: the
// node with its spatial attributes widened by a leading height entry, input
// and weight reshaped to [.., 1, L], the output reshaped back.
std::vector<te::Tensor> convert_as_2d(const NodeContext& c, std::vector<te::Tensor> (*convert)(const NodeContext&)) {
  c.check(c.in(1)->shape().size() == 3, "a 1-D operator needs a weight of rank 3, it has ", c.in(1)->shape().size());
  Node node = c.node;
  for (const char* name : {"kernel_shape", "strides", "dilations", "output_padding", "output_shape"}) {
    if (!c.has_attr(name)) continue;
    std::vector<int64_t> v = c.attr_ints(name, {});
    c.check(v.size() == 1, "attribute '", name, "' needs 1 value for a 1-D operator, it has ", v.size());
    const bool size = std::string(name) == "kernel_shape" || std::string(name) == "output_shape" ||
                      std::string(name) == "strides" || std::string(name) == "dilations";
    node.attrs.values[name] = std::vector<int64_t>{size ? 1 : 0, v[0]};
  }
  if (c.has_attr("pads")) {
    std::vector<int64_t> p = c.attr_ints("pads", {});
    c.check(p.size() == 2, "attribute 'pads' needs 2 values for a 1-D operator, it has ", p.size());
    node.attrs.values["pads"] = std::vector<int64_t>{0, p[0], 0, p[1]};
  }
  node.outputs = {c.out_name() + "_2d"};
  auto with_height = [&](const te::Tensor& t, const std::string& suffix) {
    const auto& s = t->shape();
    return ops::reshape(t, {s[0], s[1], 1, s[2]}, c.out_name() + suffix);
  };
  std::vector<te::Tensor> ins{with_height(c.in(0), "_x2d"), with_height(c.in(1), "_w2d")};
  if (c.has(2)) ins.push_back(c.in(2));
  const te::Tensor y = convert(NodeContext(node, ins, c.graph)).at(0);
  return {ops::reshape(y, {y->shape()[0], y->shape()[1], y->shape()[3]}, c.out_name())};
}

// out [N, K, D1..Dk] plus bias [K] along the channel axis, named the node's output.
te::Tensor bias_along_channels(const NodeContext& c, const te::Tensor& out, const te::Tensor& bias) {
  std::vector<int64_t> channels(out->shape().size() - 1, 1);
  channels[0] = out->shape()[1];
  return ops::add(out, ops::reshape(bias, channels, c.out_name() + "_bias"), c.out_name());
}

// A Conv of 3 or more spatial axes (volumetric): ops::conv_nd, the bias
// broadcast along the channel axis.
std::vector<te::Tensor> convert_conv_nd(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const te::Tensor& w = c.in(1);
  const size_t k = x->shape().size() - 2;
  c.check(w->shape().size() == k + 2, "a ", k, "-D convolution needs a weight of rank ", k + 2, ", it has ",
          w->shape().size());
  ops::ConvNdAttrs a;
  a.strides = attr_per_axis(c, "strides", k, 1);
  a.dilations = attr_per_axis(c, "dilations", k, 1);
  a.groups = c.attr_int("group", 1);
  std::vector<int64_t> in, span;
  for (size_t d = 0; d < k; ++d) {
    in.push_back(x->shape()[d + 2]);
    span.push_back(a.dilations[d] * (w->shape()[d + 2] - 1) + 1);
  }
  if (c.has_attr("kernel_shape"))
    c.check(c.attr_ints("kernel_shape", {}) == std::vector<int64_t>(w->shape().begin() + 2, w->shape().end()),
            "attribute 'kernel_shape' disagrees with the weight's shape");
  const Pads p = resolve_pads_nd(c, in, span, a.strides);
  a.pads = p.begin;
  a.pads.insert(a.pads.end(), p.end.begin(), p.end.end());
  const te::Tensor b = c.opt(2);
  const te::Tensor out = ops::conv_nd(x, w, a, b ? c.out_name() + "_conv" : c.out_name());
  return {b ? bias_along_channels(c, out, b) : out};
}

// Conv, and ConvNCHWc (weight [K/b, C/bi, R, S, bi, b], bias [K/b, b]).
std::vector<te::Tensor> convert_conv(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const te::Tensor& w = c.in(1);
  if (x->shape().size() == 3 && !channel_blocked(c)) return convert_as_2d(c, convert_conv);
  if (x->shape().size() >= 5 && !channel_blocked(c)) return convert_conv_nd(c);
  check_2d(c, x);
  bool blocked = channel_blocked(c);
  ops::Conv2dAttrs a;
  Pair st = attr_pair(c, "strides", 1), dl = attr_pair(c, "dilations", 1);
  a.stride = st;
  a.dilation = dl;
  a.groups = c.attr_int("group", 1);
  Pair k{w->shape()[2], w->shape()[3]};
  if (c.has_attr("kernel_shape"))
    c.check(c.attr_ints("kernel_shape", {}) == std::vector<int64_t>{k[0], k[1]},
            "attribute 'kernel_shape' disagrees with the weight's shape");
  a.padding = resolve_pads(c, {x->shape()[2], x->shape()[3]}, {dl[0] * (k[0] - 1) + 1, dl[1] * (k[1] - 1) + 1}, st);
  te::Tensor b = c.opt(2);
  std::string conv_name = b ? c.out_name() + "_conv" : c.out_name();
  te::Tensor out = blocked ? ops::conv2d_nchwc(x, w, a, conv_name) : ops::conv2d_nchw(x, w, a, conv_name);
  if (b) out = blocked ? ops::bias_add_nchwc(out, b, c.out_name()) : ops::bias_add_nchw(out, b, c.out_name());
  return {out};
}

// ConvWinogradNCHWc (graph::block_channels): inputs X [N, C/b, H, W, b],
// the transformed weight [alpha, alpha, K/b, C/b, b, b] and the bias [K/b, b]
// or none; Conv's attributes (stride 1, equal pads: the pass checked).
std::vector<te::Tensor> convert_conv_winograd(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  check_2d(c, x);
  const std::vector<int64_t> pads = c.attr_ints("pads", {0, 0, 0, 0});
  c.check(pads.size() == 4 && pads[0] == pads[1] && pads[0] == pads[2] && pads[0] == pads[3],
          "Winograd needs equal pads on every side");
  te::Tensor b = c.opt(2);
  const std::string conv_name = b ? c.out_name() + "_conv" : c.out_name();
  te::Tensor out = ops::conv2d_winograd_nchwc(x, c.in(1), pads[0], conv_name);
  if (b) out = ops::bias_add_nchwc(out, b, c.out_name());
  return {out};
}

// DeformConv (opset 19, 2-D): Conv's attributes plus offset_group; inputs X,
// W, offset, then the optional bias and mask.
std::vector<te::Tensor> convert_deform_conv(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const te::Tensor& w = c.in(1);
  check_2d(c, x);
  c.check(w->shape().size() == 4, "the weight must have rank 4, it has ", w->shape().size());
  ops::Conv2dAttrs a;
  const Pair st = attr_pair(c, "strides", 1), dl = attr_pair(c, "dilations", 1);
  a.stride = st;
  a.dilation = dl;
  a.groups = c.attr_int("group", 1);
  const Pair k{w->shape()[2], w->shape()[3]};
  if (c.has_attr("kernel_shape"))
    c.check(c.attr_ints("kernel_shape", {}) == std::vector<int64_t>{k[0], k[1]},
            "attribute 'kernel_shape' disagrees with the weight's shape");
  a.padding = resolve_pads(c, {x->shape()[2], x->shape()[3]}, {dl[0] * (k[0] - 1) + 1, dl[1] * (k[1] - 1) + 1}, st);
  const te::Tensor b = c.opt(3);
  te::Tensor out = ops::deform_conv2d(x, w, c.in(2), c.opt(4), a, c.attr_int("offset_group", 1),
                                      b ? c.out_name() + "_conv" : c.out_name());
  if (b) out = ops::bias_add_nchw(out, b, c.out_name());
  return {out};
}

// Transposed convolution as a convolution of the stride-dilated, padded input
// with the flipped, channel-transposed weight.
std::vector<te::Tensor> convert_conv_transpose(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const te::Tensor& w = c.in(1);
  if (x->shape().size() == 3) return convert_as_2d(c, convert_conv_transpose);
  if (x->shape().size() < 5) check_2d(c, x);
  const size_t k = x->shape().size() - 2;
  c.check(w->shape().size() == k + 2, "weight must have rank ", k + 2);
  int64_t groups = c.attr_int("group", 1);
  const std::vector<int64_t> st = attr_per_axis(c, "strides", k, 1), dl = attr_per_axis(c, "dilations", k, 1),
                             op = attr_per_axis(c, "output_padding", k, 0);
  int64_t n = x->shape()[0], ci = x->shape()[1];
  c.check(w->shape()[0] == ci && ci % groups == 0, "weight has ", w->shape()[0], " input channels for ", ci,
          " in ", groups, " groups");
  int64_t kg = w->shape()[1], out_channels = kg * groups, cg = ci / groups;
  std::vector<int64_t> in(k), ker(k), eff(k);
  for (size_t d = 0; d < k; ++d) {
    in[d] = x->shape()[d + 2];
    ker[d] = w->shape()[d + 2];
    eff[d] = dl[d] * (ker[d] - 1) + 1;
  }
  std::vector<int64_t> pads(2 * k, 0);  // k begins, then k ends
  std::string mode = c.attr_string("auto_pad", "NOTSET");
  if (c.has_attr("output_shape") || mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    std::vector<int64_t> os(k);
    for (size_t d = 0; d < k; ++d) os[d] = in[d] * st[d];
    os = c.attr_ints("output_shape", os);
    if (os.size() == k + 2) os.erase(os.begin(), os.begin() + 2);
    c.check(os.size() == k, "attribute 'output_shape' needs ", k, " spatial values");
    for (size_t d = 0; d < k; ++d) {
      // As the ONNX spec: floor halves (a negative total extends the end),
      // the larger half at the end only for SAME_UPPER.
      int64_t total = st[d] * (in[d] - 1) + op[d] + eff[d] - os[d];
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      pads[d] = mode == "SAME_UPPER" ? half : total - half;
      pads[d + k] = mode == "SAME_UPPER" ? total - half : half;
    }
  } else if (mode == "NOTSET") {
    pads = c.attr_ints("pads", pads);
    c.check(pads.size() == 2 * k, "attribute 'pads' needs ", 2 * k, " values for a ", k, "-D operator, it has ",
            pads.size());
  } else {
    c.check(mode == "VALID", "attribute 'auto_pad' = '", mode, "' is not supported");
  }
  // Padding of the dilated input: the full transposed convolution trimmed by pads.
  std::vector<int64_t> up(2 * k), size{n, ci};
  for (size_t d = 0; d < k; ++d) {
    up[d] = eff[d] - 1 - pads[d];
    up[d + k] = eff[d] - 1 - pads[d + k] + op[d];
    c.check(up[d] >= 0 && up[d + k] >= 0, "padding larger than the dilated kernel extent is not supported");
    size.push_back((in[d] - 1) * st[d] + 1 + up[d] + up[d + k]);
  }
  te::Tensor dilated = te::compute(
      c.out_name() + "_dilate", size,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> at{i[0], i[1]};
        Expr ok;
        for (size_t d = 0; d < k; ++d) {
          Expr y = i[d + 2] - up[d];
          Expr inside = ir::make_and(y >= 0, y < (in[d] - 1) * st[d] + 1);
          ok = ok ? ir::make_and(ok, inside) : inside;
          at.push_back(st[d] > 1 ? y / st[d] : y);
        }
        for (size_t d = 0; d < k; ++d)
          if (st[d] > 1) ok = ir::make_and(ok, ir::make_eq((i[d + 2] - up[d]) % st[d], Expr(0)));
        return ir::make_select(ok, te::read(x, at), ir::make_zero(x->dtype()));
      },
      "injective", x->dtype());
  std::vector<int64_t> flipped_shape{out_channels, cg};
  flipped_shape.insert(flipped_shape.end(), ker.begin(), ker.end());
  te::Tensor flipped = te::compute(
      c.out_name() + "_weight", flipped_shape,
      [&](const std::vector<ir::Var>& i) {
        Expr g = i[0] / kg;
        std::vector<Expr> at{g * cg + i[1], i[0] % kg};
        for (size_t d = 0; d < k; ++d) at.push_back(Expr(ker[d] - 1) - i[d + 2]);
        return te::read(w, at);
      },
      "injective", w->dtype());
  te::Tensor b = c.opt(2);
  const std::string conv_name = b ? c.out_name() + "_conv" : c.out_name();
  if (k == 2) {
    ops::Conv2dAttrs a;
    a.dilation = {dl[0], dl[1]};
    a.groups = groups;
    te::Tensor out = ops::conv2d_nchw(dilated, flipped, a, conv_name);
    if (b) out = ops::bias_add_nchw(out, b, c.out_name());
    return {out};
  }
  const te::Tensor out =
      ops::conv_nd(dilated, flipped, {std::vector<int64_t>(k, 1), dl, std::vector<int64_t>(2 * k, 0), groups}, conv_name);
  return {b ? bias_along_channels(c, out, b) : out};
}

std::vector<te::Tensor> convert_gemm(const NodeContext& c) {
  bool trans_a = c.attr_int("transA", 0) != 0, trans_b = c.attr_int("transB", 0) != 0;
  if (c.opset() < 7 && c.has(2) && c.attr_int("broadcast", 0) == 0) {
    // Before opset 7, C broadcasts only with broadcast = 1; else it is M x N.
    const auto &a = c.in(0)->shape(), &b = c.in(1)->shape();
    c.check(a.size() == 2 && b.size() == 2, "A and B must be matrices");
    std::vector<int64_t> mn{a[trans_a ? 1 : 0], b[trans_b ? 0 : 1]};
    c.check(c.shape(2) == mn, "C must have shape ", mn[0], "x", mn[1],
            " when attribute 'broadcast' is not 1 (opset ", c.opset(), ")");
  }
  return {ops::gemm(c.in(0), c.in(1), c.opt(2), c.attr_float("alpha", 1.0), c.attr_float("beta", 1.0), trans_a,
                    trans_b, c.out_name())};
}

// numpy matmul: 1-D operands gain a unit dimension that the result drops.
std::vector<te::Tensor> convert_matmul(const NodeContext& c) {
  te::Tensor a = c.in(0), b = c.in(1);
  std::vector<int64_t> sa = c.shape(0), sb = c.shape(1);
  c.check(!sa.empty() && !sb.empty(), "operands must not be scalars");
  bool vec_a = sa.size() == 1, vec_b = sb.size() == 1;
  if (vec_a) a = ops::reshape(a, {1, sa[0]}, c.out_name() + "_a");
  if (vec_b) b = ops::reshape(b, {sb[0], 1}, c.out_name() + "_b");
  bool plain = a->shape().size() == 2 && b->shape().size() == 2;
  std::string name = vec_a || vec_b ? c.out_name() + "_mm" : c.out_name();
  te::Tensor out = plain ? ops::matmul(a, b, false, false, name) : ops::batch_matmul(a, b, false, name);
  if (!vec_a && !vec_b) return {out};
  std::vector<int64_t> shape = out->shape();
  size_t m_axis = shape.size() - 2;
  if (vec_b) shape.pop_back();
  if (vec_a) shape.erase(shape.begin() + static_cast<int64_t>(m_axis));
  return {ops::reshape(out, te_shape(shape), c.out_name())};
}

// MaxPool and AveragePool over any number of spatial axes (the kernel's),
// or channel-blocked 2-D.
ops::PoolAttrs pool_attrs(const NodeContext& c, const te::Tensor& x) {
  if (channel_blocked(c)) check_2d(c, x);
  c.check(c.has_attr("kernel_shape"), "attribute 'kernel_shape' is missing");
  ops::PoolAttrs a;
  a.kernel = c.attr_ints("kernel_shape", {});
  const size_t k = a.kernel.size();
  c.check(k >= 1 && (channel_blocked(c) || x->shape().size() == k + 2), "attribute 'kernel_shape' has ", k,
          " values for an input of rank ", x->shape().size());
  a.stride = attr_per_axis(c, "strides", k, 1);
  a.dilation = attr_per_axis(c, "dilations", k, 1);
  a.ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  std::vector<int64_t> in(x->shape().begin() + 2, x->shape().begin() + 2 + static_cast<int64_t>(k)), extent(k);
  for (size_t d = 0; d < k; ++d) extent[d] = (a.kernel[d] - 1) * a.dilation[d] + 1;
  Pads p = resolve_pads_nd(c, in, extent, a.stride);
  a.pad_begin = p.begin;
  a.pad_end = p.end;
  return a;
}

std::vector<te::Tensor> convert_max_pool(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  ops::PoolAttrs a = pool_attrs(c, x);
  std::vector<te::Tensor> outs{ops::max_pool(x, a, c.out_name())};
  const bool indices = c.node.outputs.size() > 1 && !c.node.outputs[1].empty();
  if (indices) {
    c.check(!channel_blocked(c), "the indices output needs the NCHW layout");
    outs.push_back(ops::max_pool_indices(x, a, c.attr_int("storage_order", 0) != 0, c.out_name(1)));
  }
  return outs;
}

std::vector<te::Tensor> convert_avg_pool(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  ops::PoolAttrs a = pool_attrs(c, x);
  a.count_include_pad = c.attr_int("count_include_pad", 0) != 0;
  return {ops::avg_pool(x, a, c.out_name())};
}

std::vector<te::Tensor> convert_lp_pool(const NodeContext& c) {
  return {ops::lp_pool(c.in(0), pool_attrs(c, c.in(0)), c.attr_int("p", 2), c.out_name())};
}

std::vector<int64_t> spatial_axes(const te::Tensor& x) {
  std::vector<int64_t> axes;
  for (size_t d = 2; d < x->shape().size(); ++d) axes.push_back(static_cast<int64_t>(d));
  return axes;
}

std::vector<te::Tensor> convert_global_avg_pool(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  if (channel_blocked(c)) check_2d(c, x);
  c.check(x->shape().size() >= 3, "input needs rank at least 3 (N, C, spatial...)");
  if (x->shape().size() == 4 || channel_blocked(c)) return {ops::global_avg_pool2d(x, c.out_name())};
  return {ops::reduce_mean(x, spatial_axes(x), true, c.out_name())};
}

std::vector<te::Tensor> convert_global_max_pool(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  if (channel_blocked(c)) check_2d(c, x);
  c.check(x->shape().size() >= 3, "input needs rank at least 3 (N, C, spatial...)");
  if (x->shape().size() == 4 || channel_blocked(c)) return {ops::global_max_pool2d(x, c.out_name())};
  return {ops::reduce_max(x, spatial_axes(x), true, c.out_name())};
}

using SoftmaxFn = te::Tensor (*)(const te::Tensor&, int64_t, const std::string&);

// Softmax, LogSoftmax and Hardmax: over one axis from opset 13; before, over
// x as a 2-D matrix split at axis, row by row.
Converter softmax_like(SoftmaxFn f) {
  return [f](const NodeContext& c) {
    const te::Tensor& x = c.in(0);
    const auto& s = x->shape();
    if (c.opset() >= 13) return std::vector<te::Tensor>{f(x, c.attr_int("axis", -1), c.out_name())};
    int64_t rank = static_cast<int64_t>(s.size());
    int64_t axis = c.attr_int("axis", 1);
    c.check(axis >= -rank && axis <= rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank);
    if (axis < 0) axis += rank;
    if (axis == rank - 1) return std::vector<te::Tensor>{f(x, -1, c.out_name())};
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= s[d];
    te::Tensor flat = ops::reshape(x, {outer, inner}, c.out_name() + "_2d");
    te::Tensor rows = f(flat, 1, c.out_name() + "_rows");
    return std::vector<te::Tensor>{ops::reshape(rows, s, c.out_name())};
  };
}

std::vector<te::Tensor> convert_layer_norm(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const auto& s = x->shape();
  int64_t axis = c.attr_int("axis", -1);
  double eps = c.attr_float("epsilon", 1e-5);
  c.check(c.attr_int("stash_type", 1) == 1, "attribute 'stash_type' other than 1 (float) is not supported");
  int64_t rank = static_cast<int64_t>(s.size());
  c.check(axis >= -rank && axis < rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  std::vector<int64_t> inner(s.begin() + axis, s.end());
  // Scale and bias may broadcast to the normalised shape.
  auto param = [&](size_t i, const std::string& suffix) -> te::Tensor {
    te::Tensor p = c.opt(i);
    if (!p || p->shape() == inner) return p;
    return ops::broadcast_to(p, inner, c.out_name() + suffix);
  };
  std::vector<te::Tensor> outs{ops::layer_norm(x, param(1, "_scale"), param(2, "_bias"), axis, eps, c.out_name())};
  auto wanted = [&](size_t k) { return k < c.node.outputs.size() && !c.node.outputs[k].empty(); };
  if (!wanted(1) && !wanted(2)) return outs;
  // The optional statistics outputs (keepdims shape), computed on their own.
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d) axes.push_back(d);
  te::Tensor mean = ops::reduce_mean(x, axes, true, c.out_name(1));
  te::Tensor centered = ops::sub(x, mean, c.out_name(2) + "_centered");
  te::Tensor var = ops::reduce_mean(ops::mul(centered, centered, c.out_name(2) + "_sq"), axes, true,
                                    c.out_name(2) + "_var");
  te::Tensor inv = te::compute(
      c.out_name(2), var->shape(),
      [&](const std::vector<ir::Var>& i) {
        Expr v = te::read(var, {i.begin(), i.end()}) + ir::make_const(var->dtype(), eps);
        return ir::make_const(var->dtype(), 1) / ir::make_call(ir::MathFunc::sqrt, {v});
      },
      "elemwise", var->dtype());
  outs.push_back(mean);
  outs.push_back(inv);
  return outs;
}

using ReduceFn = te::Tensor (*)(const te::Tensor&, const std::vector<int64_t>&, bool, const std::string&);

// Reductions: axes are an attribute until the opset where they become an
// input (13 for ReduceSum, 18 for the others).
Converter reduction(ReduceFn f, int64_t axes_input_opset) {
  return [f, axes_input_opset](const NodeContext& c) {
    const te::Tensor& x = c.in(0);
    bool keepdims = c.attr_int("keepdims", 1) != 0;
    std::vector<int64_t> axes;
    bool noop = false;
    if (c.opset() >= axes_input_opset) {
      if (c.has(1) || (c.node.inputs.size() > 1 && !c.node.inputs[1].empty()))
        axes = c.const_ints(1, "the reduced axes");
      noop = c.attr_int("noop_with_empty_axes", 0) != 0;
    } else {
      axes = c.attr_ints("axes", {});
    }
    if (axes.empty() && noop) return std::vector<te::Tensor>{ops::copy(x, c.out_name())};
    int64_t rank = static_cast<int64_t>(c.shape(0).size());
    c.check(rank > 0 || axes.empty(), "cannot reduce axes of a scalar");
    if (rank == 0) return std::vector<te::Tensor>{ops::copy(x, c.out_name())};
    return std::vector<te::Tensor>{f(x, axes, keepdims, c.out_name())};
  };
}

// ArgMax and ArgMin: one axis, an attribute at every opset.
Converter arg_extreme(bool max) {
  return [max](const NodeContext& c) {
    const int64_t rank = static_cast<int64_t>(c.shape(0).size());
    const int64_t axis = c.attr_int("axis", 0);
    c.check(axis >= -rank && axis < rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank);
    return std::vector<te::Tensor>{ops::arg_extreme(c.in(0), axis, c.attr_int("keepdims", 1) != 0, max,
                                                    c.attr_int("select_last_index", 0) != 0, c.out_name())};
  };
}

// InstanceNormalization: each (n, c) plane normalized over its spatial
// axes (layer normalization from axis 2), then scaled and shifted per channel.
std::vector<te::Tensor> convert_instance_norm(const NodeContext& c) {
  const std::vector<int64_t> s = c.shape(0);
  c.check(s.size() >= 3, "needs an input of rank 3 or more (N, C, spatial...), has rank ", s.size());
  c.check(c.shape(1) == std::vector<int64_t>{s[1]} && c.shape(2) == std::vector<int64_t>{s[1]},
          "scale and B must have one value per channel (", s[1], ")");
  te::Tensor normalized =
      ops::layer_norm(c.in(0), nullptr, nullptr, 2, c.attr_float("epsilon", 1e-5), c.out_name() + "_normalized");
  std::vector<int64_t> per_channel(s.size() - 1, 1);
  per_channel[0] = s[1];
  te::Tensor scale = ops::reshape(c.in(1), per_channel, c.out_name() + "_scale");
  te::Tensor bias = ops::reshape(c.in(2), per_channel, c.out_name() + "_bias");
  return {ops::add(ops::mul(normalized, scale, c.out_name() + "_scaled"), bias, c.out_name())};
}

// GroupNormalization: the channels of each sample in num_groups groups,
// each group normalized over its channels and spatial axes (layer
// normalization of [N, G, C/G * spatial]), then scaled and shifted per
// channel (opset 21) or per group (opset 18, whose scale and bias have one
// value per group).
std::vector<te::Tensor> convert_group_norm(const NodeContext& c) {
  const std::vector<int64_t> s = c.shape(0);
  c.check(s.size() >= 2, "needs an input of rank 2 or more (N, C, ...), has rank ", s.size());
  c.check(c.has_attr("num_groups"), "attribute 'num_groups' is missing");
  const int64_t groups = c.attr_int("num_groups", 1), channels = s[1];
  c.check(groups >= 1 && channels % groups == 0, "attribute 'num_groups' = ", groups, " does not divide ", channels,
          " channels");
  const int64_t per_value = c.opset() >= 21 ? channels : groups;
  c.check(c.shape(1) == std::vector<int64_t>{per_value} && c.shape(2) == std::vector<int64_t>{per_value},
          "scale and bias must have ", per_value, " values (opset ", c.opset(), ")");
  const te::Tensor grouped = ops::reshape(c.in(0), {s[0], groups, ops::product(s) / (s[0] * groups)},
                                          c.out_name() + "_grouped");
  te::Tensor normalized = ops::reshape(
      ops::layer_norm(grouped, nullptr, nullptr, 2, c.attr_float("epsilon", 1e-5), c.out_name() + "_normalized"), s,
      c.out_name() + "_ungrouped");
  std::vector<int64_t> per_channel(s.size() - 1, 1);
  per_channel[0] = channels;
  // Channel c of group c / (C / G) takes the group's value (opset 18).
  auto channel_values = [&](const te::Tensor& v, const std::string& suffix) {
    const te::Tensor wide = per_value == channels ? v
                                                  : te::compute(
                                                        c.out_name() + suffix + "_channels", {channels},
                                                        [&](const std::vector<ir::Var>& i) {
                                                          return te::read(v, {Expr(i[0]) / (channels / groups)});
                                                        },
                                                        "injective", v->dtype());
    return ops::reshape(wide, per_channel, c.out_name() + suffix);
  };
  return {ops::add(ops::mul(normalized, channel_values(c.in(1), "_scale"), c.out_name() + "_scaled"),
                   channel_values(c.in(2), "_bias"), c.out_name())};
}

// LpNormalization: x divided by its L1 or L2 norm along axis.
std::vector<te::Tensor> convert_lp_norm(const NodeContext& c) {
  const int64_t p = c.attr_int("p", 2), axis = c.attr_int("axis", -1);
  const int64_t rank = static_cast<int64_t>(c.shape(0).size());
  c.check(p == 1 || p == 2, "attribute 'p' = ", p, " is not supported (1 or 2)");
  c.check(axis >= -rank && axis < rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank);
  te::Tensor norm = p == 1 ? ops::reduce_l1(c.in(0), {axis}, true, c.out_name() + "_norm")
                           : ops::reduce_l2(c.in(0), {axis}, true, c.out_name() + "_norm");
  return {ops::div(c.in(0), norm, c.out_name())};
}

// MaxUnpool: kernel_shape, strides and pads as MaxPool's; the output shape
// from input 2 (a constant), else (in - 1) * stride + kernel - pads.
std::vector<te::Tensor> convert_max_unpool(const NodeContext& c) {
  c.check(c.has_attr("kernel_shape"), "attribute 'kernel_shape' is missing");
  const std::vector<int64_t> kernel = c.attr_ints("kernel_shape", {}), xs = c.shape(0);
  const size_t k = kernel.size();
  c.check(k >= 1 && xs.size() == k + 2, "attribute 'kernel_shape' has ", k, " values for an input of rank ", xs.size());
  const std::vector<int64_t> strides = attr_per_axis(c, "strides", k, 1), pads = attr_per_axis(c, "pads", 2 * k, 0);
  std::vector<int64_t> out{xs[0], xs[1]};
  for (size_t d = 0; d < k; ++d) out.push_back((xs[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + k]);
  if (c.has(2)) {
    const std::vector<int64_t> given = c.const_ints(2, "the output shape");
    c.check(given.size() == xs.size(), "input 2 (the output shape) has ", given.size(), " values for rank ", xs.size());
    out = given;
  }
  for (int64_t e : out) c.check(e > 0, "the output shape ", ir::shape_to_string(out), " has an empty dimension");
  return {ops::max_unpool(c.in(0), c.in(1), kernel, strides, pads, out, c.out_name())};
}

// MeanVarianceNormalization, as ONNX's function body defines it: (x - E[x])
// / (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes` (default N, H, W).
std::vector<te::Tensor> convert_mvn(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const std::string n = c.out_name();
  const int64_t rank = static_cast<int64_t>(c.shape(0).size());
  const std::vector<int64_t> axes = c.attr_ints("axes", {0, 2, 3});
  for (int64_t a : axes) c.check(a >= -rank && a < rank, "attribute 'axes' holds ", a, ", out of range for rank ", rank);
  const te::Tensor mean = ops::reduce_mean(x, axes, true, n + "_mean");
  const te::Tensor mean_of_squares = ops::reduce_mean(ops::mul(x, x, n + "_squares"), axes, true, n + "_mean_sq");
  const te::Tensor variance = ops::sub(mean_of_squares, ops::mul(mean, mean, n + "_sq_mean"), n + "_variance");
  const te::Tensor deviation = ops::add(ops::sqrt(variance, n + "_std"), ops::full({1}, x->dtype(), 1e-9, n + "_eps"),
                                        n + "_std_eps");
  return {ops::div(ops::sub(x, mean, n + "_centered"), deviation, n)};
}

// TopK: k from the input (opset 10 on) or the attribute (before).
std::vector<te::Tensor> convert_top_k(const NodeContext& c) {
  const int64_t rank = static_cast<int64_t>(c.shape(0).size()), axis = c.attr_int("axis", -1);
  c.check(axis >= -rank && axis < rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank);
  int64_t k = 0;
  if (c.opset() >= 10) {
    const std::vector<int64_t> ks = c.const_ints(1, "k");
    c.check(ks.size() == 1, "input 1 (k) must hold one value, it has ", ks.size());
    k = ks[0];
  } else {
    c.check(c.has_attr("k"), "attribute 'k' is missing");
    k = c.attr_int("k", 0);
  }
  ops::TopK r = ops::top_k(c.in(0), k, axis, c.attr_int("largest", 1) != 0, c.out_name(0), c.out_name(1));
  return {r.values, r.indices};
}

std::vector<te::Tensor> convert_einsum(const NodeContext& c) {
  c.check(c.has_attr("equation"), "attribute 'equation' is missing");
  std::vector<te::Tensor> operands;
  for (size_t i = 0; i < c.num_inputs(); ++i) operands.push_back(c.in(i));
  return {ops::einsum(c.attr_string("equation", ""), operands, c.out_name())};
}

std::vector<te::Tensor> convert_lrn(const NodeContext& c) {
  c.check(c.has_attr("size"), "attribute 'size' is missing");
  return {ops::lrn(c.in(0), c.attr_int("size", 1), c.attr_float("alpha", 1e-4), c.attr_float("beta", 0.75),
                   c.attr_float("bias", 1.0), c.out_name())};
}

// Training mode (opset 14's attribute): Y normalized by the batch's mean and
// (biased) variance over every axis but the channel's, and the running
// statistics updated with them: input * momentum + batch * (1 - momentum).
std::vector<te::Tensor> batch_norm_training(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const std::string n = c.out_name();
  const size_t rank = c.shape(0).size();
  c.check(rank >= 2, "input needs rank at least 2 (N, C, ...)");
  std::vector<int64_t> axes{0}, channel_shape(rank, 1);
  for (size_t d = 2; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  channel_shape[1] = c.shape(0)[1];
  const te::Tensor mean = ops::reduce_mean(x, axes, false, n + "_batch_mean");
  const te::Tensor centered = ops::sub(x, ops::reshape(mean, channel_shape, n + "_mean_c"), n + "_centered");
  const te::Tensor var = ops::reduce_mean(ops::mul(centered, centered, n + "_squared"), axes, false, n + "_batch_var");
  const double momentum = c.attr_float("momentum", 0.9);
  const auto running = [&](size_t input, const te::Tensor& batch, size_t output) {
    return ops::add(ops::scale(c.in(input), momentum, c.out_name(output) + "_kept"),
                    ops::scale(batch, 1.0 - momentum, c.out_name(output) + "_new"), c.out_name(output));
  };
  std::vector<te::Tensor> outs{
      ops::batch_norm(x, c.in(1), c.in(2), mean, var, c.attr_float("epsilon", 1e-5), n)};
  if (c.node.outputs.size() > 1) outs.push_back(running(3, mean, 1));
  if (c.node.outputs.size() > 2) outs.push_back(running(4, var, 2));
  return outs;
}

std::vector<te::Tensor> convert_batch_norm(const NodeContext& c) {
  c.check(c.attr_int("spatial", 1) == 1, "attribute 'spatial' = 0 is not supported");
  if (c.attr_int("training_mode", 0) != 0) return batch_norm_training(c);
  return {ops::batch_norm(c.in(0), c.in(1), c.in(2), c.in(3), c.in(4), c.attr_float("epsilon", 1e-5),
                          c.out_name())};
}

// Col2Im (opset 18): image_shape and block_shape are compile-time
// constants; dilations, pads and strides default to 1, 0 and 1.
std::vector<te::Tensor> convert_col2im(const NodeContext& c) {
  ops::Col2ImAttrs a;
  a.image = c.const_ints(1, "the image shape");
  a.block = c.const_ints(2, "the block shape");
  const size_t dims = a.image.size();
  c.check(dims > 0 && a.block.size() == dims, "image_shape and block_shape need the same number (> 0) of values");
  a.dilations = c.attr_ints("dilations", std::vector<int64_t>(dims, 1));
  a.pads = c.attr_ints("pads", std::vector<int64_t>(2 * dims, 0));
  a.strides = c.attr_ints("strides", std::vector<int64_t>(dims, 1));
  c.check(a.dilations.size() == dims && a.strides.size() == dims && a.pads.size() == 2 * dims,
          "attributes 'dilations' and 'strides' need ", dims, " values and 'pads' ", 2 * dims);
  return {ops::col2im(c.in(0), a, c.out_name())};
}

// DFT: dft_length (input 1) and, from opset 20, the axis (input 2, negative
// from the back) are compile-time constants; before, the axis is an
// attribute.
std::vector<te::Tensor> convert_dft(const NodeContext& c) {
  const int64_t rank = static_cast<int64_t>(c.in(0)->shape().size());
  ops::DftAttrs a;
  a.axis = c.opset() >= 20 ? (c.has(2) ? c.const_ints(2, "the axis").at(0) : -2) : c.attr_int("axis", 1);
  if (a.axis < 0) a.axis += rank;
  if (c.has(1)) a.length = c.const_ints(1, "the transform's length").at(0);
  c.check(c.has(1) ? a.length > 0 : true, "input 'dft_length' must be positive");
  a.inverse = c.attr_int("inverse", 0) != 0;
  a.onesided = c.attr_int("onesided", 0) != 0;
  return {ops::dft(c.in(0), a, c.out_name())};
}

}  // namespace

void add_nn_converters(ConverterTable& t) {
  t["DFT"] = convert_dft;
  t["Col2Im"] = convert_col2im;
  t["Conv"] = convert_conv;
  t["DeformConv"] = convert_deform_conv;
  t["MaxUnpool"] = convert_max_unpool;
  t["ConvTranspose"] = convert_conv_transpose;
  t["Gemm"] = convert_gemm;
  t["MatMul"] = convert_matmul;
  t["MaxPool"] = convert_max_pool;
  t["AveragePool"] = convert_avg_pool;
  t["GlobalAveragePool"] = convert_global_avg_pool;
  t["GlobalMaxPool"] = convert_global_max_pool;
  t["Softmax"] = softmax_like(ops::softmax);
  t["LogSoftmax"] = softmax_like(ops::log_softmax);
  t["Hardmax"] = softmax_like(ops::hardmax);
  t["CumSum"] = [](const NodeContext& c) {
    const std::vector<int64_t> axis = c.const_ints(1, "the axis");
    c.check(axis.size() == 1, "input 1 (the axis) must hold one value, it has ", axis.size());
    const int64_t rank = static_cast<int64_t>(c.shape(0).size());
    c.check(axis[0] >= -rank && axis[0] < rank, "axis ", axis[0], " is out of range for rank ", rank);
    return std::vector<te::Tensor>{ops::cumsum(c.in(0), axis[0], c.attr_int("exclusive", 0) != 0,
                                               c.attr_int("reverse", 0) != 0, c.out_name())};
  };
  t["LayerNormalization"] = convert_layer_norm;
  t["InstanceNormalization"] = convert_instance_norm;
  t["GroupNormalization"] = convert_group_norm;
  t["LpPool"] = convert_lp_pool;
  t["LpNormalization"] = convert_lp_norm;
  t["MeanVarianceNormalization"] = convert_mvn;
  t["TopK"] = convert_top_k;
  t["Einsum"] = convert_einsum;
  t["ReduceSum"] = reduction(ops::reduce_sum, 13);
  t["ReduceMean"] = reduction(ops::reduce_mean, 18);
  t["ReduceMax"] = reduction(ops::reduce_max, 18);
  t["ReduceMin"] = reduction(ops::reduce_min, 18);
  t["ArgMax"] = arg_extreme(true);
  t["ArgMin"] = arg_extreme(false);
  t["ReduceProd"] = reduction(ops::reduce_prod, 18);
  t["ReduceL1"] = reduction(ops::reduce_l1, 18);
  t["ReduceL2"] = reduction(ops::reduce_l2, 18);
  t["ReduceSumSquare"] = reduction(ops::reduce_sum_square, 18);
  t["ReduceLogSum"] = reduction(ops::reduce_log_sum, 18);
  t["ReduceLogSumExp"] = reduction(ops::reduce_log_sum_exp, 18);
  t["LRN"] = convert_lrn;
  t["BatchNormalization"] = convert_batch_norm;
  t["ConvNCHWc"] = convert_conv;
  t["ConvWinogradNCHWc"] = convert_conv_winograd;
  t["MaxPoolNCHWc"] = convert_max_pool;
  t["AveragePoolNCHWc"] = convert_avg_pool;
  t["GlobalAveragePoolNCHWc"] = convert_global_avg_pool;
  t["GlobalMaxPoolNCHWc"] = convert_global_max_pool;
  t["ToChannelBlocks"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::to_channel_blocks(c.in(0), c.attr_int("block", 0), c.out_name())};
  };
  t["FromChannelBlocks"] = [](const NodeContext& c) {
    const std::vector<int64_t>& s = c.in(0)->shape();
    int64_t every_lane = s.size() == 5 ? s[1] * s[4] : 0;
    return std::vector<te::Tensor>{ops::from_channel_blocks(c.in(0), c.attr_int("channels", every_lane), c.out_name())};
  };
}

}  // namespace tunectl::graph
