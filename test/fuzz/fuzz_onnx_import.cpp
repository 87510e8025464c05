// Fuzz target: ONNX model bytes -> import -> partition -> tasks, as `tunectl
// tune MODEL` starts.
#include "fuzz_input.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "tasks/extract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tunectl;
  const std::string path = fuzz::input_file(data, size, "model.onnx");
  fuzz::refusal_allowed([&] { tasks::extract_tasks(graph::partition(graph::import_onnx(path))); });
  return 0;
}
