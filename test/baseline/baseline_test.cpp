// The oneDNN baselines compute what the op registry defines: conv2d (+bias,
// +ReLU) and dense on random inputs equal te::evaluate of the same DAG, so
// the bench compares tunectl with oneDNN on the same function.
#include <catch2/catch.hpp>

#include <random>

#include "baseline/cublas_sgemm.h"
#include "baseline/cudnn_conv2d.h"
#include "baseline/onednn_conv2d.h"
#include "baseline/onednn_dense.h"
#include "check/reference_check.h"
#include "ops/registry.h"
#include "te/evaluate.h"

namespace tunectl {
namespace {

void require_close(const std::vector<runtime::NDArray>& expected, runtime::NDArray& actual,
                   const te::ComputeDAG& dag) {
  std::vector<runtime::NDArray> outputs;
  outputs.push_back(std::move(actual));
  check::CheckResult r = check::compare_outputs(dag, outputs, expected);
  INFO(r.message);
  REQUIRE(r.ok);
}

TEST_CASE("oneDNN conv2d with bias and ReLU equals the registry's conv2d", "[baseline]") {
  baseline::Conv2dShape s;
  bool bias = true, relu = true;
  SECTION("3x3, pad 1") { s = {1, 5, 9, 11, 7, 3, 3, 1, 1}; }
  SECTION("1x1, stride 2, no bias") {
    s = {2, 8, 10, 10, 16, 1, 1, 2, 0};
    bias = false;
  }
  SECTION("3x3, stride 2, no ReLU") {
    s = {1, 16, 13, 13, 16, 3, 3, 2, 1};
    relu = false;
  }
  SECTION("depthwise 3x3") { s = {1, 8, 9, 9, 8, 3, 3, 1, 1, 8}; }
  SECTION("grouped 3x3, stride 2") { s = {1, 8, 9, 9, 12, 3, 3, 2, 1, 4}; }
  te::ComputeDAG dag = ops::make_op_dag("conv2d", {{"N", s.n}, {"C", s.c}, {"H", s.h}, {"W", s.w}, {"K", s.k},
                                                   {"R", s.r}, {"S", s.s}, {"stride", s.stride}, {"pad", s.pad},
                                                   {"groups", s.groups}, {"bias", bias}, {"relu", relu}});
  std::vector<runtime::NDArray> inputs = check::check_inputs(dag, 11);
  std::vector<runtime::NDArray> expected = te::evaluate(dag, inputs);
  baseline::OneDnnConv2d conv(s, inputs[1].data<float>(), bias ? inputs[2].data<float>() : nullptr, relu);
  runtime::NDArray out(ir::DType::Float32, {s.n, s.k, s.out_h(), s.out_w()});
  conv.run(inputs[0].data<float>(), out.data<float>());
  require_close(expected, out, dag);
}

TEST_CASE("oneDNN dense equals the registry's dense", "[baseline]") {
  const int64_t m = 7, k = 13, n = 33;
  const bool bias = GENERATE(true, false);
  te::ComputeDAG dag = ops::make_op_dag("dense", {{"M", m}, {"K", k}, {"N", n}, {"bias", bias}});
  std::vector<runtime::NDArray> inputs = check::check_inputs(dag, 12);
  std::vector<runtime::NDArray> expected = te::evaluate(dag, inputs);
  baseline::OneDnnDense dense(m, k, n, inputs[1].data<float>(), bias ? inputs[2].data<float>() : nullptr);
  runtime::NDArray out(ir::DType::Float32, {m, n});
  dense.run(inputs[0].data<float>(), out.data<float>());
  require_close(expected, out, dag);

  // The same weights stored [k, n] (MatMul's layout) give the same output.
  runtime::NDArray transposed(ir::DType::Float32, {k, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) transposed.data<float>()[j * n + i] = inputs[1].data<float>()[i * k + j];
  baseline::OneDnnDense dense_kn(m, k, n, transposed.data<float>(), bias ? inputs[2].data<float>() : nullptr,
                                 baseline::DenseWeights::InOut);
  runtime::NDArray out_kn(ir::DType::Float32, {m, n});
  dense_kn.run(inputs[0].data<float>(), out_kn.data<float>());
  require_close(expected, out_kn, dag);
}

}  // namespace
TEST_CASE("cuBLAS and cuDNN open at run time with the functions the GPU baselines call", "[unit]") {
  // The CUDA Toolkit is on every machine that runs the tests (README);
  // running them needs a device (test/gpu).
  std::string why;
  const bool cublas = baseline::cublas_available(why);
  INFO(why);
  CHECK(cublas);
  const bool cudnn = baseline::cudnn_available(why);
  INFO(why);
  CHECK(cudnn);
}

}  // namespace tunectl
