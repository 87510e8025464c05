// Private to lib/codegen/llvm: the Stmt/Expr -> LLVM IR emitter shared by
// ir_builder.cpp (scalar statements and expressions), vectorize.cpp (explicit
// vector lowering of Vectorized loops) and parallel.cpp (outlining Parallel
// loops onto the thread pool). LLVM types are only forward-declared here; the
// full LLVM headers stay inside the .cpp files (STYLE.md habit 8).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "ir/stmt.h"
#include "lower/lower.h"

namespace llvm {
class BasicBlock;
class Function;
class IRBuilderBase;
class Instruction;
class LLVMContext;
class MDNode;
class Module;
class TargetMachine;
class Type;
class Value;
}  // namespace llvm

namespace tunectl::codegen {

class Emitter {
 public:
  Emitter(llvm::Module& module, llvm::IRBuilderBase& builder, const llvm::TargetMachine& tm);

  // Defines `void name(void* const* args)` for func in the module.
  void emit_kernel(const lower::LoweredFunc& func);

 private:
  // ---- ir_builder.cpp: statements -----------------------------------------
  void emit(const ir::Stmt& s);
  void emit_for(const ir::ForNode* op);
  void emit_store(const ir::StoreNode* op);
  void emit_allocate(const ir::AllocateNode* op);
  void emit_if(const ir::IfThenElseNode* op);
  // for (i = begin; i < end; ++i) body(i), with optional loop metadata
  // ("vectorize" or "unroll") on the back edge.
  void emit_counted_loop(llvm::Value* begin, llvm::Value* end, const std::function<void(llvm::Value*)>& body,
                         const char* loop_hint = nullptr);
  // A fresh function with target attributes, its entry block current.
  llvm::Function* new_function(const std::string& name, llvm::Type* ret, const std::vector<llvm::Type*>& params,
                               bool internal);

  // ---- ir_builder.cpp: expressions ----------------------------------------
  llvm::Value* emit(const ir::Expr& e);
  llvm::Value* emit_binary(ir::ExprKind k, const ir::Expr& a, const ir::Expr& b);
  llvm::Value* emit_floordiv(llvm::Value* a, llvm::Value* b, const ir::Expr& divisor, bool mod);
  llvm::Value* emit_cast(ir::DType to, ir::DType from, llvm::Value* v);
  llvm::Value* emit_call(const ir::CallNode* op);
  llvm::Value* emit_select(const ir::SelectNode* op);
  llvm::Value* emit_load(const ir::LoadNode* op);
  // Element address in buffer for a scalar or vector index.
  llvm::Value* element_address(const ir::Buffer& buffer, llvm::Value* index);
  void tag_access(llvm::Instruction* inst, const ir::Buffer& buffer);
  llvm::Type* scalar_type(ir::DType t);  // register type (Bool is i1)
  llvm::Type* memory_type(ir::DType t);  // in-memory type (Bool is i8)

  // ---- vectorize.cpp -------------------------------------------------------
  void emit_vectorized_for(const ir::ForNode* op);
  void emit_vector_body(const ir::ForNode* op, llvm::Value* base, int lanes);
  llvm::Value* emit_vector_load(const ir::LoadNode* op);
  void emit_vector_store(const ir::StoreNode* op);
  // Vector emission helpers: widen a scalar to the current lane count.
  llvm::Value* splat(llvm::Value* v);
  llvm::Value* active_mask();  // the current mask, all-true when none
  llvm::Value* call_per_lane(llvm::Value* arg, const char* scalar_name);
  llvm::Value* emit_strided_load(const ir::LoadNode* op, const ir::Expr& index, int64_t stride);

  // ---- parallel.cpp --------------------------------------------------------
  void emit_parallel_for(const ir::ForNode* op);

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilderBase& b_;
  const llvm::TargetMachine& tm_;
  std::string kernel_name_;
  llvm::Function* func_ = nullptr;  // function being emitted (kernel or outlined body)
  int outlined_count_ = 0;
  std::unordered_map<ir::Var, llvm::Value*, ir::VarHash, ir::VarEqual> vars_;
  std::unordered_map<ir::Buffer, llvm::Value*, ir::BufferHash, ir::BufferEqual> buffers_;
  // Scoped-noalias metadata of argument buffers: (alias.scope, noalias) lists.
  std::unordered_map<const ir::BufferNode*, std::pair<llvm::MDNode*, llvm::MDNode*>> alias_md_;

  // Vector state: lanes_ == 0 in scalar code; inside a vector body the loop
  // variable vec_var_ is bound to <base, base+1, ...>, vec_base_ is base, and
  // mask_ (an <lanes x i1> or null for all-true) guards memory accesses under
  // lane-dependent conditions.
  int lanes_ = 0;
  ir::Var vec_var_;
  llvm::Value* vec_base_ = nullptr;
  llvm::Value* mask_ = nullptr;
};

}  // namespace tunectl::codegen
