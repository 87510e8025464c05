// graph::partition: cuts a simplified Graph into subgraphs, each one anchor
// op (conv, matmul, pooling, reduction, softmax, layernorm) with the
// elementwise and injective ops that fuse into it (bias, activation, residual
// add, ...), and lowers each to one ComputeDAG through the converters. Chains
// of elementwise/injective ops with no anchor form subgraphs of their own.
//
// The fusion rule, applied to the nodes in topological order: an anchor
// starts a new subgraph (but a convolution whose data is transformed into
// one channel block for it alone, a first convolution's, joins that
// transform's, which then costs no pass over the data of its own), and so
// do a transform out of channel
// blocks (FromChannelBlocks: the convolution before it stores whole vectors
// of its blocks) and a KernelBoundary (graph::store_split_inputs); an
// elementwise or injective node joins the
// subgraph that produces its first input which (a) no other node reads and
// (b) is not a graph output, unless that would make two subgraphs read each
// other's values; otherwise it starts a subgraph of its own. So consumers
// fuse into their producer (conv -> bias add -> relu -> residual add whose
// other operand comes from elsewhere), a value read twice is never computed
// twice, and other producers are not fused into a following anchor (TVM
// fuses injective producers such as a pad into a conv; ops/ already folds
// the padding into conv2d, and the remaining cases stay separate kernels).
// A Concat that concat_views places in memory is in no subgraph: its inputs
// are subgraph outputs (computed into their runs of its output), and a
// reader of its output runs after every kernel that computes a part.
// Subgraphs come out in an order in which each runs after those it reads.
// A placeholder that reads a model constant is marked constant (so a kernel
// may take it prepacked, schedule::PrepackStep).
// Each DAG names its placeholders input0, input1, ... and its tensors by op
// type and position inside the subgraph, never by ONNX value names, so that
// equal subgraphs at different places of a model share a workload key.
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
