// Tensor expressions: the compute definitions that ops/ writes and that a task
// tunes. A Tensor is either a placeholder (an input) or a compute op: one
// spatial axis per output dimension and a body expression that reads other
// tensors through Loads of their buffers. A body may be a Reduce only at the
// top. Sits between ir (expressions) and schedule (loop states over a DAG).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tunectl::te {

enum class OpKind : uint8_t { Placeholder, Compute };

struct TensorNode;
using Tensor = std::shared_ptr<const TensorNode>;

struct TensorNode {
  std::string name;
  OpKind op_kind = OpKind::Placeholder;
  // Storage of this tensor's values; its shape and dtype are the tensor's.
  ir::Buffer buffer;
  // Compute only: one spatial axis per output dimension, in order.
  std::vector<ir::IterVar> axes;
  // Compute only: the value at the point `axes`; a ReduceNode at the top for
  // reductions (its axes are the reduce axes).
  ir::Expr body;
  // Compute only: the tensors the body reads, in first-read order, no repeats.
  std::vector<Tensor> inputs;
  // A short label of the operator family ("conv2d", "matmul", "elemwise",
  // "injective", ...). Informational; schedule rules decide from structure.
  std::string tag;
  // Placeholder only: the value is a model constant (a weight), known when
  // the model loads, so a kernel may take it in a layout of its own, packed
  // once outside its calls (schedule::PrepackStep).
  bool constant = false;

  TensorNode() = default;
  TensorNode(const TensorNode&) = default;
  TensorNode& operator=(const TensorNode&) = default;
  // Releases the inputs without recursion: the default teardown recursed
  // once per tensor of a chain and overflowed the stack on a model of
  // 10,000 element-wise operators.
  ~TensorNode();

  const std::vector<int64_t>& shape() const { return buffer->shape; }
  ir::DType dtype() const { return buffer->dtype; }
  bool is_placeholder() const { return op_kind == OpKind::Placeholder; }
  // The reduce node at the top of body, or nullptr.
  const ir::ReduceNode* reduce() const { return body.as<ir::ReduceNode>(); }
};

// An input tensor; `constant` for a model constant (TensorNode::constant).
Tensor placeholder(const std::string& name, std::vector<int64_t> shape, ir::DType dtype = ir::DType::Float32,
                   bool constant = false);

// A compute op: fcompute receives one index variable per dimension of shape
// and returns the value there. Inputs are found from the Loads in the body.
Tensor compute(const std::string& name, std::vector<int64_t> shape,
               const std::function<ir::Expr(const std::vector<ir::Var>&)>& fcompute, const std::string& tag = "",
               ir::DType dtype = ir::DType::Float32);

// A new reduction axis of the given extent.
ir::IterVar reduce_axis(int64_t extent, const std::string& name);

// Reduction expressions over axes (to be returned by fcompute).
ir::Expr sum(ir::Expr source, std::vector<ir::IterVar> axes);
ir::Expr max_reduce(ir::Expr source, std::vector<ir::IterVar> axes);
ir::Expr min_reduce(ir::Expr source, std::vector<ir::IterVar> axes);

// t(i, j, ...) as an expression: a Load of t's buffer.
ir::Expr read(const Tensor& t, std::vector<ir::Expr> indices);

}  // namespace tunectl::te
