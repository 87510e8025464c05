// Writes transformer models the way Hugging Face's ONNX exports spell them
// (opset 17): a BERT encoder (embeddings, post-LayerNorm layers of
// self-attention and an erf-GELU feed-forward) and a GPT-2 decoder stack
// (pre-LayerNorm layers of causal self-attention through one fused QKV
// projection and Split, a tanh-GELU feed-forward, a final LayerNorm). Both
// take int64 token ids [1, seq] "input_ids" and return the last hidden state
// [1, seq, hidden]; the language-model head is left out. Weights are seeded
// pseudo-random numbers, so every run writes the same bytes.
//
// Usage: make_transformers <output folder> <config>...
//   bert_base   12 layers, hidden 768, 12 heads, seq 128, vocab 30522 (~420 MiB)
//   gpt2_small  12 layers, hidden 768, 12 heads, seq 128, vocab 50257 (~500 MiB)
//   bert_tiny, gpt2_tiny   2 layers, hidden 64, 4 heads, seq 16, vocab 100:
//               the same graphs, small enough for the repository and the tests
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "onnx_builder.h"

using namespace tunectl::models;  // NOLINT: a one-purpose program

namespace {

struct Config {
  bool decoder = false;  // GPT-2: pre-LayerNorm, causal, fused QKV; BERT otherwise
  int64_t layers = 0, hidden = 0, heads = 0, seq = 0, vocab = 0, max_positions = 0;
  float epsilon = 0;
};

const std::map<std::string, Config> kConfigs = {
    {"bert_base", {false, 12, 768, 12, 128, 30522, 512, 1e-12f}},
    {"gpt2_small", {true, 12, 768, 12, 128, 50257, 1024, 1e-5f}},
    {"bert_tiny", {false, 2, 64, 4, 16, 100, 64, 1e-12f}},
    {"gpt2_tiny", {true, 2, 64, 4, 16, 100, 64, 1e-5f}},
};

// Uniform weights with the standard deviation of both models' 0.02 normal init.
constexpr float kWeightBound = 0.0346f;

class TransformerBuilder {
 public:
  TransformerBuilder(const std::string& name, const Config& c) : b_(20241125, name, 17), c_(c) {
    b_.io(b_.graph()->add_input(), "input_ids", {1, c.seq}, onnx::TensorProto::INT64);
    b_.io(b_.graph()->add_output(), "last_hidden_state", {1, c.seq, c.hidden});
    heads_shape_ = b_.int64s("heads_shape", {4}, {1, c.seq, c.heads, c.hidden / c.heads});
    hidden_shape_ = b_.int64s("hidden_shape", {3}, {1, c.seq, c.hidden});
    scale_ = b_.floats("attention_scale", {}, {std::sqrt(static_cast<float>(c.hidden / c.heads))});
  }

  ModelBuilder& builder() { return b_; }

  std::string embeddings() {
    std::vector<int64_t> positions(static_cast<size_t>(c_.seq));
    for (int64_t i = 0; i < c_.seq; ++i) positions[static_cast<size_t>(i)] = i;
    std::string words = op("Gather", "embeddings.words",
                           {b_.weight("embeddings.word_table", {c_.vocab, c_.hidden}, kWeightBound), "input_ids"});
    std::string position_ids = b_.int64s("embeddings.position_ids", {1, c_.seq}, positions);
    std::string where = op(
        "Gather", "embeddings.positions",
        {b_.weight("embeddings.position_table", {c_.max_positions, c_.hidden}, kWeightBound), position_ids});
    std::string x = op("Add", "embeddings.sum", {words, where});
    if (c_.decoder) return x;
    // BERT: every token of segment 0, then a LayerNorm.
    x = op("Add", "embeddings.segment", {x, b_.weight("embeddings.segment_row", {c_.hidden}, kWeightBound)});
    return layer_norm("embeddings.norm", x);
  }

  std::string bert_layer(const std::string& p, const std::string& x) {
    std::string q = dense(p + "attention.query", x, c_.hidden, c_.hidden);
    std::string k = dense(p + "attention.key", x, c_.hidden, c_.hidden);
    std::string v = dense(p + "attention.value", x, c_.hidden, c_.hidden);
    std::string a = dense(p + "attention.output", attention(p + "attention.", q, k, v), c_.hidden, c_.hidden);
    std::string h = layer_norm(p + "attention.norm", op("Add", p + "attention.residual", {a, x}));
    std::string f = gelu_erf(p + "ffn.gelu", dense(p + "ffn.intermediate", h, c_.hidden, 4 * c_.hidden));
    f = dense(p + "ffn.output", f, 4 * c_.hidden, c_.hidden);
    return layer_norm(p + "ffn.norm", op("Add", p + "ffn.residual", {f, h}));
  }

  std::string gpt2_layer(const std::string& p, std::string x) {
    std::string h = layer_norm(p + "ln_1", x);
    std::string qkv = dense(p + "attn.c_attn", h, c_.hidden, 3 * c_.hidden);
    std::string split = b_.int64s(p + "attn.split_sizes", {3}, {c_.hidden, c_.hidden, c_.hidden});
    auto* n = b_.multi_output_node("Split", p + "attn.split", {qkv, split},
                                   {p + "attn.q", p + "attn.k", p + "attn.v"});
    ModelBuilder::attr(n, "axis", int64_t{2});
    std::string a = attention(p + "attn.", p + "attn.q", p + "attn.k", p + "attn.v");
    x = op("Add", p + "attn.residual", {x, dense(p + "attn.c_proj", a, c_.hidden, c_.hidden)});
    h = layer_norm(p + "ln_2", x);
    std::string f = gelu_tanh(p + "mlp.gelu", dense(p + "mlp.c_fc", h, c_.hidden, 4 * c_.hidden));
    return op("Add", p + "mlp.residual", {x, dense(p + "mlp.c_proj", f, 4 * c_.hidden, c_.hidden)});
  }

  std::string layer_norm(const std::string& name, const std::string& x) {
    std::string scale = b_.weight_in(name + ".weight", {c_.hidden}, 0.9f, 1.1f);
    std::string bias = b_.weight(name + ".bias", {c_.hidden}, 0.02f);
    auto* n = b_.node("LayerNormalization", name, {x, scale, bias}, name + "_out");
    ModelBuilder::attr(n, "axis", int64_t{-1});
    ModelBuilder::attr_f(n, "epsilon", c_.epsilon);
    return name + "_out";
  }

  // The last op writes the graph output.
  void finish(const std::string& x) { b_.node("Identity", "output", {x}, "last_hidden_state"); }

 private:
  std::string op(const std::string& type, const std::string& name, const std::vector<std::string>& inputs) {
    b_.node(type, name, inputs, name + "_out");
    return name + "_out";
  }

  // MatMul by a weight stored [in, out], then Add of the bias.
  std::string dense(const std::string& name, const std::string& x, int64_t in, int64_t out) {
    std::string y = op("MatMul", name, {x, b_.weight(name + ".weight", {in, out}, kWeightBound)});
    return op("Add", name + ".bias_add", {y, b_.weight(name + ".bias", {out}, 0.02f)});
  }

  // [1, seq, hidden] -> [1, heads, seq, head] (or [1, heads, head, seq] for keys).
  std::string split_heads(const std::string& name, const std::string& x, bool keys) {
    std::string r = op("Reshape", name + ".reshape", {x, heads_shape_});
    auto* t = b_.node("Transpose", name + ".transpose", {r}, name + ".transpose_out");
    ModelBuilder::attr(t, "perm", keys ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3});
    return name + ".transpose_out";
  }

  std::string attention(const std::string& p, const std::string& q, const std::string& k, const std::string& v) {
    std::string scores = op("MatMul", p + "scores", {split_heads(p + "q", q, false), split_heads(p + "k", k, true)});
    scores = op("Div", p + "scaled", {scores, scale_});
    if (c_.decoder) scores = op("Add", p + "causal", {scores, causal_mask()});
    auto* s = b_.node("Softmax", p + "softmax", {scores}, p + "softmax_out");
    ModelBuilder::attr(s, "axis", int64_t{-1});
    std::string context = op("MatMul", p + "context", {p + "softmax_out", split_heads(p + "v", v, false)});
    auto* t = b_.node("Transpose", p + "merge", {context}, p + "merge_out");
    ModelBuilder::attr(t, "perm", {0, 2, 1, 3});
    return op("Reshape", p + "merge.reshape", {p + "merge_out", hidden_shape_});
  }

  // 0 where a token may attend (itself and earlier ones), -10000 after it.
  std::string causal_mask() {
    if (!mask_.empty()) return mask_;
    std::vector<float> values(static_cast<size_t>(c_.seq * c_.seq));
    for (int64_t i = 0; i < c_.seq; ++i)
      for (int64_t j = 0; j < c_.seq; ++j) values[static_cast<size_t>(i * c_.seq + j)] = j <= i ? 0.0f : -10000.0f;
    mask_ = b_.floats("causal_mask", {1, 1, c_.seq, c_.seq}, values);
    return mask_;
  }

  std::string constant(const std::string& name, float value) {
    auto it = constants_.find(name);
    if (it == constants_.end()) it = constants_.emplace(name, b_.floats(name, {}, {value})).first;
    return it->second;
  }

  // x * 0.5 * (1 + erf(x / sqrt(2))): BERT's GELU as exported.
  std::string gelu_erf(const std::string& p, const std::string& x) {
    std::string e = op("Erf", p + ".erf", {op("Div", p + ".div", {x, constant("sqrt_2", std::sqrt(2.0f))})});
    std::string y = op("Mul", p + ".mul", {x, op("Add", p + ".add", {e, constant("one", 1.0f)})});
    return op("Mul", p + ".half", {y, constant("half", 0.5f)});
  }

  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))): GPT-2's GELU.
  std::string gelu_tanh(const std::string& p, const std::string& x) {
    std::string cube = op("Pow", p + ".cube", {x, constant("three", 3.0f)});
    std::string inner = op("Add", p + ".inner", {x, op("Mul", p + ".cubic", {cube, constant("gelu_c", 0.044715f)})});
    std::string t = op("Tanh", p + ".tanh",
                       {op("Mul", p + ".scale", {inner, constant("sqrt_2_over_pi", std::sqrt(2.0f / 3.14159265f))})});
    std::string y = op("Mul", p + ".mul", {x, op("Add", p + ".add", {t, constant("one", 1.0f)})});
    return op("Mul", p + ".half", {y, constant("half", 0.5f)});
  }

  ModelBuilder b_;
  Config c_;
  std::string heads_shape_, hidden_shape_, scale_, mask_;
  std::map<std::string, std::string> constants_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: make_transformers <output folder> <config>...  (configs:";
    for (const auto& [name, config] : kConfigs) std::cerr << " " << name;
    std::cerr << ")\n";
    return 1;
  }
  for (int i = 2; i < argc; ++i) {
    auto it = kConfigs.find(argv[i]);
    if (it == kConfigs.end()) {
      std::cerr << "make_transformers: unknown config " << argv[i] << "\n";
      return 1;
    }
    const Config& c = it->second;
    TransformerBuilder t(it->first, c);
    std::string x = t.embeddings();
    for (int64_t l = 0; l < c.layers; ++l) {
      const std::string p = "layer" + std::to_string(l) + ".";
      x = c.decoder ? t.gpt2_layer(p, x) : t.bert_layer(p, x);
    }
    if (c.decoder) x = t.layer_norm("ln_f", x);
    t.finish(x);
    write_message(t.builder().model(), std::string(argv[1]) + "/" + it->first + ".onnx");
  }
  return 0;
}
