// graph::partition: cuts a simplified Graph into subgraphs, each one anchor
// op (conv, matmul, pooling, reduction, softmax, layernorm) with the
// elementwise and injective ops that fuse into it (bias, activation, residual
// add, ...), and lowers each to one ComputeDAG through the converters. Chains
// of elementwise/injective ops with no anchor form subgraphs of their own.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "te/compute_dag.h"

namespace tunectl::graph {

struct Subgraph {
  std::string name;                 // e.g. "conv2d_add_relu_3"
  std::vector<int> nodes;           // indices into Graph::nodes, topological
  std::vector<std::string> inputs;  // values read from outside: graph inputs, constants, other subgraphs' outputs
  std::vector<std::string> outputs; // values read outside the subgraph or graph outputs
  // Placeholders in `inputs` order, outputs in `outputs` order.
  std::shared_ptr<const te::ComputeDAG> dag;
};

std::vector<Subgraph> partition(const Graph& g);

}  // namespace tunectl::graph
