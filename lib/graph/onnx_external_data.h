// Step of graph::import: loads tensors stored outside the .onnx file (ONNX
// "external data": data_location EXTERNAL with location/offset/length
// entries) into raw_data, so that the checker, shape inference and the
// conversion to NDArray see ordinary tensors. A location must name a file
// inside the model's folder: absolute paths, ".." escapes and symlinks that
// lead out of it are refused, because a model file is untrusted input.
// Internal to lib/graph.
#pragma once

#include <filesystem>

#include <onnx/onnx_pb.h>

namespace tunectl::graph {

// Resolves every external tensor of the model (initializers and tensor
// attributes of nodes) against model_dir; UserError naming the tensor for a
// refused path, a missing file or a range outside the file.
void load_external_data(onnx::ModelProto& model, const std::filesystem::path& model_dir);

}  // namespace tunectl::graph
