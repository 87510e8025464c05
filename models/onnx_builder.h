// What the model generators (make_small_cnn, make_bench_models) share: a
// seeded generator whose floats are the same on every platform and standard
// library, and a small builder of ONNX protobuf graphs (inputs, initializers,
// nodes, attributes), so that scripts/make-models.sh rewrites identical bytes.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace tunectl::models {


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

inline std::vector<float> random_values(Rng& rng, int64_t count, float lo, float hi) {
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}

inline void fill_tensor(onnx::TensorProto* t, const std::string& name, const std::vector<int64_t>& dims,
                 const std::vector<float>& values) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(values.data(), values.size() * sizeof(float));
}

class ModelBuilder {
 public:
  // seed: of the weights' generator; name: the graph's and producer's name.
  ModelBuilder(uint64_t seed, const std::string& name, int64_t opset_version = 13) : rng_(seed) {
    model_.set_ir_version(7);
    model_.set_producer_name("tunectl make_" + name);
    model_.set_producer_version("1");
    auto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(opset_version);
    graph()->set_name(name);
  }

  onnx::GraphProto* graph() { return model_.mutable_graph(); }
  onnx::ModelProto& model() { return model_; }

  void io(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims,
          int32_t elem_type = onnx::TensorProto::FLOAT) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  // A float value of dimensions each a number ("3") or a symbol ("N"), as
  // exporters write dynamic axes.
  void io_symbolic(onnx::ValueInfoProto* v, const std::string& name, const std::vector<std::string>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (const std::string& d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) dim->set_dim_value(std::stoll(d));
      else dim->set_dim_param(d);
    }
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

  // An int64 initializer (shapes, axes, indices).
  std::string int64s(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
    auto* t = graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return name;
  }
  // A float initializer of the given values.
  std::string floats(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& values) {
    fill_tensor(graph()->add_initializer(), name, dims, values);
    return name;
  }

  // A constant of shape dims filled with value: a ConstantOfShape node, a
  // few bytes in the file however large the tensor (for models whose
  // weights only need a shape and to be constant).
  std::string filled_constant(const std::string& name, const std::vector<int64_t>& dims, float value) {
    auto* shape = graph()->add_initializer();
    shape->set_name(name + ".shape");
    shape->set_data_type(onnx::TensorProto::INT64);
    shape->add_dims(static_cast<int64_t>(dims.size()));
    for (int64_t d : dims) shape->add_int64_data(d);
    auto* n = node("ConstantOfShape", name, {name + ".shape"}, name);
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->add_float_data(value);
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

  // A node of several outputs (Split).
  onnx::NodeProto* multi_output_node(const std::string& op, const std::string& name,
                                     const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
    auto* n = node(op, name, inputs, outputs.front());
    for (size_t i = 1; i < outputs.size(); ++i) n->add_output(outputs[i]);
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

inline void write_message(const google::protobuf::MessageLite& message, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !message.SerializeToOstream(&out)) {
    std::cerr << "cannot write " << path << "\n";
    std::exit(1);
  }
}

}  // namespace tunectl::models
