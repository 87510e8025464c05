// Generates models/dynamic/ocr_det_tiny.onnx: a text-detector-shaped model
// as mobile OCR exporters write it, with dynamic batch, height and width
// ("N", "H", "W") and the operators those models stop at elsewhere:
// HardSwish, a squeeze-and-excitation gate with HardSigmoid, ConvTranspose
// and Resize (opset 14). Input "x" [N, 3, H, W], output "y" [N, 1, 2H, 2W];
// H and W even. Seeded weights: identical bytes on every run.
#include <string>
#include <vector>

#include "onnx_builder.h"

using namespace tunectl::models;  // NOLINT: a one-function program

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_dynamic_ocr <output folder>\n";
    return 1;
  }
  const std::string dir = argv[1];
  ModelBuilder b(20261126, "ocr_det_tiny", 14);
  b.io_symbolic(b.graph()->add_input(), "x", {"N", "3", "H", "W"});

  // Stem: 3x3 stride 2, HardSwish.
  auto* stem = b.node("Conv", "stem", {"x", b.weight("stem.weight", {8, 3, 3, 3}, 0.47f), b.weight("stem.bias", {8}, 0.1f)},
                      "stem_out");
  ModelBuilder::attr(stem, "kernel_shape", {3, 3});
  ModelBuilder::attr(stem, "strides", {2, 2});
  ModelBuilder::attr(stem, "pads", {1, 1, 1, 1});
  b.node("HardSwish", "stem_act", {"stem_out"}, "stem_act_out");
  std::string x = b.conv3x3("block", "stem_act_out", 8, 8);

  // Squeeze and excitation: global pool, 1x1 conv, HardSigmoid gate.
  b.node("GlobalAveragePool", "se_pool", {x}, "se_pool_out");
  auto* se = b.node("Conv", "se_fc", {"se_pool_out", b.weight("se.weight", {8, 8, 1, 1}, 0.6f), b.weight("se.bias", {8}, 0.1f)},
                    "se_fc_out");
  ModelBuilder::attr(se, "kernel_shape", {1, 1});
  auto* gate = b.node("HardSigmoid", "se_gate", {"se_fc_out"}, "se_gate_out");
  ModelBuilder::attr_f(gate, "alpha", 0.2f);
  ModelBuilder::attr_f(gate, "beta", 0.5f);
  b.node("Mul", "se_scale", {x, "se_gate_out"}, "se_out");

  // Back to full resolution: ConvTranspose 2x2 stride 2, then Resize x2 (nearest).
  auto* up = b.node("ConvTranspose", "up", {"se_out", b.weight("up.weight", {8, 4, 2, 2}, 0.35f), b.weight("up.bias", {4}, 0.1f)},
                    "up_out");
  ModelBuilder::attr(up, "kernel_shape", {2, 2});
  ModelBuilder::attr(up, "strides", {2, 2});
  const std::string roi = b.floats("resize.roi", {0}, {});
  const std::string scales = b.floats("resize.scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
  auto* resize = b.node("Resize", "resize", {"up_out", roi, scales}, "resize_out");
  auto* mode = resize->add_attribute();
  mode->set_name("mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("nearest");

  // Probability map: 1x1 conv, Sigmoid.
  auto* head = b.node("Conv", "head", {"resize_out", b.weight("head.weight", {1, 4, 1, 1}, 0.9f), b.weight("head.bias", {1}, 0.1f)},
                      "head_out");
  ModelBuilder::attr(head, "kernel_shape", {1, 1});
  b.node("Sigmoid", "prob", {"head_out"}, "y");
  b.io_symbolic(b.graph()->add_output(), "y", {"N", "1", "H2", "W2"});
  write_message(b.model(), dir + "/ocr_det_tiny.onnx");
  return 0;
}
