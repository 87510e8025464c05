#include "lower/unroll_fills.h"

#include "ir/functor.h"
#include "lower/fill_nest.h"

namespace tunectl::lower {

namespace {

using namespace ir;

class FillUnroller : public IRMutator {
 protected:
  Stmt mutate_For(const Stmt& s, const ForNode* op) override {
    const std::optional<int64_t> elements = staged_elements(s);
    if (!elements || *elements > kMaxUnrolledFill || fill_store(s)->buffer->scope != MemScope::Shared)
      return IRMutator::mutate_For(s, op);
    return rebuild_fill(s, make_int(0), [](const StoreNode* store, const Expr&) {
      return make_store(store->buffer, store->indices, store->value);
    });
  }
};

}  // namespace

LoweredFunc unroll_fills(LoweredFunc func) {
  func.body = FillUnroller().mutate(func.body);
  return func;
}

}  // namespace tunectl::lower
