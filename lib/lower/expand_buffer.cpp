#include "lower/expand_buffer.h"

#include "ir/functor.h"

namespace tunectl::lower {

namespace {

using namespace ir;

class ExpandBuffer : public IRMutator {
 public:
  ExpandBuffer(const Buffer& from, const Buffer& to, const Expr& copy)
      : from_(from), to_(to), offset_(copy * make_int(from->num_elements())) {}

 protected:
  Expr mutate_Load(const Expr& e, const LoadNode* op) override {
    if (!op->buffer.same_as(from_)) return IRMutator::mutate_Load(e, op);
    return make_load(to_, {offset_ + mutate(op->indices[0])});
  }
  Stmt mutate_Store(const Stmt& s, const StoreNode* op) override {
    if (!op->buffer.same_as(from_)) return IRMutator::mutate_Store(s, op);
    return make_store(to_, {offset_ + mutate(op->indices[0])}, mutate(op->value));
  }

 private:
  Buffer from_, to_;
  Expr offset_;
};

}  // namespace

Stmt expand_buffer(const Stmt& s, const Buffer& from, const Buffer& to, const Expr& copy) {
  return ExpandBuffer(from, to, copy).mutate(s);
}

}  // namespace tunectl::lower
