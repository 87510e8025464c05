// store_split_inputs: on GPU targets, the value a node of several outputs
// reads (GPT-2's fused Q/K/V projection, split three ways) is stored by a
// kernel of its own. A GPU task is one kernel (search/gpu_sketch.cpp), and
// one kernel cannot tile a matmul that three outputs read through a split,
// reshape and transpose: each output's threads would need the others'
// slices, so every thread computed the whole product. With a KernelBoundary
// (a copy that starts a subgraph, graph/partition.h) after it, the matmul
// and its bias are one task with one output, tiled as any other, and the
// split's copies a second task.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/convert.h"
#include "graph/passes.h"

namespace tunectl::graph {

Graph store_split_inputs(Graph g) {
  std::vector<Node> nodes;
  std::map<std::string, std::string> stored;  // value -> its copy after a boundary
  std::set<std::string> computed;             // values some node outputs
  for (const Node& n : g.nodes) {
    Node out = n;
    // An anchor of several outputs (TopK) starts a kernel anyway.
    if (n.outputs.size() > 1 && op_class(n) != OpClass::Anchor && !n.inputs.empty() &&
        computed.count(n.inputs[0]) > 0) {
      const std::string& value = n.inputs[0];
      auto it = stored.find(value);
      if (it == stored.end()) {
        Node boundary;
        boundary.name = g.fresh_name(value + ".KernelBoundary");
        boundary.op_type = "KernelBoundary";
        boundary.inputs = {value};
        boundary.outputs = {g.fresh_name(value + ".stored")};
        g.values[boundary.outputs[0]] = g.info(value);
        it = stored.emplace(value, boundary.outputs[0]).first;
        nodes.push_back(std::move(boundary));
      }
      out.inputs[0] = it->second;
    }
    computed.insert(n.outputs.begin(), n.outputs.end());
    nodes.push_back(std::move(out));
  }
  g.nodes = std::move(nodes);
  return g;
}

}  // namespace tunectl::graph
