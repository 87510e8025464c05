// The statement and expression semantics shared by the two interpreters of
// lowered loop IR: the CPU's reference interpreter (interpreter.h: every
// loop serial, barriers no-ops) and the GPU emulator (gpu_emulator.h: blocks
// and threads, shared memory, barriers). Float32 arithmetic rounds to float
// after each operation, every load and store is bounds-checked, and scratch
// buffers start poisoned (NaN, or a large sentinel for integers) so a read
// before the first write shows up in the result. A subclass changes what
// bound loops, barriers and allocations mean through the hooks below.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ir/stmt.h"
#include "runtime/ndarray.h"

namespace tunectl::lower {

class LoopInterpreter {
 public:
  virtual ~LoopInterpreter() = default;
  void bind(const ir::Buffer& b, runtime::NDArray* a) { buffers_.emplace_back(b.get(), a); }
  void exec(const ir::Stmt& s);

  // op's combination of two values of type t, as the IR's arithmetic
  // computes it (float32 rounded, integers wrapped; no uint64).
  static double combine_floats(ir::ReduceOp op, ir::DType t, double a, double b);
  static int64_t combine_ints(ir::ReduceOp op, ir::DType t, int64_t a, int64_t b);

 protected:
  // A loop bound to a thread tag; by default it runs serially.
  virtual void run_bound_loop(const ir::ForNode* op) { run_loop(op); }
  virtual void barrier() {}
  // An AllReduce of element `index` of a (ir/stmt.h); serially, nothing
  // to combine.
  virtual void all_reduce(const ir::AllReduceNode* op, runtime::NDArray& a, int64_t index) {
    (void)op, (void)a, (void)index;
  }
  // Makes the buffer of op, runs op->body with it, drops it; by default a
  // fresh poisoned scratch array each time.
  virtual void allocate(const ir::AllocateNode* op);
  // Every load and store, after its bounds check; a store before it writes
  // `stored` (loads pass 0).
  virtual void access(const ir::Buffer& b, int64_t index, bool is_write, double stored) {
    (void)b, (void)index, (void)is_write, (void)stored;
  }
  // A load or store at `index`, outside b; by default an InternalError (the
  // lowering that made the access is wrong). Never returns.
  [[noreturn]] virtual void out_of_bounds(const ir::Buffer& b, int64_t index, const ir::Expr& index_expr);

  // Serially, as on the CPU.
  void run_loop(const ir::ForNode* op);
  // Binds var to value while body runs.
  void run_with(const ir::Var& var, int64_t value, const ir::Stmt& body);
  // Runs body with buffer b bound to a (which the caller owns).
  void run_with_buffer(const ir::Buffer& b, runtime::NDArray* a, const ir::Stmt& body);
  int64_t eval_int(const ir::Expr& e) { return eval(e).i; }

  static runtime::NDArray poisoned_scratch(const ir::Buffer& b);

 private:
  // A scalar: floats live in f, integers and booleans in i; the expression's
  // dtype says which.
  struct Value {
    int64_t i = 0;
    double f = 0;
  };

  runtime::NDArray* lookup(const ir::Buffer& b);
  int64_t checked_offset(const ir::Buffer& b, const std::vector<ir::Expr>& indices);
  Value eval(const ir::Expr& e);
  Value eval_binary(const ir::Expr& e);

  // The bound loop variables and buffers, innermost last: a stack searched
  // from its top. A dozen entries at most, so a scan of pointers is cheaper
  // than hashing one.
  std::vector<std::pair<const ir::ExprNode*, int64_t>> vars_;
  std::vector<std::pair<const ir::BufferNode*, runtime::NDArray*>> buffers_;
};

}  // namespace tunectl::lower
