// Converters of the elementwise ONNX operators: activations (those of
// mobile and detection networks included: HardSigmoid, HardSwish, PRelu, Elu,
// Selu, Celu, Softplus, Softsign, Mish, ThresholdedRelu), arithmetic
// with numpy broadcasting (opset 6's legacy broadcast attributes included),
// variadic Sum/Max/Min/Mean, Mod, rounding, Sign, Log, Sin, Cos, IsNaN,
// IsInf, Clip, Where and Cast.
#include <limits>

#include "graph/convert_util.h"
#include "graph/onnx_dtype.h"
#include "ir/printer.h"
#include "ops/elemwise.h"
#include "ops/index.h"
#include "ops/op_util.h"
#include "ops/transform.h"

namespace tunectl::graph {

namespace {

using Unary = te::Tensor (*)(const te::Tensor&, const std::string&);
using Binary = te::Tensor (*)(const te::Tensor&, const te::Tensor&, const std::string&);

Converter unary(Unary f) {
  return [f](const NodeContext& c) { return std::vector<te::Tensor>{f(c.in(0), c.out_name())}; };
}

// Input 1 of Add/Sub/Mul/Div/Pow, shaped so that numpy broadcasting means
// what the node's opset says. Before opset 7 there is no implicit
// broadcasting: with broadcast = 0 the shapes are equal; with broadcast = 1,
// B broadcasts to A, its dimensions lining up with A's from `axis` (by
// default at the end), each equal to A's or 1. B reshaped to A's rank with
// unit dimensions around it broadcasts exactly so.
te::Tensor rhs_operand(const NodeContext& c) {
  const te::Tensor& b = c.in(1);
  if (c.opset() >= 7) return b;
  std::vector<int64_t> sa = c.shape(0), sb = c.shape(1);
  int64_t ra = static_cast<int64_t>(sa.size()), rb = static_cast<int64_t>(sb.size());
  if (c.attr_int("broadcast", 0) == 0) {
    c.check(sa == sb, "operands of shapes ", ir::shape_to_string(sa), " and ", ir::shape_to_string(sb),
            " differ, and attribute 'broadcast' is not 1 (opset ", c.opset(), " does not broadcast implicitly)");
    return b;
  }
  int64_t axis = c.attr_int("axis", ra - rb);
  c.check(axis >= 0 && axis + rb <= ra, "attribute 'axis' = ", axis, " does not place B of shape ", ir::shape_to_string(sb),
          " within A of shape ", ir::shape_to_string(sa));
  std::vector<int64_t> aligned(sa.size(), 1);
  for (int64_t d = 0; d < rb; ++d) {
    c.check(sb[d] == sa[axis + d] || sb[d] == 1, "B of shape ", ir::shape_to_string(sb), " does not broadcast to A of shape ",
            ir::shape_to_string(sa), " at attribute 'axis' = ", axis);
    aligned[axis + d] = sb[d];
  }
  if (rb == ra || ra == 0) return b;
  return ops::reshape(b, aligned, c.out_name() + "_rhs");
}

Converter binary(Binary f) {
  return [f](const NodeContext& c) { return std::vector<te::Tensor>{f(c.in(0), rhs_operand(c), c.out_name())}; };
}

// Sum/Max/Min: a left fold of the binary op over every input.
// f folded over the inputs; the result is named the output's name plus
// `suffix` (for a converter that goes on from it).
Converter variadic(Binary f, const std::string& suffix = "") {
  return [f, suffix](const NodeContext& c) {
    c.check(c.num_inputs() >= 1, "needs at least one input");
    if (c.num_inputs() == 1) return std::vector<te::Tensor>{ops::copy(c.in(0), c.out_name() + suffix)};
    te::Tensor acc = c.in(0);
    for (size_t i = 1; i < c.num_inputs(); ++i) {
      std::string name = i + 1 == c.num_inputs() ? c.out_name() + suffix : c.out_name() + "_" + std::to_string(i);
      acc = f(acc, c.in(i), name);
    }
    return std::vector<te::Tensor>{acc};
  };
}

std::vector<te::Tensor> convert_pow(const NodeContext& c) {
  te::Tensor base = c.in(0);
  // A constant exponent of 2 or 3 (GPT-2's GELU cubes): multiplications,
  // which vectorize, instead of pow (a libm call per element).
  // The DAG then reads no exponent, so the partitioner leaves it out.
  if (ir::is_float(base->dtype()) && c.node.inputs.size() > 1 && c.graph.constants.count(c.node.inputs[1])) {
    const runtime::NDArray& e = c.graph.constants.at(c.node.inputs[1]);
    // Of no higher rank than the base, so broadcasting it changes no shape.
    const bool broadcasts_away = c.graph.info(c.node.inputs[1]).shape.size() <= c.shape(0).size();
    if (e.num_elements() == 1 && broadcasts_away && (e.get(0) == 2 || e.get(0) == 3)) {
      te::Tensor square = ops::mul(base, base, c.out_name() + (e.get(0) == 2 ? "" : "_square"));
      return {e.get(0) == 2 ? square : ops::mul(square, base, c.out_name())};
    }
  }
  te::Tensor exponent = rhs_operand(c);
  if (!ir::is_float(base->dtype())) {
    // Integer powers: computed in double (exact for the results int64 can
    // hold to 2^53), truncated back to the base's type.
    std::string n = c.out_name();
    te::Tensor p = ops::pow(ops::cast(base, ir::DType::Float64, n + "_base"),
                            ops::cast(exponent, ir::DType::Float64, n + "_exponent"), n + "_pow");
    return {ops::cast(p, base->dtype(), n)};
  }
  // From opset 12 the exponent may have another numeric type than the base.
  if (exponent->dtype() != base->dtype())
    exponent = ops::cast(exponent, base->dtype(), c.out_name() + "_exponent");
  return {ops::pow(base, exponent, c.out_name())};
}

std::vector<te::Tensor> convert_clip(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  if (c.opset() < 11) {
    double lo = c.attr_float("min", -std::numeric_limits<double>::infinity());
    double hi = c.attr_float("max", std::numeric_limits<double>::infinity());
    return {ops::clip(x, lo, hi, c.out_name())};
  }
  // Bounds are inputs (each optional) from opset 11; constants or not, they
  // are scalars that broadcast.
  te::Tensor out = x;
  te::Tensor lo = c.opt(1), hi = c.opt(2);
  if (lo) out = ops::maximum(out, lo, hi ? c.out_name() + "_min" : c.out_name());
  if (hi) out = ops::minimum(out, hi, c.out_name());
  if (!lo && !hi) out = ops::copy(x, c.out_name());
  return {out};
}

std::vector<te::Tensor> convert_leaky_relu(const NodeContext& c) {
  return {ops::leaky_relu(c.in(0), c.attr_float("alpha", 0.01), c.out_name())};
}

// The slope broadcasts to X unidirectionally (numpy) from opset 7; before,
// a 1-D slope of one value per channel meant the channel axis (1).
std::vector<te::Tensor> convert_prelu(const NodeContext& c) {
  te::Tensor slope = c.in(1);
  std::vector<int64_t> sx = c.shape(0), ss = c.shape(1);
  if (c.opset() < 7 && ss.size() == 1 && sx.size() > 2 && ss[0] == sx[1]) {
    std::vector<int64_t> per_channel(sx.size() - 1, 1);
    per_channel[0] = ss[0];
    slope = ops::reshape(slope, per_channel, c.out_name() + "_slope");
  }
  return {ops::prelu(c.in(0), slope, c.out_name())};
}

std::vector<te::Tensor> convert_gelu(const NodeContext& c) {
  std::string approx = c.attr_string("approximate", "none");
  if (approx == "none") return {ops::gelu(c.in(0), c.out_name())};
  if (approx == "tanh") return {ops::gelu_tanh(c.in(0), c.out_name())};
  c.fail("attribute 'approximate' = '", approx, "' is not supported (none or tanh)");
}

std::vector<te::Tensor> convert_where(const NodeContext& c) {
  return {ops::where(c.in(0), c.in(1), c.in(2), c.out_name())};
}

std::vector<te::Tensor> convert_cast(const NodeContext& c) {
  c.check(c.has_attr("to"), "attribute 'to' is missing");
  ir::DType to = dtype_from_onnx(c.attr_int("to", 0), c);
  return {ops::cast(c.in(0), to, c.out_name())};
}

}  // namespace

void add_elemwise_converters(ConverterTable& t) {
  t["Relu"] = unary(ops::relu);
  t["Sigmoid"] = unary(ops::sigmoid);
  t["Tanh"] = unary(ops::tanh);
  t["Erf"] = unary(ops::erf);
  t["Exp"] = unary(ops::exp);
  t["Sqrt"] = unary(ops::sqrt);
  t["Neg"] = unary(ops::neg);
  t["Reciprocal"] = unary(ops::reciprocal);
  t["Abs"] = unary(ops::abs);
  t["Log"] = unary(ops::log);
  t["Floor"] = unary(ops::floor);
  t["Ceil"] = unary(ops::ceil);
  t["Round"] = unary(ops::round);
  t["Sin"] = unary(ops::sin);
  t["Cos"] = unary(ops::cos);
  for (auto [op, f] : {std::pair{"Tan", ir::MathFunc::tan}, {"Asin", ir::MathFunc::asin}, {"Acos", ir::MathFunc::acos},
                       {"Atan", ir::MathFunc::atan}, {"Sinh", ir::MathFunc::sinh}, {"Cosh", ir::MathFunc::cosh},
                       {"Asinh", ir::MathFunc::asinh}, {"Acosh", ir::MathFunc::acosh}, {"Atanh", ir::MathFunc::atanh}})
    t[op] = [f](const NodeContext& c) { return std::vector<te::Tensor>{ops::math(c.in(0), f, c.out_name())}; };
  t["Sign"] = unary(ops::sign);
  t["IsNaN"] = unary(ops::is_nan);
  t["IsInf"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::is_inf(c.in(0), c.attr_int("detect_negative", 1) != 0,
                                               c.attr_int("detect_positive", 1) != 0, c.out_name())};
  };
  t["Mod"] = [](const NodeContext& c) {
    const bool fmod = c.attr_int("fmod", 0) != 0;
    c.check(fmod || !ir::is_float(c.in(0)->dtype()), "attribute 'fmod' = 0 takes integers; float inputs need fmod = 1");
    return std::vector<te::Tensor>{ops::mod(c.in(0), c.in(1), fmod, c.out_name())};
  };
  // Sum's variadic broadcast, over the count of inputs.
  t["Mean"] = [sum = variadic(ops::add, "_sum")](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::scale(sum(c).at(0), 1.0 / static_cast<double>(c.num_inputs()), c.out_name())};
  };
  t["Add"] = binary(ops::add);
  t["Sub"] = binary(ops::sub);
  t["Mul"] = binary(ops::mul);
  t["Div"] = binary(ops::div);
  t["Pow"] = convert_pow;
  t["Sum"] = variadic(ops::add);
  t["Max"] = variadic(ops::maximum);
  t["Min"] = variadic(ops::minimum);
  t["Clip"] = convert_clip;
  t["LeakyRelu"] = convert_leaky_relu;
  t["Gelu"] = convert_gelu;
  t["Where"] = convert_where;
  t["Cast"] = convert_cast;
  t["CastLike"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::cast(c.in(0), c.in(1)->dtype(), c.out_name())};
  };
  t["PRelu"] = convert_prelu;
  t["Equal"] = binary(ops::equal);
  t["Greater"] = binary(ops::greater);
  t["Less"] = binary(ops::less);
  t["GreaterOrEqual"] = binary(ops::greater_equal);
  t["LessOrEqual"] = binary(ops::less_equal);
  t["And"] = binary(ops::logical_and);
  t["Or"] = binary(ops::logical_or);
  t["Xor"] = binary(ops::logical_xor);
  for (auto [op, f] : {std::pair{"BitwiseAnd", ir::MathFunc::bitwise_and}, {"BitwiseOr", ir::MathFunc::bitwise_or},
                       {"BitwiseXor", ir::MathFunc::bitwise_xor}}) {
    t[op] = [f](const NodeContext& c) {
      return std::vector<te::Tensor>{ops::bitwise(c.in(0), c.in(1), f, c.out_name())};
    };
  }
  t["BitShift"] = [](const NodeContext& c) {
    const std::string direction = c.attr_string("direction", "");
    c.check(direction == "LEFT" || direction == "RIGHT", "attribute 'direction' must be LEFT or RIGHT, got '",
            direction, "'");
    const auto f = direction == "LEFT" ? ir::MathFunc::shift_left : ir::MathFunc::shift_right;
    return std::vector<te::Tensor>{ops::bitwise(c.in(0), c.in(1), f, c.out_name())};
  };
  t["BitwiseNot"] = unary(ops::bitwise_not);
  t["Not"] = unary(ops::logical_not);
  t["HardSwish"] = unary(ops::hard_swish);
  t["Softplus"] = unary(ops::softplus);
  t["Softsign"] = unary(ops::softsign);
  t["Mish"] = unary(ops::mish);
  t["HardSigmoid"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{
        ops::hard_sigmoid(c.in(0), c.attr_float("alpha", 0.2), c.attr_float("beta", 0.5), c.out_name())};
  };
  t["Elu"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::elu(c.in(0), c.attr_float("alpha", 1.0), c.out_name())};
  };
  t["Selu"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::selu(c.in(0), c.attr_float("alpha", 1.67326319217681884765625),
                                             c.attr_float("gamma", 1.05070102214813232421875), c.out_name())};
  };
  t["Celu"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::celu(c.in(0), c.attr_float("alpha", 1.0), c.out_name())};
  };
  t["Shrink"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{
        ops::shrink(c.in(0), c.attr_float("lambd", 0.5), c.attr_float("bias", 0.0), c.out_name())};
  };
  t["ThresholdedRelu"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::thresholded_relu(c.in(0), c.attr_float("alpha", 1.0), c.out_name())};
  };
}

}  // namespace tunectl::graph
