// Writes the bench suite's one-operator ONNX models into <folder>/bench/
// (`tunectl bench` without a model imports them, extracts their single task
// and times its tuned kernel against oneDNN):
//   gemm_1024.onnx        MatMul [1024,1024] x [1024,1024]
//   gemm_4096.onnx        MatMul [4096,4096] x [4096,4096] (the GPU's SGEMM workload; no CPU row)
//   conv3x3_resnet.onnx   Conv 1x64x56x56, 64 filters 3x3, pad 1, bias, Relu (ResNet-50 stage 1)
//   conv1x1_resnet.onnx   Conv 1x64x56x56, 256 filters 1x1, bias, Relu (ResNet-50 stage 1 expansion)
//   conv7x7_stem.onnx     Conv 1x3x224x224, 64 filters 7x7, stride 2, pad 3, bias, Relu (ResNet-50's stem)
//   conv3x3_s2_resnet.onnx  Conv 1x128x56x56, 128 filters 3x3, stride 2, pad 1, bias, Relu (stage 2's first 3x3)
//   conv1x1_s2_resnet.onnx  Conv 1x256x56x56, 512 filters 1x1, stride 2, bias, Relu (stage 2's projection)
//   depthwise3x3_mobilenet.onnx  depthwise Conv 1x32x112x112, 3x3, pad 1, bias, Relu (MobileNet's first)
//   dense_bert.onnx       MatMul [128,768] x W[768,3072] + b (BERT-base FFN, as exported)
// Weights and biases are model constants, as in a real model, so tuning may
// prepack them (oneDNN, too, reorders its weights when its primitive is
// built); GEMM's B stays an input, a product of two activations. The
// constants are ConstantOfShape nodes, so the files stay a few hundred bytes:
// the bench feeds the same seeded random values to the tunectl kernel and to
// oneDNN and needs only their shapes. Usage: make_bench_models <output folder>
#include <string>
#include <vector>

#include "onnx_builder.h"

using namespace tunectl::models;  // NOLINT: a one-function program

namespace {

// A model whose graph inputs are `inputs` (name, shape) and whose single
// output is "output" of shape out.
ModelBuilder start(const std::string& name, const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputs) {
  ModelBuilder b(0, name);
  for (const auto& [input, shape] : inputs) b.io(b.graph()->add_input(), input, shape);
  return b;
}

void finish(ModelBuilder& b, const std::vector<int64_t>& out, const std::string& path) {
  b.io(b.graph()->add_output(), "output", out);
  write_message(b.model(), path);
}

// Conv (bias, then Relu) of a [1, in_ch, size, size] input; a stride, and
// groups (in_ch = out_ch = groups: depthwise).
struct ConvSpec {
  int64_t in_ch, out_ch, kernel, size, stride = 1, groups = 1;
};

void conv_relu(const std::string& name, const ConvSpec& c, const std::string& path) {
  const int64_t pad = c.kernel / 2;
  const int64_t out = (c.size + 2 * pad - c.kernel) / c.stride + 1;
  ModelBuilder b = start(name, {{"data", {1, c.in_ch, c.size, c.size}}});
  b.filled_constant("weight", {c.out_ch, c.in_ch / c.groups, c.kernel, c.kernel}, 0.01f);
  b.filled_constant("bias", {c.out_ch}, 0.01f);
  auto* conv = b.node("Conv", "conv", {"data", "weight", "bias"}, "conv_out");
  ModelBuilder::attr(conv, "kernel_shape", {c.kernel, c.kernel});
  ModelBuilder::attr(conv, "pads", {pad, pad, pad, pad});
  ModelBuilder::attr(conv, "strides", {c.stride, c.stride});
  if (c.groups > 1) ModelBuilder::attr(conv, "group", c.groups);
  b.node("Relu", "relu", {"conv_out"}, "output");
  finish(b, {1, c.out_ch, out, out}, path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_bench_models <output folder>\n";
    return 1;
  }
  const std::string dir = std::string(argv[1]) + "/bench/";

  ModelBuilder gemm = start("gemm_1024", {{"A", {1024, 1024}}, {"B", {1024, 1024}}});
  gemm.node("MatMul", "matmul", {"A", "B"}, "output");
  finish(gemm, {1024, 1024}, dir + "gemm_1024.onnx");
  ModelBuilder gemm_4096 = start("gemm_4096", {{"A", {4096, 4096}}, {"B", {4096, 4096}}});
  gemm_4096.node("MatMul", "matmul", {"A", "B"}, "output");
  finish(gemm_4096, {4096, 4096}, dir + "gemm_4096.onnx");

  conv_relu("conv3x3_resnet", {64, 64, 3, 56}, dir + "conv3x3_resnet.onnx");
  conv_relu("conv1x1_resnet", {64, 256, 1, 56}, dir + "conv1x1_resnet.onnx");
  conv_relu("conv7x7_stem", {3, 64, 7, 224, 2}, dir + "conv7x7_stem.onnx");
  conv_relu("conv3x3_s2_resnet", {128, 128, 3, 56, 2}, dir + "conv3x3_s2_resnet.onnx");
  conv_relu("conv1x1_s2_resnet", {256, 512, 1, 56, 2}, dir + "conv1x1_s2_resnet.onnx");
  conv_relu("depthwise3x3_mobilenet", {32, 32, 3, 112, 1, 32}, dir + "depthwise3x3_mobilenet.onnx");

  // As Hugging Face's BERT exports write a dense layer: MatMul with the
  // weight stored [in, out], then Add of the bias.
  ModelBuilder dense = start("dense_bert", {{"x", {128, 768}}});
  dense.filled_constant("weight", {768, 3072}, 0.01f);
  dense.filled_constant("bias", {3072}, 0.01f);
  dense.node("MatMul", "dense", {"x", "weight"}, "dense_out");
  dense.node("Add", "bias", {"dense_out", "bias"}, "output");
  finish(dense, {128, 3072}, dir + "dense_bert.onnx");
  return 0;
}
