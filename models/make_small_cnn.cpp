// Writes models/small_cnn.onnx, the small model the README's main job tunes,
// and small_cnn_input_0.pb, a seeded random input for it. The network covers
// the fusions the partitioner must handle: Conv + BatchNormalization + Relu,
// MaxPool, Conv + Relu, a residual Conv + Add + Relu, GlobalAveragePool,
// Flatten, Gemm and Softmax (opset 13). Weights are seeded pseudo-random
// numbers made from raw generator bits, so every platform writes the same
// bytes. Usage: make_small_cnn <output folder>
#include <string>
#include <vector>

#include "onnx_builder.h"

using namespace tunectl::models;  // NOLINT: a one-function program

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_small_cnn <output folder>\n";
    return 1;
  }
  std::string dir = argv[1];
  ModelBuilder b(20240607, "small_cnn");
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
