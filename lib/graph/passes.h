// Graph passes: Graph -> Graph rewrites run after import, in this order by
// simplify_graph(): remove Identity/Dropout, fold constants (any node whose
// inputs are all constant, including shape arithmetic: Shape, Gather,
// Unsqueeze, Concat, ConstantOfShape, Range, ... so that PyTorch exports and
// the "light" models reduce to static shapes and constant weights), fold
// BatchNormalization into a preceding Conv, eliminate dead nodes and
// constants. TUNECTL_DEBUG=1 prints node counts after each pass.
#pragma once

#include "graph/graph.h"

namespace tunectl::graph {

Graph remove_identities(Graph g);
Graph fold_constants(Graph g);
Graph fold_batch_norm(Graph g);
Graph eliminate_dead_code(Graph g);
Graph simplify_graph(Graph g);

}  // namespace tunectl::graph
