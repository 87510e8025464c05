// Small DAGs the schedule tests transform, and a semantic check: the ops of a
// State (after cache and rfactor steps rewrote them) evaluated by the
// reference evaluator must give the original DAG's outputs.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "ops/conv2d.h"
#include "ops/elemwise.h"
#include "ops/matmul.h"
#include "ops/normalization.h"
#include "schedule/state.h"
#include "te/compute_dag.h"
#include "te/evaluate.h"

namespace tunectl::schedule::testing {

using DagPtr = std::shared_ptr<const te::ComputeDAG>;

// C[i, j] = sum_k A[i, k] * B[k, j], written with te directly so that the
// iterator names are known: i, j (spatial), k (reduce).
inline DagPtr matmul_dag(int64_t m = 24, int64_t n = 20, int64_t k = 18) {
  auto a = te::placeholder("A", {m, k});
  auto b = te::placeholder("B", {k, n});
  ir::IterVar rk = te::reduce_axis(k, "k");
  auto c = te::compute("C", {m, n}, [&](const std::vector<ir::Var>& i) {
    return te::sum(te::read(a, {i[0], rk.var}) * te::read(b, {rk.var, i[1]}), {rk});
  });
  return std::make_shared<te::ComputeDAG>(std::vector<te::Tensor>{c});
}

// pad -> conv2d -> relu (stages: data, pad, weight, conv, relu in DAG order).
inline DagPtr conv_relu_dag() {
  auto data = te::placeholder("data", {1, 3, 7, 7});
  auto weight = te::placeholder("weight", {4, 3, 3, 3}, ir::DType::Float32, true);
  ops::Conv2dAttrs attrs;
  attrs.padding = {1, 1, 1, 1};
  auto conv = ops::conv2d_nchw(data, weight, attrs, "conv");
  return std::make_shared<te::ComputeDAG>(std::vector<te::Tensor>{ops::relu(conv, "relu")});
}

// max, exp-sum and normalize stages over rows of x[5, 13].
inline DagPtr softmax_dag() {
  auto x = te::placeholder("x", {5, 13});
  return std::make_shared<te::ComputeDAG>(std::vector<te::Tensor>{ops::softmax(x, -1, "softmax")});
}

// relu(matmul): an elementwise consumer to attach and inline into.
inline DagPtr matmul_relu_dag() {
  auto a = te::placeholder("A", {16, 12});
  auto b = te::placeholder("B", {12, 10}, ir::DType::Float32, true);  // a constant: prepack applies
  auto mm = ops::matmul(a, b, false, false, "mm");
  return std::make_shared<te::ComputeDAG>(std::vector<te::Tensor>{ops::relu(mm, "out")});
}

inline int stage_index(const State& s, const std::string& name) {
  for (size_t i = 0; i < s.stages.size(); ++i)
    if (s.stages[i].op->name == name) return static_cast<int>(i);
  return -1;
}

// Largest absolute difference between the outputs of the state's current ops
// and those of its DAG, on random inputs.
inline double max_output_error(const State& s, uint64_t seed = 7) {
  std::vector<te::Tensor> outs;
  for (const auto& out : s.dag->outputs())
    for (const auto& st : s.stages)
      if (st.op->buffer.same_as(out->buffer)) outs.push_back(st.op);
  te::ComputeDAG rewritten(outs);
  std::mt19937_64 rng(seed);
  auto inputs = te::random_inputs(*s.dag, rng);
  // The rewritten DAG lists the same placeholder objects, maybe in another order.
  std::vector<runtime::NDArray> reordered;
  auto phs = s.dag->placeholders();
  for (const auto& p : rewritten.placeholders()) {
    auto it = std::find(phs.begin(), phs.end(), p);
    reordered.push_back(inputs.at(it - phs.begin()));
  }
  auto want = te::evaluate(*s.dag, inputs);
  auto got = te::evaluate(rewritten, reordered);
  double err = 0;
  for (size_t o = 0; o < want.size(); ++o)
    for (int64_t e = 0; e < want[o].num_elements(); ++e) err = std::max(err, std::abs(want[o].get(e) - got[o].get(e)));
  return err;
}

}  // namespace tunectl::schedule::testing
