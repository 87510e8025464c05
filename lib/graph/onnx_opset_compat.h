// Step of graph::import, before ONNX's checker and shape inference: the
// installed ONNX library (libonnx 1.12) knows opsets up to 17, while tunectl
// accepts models up to opset 18. For a newer model this rewrites a working
// copy into the equivalent older form the library understands (opset 18's
// axes inputs of the Reduce* ops become attributes, Split's num_outputs is
// dropped, the opset import is lowered), so that checking and inference use
// the right semantics instead of silently applying opset-17 schemas to
// opset-18 nodes; a reduction whose axes are computed at run time becomes a
// node of unknown output shape in the copy. The Graph itself is still built
// from the original nodes.
// Internal to lib/graph.
#pragma once

#include <onnx/onnx_pb.h>

namespace tunectl::graph {

// The highest opset of the default domain the ONNX library knows.
int onnx_library_max_opset();

// Rewrites model (default-domain opset `opset`) into the library's newest
// opset when it is newer; UserError naming the node when a node cannot be
// expressed there (Pad's axes input). Also lowers an IR version newer than
// the library's checker accepts.
void downgrade_to_library_opset(onnx::ModelProto& model, int opset);

}  // namespace tunectl::graph
