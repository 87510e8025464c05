#include "lower/inject_virtual_threads.h"

#include <set>

#include "ir/functor.h"
#include "ir/substitute.h"
#include "lower/expand_buffer.h"

namespace tunectl::lower {

namespace {

using namespace ir;

bool is_vthread(const ForNode* loop) {
  return loop->for_kind == ForKind::ThreadBinding && loop->thread_tag == "vthread";
}

// Pushes one vthread loop (var, extent) into the statement it wraps.
class VirtualThreadInjector {
 public:
  explicit VirtualThreadInjector(const ForNode* loop) : loop_(loop) {}

  Stmt inject(const Stmt& s) {
    if (!uses_var(s, loop_->var)) return s;
    switch (s.kind()) {
      case StmtKind::Seq: {
        std::vector<Stmt> stmts;
        for (const Stmt& x : s.as<SeqNode>()->stmts) stmts.push_back(inject(x));
        return make_seq(std::move(stmts));
      }
      case StmtKind::For: {
        const auto* op = s.as<ForNode>();
        // A vectorized loop's body must stay one store.
        if (op->for_kind == ForKind::Vectorized || uses_var(op->min, loop_->var) ||
            uses_var(op->extent, loop_->var) || indexes_private(op->var, op->body))
          return wrap(s);
        return make_for(op->var, op->min, op->extent, op->for_kind, inject(op->body), op->thread_tag);
      }
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        if (uses_var(op->cond, loop_->var)) return wrap(s);
        return make_if(op->cond, inject(op->then_case), op->else_case ? inject(op->else_case) : Stmt());
      }
      case StmtKind::Allocate: {
        const auto* op = s.as<AllocateNode>();
        return make_allocate(op->buffer, inject(op->body));
      }
      default: return wrap(s);
    }
  }

  // Copies per vthread of the thread's own buffers allocated in s.
  Stmt expand_private_buffers(const Stmt& s) {
    const auto* op = s.as<AllocateNode>();
    if (op == nullptr) {
      if (const auto* seq = s.as<SeqNode>()) {
        std::vector<Stmt> stmts;
        for (const Stmt& x : seq->stmts) stmts.push_back(expand_private_buffers(x));
        return make_seq(std::move(stmts));
      }
      if (const auto* loop = s.as<ForNode>())
        return make_for(loop->var, loop->min, loop->extent, loop->for_kind, expand_private_buffers(loop->body),
                        loop->thread_tag);
      if (const auto* branch = s.as<IfThenElseNode>()) {
        return make_if(branch->cond, expand_private_buffers(branch->then_case),
                       branch->else_case ? expand_private_buffers(branch->else_case) : Stmt());
      }
      return s;
    }
    Stmt body = expand_private_buffers(op->body);
    // Shared buffers serve the whole block; any other allocation inside the
    // loop (a local cache, an intermediate computed at a thread loop) is
    // the thread's own.
    if (op->buffer->scope == MemScope::Shared) return make_allocate(op->buffer, body);
    std::vector<int64_t> shape = op->buffer->shape;
    shape.insert(shape.begin(), extent());
    Buffer copies(op->buffer->name, op->buffer->dtype, shape, op->buffer->scope);
    private_.insert(copies.get());
    return make_allocate(copies, expand_buffer(body, op->buffer, copies, loop_->var));
  }

 private:
  int64_t extent() const { return loop_->extent.as<IntImmNode>()->value; }

  // Whether var indexes an access of a per-vthread buffer in s (the loops
  // over a thread's own tile of outputs, as opposed to a reduction).
  bool indexes_private(const Var& var, const Stmt& s) const {
    struct Scan : IRVisitor {
      const std::set<const BufferNode*>& buffers;
      const Var& var;
      bool found = false;
      Scan(const std::set<const BufferNode*>& b, const Var& v) : buffers(b), var(v) {}
      void access(const Buffer& b, const std::vector<Expr>& indices) {
        if (buffers.count(b.get()) == 0) return;
        for (const Expr& i : indices) found = found || uses_var(i, var);
      }
      void visit_Store(const StoreNode* op) override {
        access(op->buffer, op->indices);
        IRVisitor::visit_Store(op);
      }
      void visit_Load(const LoadNode* op) override {
        access(op->buffer, op->indices);
        IRVisitor::visit_Load(op);
      }
    } scan(private_, var);
    scan.visit(s);
    return scan.found;
  }

  Stmt wrap(const Stmt& s) const {
    return make_for(loop_->var, loop_->min, loop_->extent, loop_->for_kind, s, loop_->thread_tag);
  }

  const ForNode* loop_;
  std::set<const BufferNode*> private_;  // the per-vthread copies made by expand_private_buffers
};

class Injector : public IRMutator {
 protected:
  Stmt mutate_For(const Stmt& s, const ForNode* op) override {
    Stmt body = mutate(op->body);  // inner vthread loops first
    if (!is_vthread(op)) return body.same_as(op->body) ? s : make_for(op->var, op->min, op->extent, op->for_kind,
                                                                         body, op->thread_tag);
    VirtualThreadInjector injector(op);
    return injector.inject(injector.expand_private_buffers(body));
  }
};

}  // namespace

LoweredFunc inject_virtual_threads(LoweredFunc func) {
  func.body = Injector().mutate(func.body);
  return func;
}

}  // namespace tunectl::lower
