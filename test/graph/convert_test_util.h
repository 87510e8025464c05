// Test helper for the ONNX converters: builds a graph::Graph node by node,
// converting each node as it is added, and evaluates any value with the
// reference evaluator. Inputs and constants become placeholders fed with
// their arrays.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/convert.h"
#include "runtime/ndarray.h"
#include "te/compute_dag.h"
#include "te/evaluate.h"

namespace tunectl::graph::testing {

inline runtime::NDArray array(ir::DType t, std::vector<int64_t> shape, const std::vector<double>& values) {
  runtime::NDArray a(t, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) a.set(static_cast<int64_t>(i), values[i]);
  return a;
}

inline runtime::NDArray ints(std::vector<int64_t> v) {
  runtime::NDArray a(ir::DType::Int64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) a.data<int64_t>()[i] = v[i];
  return a;
}

// 0, 1, 2, ... scaled and shifted: distinct values that expose index mix-ups.
inline runtime::NDArray iota(std::vector<int64_t> shape, double scale = 1.0, double shift = 0.0) {
  runtime::NDArray a(ir::DType::Float32, std::move(shape));
  for (int64_t i = 0; i < a.num_elements(); ++i) a.set(i, shift + scale * static_cast<double>(i));
  return a;
}

// A copy of a with the te shape that holds it (rank 0 -> [1]).
inline runtime::NDArray as_te(const runtime::NDArray& a) {
  runtime::NDArray out(a.dtype(), te_shape(a.shape()));
  for (int64_t i = 0; i < a.num_elements(); ++i) out.set(i, a.get(i));
  if (a.dtype() == ir::DType::Int64)
    for (int64_t i = 0; i < a.num_elements(); ++i) out.data<int64_t>()[i] = a.data<int64_t>()[i];
  return out;
}

class GraphBuilder {
 public:
  explicit GraphBuilder(int64_t opset) { graph.opset = opset; }

  Graph graph;

  void input(const std::string& name, const runtime::NDArray& value) {
    add_value(name, value);
    graph.inputs.push_back(name);
  }
  void constant(const std::string& name, const runtime::NDArray& value) {
    add_value(name, value);
    graph.constants[name] = value;
  }

  // Adds the node and converts it; its outputs become values of the graph.
  std::vector<te::Tensor> node(const std::string& op, std::vector<std::string> inputs,
                               std::vector<std::string> outputs, std::map<std::string, AttrValue> attrs = {}) {
    Node n;
    n.name = op + "_" + std::to_string(graph.nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attrs.values = std::move(attrs);
    graph.nodes.push_back(n);
    std::vector<te::Tensor> in;
    for (const auto& name : n.inputs) in.push_back(name.empty() ? nullptr : tensors_.at(name));
    std::vector<te::Tensor> outs = convert_node(n, in, graph);
    for (size_t k = 0; k < outs.size(); ++k) tensors_[n.outputs[k]] = outs[k];
    return outs;
  }

  const te::Tensor& tensor(const std::string& name) const { return tensors_.at(name); }

  runtime::NDArray eval(const std::string& name) const {
    te::ComputeDAG dag({tensors_.at(name)});
    std::vector<runtime::NDArray> feed;
    for (const auto& p : dag.placeholders()) feed.push_back(as_te(values_.at(p->name)));
    return te::evaluate(dag, feed)[0];
  }

 private:
  void add_value(const std::string& name, const runtime::NDArray& value) {
    values_[name] = value;
    graph.values[name] = ValueInfo{value.dtype(), value.shape()};
    tensors_[name] = te::placeholder(name, te_shape(value.shape()), value.dtype());
  }

  std::map<std::string, te::Tensor> tensors_;
  std::map<std::string, runtime::NDArray> values_;
};

}  // namespace tunectl::graph::testing
