// Matrix products: matmul (with optional transposes), gemm (ONNX Gemm:
// alpha * A' B' + beta * C), dense (x W^T + b, the BERT/PyTorch Linear form)
// and batch matmul with numpy broadcasting of the batch dimensions. The
// product is one reduction op (tag "matmul"/"batch_matmul"); scaling and bias
// are separate elementwise ops that fuse after it.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tunectl::ops {

// A [M, K] (or [K, M] with trans_a) times B [K, N] (or [N, K] with trans_b).
te::Tensor matmul(const te::Tensor& a, const te::Tensor& b, bool trans_a = false, bool trans_b = false,
                  const std::string& name = "matmul");

// alpha * op(A) op(B) + beta * C; c may be null, else it broadcasts to
// [M, N] numpy-style.
te::Tensor gemm(const te::Tensor& a, const te::Tensor& b, const te::Tensor& c, double alpha = 1.0,
                double beta = 1.0, bool trans_a = false, bool trans_b = false, const std::string& name = "gemm");

// x [M, K], weight [N, K], bias [N] or null: x weight^T + bias.
te::Tensor dense(const te::Tensor& x, const te::Tensor& weight, const te::Tensor& bias,
                 const std::string& name = "dense");

// a [..., M, K] times b [..., K, N] (b [..., N, K] with trans_b); the batch
// dimensions broadcast numpy-style; both ranks at least 2.
te::Tensor batch_matmul(const te::Tensor& a, const te::Tensor& b, bool trans_b = false,
                        const std::string& name = "batch_matmul");

}  // namespace tunectl::ops
