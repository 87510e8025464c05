// The operator registry: builds a whole task (placeholders plus the op's
// compute stages) as a te::ComputeDAG from a name and JSON parameters. The
// CLI, benchmarks and property tests over every op start here; the graph
// importer calls the op functions directly. Every parameter has a default;
// an unknown op, an unknown parameter or a value of the wrong kind is a
// UserError naming it. Shapes are JSON arrays of positive integers.
//
// Ops and their parameters (defaults in parentheses):
//   conv2d        N(1) C(64) H(56) W(56) K(64) R(3) S(3) stride(1: int or [h,w])
//                 pad(1: int, [h,w] or [top,left,bottom,right]) dilation(1: int or [h,w])
//                 groups(1; groups=C=K is depthwise) bias(false) relu(false)
//   conv2d_nchwc  conv2d's parameters, C and K in blocks of bi(16) and bo(16)
//   conv2d_winograd_nchwc   N(1) C(64) H(56) W(56) K(64) bi(16) bo(16) pad(1) m(4) bias(false) relu(false)
//                 a 3x3 stride-1 convolution by Winograd F(m x m, 3x3), m 4 or 2 (conv2d_winograd.h):
//                 inputs data, the transformed weight, B^T and A^T
//   matmul        M(512) N(512) K(512) trans_a(false) trans_b(false)
//   gemm          M(512) N(512) K(512) alpha(1) beta(1) trans_a(false) trans_b(false)
//                 c_shape([N]; [] for no C term; any shape broadcasting to [M,N])
//   dense         M(128) K(768) N(768) bias(true)        x[M,K] * W[N,K]^T + b[N]
//   batch_matmul  a_shape([12,128,64]) b_shape([12,64,128]) trans_b(false)
//   max_pool2d, avg_pool2d
//                 N(1) C(64) H(56) W(56) kernel(2: int or [h,w]) stride(2: int or [h,w])
//                 pad(0: int, [h,w] or [t,l,b,r]) ceil_mode(false) count_include_pad(false)
//   global_avg_pool2d, global_max_pool2d   N(1) C(512) H(7) W(7)
//   relu sigmoid tanh erf gelu exp sqrt neg abs   shape([1,64,56,56])
//   clip          shape min(0) max(6)
//   leaky_relu    shape alpha(0.01)
//   add sub mul div pow maximum minimum   a_shape([1,64,56,56]) b_shape([1,64,1,1])
//   softmax       shape([12,128,128]) axis(-1)
//   layer_norm    shape([128,768]) axis(-1) epsilon(1e-5) affine(true: scale and bias inputs)
//   reduce_sum, reduce_mean, reduce_max   shape([32,512]) axes([-1]; [] = all) keepdims(false)
//   transpose     shape([12,128,64]) perm([0,2,1])
//   pad           shape([1,64,56,56]) begins([0,0,1,1]) ends([0,0,1,1]) value(0)
//   concat        shapes([[1,64,28,28],[1,32,28,28]]) axis(1)
//   reshape       shape([1,128,768]) new_shape([1,128,12,64]; -1 and 0 allowed)
//   flatten       shape([1,512,7,7]) axis(1)
//   top_k         shape([32,512]) k(8) axis(-1) largest(true)   (values and int64 indices)
//   einsum        equation("bij,bjk->bik") shapes([[12,128,64],[12,64,128]])
//   gather_nd     data_shape([8,16,32]) indices_shape([64,2]) batch_dims(0)
//   scatter_elements  shape([64,64]) indices_shape([16,64]) axis(0) reduction("none": none, add, mul, max, min)
//   scatter_nd    shape([16,8,32]) indices_shape([8,1]) reduction("none")
//   nll_loss      shape([64,1000]) reduction("mean": none, sum, mean) weight(true)
//   bitwise_xor   a_shape([4,32]) b_shape([32])   int32, broadcast
//   bit_shift     shape([8,32]) left(true)          uint32 a shifted by b
//   grid_sample   shape([1,32,28,28]) grid_shape([1,28,28,2]) mode("linear": nearest, cubic)
//                 padding("zeros": border, reflection) align_corners(false)
//   affine_grid   sizes([28,28]) batch(1) align_corners(false)
//   reverse_sequence  shape([16,8,32])   time axis 0, batch axis 1
//   col2im        N(1) C(16) image([28,28]) block([3,3]) dilations(1s) pads(0s: begins, ends) strides(1s)
//   dft           shape([8,256,2]: last axis real or complex) axis(1) length(0: the axis') inverse(false)
//                 onesided(false)
//   deform_conv2d N(1) C(64) H(28) W(28) K(64) R(3) S(3) offset_groups(1) mask(false), conv2d's stride,
//                 pad, dilation and groups
//   conv_nd       shape([1,16,8,28,28]) kernel([3,3,3]) K(16) stride(1) pad(1) groups(1)
//   max_unpool    shape([1,64,28,28]) kernel(2) stride(2) grow(0: output extent beyond the unpooled one)
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "te/compute_dag.h"

namespace tunectl::ops {

// Every registered op name, in registration order.
std::vector<std::string> op_names();

// The task DAG of op `name` with `params` (an object; missing keys take
// their defaults).
te::ComputeDAG make_op_dag(const std::string& name, const nlohmann::json& params = nlohmann::json::object());

// Two to four small parameter sets for op `name` (odd sizes, a non-square
// case), each cheap enough to evaluate with te::evaluate in well under 0.1 s.
std::vector<nlohmann::json> test_configs(const std::string& name);

}  // namespace tunectl::ops
