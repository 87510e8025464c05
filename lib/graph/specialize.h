// Specializing a model on the values of inputs that decide shapes. tunectl
// compiles static shapes, so an input that Reshape takes as its shape (or
// Slice as its starts, Resize as its scales, Dropout as its training flag, ...)
// must be known when compiling: given its value (`--bind name=1,2,3`, or an
// input file of `run`), the input becomes a constant and the passes fold
// what depends on it. Only inputs that some operator needs at compile time
// are bound; the others stay inputs fed at run time.
#pragma once

#include <map>
#include <string>

#include "graph/graph.h"
#include "graph/import.h"

namespace tunectl::graph {

using InputValues = std::map<std::string, runtime::NDArray>;

// The ImportOptions' --bind values as arrays of their input's dtype and
// shape; UserError naming the input for an unknown name, a wrong count or a
// value its dtype cannot hold.
InputValues bound_values(const Graph& imported, const ImportOptions& options);

// The imported graph simplified (graph::simplify_graph), with every input
// that an operator needs at compile time bound to its value in `known`.
// UserError naming the node and the input when one has no known value; a
// known value of the wrong dtype or shape is a UserError too.
Graph specialize(const Graph& imported, const InputValues& known);

}  // namespace tunectl::graph
