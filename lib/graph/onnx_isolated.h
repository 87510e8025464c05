// ONNX's checker, shape inference and version converter trust their input
// more than a model file from anywhere deserves: fuzzing found them reading
// through null or out of bounds on malformed models that earlier checks let
// through (a graph output nothing produces, a convolution whose input and
// weight ranks differ). Each runs in a forked child here, so that a crash in
// the ONNX library is a UserError naming the model and the step, never the
// end of tunectl.
#pragma once

#include <functional>
#include <string>

#include <onnx/onnx_pb.h>

namespace tunectl::graph {

// Returns step(model), computed in a child process. A UserError (or other
// exception) thrown there is rethrown here as a UserError with its message;
// a child that crashes or dies is a UserError naming `what` (e.g. "shape
// inference") and `path`. The result must serialize (under 2 GiB).
onnx::ModelProto run_isolated(const std::string& what, const std::string& path, const onnx::ModelProto& model,
                              const std::function<onnx::ModelProto(const onnx::ModelProto&)>& step);

}  // namespace tunectl::graph
