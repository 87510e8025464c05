// graph::concat_views: the Concat nodes whose inputs are computed straight
// into their places in the output, so that the concatenation itself costs
// nothing (no kernel, no copy), as oneDNN's in-place concat and
// TensorRT's concat elimination do.
//
// A Concat qualifies when every dimension before its axis is 1 (each input
// is then one contiguous run of the output's bytes: a channel concat at
// batch 1, in NCHW or channel blocks alike), each of its inputs is computed
// by a node (not a graph input or constant), is no other placed Concat's
// output, is not already placed in an earlier one, appears once, and starts
// at a byte offset the kernels' buffer alignment allows. Nodes are taken in
// order, so of two chained Concats the first is placed.
//
// graph::partition leaves placed Concats out of every subgraph (their inputs
// become subgraph outputs and their readers read the output as a whole);
// graph::Executor gives the output one buffer and each input its run of it.
// Both call this function on the same graph, so they agree.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tunectl::graph {

struct ConcatView {
  struct Part {
    std::string value;
    size_t offset = 0;  // bytes into the output
  };
  int node = -1;  // the Concat
  std::string output;
  std::vector<Part> parts;
};

std::vector<ConcatView> concat_views(const Graph& g);

}  // namespace tunectl::graph
