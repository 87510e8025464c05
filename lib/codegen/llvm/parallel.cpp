// Parallel loops: the loop body is outlined into an internal function
// `void body(void* closure, int64_t begin, int64_t end)` that runs iterations
// [begin, end), and the loop itself becomes one call of tunectl_parallel_for
// (runtime/thread_pool.h). The closure is an array of 8-byte slots on the
// caller's stack holding the loop's min, every variable and every buffer
// pointer the body uses from outside; buffers the body allocates are
// allocated inside the outlined function, so each thread has its own.
#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/emitter.h"
#include "ir/error.h"
#include "ir/functor.h"

namespace tunectl::codegen {
namespace {

// What a parallel body uses, numbered in first-use order: the closure's slot
// order follows it, so the outlined code (and the object file) does not
// depend on pointer-hashed map order, which differs between runs.
class UseCollector : public ir::IRVisitor {
 public:
  std::unordered_map<const ir::ExprNode*, size_t> vars;
  std::unordered_map<const ir::BufferNode*, size_t> buffers;

 protected:
  void visit_Var(const ir::VarNode* op) override { vars.emplace(op, vars.size()); }
  void visit_Load(const ir::LoadNode* op) override {
    buffers.emplace(op->buffer.get(), buffers.size());
    IRVisitor::visit_Load(op);
  }
  void visit_Store(const ir::StoreNode* op) override {
    buffers.emplace(op->buffer.get(), buffers.size());
    IRVisitor::visit_Store(op);
  }
};

// The entries of bindings whose key the body uses, in first-use order.
template <typename Key, typename Map, typename Node>
std::vector<std::pair<Key, llvm::Value*>> used_in_order(const Map& bindings,
                                                        const std::unordered_map<const Node*, size_t>& first_use) {
  std::vector<std::pair<size_t, std::pair<Key, llvm::Value*>>> used;
  for (const auto& [key, value] : bindings) {
    auto it = first_use.find(key.get());
    if (it != first_use.end()) used.push_back({it->second, {key, value}});
  }
  std::sort(used.begin(), used.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<Key, llvm::Value*>> out;
  for (auto& u : used) out.push_back(std::move(u.second));
  return out;
}

}  // namespace

void Emitter::emit_parallel_for(const ir::ForNode* op) {
  internal_check(lanes_ == 0, "parallel loop ", op->var.name(), " inside a vector body");
  UseCollector uses;
  uses.visit(op->body);

  // Captured values in slot order: min, then variables, then buffers.
  std::vector<llvm::Value*> captured{emit(op->min)};
  std::vector<ir::Var> captured_vars;
  for (const auto& [var, value] : used_in_order<ir::Var>(vars_, uses.vars))
    if (!var.same_as(op->var)) {
      captured_vars.push_back(var);
      captured.push_back(value);
    }
  std::vector<ir::Buffer> captured_buffers;
  for (const auto& [buf, ptr] : used_in_order<ir::Buffer>(buffers_, uses.buffers)) {
    captured_buffers.push_back(buf);
    captured.push_back(ptr);
  }
  llvm::Value* extent = emit(op->extent);

  llvm::IRBuilder<> entry(&func_->getEntryBlock(), func_->getEntryBlock().begin());
  llvm::Value* closure = entry.CreateAlloca(b_.getInt64Ty(), b_.getInt64(captured.size()), "closure");
  for (size_t i = 0; i < captured.size(); ++i)
    b_.CreateStore(captured[i], b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), closure, i));

  // Emit the outlined body with its own bindings, then resume the caller.
  llvm::Function* caller = func_;
  llvm::IRBuilderBase::InsertPoint resume = b_.saveIP();
  auto saved_vars = std::move(vars_);
  auto saved_buffers = std::move(buffers_);
  vars_.clear();
  buffers_.clear();

  std::string name = kernel_name_ + "_parallel" + std::to_string(outlined_count_++);
  func_ = new_function(name, b_.getVoidTy(), {b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, true);
  func_->addParamAttr(0, llvm::Attribute::NoAlias);
  func_->addParamAttr(0, llvm::Attribute::NoCapture);
  llvm::Value* slots = func_->getArg(0);
  auto load_slot = [&](size_t i, llvm::Type* t, const std::string& what) {
    return b_.CreateLoad(t, b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), slots, i), what);
  };
  llvm::Value* mn = load_slot(0, b_.getInt64Ty(), "min");
  size_t slot = 1;
  for (size_t i = 0; i < captured_vars.size(); ++i, ++slot)
    vars_[captured_vars[i]] = load_slot(slot, captured[slot]->getType(), captured_vars[i].name());
  for (size_t i = 0; i < captured_buffers.size(); ++i, ++slot)
    buffers_[captured_buffers[i]] = load_slot(slot, b_.getPtrTy(), captured_buffers[i]->name);
  emit_counted_loop(func_->getArg(1), func_->getArg(2), [&](llvm::Value* i) {
    vars_[op->var] = b_.CreateAdd(mn, i);
    emit(op->body);
  });
  b_.CreateRetVoid();
  llvm::Function* outlined = func_;

  func_ = caller;
  b_.restoreIP(resume);
  vars_ = std::move(saved_vars);
  buffers_ = std::move(saved_buffers);

  llvm::FunctionCallee parallel_for = module_.getOrInsertFunction(
      "tunectl_parallel_for", b_.getInt32Ty(), b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty());
  b_.CreateCall(parallel_for, {outlined, closure, extent});
}

}  // namespace tunectl::codegen
