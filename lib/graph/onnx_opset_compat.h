// Step of graph::import, before ONNX's checker and shape inference: what
// differs between the opsets tunectl accepts (6 to 21) and what the installed
// ONNX library (libonnx 1.12, opsets up to 17) understands. Opset 6 models
// are checked by the library's own opset-6 schemas; what tunectl cannot give
// their meaning (training-mode is_test = 0) is refused here. For a model
// newer than the library this rewrites a working copy into the equivalent
// opset-17 form (opset 18's axes inputs of the Reduce* ops become
// attributes, Split's num_outputs is dropped, opset 19's Cast saturate and
// all-1 AveragePool dilations are dropped, the operators the library has
// no schema for (Mish, GroupNormalization, Gelu) become same-shape
// Identities, the opset import is lowered), so that checking and inference
// use the right semantics instead of silently applying opset-17 schemas to
// newer nodes; a node whose output shape a newer input or attribute decides
// (a reduction's axes computed at run time, Pad's axes, AveragePool's and
// LpPool's dilations, CenterCropPad) becomes a node of unknown output shape
// in the copy. The Graph
// itself is still built from the original nodes. Internal to lib/graph.
#pragma once

#include <map>
#include <string>

#include <onnx/onnx_pb.h>

namespace tunectl::graph {

// The highest opset of the default domain the ONNX library knows.
int onnx_library_max_opset();

// The supported operators newer than the library, with the opset that
// introduced each; every one keeps its first input's type, and all but
// CenterCropPad its shape.
const std::map<std::string, int>& ops_newer_than_library();

// For an opset-6 graph: UserError naming the node when a BatchNormalization
// or Dropout runs in training mode (is_test = 0, the default then).
void check_legacy_opset(const onnx::GraphProto& graph, int opset);

// Rewrites model (default-domain opset `opset`, 18 to 21) into the library's
// newest opset when it is newer; UserError naming the node, op and attribute
// or input when a node cannot be expressed there or tunectl does not
// implement it (Pad's axes input and wrap mode, AveragePool dilations other
// than 1). Also lowers an IR version newer than the library's checker accepts.
void downgrade_to_library_opset(onnx::ModelProto& model, int opset);

}  // namespace tunectl::graph
