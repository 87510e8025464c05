#include "graph/partition.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/concat_views.h"
#include "graph/convert.h"
#include "ir/error.h"
#include "ops/op_util.h"

namespace tunectl::graph {

namespace {

// A group under construction: node indices, and the groups it reads values
// of (to refuse a fusion that would make two groups wait on each other).
struct Group {
  std::vector<int> nodes;
  std::set<int> reads;
};

class Partitioner {
 public:
  explicit Partitioner(const Graph& g) : g_(g) {
    for (const ConcatView& v : concat_views(g)) {
      placed_.insert(v.node);
      for (const ConcatView::Part& p : v.parts) view_parts_[v.output].push_back(p.value);
    }
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const std::string& o : g.nodes[i].outputs)
        if (!o.empty() && !placed_.count(static_cast<int>(i))) producer_[o] = static_cast<int>(i);
      std::set<std::string> read(g.nodes[i].inputs.begin(), g.nodes[i].inputs.end());
      for (const std::string& in : read)
        if (!in.empty()) readers_[in].push_back(static_cast<int>(i));
    }
    graph_outputs_.insert(g.outputs.begin(), g.outputs.end());
  }

  // The groups in an order that runs every group after those it reads
  // (fusing a node into an earlier group can make it read a later one),
  // otherwise in order of creation.
  std::vector<Group> run() {
    group_of_.assign(g_.nodes.size(), -1);
    for (size_t i = 0; i < g_.nodes.size(); ++i) place(static_cast<int>(i));
    std::vector<Group> ordered;
    std::vector<bool> done(groups_.size(), false);
    while (ordered.size() < groups_.size()) {
      size_t k = 0;
      auto ready = [&](const Group& grp) {
        return std::all_of(grp.reads.begin(), grp.reads.end(), [&](int r) { return done[r]; });
      };
      while (k < groups_.size() && (done[k] || !ready(groups_[k]))) ++k;
      internal_check(k < groups_.size(), "partition: cyclic subgraph dependencies");
      done[k] = true;
      ordered.push_back(std::move(groups_[k]));
    }
    return ordered;
  }

 private:
  void place(int i) {
    if (placed_.count(i)) return;  // no kernel: its inputs are computed into its output
    const Node& n = g_.nodes[i];
    OpClass cls = op_class(n);
    user_check(cls != OpClass::Container, n.describe(),
               " works on sequences or optionals, which simplify_graph resolves before partitioning");
    if (cls == OpClass::Shape) {
      // Shape, Size and EyeLike read no values, only a shape: they need folding, not binding.
      for (size_t k = 0; k < n.inputs.size() && n.op_type != "Shape" && n.op_type != "Size" && n.op_type != "EyeLike";
           ++k) {
        std::vector<std::string> from = g_.upstream_inputs(n.inputs[k]);
        if (!g_.is_constant(n.inputs[k]) && !from.empty())
          fail_shape_input(n.describe() + ": input " + std::to_string(k) + " ('" + n.inputs[k] + "', shape data)",
                           n.inputs[k], std::move(from));
      }
      user_fail(n.describe(), " computes shape data from values that are not constants; it must fold away before "
                "partitioning");
    }
    std::set<int> reads;  // groups whose values n reads; a placed Concat's output: those computing its parts
    for (const std::string& in : n.inputs) {
      auto parts = view_parts_.find(in);
      for (const std::string& v : parts == view_parts_.end() ? std::vector<std::string>{in} : parts->second) {
        auto it = producer_.find(v);
        if (it != producer_.end()) reads.insert(group_of_[it->second]);
      }
    }
    // A transform out of channel blocks starts a kernel of its own, so that
    // the convolution before it writes whole vectors of its blocks and is
    // the same task whoever reads it; so does a kernel boundary. An anchor
    // does too, but for a convolution that takes in the transform of its
    // data into one block.
    bool own = cls == OpClass::Anchor || n.op_type == "FromChannelBlocks" || n.op_type == "KernelBoundary";
    int target = own ? transformed_input_group(n, reads) : fusion_target(n, reads);
    if (target < 0) {
      target = static_cast<int>(groups_.size());
      groups_.emplace_back();
    }
    groups_[target].nodes.push_back(i);
    for (int r : reads)
      if (r != target) groups_[target].reads.insert(r);
    group_of_[i] = target;
  }

  // Whether a consumer may join the group that computes `value`: the value
  // is no graph output, and this node is its only reader or every reader is
  // elementwise or injective (GELU's x * f(x): the readers all join, and the
  // value stays inside the kernel, as TVM's FuseOps fuses a producer its
  // elementwise consumers post-dominate).
  bool fusible_value(const std::string& value) const {
    if (graph_outputs_.count(value)) return false;
    const std::vector<int>& readers = readers_.at(value);
    return readers.size() == 1 || std::all_of(readers.begin(), readers.end(), [&](int r) {
             return op_class(g_.nodes[r]) != OpClass::Anchor;
           });
  }

  // The group an elementwise/injective node joins: that of the producer of
  // its first fusible input, unless another input comes from a group that
  // itself depends on that group (fusing would make the two groups wait on
  // each other).
  int fusion_target(const Node& n, const std::set<int>& reads) const {
    for (const std::string& in : n.inputs) {
      auto it = producer_.find(in);
      if (it == producer_.end() || !fusible_value(in)) continue;
      int candidate = group_of_[it->second];
      if (!waits_on_itself(candidate, reads)) return candidate;
    }
    return -1;
  }

  // The group a convolution joins as its reader: that of the transform of
  // its data into one channel block (a first convolution's 3 channels), when
  // the transform is alone there and the convolution its only reader.
  // Inlined, the transform is a remapping of the convolution's loads, which
  // then read the C planes of the NCHW data, rather than a kernel of its own
  // that writes them blocked first (SqueezeNet: 0.05-0.1 ms of 3). Wider
  // data, in several blocks, keeps its transform: its convolutions are tuned
  // and benchmarked blocked.
  int transformed_input_group(const Node& n, const std::set<int>& reads) const {
    if (n.op_type != "ConvNCHWc" && n.op_type != "ConvWinogradNCHWc") return -1;
    auto it = producer_.find(n.inputs[0]);
    if (it == producer_.end() || g_.nodes[it->second].op_type != "ToChannelBlocks") return -1;
    if (graph_outputs_.count(n.inputs[0]) || readers_.at(n.inputs[0]).size() != 1) return -1;
    if (g_.info(n.inputs[0]).shape[1] != 1) return -1;  // [N, C/b, H, W, b]: one block
    int candidate = group_of_[it->second];
    return groups_[candidate].nodes.size() == 1 && !waits_on_itself(candidate, reads) ? candidate : -1;
  }

  // Whether joining group `candidate` with a node that reads the groups
  // `reads` would make it wait on a group that waits on it.
  bool waits_on_itself(int candidate, const std::set<int>& reads) const {
    return std::any_of(reads.begin(), reads.end(), [&](int r) { return r != candidate && depends_on(r, candidate); });
  }

  // Whether group `from` reads, directly or through other groups, a value of `to`.
  bool depends_on(int from, int to) const {
    std::vector<int> stack = {from};
    std::set<int> seen;
    while (!stack.empty()) {
      int k = stack.back();
      stack.pop_back();
      if (k == to) return true;
      if (!seen.insert(k).second) continue;
      stack.insert(stack.end(), groups_[k].reads.begin(), groups_[k].reads.end());
    }
    return false;
  }

  const Graph& g_;
  std::set<int> placed_;                                        // Concat nodes placed in memory (concat_views)
  std::map<std::string, std::vector<std::string>> view_parts_;  // a placed Concat's output -> its inputs
  std::map<std::string, int> producer_;                         // but of placed Concats' outputs
  std::map<std::string, std::vector<int>> readers_;  // the nodes reading each value, once each
  std::set<std::string> graph_outputs_;
  std::vector<int> group_of_;
  std::vector<Group> groups_;
};

// Operator names in subgraph names: ops/' names for the anchors, the
// lower-cased ONNX op type otherwise.
std::string short_name(const std::string& op_type) {
  static const std::map<std::string, std::string> kNames = {
      {"Conv", "conv2d"},
      {"ConvTranspose", "conv2d_transpose"},
      {"MaxPool", "max_pool2d"},
      {"AveragePool", "avg_pool2d"},
      {"GlobalAveragePool", "global_avg_pool2d"},
      {"GlobalMaxPool", "global_max_pool2d"},
      {"LayerNormalization", "layer_norm"},
      {"BatchNormalization", "batch_norm"},
      {"ReduceMean", "reduce_mean"},
      {"ReduceSum", "reduce_sum"},
      {"ReduceMax", "reduce_max"},
      {"LeakyRelu", "leaky_relu"},
      {"ConvNCHWc", "conv2d_nchwc"},
      {"ConvWinogradNCHWc", "conv2d_winograd_nchwc"},
      {"MaxPoolNCHWc", "max_pool2d_nchwc"},
      {"AveragePoolNCHWc", "avg_pool2d_nchwc"},
      {"GlobalAveragePoolNCHWc", "global_avg_pool2d_nchwc"},
      {"GlobalMaxPoolNCHWc", "global_max_pool2d_nchwc"},
      {"ToChannelBlocks", "to_nchwc"},
      {"FromChannelBlocks", "from_nchwc"},
      {"KernelBoundary", "copy"},
  };
  auto it = kNames.find(op_type);
  if (it != kNames.end()) return it->second;
  std::string s = op_type;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "conv2d_add_relu_3": the first few operators of the subgraph and its index.
std::string subgraph_name(const Graph& g, const std::vector<int>& nodes, size_t index) {
  constexpr size_t kMaxOps = 4;
  std::string name;
  for (size_t k = 0; k < nodes.size() && k < kMaxOps; ++k) name += short_name(g.nodes[nodes[k]].op_type) + "_";
  if (nodes.size() > kMaxOps) name += "etc_";
  return name + std::to_string(index);
}

// The subgraph's tensors over placeholders for `inputs` (named input0,
// input1, ... in that order). Nodes are converted under positional output
// names (op type and position in the subgraph), so equal subgraphs at
// different places of a model build equal DAGs and share a workload key.
std::vector<te::Tensor> build_outputs(const Graph& g, const Subgraph& sg) {
  std::map<std::string, te::Tensor> tensors;
  for (size_t k = 0; k < sg.inputs.size(); ++k) {
    const ValueInfo& info = g.info(sg.inputs[k]);
    tensors[sg.inputs[k]] =
        te::placeholder("input" + std::to_string(k), te_shape(info.shape), info.dtype, g.is_constant(sg.inputs[k]));
  }
  for (size_t j = 0; j < sg.nodes.size(); ++j) {
    const Node& original = g.nodes[sg.nodes[j]];
    std::vector<te::Tensor> ins;
    for (const std::string& in : original.inputs) {
      auto it = tensors.find(in);
      if (it != tensors.end()) {
        ins.push_back(it->second);
      } else if (!in.empty()) {
        // A value the DAG does not read (CastLike's `like` gives only its
        // type); finish() checks that no "unread" placeholder is reached.
        const ValueInfo& info = g.info(in);
        ins.push_back(te::placeholder("unread", te_shape(info.shape), info.dtype, g.is_constant(in)));
      } else {
        ins.push_back(nullptr);
      }
    }
    // The model's node (errors name it) with positional output names.
    Node node = original;
    const std::string positional = short_name(node.op_type) + std::to_string(j);
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (node.outputs[k].empty()) continue;
      node.outputs[k] = positional + (node.outputs.size() > 1 ? "_" + std::to_string(k) : "");
    }
    std::vector<te::Tensor> outs = convert_node(node, ins, g, original.outputs);
    for (size_t k = 0; k < original.outputs.size(); ++k) {
      if (original.outputs[k].empty()) continue;
      // Converters leave out optional outputs they do not compute.
      user_check(k < outs.size() && outs[k] != nullptr, original.describe(), ": output ", k, " ('", original.outputs[k],
                 "') is not supported");
      tensors[original.outputs[k]] = outs[k];
    }
  }
  std::vector<te::Tensor> result;
  for (const std::string& o : sg.outputs) {
    const te::Tensor& t = tensors.at(o);
    internal_check(t != nullptr, "subgraph ", sg.name, ": no tensor for output '", o, "'");
    result.push_back(t);
  }
  return result;
}

// Fills the subgraph's inputs, outputs and DAG from its nodes; false for
// dead code, a group whose values nothing reads (a graph that
// simplify_graph has not cleaned).
bool finish(const Graph& g, const std::vector<int>& group_of_node, int self, Subgraph& sg) {
  std::set<std::string> produced;
  for (int i : sg.nodes)
    for (const std::string& o : g.nodes[i].outputs)
      if (!o.empty()) produced.insert(o);
  // Candidate inputs in order of first use; the DAG decides which of them
  // are data (a Reshape's shape, say, is read at compile time only).
  std::vector<std::string> used;
  for (int i : sg.nodes)
    for (const std::string& in : g.nodes[i].inputs)
      if (!in.empty() && !produced.count(in) && std::find(used.begin(), used.end(), in) == used.end())
        used.push_back(in);
  for (int i : sg.nodes) {
    for (const std::string& o : g.nodes[i].outputs) {
      if (o.empty()) continue;
      bool outside = std::find(g.outputs.begin(), g.outputs.end(), o) != g.outputs.end();
      for (int c : g.consumers(o)) outside = outside || group_of_node[c] != self;
      if (outside) sg.outputs.push_back(o);
    }
  }
  if (sg.outputs.empty()) return false;
  sg.inputs = used;
  std::vector<te::Tensor> outs = build_outputs(g, sg);
  te::ComputeDAG first(outs);
  // Keep the inputs the DAG reads, in its placeholder order, and rebuild so
  // that the placeholder names follow that order too.
  std::vector<std::string> ordered;
  for (const te::Tensor& ph : first.placeholders()) {
    std::string name = ph->name;
    internal_check(name.rfind("input", 0) == 0, "subgraph ", sg.name, ": stray placeholder '", name, "'");
    ordered.push_back(used.at(std::stoul(name.substr(5))));
    // Empty values are constants (fold_constants) that only Concat meets, and leaves out.
    user_check(ops::product(g.info(ordered.back()).shape) != 0,
               g.nodes[sg.nodes.front()].describe(), ": subgraph ", sg.name, " would read the empty tensor '",
               ordered.back(), "'; a kernel over an empty tensor is not supported");
  }
  if (ordered == used) {
    sg.dag = std::make_shared<const te::ComputeDAG>(std::move(first));
    return true;
  }
  sg.inputs = ordered;
  sg.dag = std::make_shared<const te::ComputeDAG>(build_outputs(g, sg));
  return true;
}

}  // namespace

std::vector<Subgraph> partition(const Graph& g) {
  std::vector<Group> groups = Partitioner(g).run();
  std::vector<int> group_of_node(g.nodes.size(), -1);
  for (size_t k = 0; k < groups.size(); ++k)
    for (int i : groups[k].nodes) group_of_node[i] = static_cast<int>(k);
  std::vector<Subgraph> result;
  for (size_t k = 0; k < groups.size(); ++k) {
    Subgraph sg;
    sg.nodes = groups[k].nodes;
    sg.name = subgraph_name(g, sg.nodes, k);
    if (finish(g, group_of_node, static_cast<int>(k), sg)) result.push_back(std::move(sg));
  }
  return result;
}

}  // namespace tunectl::graph
