// Elementwise operators: unary activations and binary arithmetic with numpy
// broadcasting. Each is one compute op tagged "elemwise", the kind of op the
// graph partitioner fuses into its anchor and schedules inline.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tunectl::ops {

te::Tensor relu(const te::Tensor& x, const std::string& name = "relu");
te::Tensor clip(const te::Tensor& x, double lo, double hi, const std::string& name = "clip");
te::Tensor sigmoid(const te::Tensor& x, const std::string& name = "sigmoid");
te::Tensor tanh(const te::Tensor& x, const std::string& name = "tanh");
te::Tensor erf(const te::Tensor& x, const std::string& name = "erf");
// x * 0.5 * (1 + erf(x / sqrt(2))), the exact (erf) form.
te::Tensor gelu(const te::Tensor& x, const std::string& name = "gelu");
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))), ONNX Gelu's
// approximate="tanh" form.
te::Tensor gelu_tanh(const te::Tensor& x, const std::string& name = "gelu_tanh");
te::Tensor reciprocal(const te::Tensor& x, const std::string& name = "reciprocal");
te::Tensor exp(const te::Tensor& x, const std::string& name = "exp");
te::Tensor sqrt(const te::Tensor& x, const std::string& name = "sqrt");
te::Tensor neg(const te::Tensor& x, const std::string& name = "neg");
te::Tensor abs(const te::Tensor& x, const std::string& name = "abs");
te::Tensor log(const te::Tensor& x, const std::string& name = "log");
te::Tensor floor(const te::Tensor& x, const std::string& name = "floor");
te::Tensor ceil(const te::Tensor& x, const std::string& name = "ceil");
// Half to even, as ONNX's Round.
te::Tensor round(const te::Tensor& x, const std::string& name = "round");
te::Tensor sin(const te::Tensor& x, const std::string& name = "sin");
te::Tensor cos(const te::Tensor& x, const std::string& name = "cos");
// f(x) elementwise for a unary function (the trigonometric and hyperbolic
// ones and their inverses have no wrapper of their own).
te::Tensor math(const te::Tensor& x, ir::MathFunc f, const std::string& name);
// -1, 0 or 1 in x's type.
te::Tensor sign(const te::Tensor& x, const std::string& name = "sign");
// Bool results: x is NaN; x is an infinity (of the signs asked for).
te::Tensor is_nan(const te::Tensor& x, const std::string& name = "is_nan");
te::Tensor is_inf(const te::Tensor& x, bool negative = true, bool positive = true, const std::string& name = "is_inf");
// x for x > 0, alpha * x otherwise.
te::Tensor leaky_relu(const te::Tensor& x, double alpha = 0.01, const std::string& name = "leaky_relu");

// Binary operators over the numpy broadcast of the two shapes. div on
// integers truncates toward zero.
te::Tensor add(const te::Tensor& a, const te::Tensor& b, const std::string& name = "add");
te::Tensor sub(const te::Tensor& a, const te::Tensor& b, const std::string& name = "sub");
te::Tensor mul(const te::Tensor& a, const te::Tensor& b, const std::string& name = "mul");
te::Tensor div(const te::Tensor& a, const te::Tensor& b, const std::string& name = "div");
te::Tensor pow(const te::Tensor& a, const te::Tensor& b, const std::string& name = "pow");
te::Tensor maximum(const te::Tensor& a, const te::Tensor& b, const std::string& name = "maximum");
te::Tensor minimum(const te::Tensor& a, const te::Tensor& b, const std::string& name = "minimum");
// The remainder of a / b. Integers: with the divisor's sign (Python's %), or
// with fmod the dividend's (C's %); floats only with fmod (C's fmod).
te::Tensor mod(const te::Tensor& a, const te::Tensor& b, bool fmod, const std::string& name = "mod");

// The activations of mobile and detection networks, as ONNX defines them.
// max(0, min(1, alpha x + beta)).
te::Tensor hard_sigmoid(const te::Tensor& x, double alpha = 0.2, double beta = 0.5,
                        const std::string& name = "hard_sigmoid");
// x * hard_sigmoid(x) with alpha 1/6, beta 1/2.
te::Tensor hard_swish(const te::Tensor& x, const std::string& name = "hard_swish");
// x for x >= 0, alpha (e^x - 1) otherwise.
te::Tensor elu(const te::Tensor& x, double alpha = 1.0, const std::string& name = "elu");
// gamma x for x > 0, gamma alpha (e^x - 1) otherwise.
te::Tensor selu(const te::Tensor& x, double alpha, double gamma, const std::string& name = "selu");
// max(0, x) + min(0, alpha (e^(x / alpha) - 1)).
te::Tensor celu(const te::Tensor& x, double alpha = 1.0, const std::string& name = "celu");
// log(1 + e^x), computed as max(x, 0) + log(1 + e^-|x|) so that it does not
// overflow for large x.
te::Tensor softplus(const te::Tensor& x, const std::string& name = "softplus");
// x / (1 + |x|).
te::Tensor softsign(const te::Tensor& x, const std::string& name = "softsign");
// x tanh(softplus(x)).
te::Tensor mish(const te::Tensor& x, const std::string& name = "mish");
// x for x > alpha, 0 otherwise.
te::Tensor thresholded_relu(const te::Tensor& x, double alpha = 1.0, const std::string& name = "thresholded_relu");
// x + bias below -lambd, x - bias above lambd, 0 between (ONNX Shrink); any
// numeric type.
te::Tensor shrink(const te::Tensor& x, double lambd = 0.5, double bias = 0.0, const std::string& name = "shrink");
// x for x >= 0, slope x otherwise; slope broadcasts to x.
te::Tensor prelu(const te::Tensor& x, const te::Tensor& slope, const std::string& name = "prelu");

// Comparisons over the numpy broadcast of the two shapes: bool results.
te::Tensor equal(const te::Tensor& a, const te::Tensor& b, const std::string& name = "equal");
te::Tensor greater(const te::Tensor& a, const te::Tensor& b, const std::string& name = "greater");
te::Tensor less(const te::Tensor& a, const te::Tensor& b, const std::string& name = "less");
te::Tensor greater_equal(const te::Tensor& a, const te::Tensor& b, const std::string& name = "greater_equal");
te::Tensor less_equal(const te::Tensor& a, const te::Tensor& b, const std::string& name = "less_equal");
// Logic on bool tensors (broadcasting like the comparisons).
te::Tensor logical_and(const te::Tensor& a, const te::Tensor& b, const std::string& name = "and");
te::Tensor logical_or(const te::Tensor& a, const te::Tensor& b, const std::string& name = "or");
te::Tensor logical_xor(const te::Tensor& a, const te::Tensor& b, const std::string& name = "xor");
te::Tensor logical_not(const te::Tensor& x, const std::string& name = "not");
// Integers' bits, broadcast (ONNX BitwiseAnd/Or/Xor: f is ir's bitwise_and,
// bitwise_or or bitwise_xor; BitShift: shift_left or shift_right, of
// unsigned types); UserError for other types.
te::Tensor bitwise(const te::Tensor& a, const te::Tensor& b, ir::MathFunc f, const std::string& name = "bitwise");
te::Tensor bitwise_not(const te::Tensor& x, const std::string& name = "bitwise_not");

// x * scale (a constant), e.g. gemm's alpha.
te::Tensor scale(const te::Tensor& x, double factor, const std::string& name = "scale");

}  // namespace tunectl::ops
