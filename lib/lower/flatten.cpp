#include "lower/flatten.h"

#include "ir/error.h"
#include "ir/functor.h"

namespace tunectl::lower {

namespace {

using namespace ir;

class Flattener : public IRMutator {
 protected:
  Expr mutate_Load(const Expr& e, const LoadNode* op) override {
    std::vector<Expr> idx;
    for (const Expr& i : op->indices) idx.push_back(mutate(i));
    return make_load(op->buffer, {flat_index(op->buffer, idx)});
  }
  Stmt mutate_Store(const Stmt& s, const StoreNode* op) override {
    std::vector<Expr> idx;
    for (const Expr& i : op->indices) idx.push_back(mutate(i));
    return make_store(op->buffer, {flat_index(op->buffer, idx)}, mutate(op->value));
  }
  Stmt mutate_AllReduce(const Stmt&, const AllReduceNode* op) override {
    std::vector<Expr> idx;
    for (const Expr& i : op->indices) idx.push_back(mutate(i));
    return make_all_reduce(op->combiner, op->buffer, {flat_index(op->buffer, idx)});
  }
};

}  // namespace

Expr flat_index(const Buffer& buffer, const std::vector<Expr>& indices) {
  if (indices.size() == 1) return indices[0];
  internal_check(indices.size() == buffer->shape.size(), "flatten: ", indices.size(), " indices into ",
                 buffer->shape.size(), "-d buffer ", buffer->name);
  if (indices.empty()) return make_int(0);
  auto axis = [&](size_t k) { return buffer->axis_order.empty() ? k : static_cast<size_t>(buffer->axis_order[k]); };
  Expr offset = indices[axis(0)];
  for (size_t k = 1; k < indices.size(); ++k) offset = offset * make_int(buffer->shape[axis(k)]) + indices[axis(k)];
  return offset;
}

LoweredFunc flatten_buffers(LoweredFunc func) {
  func.body = Flattener().mutate(func.body);
  return func;
}

}  // namespace tunectl::lower
