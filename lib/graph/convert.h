// ONNX node -> tensor expressions. Each supported operator has a converter
// that builds te tensors (through ops/) from its input tensors and
// attributes; inputs that the operator needs as data at compile time (the
// shape of Reshape, the starts of Slice, the pads of Pad, ...) must be
// constants of the graph. Used by constant folding (evaluated with the
// reference evaluator), by partitioning (to build each subgraph's
// ComputeDAG) and nowhere else.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "ir/error.h"
#include "te/tensor.h"

namespace tunectl::graph {

// The closed set of supported ONNX operators, with how partitioning treats
// them: Anchor (conv, matmul, pooling, reductions, softmax, layernorm: the
// heart of a subgraph), Elementwise (fuses into a neighbouring anchor),
// Injective (reshape/transpose/slice/concat...: fuses too), Shape (only
// meaningful on constants; must be folded away before partitioning),
// Container (sequences and optionals: resolved into tensors when compiling,
// pass_composites.cpp).
#define TUNECTL_ONNX_OPS(X)                                                                              \
  X(Conv, Anchor) X(ConvTranspose, Anchor) X(Gemm, Anchor) X(MatMul, Anchor) X(MaxPool, Anchor)         \
  X(AveragePool, Anchor) X(GlobalAveragePool, Anchor) X(GlobalMaxPool, Anchor) X(Softmax, Anchor)       \
  X(LogSoftmax, Anchor) X(LayerNormalization, Anchor) X(ReduceMean, Anchor) X(ReduceSum, Anchor)        \
  X(ReduceMax, Anchor) X(ArgMax, Anchor) X(ArgMin, Anchor) X(Hardmax, Anchor)                           \
  X(CumSum, Anchor) X(InstanceNormalization, Anchor) X(RNN, Anchor) X(GRU, Anchor) X(LSTM, Anchor)      \
  X(ReduceMin, Anchor) X(ReduceProd, Anchor) X(ReduceL1, Anchor) X(ReduceL2, Anchor)                    \
  X(ReduceSumSquare, Anchor) X(ReduceLogSum, Anchor) X(ReduceLogSumExp, Anchor) X(Col2Im, Anchor)       \
  X(DFT, Anchor)                                                                                        \
  X(LRN, Anchor) X(BatchNormalization, Elementwise) X(Add, Elementwise) X(Sub, Elementwise)             \
  X(Mul, Elementwise) X(Div, Elementwise) X(Pow, Elementwise) X(Sqrt, Elementwise) X(Relu, Elementwise) \
  X(LeakyRelu, Elementwise) X(Clip, Elementwise) X(Sigmoid, Elementwise) X(Tanh, Elementwise)           \
  X(Erf, Elementwise) X(Gelu, Elementwise) X(Exp, Elementwise) X(Neg, Elementwise)                      \
  X(Reciprocal, Elementwise) X(Sum, Elementwise) X(Max, Elementwise) X(Min, Elementwise)                \
  X(Where, Elementwise) X(Cast, Elementwise) X(HardSigmoid, Elementwise) X(HardSwish, Elementwise)      \
  X(PRelu, Elementwise) X(Elu, Elementwise) X(Selu, Elementwise) X(Celu, Elementwise)                   \
  X(Softplus, Elementwise) X(Softsign, Elementwise) X(Mish, Elementwise)                                \
  X(ThresholdedRelu, Elementwise) X(Equal, Elementwise) X(Greater, Elementwise) X(Less, Elementwise)    \
  X(GreaterOrEqual, Elementwise) X(LessOrEqual, Elementwise) X(And, Elementwise) X(Or, Elementwise)     \
  X(Xor, Elementwise) X(Not, Elementwise) X(BitwiseAnd, Elementwise) X(BitwiseOr, Elementwise)          \
  X(BitwiseXor, Elementwise) X(BitwiseNot, Elementwise) X(BitShift, Elementwise)                        \
  X(Abs, Elementwise) X(Log, Elementwise)                                                               \
  X(Floor, Elementwise) X(Ceil, Elementwise) X(Round, Elementwise) X(Sin, Elementwise)                  \
  X(Cos, Elementwise) X(Sign, Elementwise) X(IsNaN, Elementwise) X(IsInf, Elementwise)                  \
  X(Mod, Elementwise) X(Mean, Elementwise) X(Flatten, Injective) X(Reshape, Injective)                  \
  X(Transpose, Injective) X(Concat, Injective) X(Split, Injective) X(Slice, Injective)                  \
  X(Gather, Injective) X(Unsqueeze, Injective) X(Squeeze, Injective) X(Pad, Injective)                  \
  X(Expand, Injective) X(DepthToSpace, Injective) X(SpaceToDepth, Injective) X(Tile, Injective)         \
  X(Identity, Injective) X(Dropout, Injective) X(Resize, Injective) X(Upsample, Injective)              \
  X(GridSample, Injective) X(AffineGrid, Injective) X(ReverseSequence, Injective)                       \
  X(Trilu, Injective) X(GatherElements, Injective) X(Tan, Elementwise) X(Asin, Elementwise)             \
  X(Acos, Elementwise) X(Atan, Elementwise) X(Sinh, Elementwise) X(Cosh, Elementwise)                   \
  X(Asinh, Elementwise) X(Acosh, Elementwise) X(Atanh, Elementwise) X(CastLike, Elementwise)            \
  X(GatherND, Injective) X(ScatterND, Anchor) X(ScatterElements, Anchor) X(Scatter, Anchor)             \
  X(TopK, Anchor) X(Einsum, Anchor) X(GroupNormalization, Anchor) X(LpNormalization, Anchor)            \
  X(QuantizeLinear, Elementwise) X(DequantizeLinear, Elementwise) X(NegativeLogLikelihoodLoss, Anchor)  \
  X(DynamicQuantizeLinear, Anchor) X(MatMulInteger, Anchor) X(ConvInteger, Anchor)                      \
  X(QLinearMatMul, Anchor) X(QLinearConv, Anchor) X(MeanVarianceNormalization, Anchor)                  \
  X(DeformConv, Anchor) X(MaxUnpool, Anchor)                                                            \
  X(SoftmaxCrossEntropyLoss, Anchor) X(Shrink, Elementwise) X(LpPool, Anchor) X(OneHot, Injective)      \
  X(EyeLike, Shape) X(HannWindow, Shape) X(HammingWindow, Shape) X(BlackmanWindow, Shape)               \
  X(CenterCropPad, Injective)                                                                           \
  X(Shape, Shape) X(Size, Shape)                                                                        \
  X(Constant, Shape) X(ConstantOfShape, Shape) X(Range, Shape)                                          \
  X(SequenceConstruct, Container) X(SequenceEmpty, Container) X(SequenceAt, Container)                  \
  X(SequenceLength, Container) X(SequenceInsert, Container) X(SequenceErase, Container)                 \
  X(SplitToSequence, Container) X(ConcatFromSequence, Container) X(Optional, Container)                 \
  X(OptionalHasElement, Container) X(OptionalGetElement, Container)

// Operators that only graph passes make, never read from a model: the
// channel-blocked layout's convolution and pooling (graph::block_channels;
// the ONNX op's attributes, data [N, C/b, H, W, b]) and its transforms, and
// the Winograd convolution (inputs X, transformed weight, bias or "", B^T, A^T),
// and a copy that starts a kernel of its own (graph::store_split_inputs).
#define TUNECTL_INTERNAL_OPS(X)                                                                            \
  X(ConvNCHWc, Anchor) X(MaxPoolNCHWc, Anchor) X(AveragePoolNCHWc, Anchor) X(GlobalAveragePoolNCHWc, Anchor)\
  X(GlobalMaxPoolNCHWc, Anchor) X(ToChannelBlocks, Injective) X(FromChannelBlocks, Injective)              \
  X(ConvWinogradNCHWc, Anchor) X(KernelBoundary, Injective)

enum class OpClass : uint8_t { Anchor, Elementwise, Injective, Shape, Container };

// Whether op_type is one of TUNECTL_ONNX_OPS (internal ops are not).
bool is_supported_op(const std::string& op_type);
// UserError naming the node for an unsupported op.
OpClass op_class(const Node& node);

// The error of a node input that must be known at compile time (Reshape's
// shape, Slice's starts, Resize's scales, ...) but is computed from graph
// inputs, which `inputs` names: a caller that knows their values binds them
// (graph::specialize) and converts again.
struct ShapeInputError : UserError {
  ShapeInputError(const std::string& message, std::vector<std::string> inputs)
      : UserError(message), inputs(std::move(inputs)) {}
  std::vector<std::string> inputs;
};

// Throws the ShapeInputError of `what` ("node 'r' (Reshape): input 1 ('s',
// the new shape)"), whose value `value` is computed from the graph inputs
// `from`.
[[noreturn]] void fail_shape_input(const std::string& what, const std::string& value, std::vector<std::string> from);

// Builds the node's outputs (one te::Tensor per ONNX output, in order) from
// tensors for its inputs (null for omitted optional inputs). Tensor names
// derive from the node's output names. UserError naming the node, op type and
// problem for an unsupported attribute value or a non-constant input that
// must be constant (a ShapeInputError when graph inputs decide it).
// A float16 value is stored, not computed in: the converter sees float16
// inputs cast to float32, and each output whose graph value (graph_outputs,
// when the node's outputs were renamed, else the node's own) is float16 is
// rounded back to it.
std::vector<te::Tensor> convert_node(const Node& node, const std::vector<te::Tensor>& inputs, const Graph& graph,
                                     const std::vector<std::string>& graph_outputs = {});

// tunectl has no rank-0 tensors: an ONNX scalar (shape []) is held as a
// tensor of shape [1]. The te shape for a value of ONNX shape onnx_shape;
// placeholders for graph inputs and constants are made with it, and
// convert_node's outputs follow it (their ONNX shape is the graph's).
std::vector<int64_t> te_shape(const std::vector<int64_t>& onnx_shape);

}  // namespace tunectl::graph
