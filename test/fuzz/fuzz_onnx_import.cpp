// Fuzz target: ONNX model bytes -> import -> partition -> tasks, and the
// same after specializing (the passes), as `tunectl tune MODEL` starts.
#include "fuzz_input.h"
#include "graph/import.h"
#include "graph/partition.h"
#include "graph/specialize.h"
#include "tasks/extract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tunectl;
  const std::string path = fuzz::input_file(data, size, "model.onnx");
  fuzz::refusal_allowed([&] {
    const graph::Graph imported = graph::import_onnx(path);
    tasks::extract_tasks(graph::partition(imported));
    tasks::extract_tasks(graph::partition(graph::specialize(imported, graph::bound_values(imported, {}))));
  });
  return 0;
}
