// Graph passes: Graph -> Graph rewrites run after import, in this order by
// simplify_graph(): resolve sequences and optionals, remove
// Identity/Dropout, draw the masks of seeded training Dropouts, fold
// constants (any node whose inputs are all constant, including shape
// arithmetic: Shape, Gather,
// Unsqueeze, Concat, ConstantOfShape, Range, ... so that PyTorch exports and
// the "light" models reduce to static shapes and constant weights), fold
// BatchNormalization into a preceding Conv, eliminate dead nodes and
// constants. With -v (spdlog's debug level) it logs node counts after each
// pass.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "graph/graph.h"

namespace tunectl::graph {

// Specializes the graph to known values of some inputs: each becomes a
// constant and stops being an input, so the passes can fold what depends on
// it (tunectl compiles static shapes; a model that takes a shape, axes or
// indices as an input runs once those are fixed). UserError for a name that is
// not an input or a value of the wrong dtype or shape.
Graph bind_inputs(Graph g, const std::map<std::string, runtime::NDArray>& values);

// Sequences and optionals (pass_composites.cpp), resolved at compile time
// into the tensors they hold. expand_composite_inputs replaces each
// sequence or optional input that `values` gives by one tensor input per
// tensor, named element_input_name (NAME[i]) and shaped as that tensor,
// and adds those tensors to `feed`; resolve_composites (the first pass of
// simplify_graph) turns the operators on containers into operators on
// tensors and constants, and each output container into outputs of its
// tensors (Graph::composite_outputs). UserError naming the node for what
// cannot be known when compiling (a position that is not a constant, an
// empty optional read), or naming a container input that has no value.
Graph expand_composite_inputs(Graph g, const std::map<std::string, CompositeValue>& values,
                              std::map<std::string, runtime::NDArray>& feed);
std::string element_input_name(const std::string& input, size_t i);
Graph resolve_composites(Graph g);

Graph remove_identities(Graph g);
// Seeded training-mode Dropouts become x * constant mask (drawn as ONNX's
// reference draws it; pass_dropout_masks.cpp).
Graph draw_dropout_masks(Graph g);
Graph fold_constants(Graph g);
Graph fold_batch_norm(Graph g);
Graph eliminate_dead_code(Graph g);
Graph simplify_graph(Graph g);

// Runs the convolutions and the pooling, elementwise and concat nodes between
// them in the channel-blocked layout NCHW[block]c (pass_channel_blocks.cpp
// says which and how); the model's inputs and outputs keep their layout.
// Not part of simplify_graph: the block is the target's vector width. A
// plain 3x3 stride-1 convolution runs as Winograd F(m x m, 3x3) where
// `winograd` gives it a tile m (4 or 2; 0 or an empty choice: direct).
using WinogradChoice = std::function<int64_t(const Node& conv)>;
Graph block_channels(Graph g, int64_t block, const WinogradChoice& winograd = {});

// GPU targets: the input of each node of several outputs (Split; not an
// anchor such as TopK, which starts a kernel anyway) that another node
// computes goes through a KernelBoundary, a copy that starts a
// subgraph of its own, so that no one-kernel GPU task computes a reduction
// that several outputs read (pass_kernel_boundaries.cpp).
Graph store_split_inputs(Graph g);

}  // namespace tunectl::graph
