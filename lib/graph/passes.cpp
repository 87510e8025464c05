// simplify_graph and the two structural passes (identity removal, dead-code
// elimination). Constant folding and BatchNormalization folding do numeric
// work and live in pass_fold_constants.cpp and pass_fold_batch_norm.cpp.
#include "graph/passes.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include <spdlog/spdlog.h>

#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::graph {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Every read of value `from` (node inputs, graph outputs) now reads `to`.
void replace_uses(Graph& g, const std::string& from, const std::string& to) {
  for (Node& n : g.nodes)
    for (std::string& in : n.inputs)
      if (in == from) in = to;
  for (std::string& out : g.outputs)
    if (out == from) out = to;
}

// Whether node only forwards its first input: an Identity, or a Dropout in
// inference whose mask nobody reads. A Dropout asked to train, or whose mask
// is read, stays for its converter to handle or refuse.
bool is_forwarding(const Node& n, const Graph& g) {
  if (n.op_type == "Identity") return true;
  if (n.op_type != "Dropout") return false;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const std::string& mode = n.inputs[2];
    if (!g.is_constant(mode) || g.constants.at(mode).get(0) != 0) return false;
  }
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) {
    const std::string& mask = n.outputs[1];
    if (!g.consumers(mask).empty() || contains(g.outputs, mask)) return false;
  }
  return true;
}

}  // namespace

Graph bind_inputs(Graph g, const std::map<std::string, runtime::NDArray>& values) {
  for (const auto& [name, value] : values) {
    auto it = std::find(g.inputs.begin(), g.inputs.end(), name);
    user_check(it != g.inputs.end(), "cannot bind '", name, "': not an input of the model");
    const ValueInfo& info = g.info(name);
    user_check(value.dtype() == info.dtype && value.shape() == info.shape, "cannot bind '", name,
               "': the value is ", ir::to_string(value.dtype()), " ", ir::shape_to_string(value.shape()),
               ", the input ", ir::to_string(info.dtype), " ", ir::shape_to_string(info.shape));
    g.constants[name] = value;
    g.inputs.erase(it);
  }
  return g;
}

Graph remove_identities(Graph g) {
  std::vector<bool> removed(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!is_forwarding(n, g)) continue;
    user_check(!n.inputs.empty() && !n.inputs[0].empty(), n.describe(), ": has no input");
    const std::string in = n.inputs[0];
    const std::string out = n.outputs.at(0);
    if (!contains(g.outputs, out)) {
      replace_uses(g, out, in);
      g.values.erase(out);
    } else {
      // `out` is a graph output and its name must survive: the producer of
      // `in` takes the name instead. When `in` is itself a graph input, a
      // constant or another graph output, nothing can be renamed and the
      // copy stays (partitioning gives it a subgraph of its own).
      int p = -1;
      for (size_t j = 0; j < i && p < 0; ++j)
        if (!removed[j] && contains(g.nodes[j].outputs, in)) p = static_cast<int>(j);
      if (p < 0 || contains(g.outputs, in) || contains(g.inputs, in)) continue;
      for (std::string& o : g.nodes[p].outputs)
        if (o == in) o = out;
      replace_uses(g, in, out);
      g.values.erase(in);
    }
    for (size_t k = 1; k < n.outputs.size(); ++k)  // an unread Dropout mask
      if (!n.outputs[k].empty()) g.values.erase(n.outputs[k]);
    removed[i] = true;
  }
  g.remove_nodes(removed);
  return g;
}

Graph eliminate_dead_code(Graph g) {
  std::set<std::string> live(g.outputs.begin(), g.outputs.end());
  std::vector<bool> keep(g.nodes.size(), false);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    keep[i] = std::any_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& o) { return live.count(o); });
    if (!keep[i]) continue;
    for (const std::string& in : n.inputs)
      if (!in.empty()) live.insert(in);
  }
  std::vector<Node> kept;
  std::set<std::string> referenced(g.inputs.begin(), g.inputs.end());
  referenced.insert(live.begin(), live.end());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!keep[i]) continue;
    for (const std::string& o : g.nodes[i].outputs) referenced.insert(o);
    kept.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(kept);
  std::erase_if(g.constants, [&](const auto& kv) { return !live.count(kv.first); });
  std::erase_if(g.values, [&](const auto& kv) { return !referenced.count(kv.first); });
  return g;
}

Graph simplify_graph(Graph g) {
  auto run = [&](const char* pass, Graph (*f)(Graph)) {
    auto start = std::chrono::steady_clock::now();
    g = f(std::move(g));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    spdlog::debug("simplify_graph: after {} ({:.1f} ms): {} nodes, {} constants", pass, ms, g.nodes.size(),
                  g.constants.size());
  };
  spdlog::debug("simplify_graph: imported {} nodes, {} constants", g.nodes.size(), g.constants.size());
  run("resolve_composites", resolve_composites);
  run("remove_identities", remove_identities);
  run("draw_dropout_masks", draw_dropout_masks);
  run("fold_constants", fold_constants);
  run("fold_batch_norm", fold_batch_norm);
  run("eliminate_dead_code", eliminate_dead_code);
  return g;
}

}  // namespace tunectl::graph
