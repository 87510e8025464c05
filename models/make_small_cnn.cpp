// Writes models/small_cnn.onnx, the small model the README's main job tunes,
// and small_cnn_input_0.pb, a seeded random input for it. The network covers
// the fusions the partitioner must handle: Conv + BatchNormalization + Relu,
// MaxPool, Conv + Relu, a residual Conv + Add + Relu, GlobalAveragePool,
// Flatten, Gemm and Softmax (opset 13). Weights are seeded pseudo-random
// numbers made from raw generator bits, so every platform writes the same
// bytes. Usage: make_small_cnn <output folder>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace {

// Uniform floats in [lo, hi) from the top 24 bits of a 64-bit Mersenne
// twister: unlike std::uniform_real_distribution, the same on every library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  float uniform(float lo, float hi) {
    float unit = static_cast<float>(gen_() >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * unit;
  }

 private:
  std::mt19937_64 gen_;
};

std::vector<float> random_values(Rng& rng, int64_t count, float lo, float hi) {
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}

void fill_tensor(onnx::TensorProto* t, const std::string& name, const std::vector<int64_t>& dims,
                 const std::vector<float>& values) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(values.data(), values.size() * sizeof(float));
}

class ModelBuilder {
 public:
  ModelBuilder() : rng_(20240607) {
    model_.set_ir_version(7);
    model_.set_producer_name("tunectl make_small_cnn");
    model_.set_producer_version("1");
    auto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(13);
    graph()->set_name("small_cnn");
  }

  onnx::GraphProto* graph() { return model_.mutable_graph(); }
  onnx::ModelProto& model() { return model_; }

  void io(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  }

  // An initializer of uniform values in [-bound, bound).
  std::string weight(const std::string& name, const std::vector<int64_t>& dims, float bound) {
    return weight_in(name, dims, -bound, bound);
  }
  // An initializer of uniform values in [lo, hi).
  std::string weight_in(const std::string& name, const std::vector<int64_t>& dims, float lo, float hi) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    fill_tensor(graph()->add_initializer(), name, dims, random_values(rng_, count, lo, hi));
    return name;
  }

  onnx::NodeProto* node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                        const std::string& output) {
    auto* n = graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& in : inputs) n->add_input(in);
    n->add_output(output);
    return n;
  }

  static void attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& ints) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : ints) a->add_ints(v);
  }
  static void attr(onnx::NodeProto* n, const std::string& name, int64_t i) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(i);
  }
  static void attr_f(onnx::NodeProto* n, const std::string& name, float f) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(f);
  }

  // A 3x3 convolution with padding 1 and a bias; He-style weight bound.
  std::string conv3x3(const std::string& name, const std::string& input, int64_t in_ch, int64_t out_ch) {
    float bound = std::sqrt(6.0f / static_cast<float>(in_ch * 9));
    std::string w = weight(name + ".weight", {out_ch, in_ch, 3, 3}, bound);
    std::string b = weight(name + ".bias", {out_ch}, 0.1f);
    auto* n = node("Conv", name, {input, w, b}, name + "_out");
    attr(n, "kernel_shape", {3, 3});
    attr(n, "pads", {1, 1, 1, 1});
    attr(n, "strides", {1, 1});
    return name + "_out";
  }

  std::string relu(const std::string& name, const std::string& input) {
    node("Relu", name, {input}, name + "_out");
    return name + "_out";
  }

 private:
  onnx::ModelProto model_;
  Rng rng_;
};

void write_message(const google::protobuf::MessageLite& message, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !message.SerializeToOstream(&out)) {
    std::cerr << "make_small_cnn: cannot write " << path << "\n";
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_small_cnn <output folder>\n";
    return 1;
  }
  std::string dir = argv[1];
  ModelBuilder b;
  b.io(b.graph()->add_input(), "input", {1, 3, 32, 32});

  std::string x = b.conv3x3("conv1", "input", 3, 16);
  std::vector<std::string> bn_inputs = {x, b.weight_in("bn1.scale", {16}, 0.5f, 1.5f),
                                        b.weight("bn1.bias", {16}, 0.2f), b.weight("bn1.mean", {16}, 0.2f),
                                        b.weight_in("bn1.var", {16}, 0.5f, 1.5f)};
  ModelBuilder::attr_f(b.node("BatchNormalization", "bn1", bn_inputs, "bn1_out"), "epsilon", 1e-5f);
  x = b.relu("relu1", "bn1_out");
  auto* pool = b.node("MaxPool", "pool1", {x}, "pool1_out");
  ModelBuilder::attr(pool, "kernel_shape", {2, 2});
  ModelBuilder::attr(pool, "strides", {2, 2});
  x = b.relu("relu2", b.conv3x3("conv2", "pool1_out", 16, 32));
  std::string residual = b.conv3x3("conv3", x, 32, 32);
  b.node("Add", "add3", {residual, x}, "add3_out");
  x = b.relu("relu3", "add3_out");
  b.node("GlobalAveragePool", "gap", {x}, "gap_out");
  ModelBuilder::attr(b.node("Flatten", "flatten", {"gap_out"}, "flatten_out"), "axis", 1);
  std::string fc_w = b.weight("fc.weight", {10, 32}, std::sqrt(6.0f / 32.0f));
  std::string fc_b = b.weight("fc.bias", {10}, 0.1f);
  ModelBuilder::attr(b.node("Gemm", "fc", {"flatten_out", fc_w, fc_b}, "logits"), "transB", 1);
  ModelBuilder::attr(b.node("Softmax", "softmax", {"logits"}, "output"), "axis", 1);
  b.io(b.graph()->add_output(), "output", {1, 10});
  write_message(b.model(), dir + "/small_cnn.onnx");

  Rng input_rng(7);
  onnx::TensorProto input;
  fill_tensor(&input, "input", {1, 3, 32, 32}, random_values(input_rng, 3 * 32 * 32, -1.0f, 1.0f));
  write_message(input, dir + "/small_cnn_input_0.pb");
  return 0;
}
