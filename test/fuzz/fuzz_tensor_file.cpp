// Fuzz target: an input file of `tunectl run --input`: a NumPy .npy file
// (starting with its magic) or else an ONNX .pb file, read as a TensorProto
// and as each container (SequenceProto, OptionalProto of a tensor or of a
// sequence).
#include <cstring>

#include "fuzz_input.h"
#include "graph/npy.h"
#include "graph/tensor_proto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tunectl;
  const bool npy = size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0;
  const std::string path = fuzz::input_file(data, size, npy ? "input.npy" : "input.pb");
  fuzz::refusal_allowed([&] {
    if (npy) {
      graph::read_npy(path);
    } else {
      graph::read_tensor_pb(path);
    }
  });
  if (npy) return 0;
  for (graph::ValueKind kind :
       {graph::ValueKind::Sequence, graph::ValueKind::OptionalTensor, graph::ValueKind::OptionalSequence})
    fuzz::refusal_allowed([&] { graph::read_composite_pb(path, kind); });
  return 0;
}
