// block_channels: runs a model's convolutions, and the pooling, elementwise
// and concat nodes between them, in the channel-blocked layout NCHW[b]c
// (activations [N, C/b, H, W, b]), as oneDNN and TVM's x86 schedules do. In
// NCHW a vector of 16 lanes runs along an image row, which 56, 28, 14 and 7
// do not fill and a stride of 2 turns into a gather; in NCHW[b]c it runs
// along b output channels of one pixel, one contiguous load or store for
// every image size and stride.
//
// Decided node by node in topological order: a Conv (plain or depthwise)
// whose output channels are a multiple of b (or of b/2: its output then in
// blocks of b/2) runs blocked, its input blocked too (a first convolution of
// fewer than b channels takes them as one block of C). A plain Conv whose
// output channels miss a multiple of b by at most an eighth (SqueezeNet's
// 1000 classes: 1008) runs in zero-padded blocks of b rather than in b/2:
// whole vectors for 1% more work. A padded value goes only where its padding
// cannot reach a real channel: elementwise nodes and pooling, then out of
// blocks (the padding dropped); a Conv or Concat reads it as NCHW. An
// elementwise node,
// pooling or channel concat runs blocked when one of its inputs is (in that
// input's block), its other inputs being blocked alike, scalars, per-channel
// constants (repacked, [C, 1, 1] -> [ceil(C/b), 1, 1, b], zero past C) or NCHW activations of
// its own shape (transformed in). Every other node
// reads NCHW. Transforms (ToChannelBlocks, FromChannelBlocks) are inserted
// only where the layout changes, once per value; the model's inputs and
// outputs keep their ONNX layout. Weights are repacked here, once, as
// constants: [K, C, R, S] -> [ceil(K/b), C/bi, R, S, bi, b]. Each plain 3x3
// stride-1 convolution the caller's choice gives a tile m becomes
// ConvWinogradNCHWc F(m x m, 3x3) (ops/conv2d_winograd.h), its weights
// transformed here, once.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "graph/convert.h"
#include "graph/passes.h"
#include "ir/error.h"
#include "ops/conv2d_winograd.h"
#include "ops/op_util.h"

namespace tunectl::graph {

namespace {

bool is_rank4_float(const Graph& g, const std::string& v) {
  const ValueInfo& info = g.info(v);
  return info.shape_known && info.shape.size() == 4 && info.dtype == ir::DType::Float32;
}

bool single_output(const Node& n) {
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty()) return false;
  return !n.outputs.empty() && !n.outputs[0].empty();
}

int64_t blocks_of(int64_t channels, int64_t b) { return (channels + b - 1) / b; }

// [K, C, R, S] -> [ceil(K/bo), C/bi, R, S, bi, bo], output channels past K
// zero; depthwise [K, 1, R, S] -> [K/bo, 1, R, S, 1, bo] (bi = 1).
runtime::NDArray pack_conv_weight(const runtime::NDArray& w, int64_t bi, int64_t bo) {
  const auto& s = w.shape();
  int64_t k = s[0], c = s[1], r = s[2], q = s[3];
  runtime::NDArray p(w.dtype(), {blocks_of(k, bo), c / bi, r, q, bi, bo});
  int64_t to = 0;
  for (int64_t ko = 0; ko < blocks_of(k, bo); ++ko)
    for (int64_t co = 0; co < c / bi; ++co)
      for (int64_t y = 0; y < r; ++y)
        for (int64_t x = 0; x < q; ++x)
          for (int64_t ci = 0; ci < bi; ++ci)
            for (int64_t ki = 0; ki < bo; ++ki, ++to)
              if (ko * bo + ki < k) p.set(to, w.get((((ko * bo + ki) * c + co * bi + ci) * r + y) * q + x));
  return p;
}

// A per-channel constant's C values as [ceil(C/b), b] (the padding zero),
// with a leading 1 for each extra leading axis it had, [1, C, 1, 1] ->
// [1, ceil(C/b), 1, 1, b].
runtime::NDArray pack_per_channel(const runtime::NDArray& v, int64_t channels, int64_t b, bool four_d) {
  std::vector<int64_t> shape = {blocks_of(channels, b), 1, 1, b};
  if (four_d) shape.insert(shape.begin(), 1);
  runtime::NDArray p(v.dtype(), {blocks_of(channels, b) * b});
  for (int64_t c = 0; c < channels; ++c) p.set(c, v.get(c));
  return runtime::with_shape(p, shape);
}

// [N, C, H, W] -> [N, ceil(C/b), H, W, b].
std::vector<int64_t> blocked_shape(const std::vector<int64_t>& s, int64_t b) {
  return {s[0], blocks_of(s[1], b), s[2], s[3], b};
}

// A value in channel blocks: its blocked twin's name and the block.
struct Blocked {
  std::string name;
  int64_t block = 0;
};

class ChannelBlocker {
 public:
  ChannelBlocker(Graph g, int64_t block, WinogradChoice winograd)
      : g_(std::move(g)), block_(block), winograd_(std::move(winograd)) {}

  Graph run() {
    std::vector<bool> blocked_node(g_.nodes.size(), false);
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      int64_t b = output_block(n);
      if (b == 0) continue;
      blocked_node[i] = true;
      const std::string& v = n.outputs[0];
      blocked_[v] = {g_.fresh_name(v + ".nchw" + std::to_string(b) + "c"), b};
      g_.values[blocked_[v].name] = {g_.info(v).dtype, blocked_shape(g_.info(v).shape, b)};
    }
    std::vector<Node> out;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (!blocked_node[i]) {
        out.push_back(n);
        continue;
      }
      emit_blocked(n, out);
      const std::string& v = n.outputs[0];
      bool nchw_reader = g_.is_output(v);
      for (int r : g_.consumers(v)) nchw_reader = nchw_reader || !blocked_node[r];
      if (nchw_reader) out.push_back(from_blocks(v));
    }
    g_.nodes = std::move(out);
    return std::move(g_);
  }

 private:
  // Phase 1: the block node n's output runs in, or 0 for NCHW.
  int64_t output_block(const Node& n) const {
    if (!single_output(n) || !is_rank4_float(g_, n.outputs[0])) return 0;
    if (n.op_type == "Conv") return conv_output_block(n);
    if (n.op_type == "MaxPool" || n.op_type == "AveragePool" || n.op_type == "GlobalAveragePool" ||
        n.op_type == "GlobalMaxPool")
      return block_of(n.inputs[0]);
    if (n.op_type == "Concat") {
      int64_t axis = n.attrs.get_int(n, "axis", 1);
      int64_t b = block_of(n.inputs[0]);
      for (const std::string& v : n.inputs) b = block_of(v) == b && !padded(v) ? b : 0;
      return axis == 1 || axis == -3 ? b : 0;
    }
    if (is_supported_op(n.op_type) && op_class(n) == OpClass::Elementwise && n.op_type != "BatchNormalization")
      return elementwise_block(n);
    return 0;
  }

  int64_t block_of(const std::string& v) const {
    auto it = blocked_.find(v);
    return it == blocked_.end() ? 0 : it->second.block;
  }

  // Whether v's last block ends in zero padding.
  bool padded(const std::string& v) const { return block_of(v) && g_.info(v).shape[1] % block_of(v) != 0; }

  bool feeds_concat(const std::string& v) const {
    for (int r : g_.consumers(v))
      if (g_.nodes[r].op_type == "Concat") return true;
    return false;
  }

  // A 2-D Conv, plain or depthwise, with constant weight (and bias): its
  // output channels in blocks of the vector width, padded ones (a plain
  // Conv's, at most an eighth more, not concatenated), or in blocks of half
  // of it when they fill those; the input's channels in the blocks they come
  // in, in vector-wide blocks, or all in one block when there are fewer (a
  // first convolution's 3).
  int64_t conv_output_block(const Node& n) const {
    const std::string& x = n.inputs[0];
    if (!is_rank4_float(g_, x) || n.inputs.size() < 2 || !g_.is_constant(n.inputs[1])) return 0;
    if (n.inputs.size() > 2 && !n.inputs[2].empty() && !g_.is_constant(n.inputs[2])) return 0;
    const std::vector<int64_t>& w = g_.constants.at(n.inputs[1]).shape();
    if (w.size() != 4 || padded(x)) return 0;
    int64_t k = w[0], c = g_.info(x).shape[1];
    int64_t group = n.attrs.get_int(n, "group", 1);
    int64_t half = block_ / 2 >= 4 ? block_ / 2 : block_;
    int64_t padding = blocks_of(k, block_) * block_ - k;
    bool pad = group == 1 && 8 * padding <= k && !feeds_concat(n.outputs[0]);
    int64_t bo = k % block_ == 0 || pad ? block_ : k % half == 0 ? half : 0;
    if (group == 1) return block_of(x) || c % block_ == 0 || c < block_ ? bo : 0;
    bool depthwise = group == c && k == c && w[1] == 1;
    return depthwise && (block_of(x) == bo || (block_of(x) == 0 && c % bo == 0)) ? bo : 0;
  }

  // The block of an elementwise node's blocked inputs (all alike) when its
  // other inputs are scalars, per-channel constants or NCHW activations of
  // the output's shape (not into padded blocks); else 0.
  int64_t elementwise_block(const Node& n) const {
    const std::vector<int64_t>& out = g_.info(n.outputs[0]).shape;
    int64_t b = 0;
    bool any_padded = false, nchw_activation = false;
    for (const std::string& v : n.inputs) {
      if (v.empty()) continue;
      if (int64_t vb = block_of(v)) {
        if (b != 0 && vb != b) return 0;
        b = vb;
        any_padded = any_padded || padded(v);
        continue;
      }
      const ValueInfo& info = g_.info(v);
      if (!info.shape_known) return 0;
      if (per_channel_or_scalar(v, out[1])) continue;
      if (info.shape != out || info.dtype != ir::DType::Float32) return 0;
      nchw_activation = true;
    }
    return any_padded && nchw_activation ? 0 : b;
  }

  // A constant that broadcasts as one value or one value per channel
  // ([C, 1, 1] or [1, C, 1, 1]), or any scalar-like value ([], [1], ...).
  bool per_channel_or_scalar(const std::string& v, int64_t channels) const {
    const std::vector<int64_t>& s = g_.info(v).shape;
    if (ops::product(s) == 1 && s.size() <= 4) return true;
    if (!g_.is_constant(v)) return false;
    if (s == std::vector<int64_t>{channels, 1, 1}) return true;
    return s == std::vector<int64_t>{1, channels, 1, 1};
  }

  // Phase 2: n rewritten to read and write blocked values, after the
  // transforms and repacked constants it needs.
  void emit_blocked(const Node& n, std::vector<Node>& out) {
    Node b = n;
    const Blocked& result = blocked_.at(n.outputs[0]);
    b.outputs[0] = result.name;
    if (n.op_type == "Conv") {
      rewrite_conv(n, result.block, b, out);
    } else if (n.op_type == "Concat") {
      b.attrs.values["axis"] = int64_t{1};
      for (std::string& v : b.inputs) v = blocked_.at(v).name;
    } else if (n.op_type == "MaxPool" || n.op_type == "AveragePool" || n.op_type == "GlobalAveragePool" ||
               n.op_type == "GlobalMaxPool") {
      b.op_type += "NCHWc";
      b.inputs[0] = blocked_.at(n.inputs[0]).name;
    } else {
      int64_t channels = g_.info(n.outputs[0]).shape[1];
      for (std::string& v : b.inputs) {
        if (v.empty()) continue;
        const std::vector<int64_t>& s = g_.info(v).shape;
        int64_t elements = ops::product(s);
        if (block_of(v)) {
          v = blocked_.at(v).name;
        } else if (g_.is_constant(v) && elements == channels) {
          v = add_constant(v, pack_per_channel(g_.constants.at(v), channels, result.block, s.size() == 4),
                           result.block);
        } else if (elements > 1) {
          v = to_blocks(v, result.block, out);  // an NCHW activation of the output's shape
        }
      }
    }
    out.push_back(std::move(b));
  }

  void rewrite_conv(const Node& n, int64_t bo, Node& b, std::vector<Node>& out) {
    const runtime::NDArray& w = g_.constants.at(n.inputs[1]);
    const std::string& x = n.inputs[0];
    bool depthwise = n.attrs.get_int(n, "group", 1) != 1;
    int64_t bi = block_of(x) ? block_of(x) : depthwise ? bo : std::min(g_.info(x).shape[1], block_);
    b.op_type = "ConvNCHWc";
    b.inputs[0] = block_of(x) ? blocked_.at(x).name : to_blocks(x, bi, out);
    runtime::NDArray packed = pack_conv_weight(w, depthwise ? 1 : bi, bo);
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      runtime::NDArray bias = pack_per_channel(g_.constants.at(n.inputs[2]), w.shape()[0], bo, false);
      b.inputs[2] = add_constant(n.inputs[2], runtime::with_shape(bias, {blocks_of(w.shape()[0], bo), bo}), bo);
    }
    if (const int64_t m = winograd_ && winograd_eligible(n, w) ? winograd_(n) : 0; m != 0) {
      user_check(ops::winograd_tile_supported(m), "block_channels: no Winograd F(", m, "x", m, ", 3x3) for ", n.name);
      // Inputs X, U and the bias (or none); the attributes stay Conv's.
      b.op_type = "ConvWinogradNCHWc";
      const std::string f = m == 4 ? "winograd" : "winograd" + std::to_string(m);  // F(4x4)'s names as before
      b.inputs[1] = add_constant(n.inputs[1] + "." + f, ops::winograd_weights(packed, m), bo);
      return;
    }
    b.inputs[1] = add_constant(n.inputs[1], std::move(packed), bo);
  }

  // A plain fp32 3x3 convolution of stride 1, undilated, padded alike on
  // every side: what conv2d_winograd_nchwc computes.
  bool winograd_eligible(const Node& n, const runtime::NDArray& w) const {
    const std::vector<int64_t> ones = {1, 1};
    const std::vector<int64_t> pads = n.attrs.get_ints(n, "pads", {0, 0, 0, 0});
    return n.attrs.get_int(n, "group", 1) == 1 && w.dtype() == ir::DType::Float32 && w.shape().size() == 4 &&
           w.shape()[2] == 3 && w.shape()[3] == 3 && n.attrs.get_ints(n, "strides", ones) == ones &&
           n.attrs.get_ints(n, "dilations", ones) == ones &&
           n.attrs.get_string(n, "auto_pad", "NOTSET") == "NOTSET" && pads.size() == 4 &&
           std::all_of(pads.begin(), pads.end(), [&](int64_t p) { return p == pads[0]; });
  }

  // The transform of v's blocked twin back to v, dropping any padding.
  Node from_blocks(const std::string& v) {
    Node t = transform_node("FromChannelBlocks", blocked_.at(v).name, v, 0);
    if (padded(v)) t.attrs.values["channels"] = g_.info(v).shape[1];
    return t;
  }

  // The name of v in blocks of `block`, adding the transform the first time.
  std::string to_blocks(const std::string& v, int64_t block, std::vector<Node>& out) {
    auto key = std::make_pair(v, block);
    auto it = to_blocks_.find(key);
    if (it != to_blocks_.end()) return it->second;
    std::string name = g_.fresh_name(v + ".nchw" + std::to_string(block) + "c");
    g_.values[name] = {g_.info(v).dtype, blocked_shape(g_.info(v).shape, block)};
    out.push_back(transform_node("ToChannelBlocks", v, name, block));
    return to_blocks_[key] = name;
  }

  Node transform_node(const std::string& op, const std::string& from, const std::string& to, int64_t block) {
    Node t;
    t.name = g_.fresh_name(to + "." + op);
    t.op_type = op;
    t.inputs = {from};
    t.outputs = {to};
    if (block > 0) t.attrs.values["block"] = block;
    return t;
  }

  // A new constant named after base and its block (none for 0).
  std::string add_constant(const std::string& base, runtime::NDArray value, int64_t block) {
    std::string name = g_.fresh_name(block > 0 ? base + ".nchw" + std::to_string(block) + "c" : base);
    g_.values[name] = {value.dtype(), value.shape()};
    g_.constants[name] = std::move(value);
    return name;
  }

  Graph g_;
  int64_t block_;                                                      // the vector width
  WinogradChoice winograd_;                                            // which eligible 3x3 convolutions by Winograd
  std::map<std::string, Blocked> blocked_;                             // NCHW value -> its blocked twin
  std::map<std::pair<std::string, int64_t>, std::string> to_blocks_;  // (value, block) -> transformed
};

}  // namespace

Graph block_channels(Graph g, int64_t block, const WinogradChoice& winograd) {
  user_check(block >= 2, "block_channels: the channel block must be at least 2, not ", block);
  return eliminate_dead_code(ChannelBlocker(std::move(g), block, winograd).run());
}

}  // namespace tunectl::graph
