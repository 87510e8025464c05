#include "te/tensor.h"

#include <mutex>
#include <unordered_map>

#include "ir/error.h"
#include "ir/functor.h"

namespace tunectl::te {

namespace {

// Which tensor owns a buffer: compute() finds its inputs from the Loads of its
// body, and a Load names only a buffer. Weak references, so the registry never
// keeps a tensor alive; an expired entry is a buffer whose tensor is gone.
class TensorRegistry {
 public:
  static TensorRegistry& get() {
    static TensorRegistry registry;
    return registry;
  }

  void add(const Tensor& t) {
    std::lock_guard<std::mutex> lock(mu_);
    if (++adds_since_sweep_ >= 4096) sweep();
    entries_[t->buffer.get()] = t;
  }

  Tensor find(const ir::BufferNode* b) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(b);
    return it == entries_.end() ? nullptr : it->second.lock();
  }

 private:
  // Drops expired entries so the map stays proportional to live tensors.
  void sweep() {
    adds_since_sweep_ = 0;
    std::erase_if(entries_, [](const auto& kv) { return kv.second.expired(); });
  }

  std::mutex mu_;
  std::unordered_map<const ir::BufferNode*, std::weak_ptr<const TensorNode>> entries_;
  int adds_since_sweep_ = 0;
};

// Checks the body of compute op `name` and collects the tensors it reads.
class BodyChecker : public ir::IRVisitor {
 public:
  explicit BodyChecker(const std::string& name) : name_(name) {}
  std::vector<Tensor> inputs;

 protected:
  void visit_Load(const ir::LoadNode* op) override {
    Tensor t = TensorRegistry::get().find(op->buffer.get());
    user_check(t != nullptr, "compute '", name_, "' reads buffer '", op->buffer->name,
               "' that belongs to no live tensor");
    user_check(op->indices.size() == t->shape().size(), "compute '", name_, "' reads '", t->name, "' with ",
               op->indices.size(), " indices but it has rank ", t->shape().size());
    bool seen = false;
    for (const auto& in : inputs) seen = seen || in.get() == t.get();
    if (!seen) inputs.push_back(t);
    ir::IRVisitor::visit_Load(op);
  }
  void visit_Reduce(const ir::ReduceNode* op) override {
    user_fail("compute '", name_, "' has a reduction below the top of its body");
  }

 private:
  const std::string& name_;
};

Tensor register_tensor(std::shared_ptr<TensorNode> node) {
  Tensor t = std::move(node);
  TensorRegistry::get().add(t);
  return t;
}

ir::Expr make_reduction(ir::ReduceOp op, ir::Expr source, std::vector<ir::IterVar> axes) {
  user_check(!axes.empty(), "a reduction needs at least one axis");
  for (const auto& a : axes)
    user_check(a.kind == ir::IterKind::Reduce && a.extent >= 0, "reduction axis '", a.var.name(),
               "' is not a reduce axis with an extent of zero or more");
  return ir::make_reduce(op, std::move(source), std::move(axes));
}

}  // namespace

TensorNode::~TensorNode() {
  // The outermost teardown on this thread drains a queue; the tensors that
  // die meanwhile add their inputs to it instead of releasing them.
  thread_local std::vector<Tensor>* draining = nullptr;
  if (draining) {
    for (Tensor& t : inputs) draining->push_back(std::move(t));
    return;
  }
  std::vector<Tensor> queue = std::move(inputs);
  draining = &queue;
  while (!queue.empty()) {
    Tensor last = std::move(queue.back());
    queue.pop_back();
    last.reset();
  }
  draining = nullptr;
}

Tensor placeholder(const std::string& name, std::vector<int64_t> shape, ir::DType dtype, bool constant) {
  auto node = std::make_shared<TensorNode>();
  node->name = name;
  node->op_kind = OpKind::Placeholder;
  node->constant = constant;
  node->buffer = ir::Buffer(name, dtype, std::move(shape));
  return register_tensor(std::move(node));
}

Tensor compute(const std::string& name, std::vector<int64_t> shape,
               const std::function<ir::Expr(const std::vector<ir::Var>&)>& fcompute, const std::string& tag,
               ir::DType dtype) {
  auto node = std::make_shared<TensorNode>();
  node->name = name;
  node->op_kind = OpKind::Compute;
  node->tag = tag;
  node->buffer = ir::Buffer(name, dtype, shape);
  std::vector<ir::Var> vars;
  for (size_t i = 0; i < shape.size(); ++i) {
    ir::Var v(name + "_i" + std::to_string(i));
    vars.push_back(v);
    node->axes.push_back(ir::IterVar{v, shape[i], ir::IterKind::Spatial});
  }
  node->body = fcompute(vars);
  user_check(bool(node->body), "compute '", name, "' returned no body");
  user_check(node->body.dtype() == dtype, "compute '", name, "' has a body of type ", ir::to_string(node->body.dtype()),
             " but is declared ", ir::to_string(dtype));
  BodyChecker checker(name);
  if (const auto* r = node->body.as<ir::ReduceNode>()) {
    checker.visit(r->source);
  } else {
    checker.visit(node->body);
  }
  node->inputs = std::move(checker.inputs);
  return register_tensor(std::move(node));
}

ir::IterVar reduce_axis(int64_t extent, const std::string& name) {
  // An extent of 0 reduces an empty tensor to the combiner's identity.
  user_check(extent >= 0, "reduce axis '", name, "' has negative extent ", extent);
  return ir::IterVar{ir::Var(name), extent, ir::IterKind::Reduce};
}

ir::Expr sum(ir::Expr source, std::vector<ir::IterVar> axes) {
  return make_reduction(ir::ReduceOp::Sum, std::move(source), std::move(axes));
}
ir::Expr max_reduce(ir::Expr source, std::vector<ir::IterVar> axes) {
  return make_reduction(ir::ReduceOp::Max, std::move(source), std::move(axes));
}
ir::Expr min_reduce(ir::Expr source, std::vector<ir::IterVar> axes) {
  return make_reduction(ir::ReduceOp::Min, std::move(source), std::move(axes));
}

ir::Expr read(const Tensor& t, std::vector<ir::Expr> indices) {
  user_check(t != nullptr, "read of a null tensor");
  user_check(indices.size() == t->shape().size(), "read of '", t->name, "' with ", indices.size(),
             " indices but it has rank ", t->shape().size());
  return ir::make_load(t->buffer, std::move(indices));
}

}  // namespace tunectl::te
