// Statements of the loop IR that lowering produces and code generation
// consumes: loops with a kind, stores, allocations with a scope, sequences,
// conditionals and barriers. Immutable and shared, built through make_*.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tunectl::ir {

#define TUNECTL_STMT_NODES(X) \
  X(For)                      \
  X(Store)                    \
  X(Allocate)                 \
  X(Seq)                      \
  X(IfThenElse)               \
  X(Barrier)                  \
  X(AllReduce)

enum class StmtKind : uint8_t {
#define TUNECTL_KIND_ENUM(name) name,
  TUNECTL_STMT_NODES(TUNECTL_KIND_ENUM)
#undef TUNECTL_KIND_ENUM
};
const char* to_string(StmtKind k);

// How a loop runs. ThreadBinding loops carry a thread tag ("blockIdx.x",
// "threadIdx.y", "vthread").
#define TUNECTL_FOR_KINDS(X)              \
  X(Serial, "serial")                     \
  X(Parallel, "parallel")                 \
  X(Vectorized, "vectorized")             \
  X(Unrolled, "unrolled")                 \
  X(ThreadBinding, "bind")

enum class ForKind : uint8_t {
#define TUNECTL_FOR_ENUM(name, text) name,
  TUNECTL_FOR_KINDS(TUNECTL_FOR_ENUM)
#undef TUNECTL_FOR_ENUM
};
const char* to_string(ForKind k);

struct StmtNode {
  StmtKind kind;
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
};

class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> n) : node_(std::move(n)) {}
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  bool same_as(const Stmt& o) const { return node_ == o.node_; }
  StmtKind kind() const { return node_->kind; }
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 private:
  std::shared_ptr<const StmtNode> node_;
};

// for (var = min; var < min + extent; ++var) body
struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  Var var;
  Expr min, extent;
  ForKind for_kind;
  std::string thread_tag;  // only for ThreadBinding
  Stmt body;
  ForNode(Var v, Expr mn, Expr ext, ForKind k, std::string tag, Stmt b)
      : StmtNode(kKind), var(std::move(v)), min(std::move(mn)), extent(std::move(ext)), for_kind(k),
        thread_tag(std::move(tag)), body(std::move(b)) {}
};

struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  StoreNode(Buffer b, std::vector<Expr> i, Expr v)
      : StmtNode(kKind), buffer(std::move(b)), indices(std::move(i)), value(std::move(v)) {}
};

// The buffer exists (uninitialized) for the duration of body.
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  Buffer buffer;
  Stmt body;
  AllocateNode(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
};

struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  std::vector<Stmt> stmts;
  explicit SeqNode(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
};

struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  Expr cond;
  Stmt then_case, else_case;  // else_case may be null
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
};

// Synchronizes the threads of a GPU block (__syncthreads); a no-op on CPU.
struct BarrierNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Barrier;
  BarrierNode() : StmtNode(kKind) {}
};

// A cross-thread reduction (lower/loop_nest.cpp): each thread of a GPU
// block holds a partial value at buffer[indices] (its own, a Local
// buffer); after it, every thread holds there the partials of all of the
// block's threads combined. A collective: every thread of the block must
// reach it, as a barrier. Run serially (the reference interpreter, where
// one thread computed every partial into the one buffer) it changes
// nothing.
struct AllReduceNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::AllReduce;
  ReduceOp combiner;
  Buffer buffer;
  std::vector<Expr> indices;
  AllReduceNode(ReduceOp c, Buffer b, std::vector<Expr> i)
      : StmtNode(kKind), combiner(c), buffer(std::move(b)), indices(std::move(i)) {}
};

Stmt make_for(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = "");
Stmt make_store(Buffer buffer, std::vector<Expr> indices, Expr value);
Stmt make_allocate(Buffer buffer, Stmt body);
// Flattens nested sequences and drops null statements; one statement is
// returned as itself.
Stmt make_seq(std::vector<Stmt> stmts);
Stmt make_if(Expr cond, Stmt then_case, Stmt else_case = Stmt());
Stmt make_barrier();
Stmt make_all_reduce(ReduceOp combiner, Buffer buffer, std::vector<Expr> indices);

}  // namespace tunectl::ir
