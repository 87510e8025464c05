// Test helpers for the graph passes, partitioning and task extraction:
// graphs built by hand node by node (output shapes given, or left unknown as
// ONNX shape inference would for PyTorch's shape arithmetic), a node-by-node
// reference run of a whole graph, and a run of partitioned subgraphs, both
// with the reference evaluator.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "graph/concat_views.h"
#include "graph/convert.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "runtime/ndarray.h"
#include "te/compute_dag.h"
#include "te/evaluate.h"

namespace tunectl::graph::hand {

inline runtime::NDArray ints(std::vector<int64_t> v) {
  runtime::NDArray a(ir::DType::Int64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) a.data<int64_t>()[i] = v[i];
  return a;
}

// An int64 ONNX scalar (rank 0).
inline runtime::NDArray int_scalar(int64_t v) {
  runtime::NDArray a(ir::DType::Int64, {});
  a.data<int64_t>()[0] = v;
  return a;
}

inline runtime::NDArray random(std::vector<int64_t> shape, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937_64 rng(seed);
  runtime::NDArray a(ir::DType::Float32, std::move(shape));
  a.fill_random(rng, lo, hi);
  return a;
}

// a with another shape of the same size (ONNX rank 0 <-> te [1]).
inline runtime::NDArray reshaped(const runtime::NDArray& a, std::vector<int64_t> shape) {
  runtime::NDArray out(a.dtype(), std::move(shape));
  for (int64_t i = 0; i < a.num_elements(); ++i) out.set(i, a.get(i));
  if (a.dtype() == ir::DType::Int64)
    for (int64_t i = 0; i < a.num_elements(); ++i) out.data<int64_t>()[i] = a.data<int64_t>()[i];
  return out;
}

struct Builder {
  Graph g;

  Builder() { g.opset = 13; }

  std::string input(const std::string& name, std::vector<int64_t> shape, ir::DType dtype = ir::DType::Float32) {
    g.values[name] = ValueInfo{dtype, std::move(shape), true};
    g.inputs.push_back(name);
    return name;
  }
  std::string constant(const std::string& name, const runtime::NDArray& value) {
    g.values[name] = ValueInfo{value.dtype(), value.shape(), true};
    g.constants[name] = value;
    return name;
  }
  // A node whose outputs have the given shapes (float32 unless dtypes say
  // otherwise), or unknown shapes when `shapes` is empty.
  Node& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
             std::vector<std::vector<int64_t>> shapes = {}, std::map<std::string, AttrValue> attrs = {},
             std::vector<ir::DType> dtypes = {}) {
    Node n;
    n.name = op + "_" + std::to_string(g.nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attrs.values = std::move(attrs);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      ValueInfo info;
      info.dtype = k < dtypes.size() ? dtypes[k] : ir::DType::Float32;
      info.shape_known = !shapes.empty();
      if (info.shape_known) info.shape = shapes.at(k);
      g.values[n.outputs[k]] = info;
    }
    g.nodes.push_back(std::move(n));
    return g.nodes.back();
  }
  void output(const std::string& name) { g.outputs.push_back(name); }
};

// Runs every node of g with the reference evaluator, one node at a time;
// returns every value (te shapes: an ONNX scalar has shape [1]).
inline std::map<std::string, runtime::NDArray> run_nodes(const Graph& g,
                                                         const std::map<std::string, runtime::NDArray>& inputs) {
  std::map<std::string, runtime::NDArray> values;
  for (const auto& [name, value] : g.constants) values[name] = reshaped(value, te_shape(value.shape()));
  for (const auto& [name, value] : inputs) values[name] = value;
  for (const Node& n : g.nodes) {
    std::vector<te::Tensor> ins;
    std::map<const te::TensorNode*, std::string> source;
    for (const std::string& in : n.inputs) {
      if (in.empty()) {
        ins.push_back(nullptr);
        continue;
      }
      const runtime::NDArray& v = values.at(in);
      ins.push_back(te::placeholder(in, v.shape(), v.dtype()));
      source[ins.back().get()] = in;
    }
    std::vector<te::Tensor> outs;
    for (const te::Tensor& t : convert_node(n, ins, g))
      if (t) outs.push_back(t);
    te::ComputeDAG dag(outs);
    std::vector<runtime::NDArray> feed;
    for (const te::Tensor& p : dag.placeholders()) feed.push_back(values.at(source.at(p.get())));
    std::vector<runtime::NDArray> results = te::evaluate(dag, feed);
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty()) values[n.outputs[k]] = results.at(k);
  }
  return values;
}

// Runs the subgraphs in order, each DAG on its inputs; returns every value
// that crossed a subgraph boundary. A Concat placed in memory (which no
// subgraph computes) is its parts' bytes one after another, as the
// executor's buffer holds them.
inline std::map<std::string, runtime::NDArray> run_subgraphs(const Graph& g, const std::vector<Subgraph>& sgs,
                                                             const std::map<std::string, runtime::NDArray>& inputs) {
  std::map<std::string, runtime::NDArray> values;
  for (const auto& [name, value] : g.constants) values[name] = reshaped(value, te_shape(value.shape()));
  for (const auto& [name, value] : inputs) values[name] = value;
  const std::vector<ConcatView> views = concat_views(g);
  for (const Subgraph& sg : sgs) {
    std::vector<runtime::NDArray> feed;
    for (const std::string& in : sg.inputs) feed.push_back(values.at(in));
    std::vector<runtime::NDArray> results = te::evaluate(*sg.dag, feed);
    for (size_t k = 0; k < sg.outputs.size(); ++k) values[sg.outputs[k]] = results[k];
    for (const ConcatView& v : views) {
      if (values.count(v.output) || !std::all_of(v.parts.begin(), v.parts.end(), [&](const ConcatView::Part& p) {
            return values.count(p.value) > 0;
          }))
        continue;
      const ValueInfo& info = g.info(v.output);
      runtime::NDArray out(info.dtype, te_shape(info.shape));
      for (const ConcatView::Part& p : v.parts)
        std::memcpy(static_cast<uint8_t*>(out.raw()) + p.offset, values.at(p.value).raw(), values.at(p.value).num_bytes());
      values[v.output] = std::move(out);
    }
  }
  return values;
}

}  // namespace tunectl::graph::hand
