// Converters of the quantization operators: QuantizeLinear and
// DequantizeLinear (per tensor, per axis, per block), DynamicQuantizeLinear,
// and the integer products of quantized models: MatMulInteger and
// ConvInteger (int32 results), QLinearMatMul and QLinearConv (requantized).
// The products shift their operands by the zero points into int32 and run
// the MatMul and Conv converters on them, so that they are tuned as the
// float ones are (anchors with element-wise producers inlined); a zero point
// shifts before the convolution's padding, which then pads with it, as ONNX
// says.
#include "graph/convert.h"
#include "graph/convert_util.h"
#include "graph/onnx_dtype.h"
#include "ir/printer.h"
#include "ops/elemwise.h"
#include "ops/index.h"
#include "ops/reduce.h"
#include "ops/op_util.h"
#include "ops/transform.h"

namespace tunectl::graph {

namespace {

// y (integral values in a float type) clipped to the range of integer type
// q and cast to it.
te::Tensor saturated_cast(const te::Tensor& y, ir::DType q, const std::string& name) {
  const ir::Expr lo = ir::reduce_identity(ir::ReduceOp::Max, q), hi = ir::reduce_identity(ir::ReduceOp::Min, q);
  return ops::cast(ops::clip(y, static_cast<double>(*ir::as_const_int(lo)), static_cast<double>(*ir::as_const_int(hi)),
                             name + "_saturated"),
                   q, name);
}

// A quantization scale or zero point: one value, or one per index of `axis`
// of x (shaped to broadcast along it), or with opset 21's block_size one per
// block of that many indices of `axis` (x's shape elsewhere), repeated over
// its block.
te::Tensor per_axis(const NodeContext& c, size_t i, const std::string& suffix) {
  const te::Tensor& v = c.in(i);
  const std::vector<int64_t> vs = c.shape(i), xs = c.shape(0);
  const int64_t block = c.attr_int("block_size", 0);
  c.check(block >= 0, "attribute 'block_size' = ", block, " must not be negative");
  if (block == 0 && ops::product(vs) == 1) return v;
  const int64_t rank = static_cast<int64_t>(xs.size()), axis = c.attr_int("axis", 1);
  c.check(axis >= -rank && axis < rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank);
  const size_t ax = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  if (block > 0) {
    std::vector<int64_t> want = xs;
    want[ax] = (xs[ax] + block - 1) / block;
    c.check(vs == want, "input ", i, " must have shape ", ir::shape_to_string(want), " for blocks of ", block,
            " along axis ", axis, ", it has shape ", ir::shape_to_string(vs));
    return te::compute(
        c.out_name() + suffix, xs,
        [&](const std::vector<ir::Var>& at) {
          std::vector<ir::Expr> index(at.begin(), at.end());
          index[ax] = ir::make_floordiv(at[ax], ir::make_int(block));
          return te::read(v, index);
        },
        "injective", v->dtype());
  }
  c.check(vs.size() == 1 && vs[0] == xs[ax], "input ", i, " must hold 1 value or one per index of axis ", axis, " (",
          xs[ax], "), it has shape ", ir::shape_to_string(vs));
  std::vector<int64_t> shape(xs.size(), 1);
  shape[ax] = xs[ax];
  return ops::reshape(v, shape, c.out_name() + suffix);
}

// QuantizeLinear: saturate(round(x / scale) + zero_point) in the zero
// point's integer type (uint8 without one), rounding half to even.
std::vector<te::Tensor> convert_quantize(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const int64_t output_dtype = c.attr_int("output_dtype", 0);
  std::optional<ir::DType> q = c.has(2) ? c.in(2)->dtype() : ir::DType::UInt8;
  if (output_dtype != 0) {
    q = dtype_from_onnx_code(output_dtype);
    c.check(q.has_value() && (!c.has(2) || *q == c.in(2)->dtype()), "attribute 'output_dtype' = ", output_dtype,
            " is not the zero point's type or not supported");
  }
  c.check(ir::is_int(*q), "the zero point must be an integer type, it is ", ir::to_string(*q));
  te::Tensor y = ops::round(ops::div(x, per_axis(c, 1, "_scale"), c.out_name() + "_scaled"), c.out_name() + "_rounded");
  if (c.has(2)) y = ops::add(y, ops::cast(per_axis(c, 2, "_zp"), x->dtype(), c.out_name() + "_zpf"), c.out_name() + "_shifted");
  return {saturated_cast(y, *q, c.out_name())};
}

// DequantizeLinear: (x - zero_point) * scale, in the scale's type.
std::vector<te::Tensor> convert_dequantize(const NodeContext& c) {
  const te::Tensor scale = per_axis(c, 1, "_scale");
  const ir::DType f = scale->dtype();
  te::Tensor x = ops::cast(c.in(0), f, c.out_name() + "_float");
  if (c.has(2)) x = ops::sub(x, ops::cast(per_axis(c, 2, "_zp"), f, c.out_name() + "_zpf"), c.out_name() + "_centered");
  return {ops::mul(x, scale, c.out_name())};
}

// Input i (a zero point or a scale) shaped to broadcast along axis `axis` of
// a tensor of rank `rank`: one value stays as it is; a 1-D one of several
// values (per row of a matrix, per output channel of a convolution) gets
// unit dimensions after it; others (numpy-shaped, [.., M, 1]) stay as given.
te::Tensor along_axis(const NodeContext& c, size_t i, size_t axis, size_t rank, const std::string& suffix) {
  const std::vector<int64_t> s = c.shape(i);
  if (s.size() != 1 || s[0] == 1 || axis + 1 == rank) return c.in(i);
  std::vector<int64_t> shape(rank - axis, 1);
  shape[0] = s[0];
  return ops::reshape(c.in(i), shape, c.out_name() + suffix);
}

// (data - zero_point) in int32; without a zero point the data in int32.
te::Tensor shifted(const NodeContext& c, size_t data, const te::Tensor& zero_point, const std::string& suffix) {
  const ir::DType t = c.in(data)->dtype();
  c.check(t == ir::DType::Int8 || t == ir::DType::UInt8, "input ", data, " must be int8 or uint8, it is ",
          ir::to_string(t));
  te::Tensor x = ops::cast(c.in(data), ir::DType::Int32, c.out_name() + suffix);
  if (!zero_point) return x;
  c.check(zero_point->dtype() == t, "a zero point must have its input's type (", ir::to_string(t), "), it is ",
          ir::to_string(zero_point->dtype()));
  return ops::sub(x, ops::cast(zero_point, ir::DType::Int32, c.out_name() + suffix + "_zp"),
                  c.out_name() + suffix + "_shifted");
}

// The node as `op_type` (MatMul, Conv) on the given int32 operands, with
// its attributes, output named `name`.
te::Tensor integer_product(const NodeContext& c, const std::string& op_type, std::vector<std::string> inputs,
                           const std::vector<te::Tensor>& operands, const std::string& name) {
  Node node = c.node;
  node.op_type = op_type;
  node.inputs = std::move(inputs);
  node.outputs = {name};
  return convert_node(node, operands, c.graph).at(0);
}

// saturate(round(acc * scale) + zero_point) in the zero point's type, with
// acc * scale in double as ONNX's reference computes it (an int32 times a
// float32), rounding half to even.
te::Tensor requantize(const NodeContext& c, const te::Tensor& acc, const te::Tensor& scale,
                      const te::Tensor& zero_point) {
  const std::string n = c.out_name();
  const ir::DType q = zero_point->dtype(), f = ir::DType::Float64;
  c.check(q == ir::DType::Int8 || q == ir::DType::UInt8, "the output zero point must be int8 or uint8, it is ",
          ir::to_string(q));
  te::Tensor y = ops::mul(ops::cast(acc, f, n + "_acc_f"), ops::cast(scale, f, n + "_scale_f"), n + "_scaled");
  y = ops::add(ops::round(y, n + "_rounded"), ops::cast(zero_point, f, n + "_zp_f"), n + "_shifted");
  return saturated_cast(y, q, n);
}

// MatMulInteger: (A - a_zero_point) x (B - b_zero_point) in int32; A's zero
// point per tensor or per row, B's per tensor or per column.
std::vector<te::Tensor> convert_matmul_integer(const NodeContext& c) {
  const size_t rank_a = c.shape(0).size();
  const te::Tensor a = shifted(c, 0, c.has(2) ? along_axis(c, 2, rank_a - 2, rank_a, "_azp") : nullptr, "_a");
  const te::Tensor b = shifted(c, 1, c.opt(3), "_b");
  return {integer_product(c, "MatMul", {c.node.inputs[0], c.node.inputs[1]}, {a, b}, c.out_name())};
}

// ConvInteger: the convolution of (x - x_zero_point) and (w - w_zero_point)
// in int32, w's zero point per tensor or per output channel.
std::vector<te::Tensor> convert_conv_integer(const NodeContext& c) {
  const size_t rank_w = c.shape(1).size();
  const te::Tensor x = shifted(c, 0, c.opt(2), "_x");
  const te::Tensor w = shifted(c, 1, c.has(3) ? along_axis(c, 3, 0, rank_w, "_wzp") : nullptr, "_w");
  return {integer_product(c, "Conv", {c.node.inputs[0], c.node.inputs[1]}, {x, w}, c.out_name())};
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): the
// integer product requantized with a_scale * b_scale / y_scale.
std::vector<te::Tensor> convert_qlinear_matmul(const NodeContext& c) {
  const std::string n = c.out_name();
  const size_t rank_a = c.shape(0).size();
  const te::Tensor a = shifted(c, 0, along_axis(c, 2, rank_a - 2, rank_a, "_azp"), "_a");
  const te::Tensor b = shifted(c, 3, c.in(5), "_b");
  const te::Tensor acc = integer_product(c, "MatMul", {c.node.inputs[0], c.node.inputs[3]}, {a, b}, n + "_acc");
  const te::Tensor scale = ops::div(ops::mul(along_axis(c, 1, rank_a - 2, rank_a, "_as"), c.in(4), n + "_ab_scale"),
                                    c.in(6), n + "_scale");
  return {requantize(c, acc, scale, c.in(7))};
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B): the
// integer convolution plus the int32 bias, requantized with x_scale *
// w_scale / y_scale (w's per tensor or per output channel).
std::vector<te::Tensor> convert_qlinear_conv(const NodeContext& c) {
  const std::string n = c.out_name();
  const size_t rank_w = c.shape(3).size();
  const te::Tensor x = shifted(c, 0, c.in(2), "_x");
  const te::Tensor w = shifted(c, 3, along_axis(c, 5, 0, rank_w, "_wzp"), "_w");
  std::vector<std::string> names{c.node.inputs[0], c.node.inputs[3]};
  std::vector<te::Tensor> operands{x, w};
  if (c.has(8)) {
    c.check(c.in(8)->dtype() == ir::DType::Int32, "the bias must be int32, it is ", ir::to_string(c.in(8)->dtype()));
    names.push_back(c.node.inputs[8]);
    operands.push_back(c.in(8));
  }
  const te::Tensor acc = integer_product(c, "Conv", names, operands, n + "_acc");
  // Per output channel: axis 1 of the output, which has the weight's rank.
  const te::Tensor scale = ops::div(ops::mul(c.in(1), along_axis(c, 4, 1, rank_w, "_ws"), n + "_xw_scale"),
                                    c.in(6), n + "_scale");
  return {requantize(c, acc, scale, c.in(7))};
}

// DynamicQuantizeLinear: uint8 with the scale and zero point that map
// [min(0, min x), max(0, max x)] onto [0, 255], as ONNX defines them.
std::vector<te::Tensor> convert_dynamic_quantize(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  const ir::DType f = x->dtype();
  c.check(f == ir::DType::Float32, "input must be float32, it is ", ir::to_string(f));
  const std::string n = c.out_name(), scale_name = c.out_name(1), zp_name = c.out_name(2);
  const te::Tensor zero = ops::full({1}, f, 0, n + "_zero");
  const te::Tensor lo = ops::minimum(ops::reduce_min(x, {}, false, n + "_min"), zero, n + "_lo");
  const te::Tensor hi = ops::maximum(ops::reduce_max(x, {}, false, n + "_max"), zero, n + "_hi");
  const te::Tensor scale = ops::div(ops::sub(hi, lo, n + "_range"), ops::full({1}, f, 255, n + "_levels"), scale_name);
  const te::Tensor zp = ops::round(ops::clip(ops::neg(ops::div(lo, scale, n + "_lo_q"), n + "_zp_exact"), 0, 255,
                                             n + "_zp_clipped"),
                                   zp_name + "_f");
  te::Tensor y = ops::add(ops::round(ops::div(x, scale, n + "_q"), n + "_rounded"), zp, n + "_shifted");
  y = ops::clip(y, 0, 255, n + "_saturated");
  return {ops::cast(y, ir::DType::UInt8, n), scale, ops::cast(zp, ir::DType::UInt8, zp_name)};
}

}  // namespace

void add_quantize_converters(ConverterTable& t) {
  t["QuantizeLinear"] = convert_quantize;
  t["DequantizeLinear"] = convert_dequantize;
  t["DynamicQuantizeLinear"] = convert_dynamic_quantize;
  t["MatMulInteger"] = convert_matmul_integer;
  t["ConvInteger"] = convert_conv_integer;
  t["QLinearMatMul"] = convert_qlinear_matmul;
  t["QLinearConv"] = convert_qlinear_conv;
}

}  // namespace tunectl::graph
