#include "codegen/llvm/ir_builder.h"

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/emitter.h"
#include "codegen/llvm/fast_math.h"
#include "ir/error.h"
#include "ir/functor.h"
#include "lower/flatten.h"

namespace tunectl::codegen {

using ir::DType;
using ir::ExprKind;

namespace {

// Buffers up to this size live on the stack of the function that allocates
// them (each thread its own in outlined parallel bodies); larger ones on the
// heap, so deep tiles cannot overflow a worker's stack.
constexpr int64_t kMaxStackBytes = 256 * 1024;
constexpr uint64_t kBufferAlign = 64;

// True if e contains a Load: such an expression must not be evaluated
// speculatively (a padding Select guards an out-of-bounds index).
bool has_load(const ir::Expr& e) {
  bool found = false;
  ir::post_order_visit(e, [&](const ir::Expr& x) { found = found || x.kind() == ExprKind::Load; });
  return found;
}

// Every buffer an Allocate in s introduces, outermost first.
std::vector<const ir::BufferNode*> allocated_buffers(const ir::Stmt& s) {
  struct Collector : ir::IRVisitor {
    std::vector<const ir::BufferNode*> found;
    void visit_Allocate(const ir::AllocateNode* op) override {
      found.push_back(op->buffer.get());
      IRVisitor::visit_Allocate(op);
    }
  } collector;
  collector.visit(s);
  return collector.found;
}

}  // namespace

Emitter::Emitter(llvm::Module& module, llvm::IRBuilderBase& builder, const llvm::TargetMachine& tm)
    : module_(module), ctx_(module.getContext()), b_(builder), tm_(tm) {
  // Reassociation and contraction let the vectorizers reorder reductions and
  // form FMAs; results then differ from the reference within fp32
  // reassociation tolerance. No nnan/ninf: NaN and inf propagate as written.
  llvm::FastMathFlags fmf;
  fmf.setAllowReassoc();
  fmf.setAllowContract();
  b_.setFastMathFlags(fmf);
}

llvm::Type* Emitter::scalar_type(DType t) {
  switch (t) {
    case DType::Bool: return b_.getInt1Ty();
    case DType::Int8:
    case DType::UInt8: return b_.getInt8Ty();
    case DType::Int16:
    case DType::UInt16: return b_.getInt16Ty();
    case DType::Int32:
    case DType::UInt32: return b_.getInt32Ty();
    case DType::Int64:
    case DType::UInt64: return b_.getInt64Ty();
    case DType::Float32: return b_.getFloatTy();
    case DType::Float64: return b_.getDoubleTy();
    case DType::Float16: return b_.getHalfTy();
  }
  internal_fail("unknown dtype");
}

llvm::Type* Emitter::memory_type(DType t) { return t == DType::Bool ? b_.getInt8Ty() : scalar_type(t); }

llvm::Function* Emitter::new_function(const std::string& name, llvm::Type* ret,
                                      const std::vector<llvm::Type*>& params, bool internal) {
  auto* fty = llvm::FunctionType::get(ret, params, false);
  auto linkage = internal ? llvm::Function::InternalLinkage : llvm::Function::ExternalLinkage;
  auto* f = llvm::Function::Create(fty, linkage, name, module_);
  f->addFnAttr("target-cpu", tm_.getTargetCPU());
  f->addFnAttr("target-features", tm_.getTargetFeatureString());
  // Let the loop and SLP vectorizers use full AVX-512 registers.
  f->addFnAttr("prefer-vector-width", "512");
  f->addFnAttr("min-legal-vector-width", "512");
  f->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
  return f;
}

void Emitter::emit_kernel(const lower::LoweredFunc& func) {
  kernel_name_ = func.name;
  func_ = new_function(func.name, b_.getVoidTy(), {b_.getPtrTy()}, false);
  func_->addParamAttr(0, llvm::Attribute::NoAlias);
  func_->addParamAttr(0, llvm::Attribute::NoCapture);
  func_->addParamAttr(0, llvm::Attribute::ReadOnly);
  llvm::Value* args = func_->getArg(0);

  // Arguments and allocated buffers are distinct allocations: one alias scope
  // each, so LLVM may keep loads of inputs in registers across stores to the
  // output, and a register tile's accumulators in registers across the loads
  // of its inputs. Without scopes LLVM proves the latter only for a buffer
  // whose uses it can follow (at most 100, capture tracking's limit): a tile
  // of a few dozen accumulators was stored back on every step of its
  // reduction (the AVX2 stem: 3.8-5.5 ms, 1.5-1.6 with scopes).
  std::vector<const ir::BufferNode*> buffers;
  for (const auto& buf : func.args) buffers.push_back(buf.get());
  for (const ir::BufferNode* buf : allocated_buffers(func.body)) buffers.push_back(buf);
  llvm::MDBuilder mdb(ctx_);
  llvm::MDNode* domain = mdb.createAnonymousAliasScopeDomain(func.name);
  std::vector<llvm::MDNode*> scopes;
  for (const ir::BufferNode* buf : buffers) scopes.push_back(mdb.createAnonymousAliasScope(domain, buf->name));
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::vector<llvm::Metadata*> others;
    for (size_t j = 0; j < scopes.size(); ++j)
      if (j != i) others.push_back(scopes[j]);
    alias_md_[buffers[i]] = {llvm::MDNode::get(ctx_, {scopes[i]}), llvm::MDNode::get(ctx_, others)};
  }
  for (size_t i = 0; i < func.args.size(); ++i) {
    llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), args, i);
    llvm::Value* ptr = b_.CreateLoad(b_.getPtrTy(), slot, func.args[i]->name);
    b_.CreateAlignmentAssumption(module_.getDataLayout(), ptr, kBufferAlign);
    buffers_[func.args[i]] = ptr;
  }
  emit(func.body);
  b_.CreateRetVoid();
}

// ---- statements ------------------------------------------------------------

void Emitter::emit(const ir::Stmt& s) {
  if (!s) return;
  switch (s.kind()) {
    case ir::StmtKind::For: return emit_for(s.as<ir::ForNode>());
    case ir::StmtKind::Store:
      return lanes_ > 0 ? emit_vector_store(s.as<ir::StoreNode>()) : emit_store(s.as<ir::StoreNode>());
    case ir::StmtKind::Allocate: return emit_allocate(s.as<ir::AllocateNode>());
    case ir::StmtKind::Seq:
      for (const auto& x : s.as<ir::SeqNode>()->stmts) emit(x);
      return;
    case ir::StmtKind::IfThenElse: return emit_if(s.as<ir::IfThenElseNode>());
    // One CPU thread runs the whole "block": it holds every partial value.
    case ir::StmtKind::Barrier:
    case ir::StmtKind::AllReduce: return;
  }
  internal_fail("unknown statement kind");
}

void Emitter::emit_counted_loop(llvm::Value* begin, llvm::Value* end, const std::function<void(llvm::Value*)>& body,
                                const char* loop_hint) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, "loop", func_);
  auto* body_bb = llvm::BasicBlock::Create(ctx_, "body", func_);
  auto* exit = llvm::BasicBlock::Create(ctx_, "exit", func_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
  i->addIncoming(begin, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(i, end), body_bb, exit);
  b_.SetInsertPoint(body_bb);
  body(i);
  llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), "", /*HasNUW=*/false, /*HasNSW=*/true);
  llvm::BranchInst* back = b_.CreateBr(header);
  i->addIncoming(next, b_.GetInsertBlock());
  if (loop_hint) {
    llvm::Metadata* hint = nullptr;
    if (std::string(loop_hint) == "vectorize")
      hint = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                      llvm::ConstantAsMetadata::get(b_.getTrue())});
    else
      hint = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")});
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, {nullptr, hint});
    loop_id->replaceOperandWith(0, loop_id);
    back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
  b_.SetInsertPoint(exit);
}

void Emitter::emit_for(const ir::ForNode* op) {
  switch (op->for_kind) {
    case ir::ForKind::ThreadBinding:
      user_fail("loop ", op->var.name(), " bound to ", op->thread_tag, " cannot run on the CPU target");
    case ir::ForKind::Parallel:
      return emit_parallel_for(op);
    case ir::ForKind::Vectorized:
      return emit_vectorized_for(op);
    case ir::ForKind::Unrolled: {
      // Small constant trip counts are replicated with the variable bound to
      // a constant, so index arithmetic folds per copy.
      const int64_t* ext = ir::as_const_int(op->extent);
      const int64_t* mn = ir::as_const_int(op->min);
      constexpr int64_t kMaxReplicas = 64;
      if (ext && mn && *ext <= kMaxReplicas) {
        llvm::Value* saved = vars_.count(op->var) ? vars_[op->var] : nullptr;
        for (int64_t k = 0; k < *ext; ++k) {
          vars_[op->var] = b_.getInt64(*mn + k);
          emit(op->body);
        }
        if (saved) vars_[op->var] = saved; else vars_.erase(op->var);
        return;
      }
      break;
    }
    case ir::ForKind::Serial:
      break;
  }
  internal_check(lanes_ == 0, "loop ", op->var.name(), " inside a vector body");
  llvm::Value* mn = emit(op->min);
  llvm::Value* end = b_.CreateAdd(mn, emit(op->extent));
  const char* hint = op->for_kind == ir::ForKind::Unrolled ? "unroll" : nullptr;
  emit_counted_loop(mn, end, [&](llvm::Value* i) {
    vars_[op->var] = i;
    emit(op->body);
  }, hint);
  vars_.erase(op->var);
}

void Emitter::emit_store(const ir::StoreNode* op) {
  llvm::Value* value = emit(op->value);
  if (op->buffer->dtype == DType::Bool) value = b_.CreateZExt(value, b_.getInt8Ty());
  llvm::Value* addr = element_address(op->buffer, emit(lower::flat_index(op->buffer, op->indices)));
  tag_access(b_.CreateStore(value, addr), op->buffer);
}

void Emitter::emit_allocate(const ir::AllocateNode* op) {
  const ir::Buffer& buf = op->buffer;
  int64_t bytes = buf->num_bytes();
  bytes = (bytes + kBufferAlign - 1) / kBufferAlign * kBufferAlign;
  if (bytes <= kMaxStackBytes) {
    // In the entry block, so a loop around the Allocate does not grow the stack.
    llvm::IRBuilder<> entry(&func_->getEntryBlock(), func_->getEntryBlock().begin());
    auto* slot = entry.CreateAlloca(memory_type(buf->dtype), entry.getInt64(buf->num_elements()), buf->name);
    slot->setAlignment(llvm::Align(kBufferAlign));
    buffers_[buf] = slot;
    emit(op->body);
  } else {
    llvm::FunctionCallee alloc = module_.getOrInsertFunction("aligned_alloc", b_.getPtrTy(), b_.getInt64Ty(),
                                                             b_.getInt64Ty());
    llvm::FunctionCallee release = module_.getOrInsertFunction("free", b_.getVoidTy(), b_.getPtrTy());
    llvm::Value* ptr = b_.CreateCall(alloc, {b_.getInt64(kBufferAlign), b_.getInt64(bytes)}, buf->name);
    buffers_[buf] = ptr;
    emit(op->body);
    b_.CreateCall(release, {ptr});
  }
  buffers_.erase(buf);
}

void Emitter::emit_if(const ir::IfThenElseNode* op) {
  llvm::Value* cond = emit(op->cond);
  if (cond->getType()->isVectorTy()) {
    // Lane-dependent condition inside a vector body: both branches run under
    // complementary masks.
    llvm::Value* saved = mask_;
    llvm::Value* outer = active_mask();
    mask_ = b_.CreateAnd(outer, cond);
    emit(op->then_case);
    if (op->else_case) {
      mask_ = b_.CreateAnd(outer, b_.CreateNot(cond));
      emit(op->else_case);
    }
    mask_ = saved;
    return;
  }
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", func_);
  auto* else_bb = op->else_case ? llvm::BasicBlock::Create(ctx_, "else", func_) : nullptr;
  auto* merge = llvm::BasicBlock::Create(ctx_, "endif", func_);
  b_.CreateCondBr(cond, then_bb, else_bb ? else_bb : merge);
  b_.SetInsertPoint(then_bb);
  emit(op->then_case);
  b_.CreateBr(merge);
  if (else_bb) {
    b_.SetInsertPoint(else_bb);
    emit(op->else_case);
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(merge);
}

// ---- expressions -----------------------------------------------------------

llvm::Value* Emitter::emit(const ir::Expr& e) {
  internal_check(static_cast<bool>(e), "null expression in codegen");
  switch (e.kind()) {
    case ExprKind::IntImm: {
      // The value's low bits: an immediate holds its type's value (ir::wrap_to).
      auto v = e.as<ir::IntImmNode>()->value;
      llvm::Type* t = scalar_type(e.dtype());
      const unsigned bits = t->getIntegerBitWidth();
      return llvm::ConstantInt::get(t, llvm::APInt(bits, static_cast<uint64_t>(v) & (~uint64_t{0} >> (64 - bits))));
    }
    case ExprKind::FloatImm:
      return llvm::ConstantFP::get(scalar_type(e.dtype()), e.as<ir::FloatImmNode>()->value);
    case ExprKind::Var: {
      auto it = vars_.find(ir::Var(e));
      internal_check(it != vars_.end(), "unbound variable ", e.as<ir::VarNode>()->name, " in codegen");
      return it->second;
    }
#define TUNECTL_EMIT_BINARY(name) \
  case ExprKind::name:            \
    return emit_binary(ExprKind::name, e.as<ir::name##Node>()->a, e.as<ir::name##Node>()->b);
      TUNECTL_BINARY_NODES(TUNECTL_EMIT_BINARY)
#undef TUNECTL_EMIT_BINARY
    case ExprKind::Not:
      return b_.CreateNot(emit(e.as<ir::NotNode>()->a));
    case ExprKind::Select:
      return emit_select(e.as<ir::SelectNode>());
    case ExprKind::Cast: {
      const auto* c = e.as<ir::CastNode>();
      return emit_cast(c->dtype, c->value.dtype(), emit(c->value));
    }
    case ExprKind::Call:
      return emit_call(e.as<ir::CallNode>());
    case ExprKind::Load:
      return lanes_ > 0 ? emit_vector_load(e.as<ir::LoadNode>()) : emit_load(e.as<ir::LoadNode>());
    case ExprKind::Reduce:
      internal_fail("Reduce reached code generation; lowering must expand it");
  }
  internal_fail("unknown expression kind");
}

llvm::Value* Emitter::emit_binary(ExprKind k, const ir::Expr& ea, const ir::Expr& eb) {
  llvm::Value* a = emit(ea);
  llvm::Value* b = emit(eb);
  if (a->getType()->isVectorTy() != b->getType()->isVectorTy()) {
    a = splat(a);
    b = splat(b);
  }
  DType t = ea.dtype();
  bool fp = ir::is_float(t);
  // Unsigned integers, and bools (false < true: the unsigned order of the 1-bit type).
  bool unsigned_order = t == DType::Bool || ir::is_unsigned(t);
  switch (k) {
    case ExprKind::Add: return fp ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
    case ExprKind::Sub: return fp ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
    case ExprKind::Mul: return fp ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
    case ExprKind::Div:
      internal_check(fp, "Div on ", ir::to_string(t), "; integers divide with FloorDiv");
      return b_.CreateFDiv(a, b);
    case ExprKind::FloorDiv:
      return ir::is_unsigned(t) ? b_.CreateUDiv(a, b) : emit_floordiv(a, b, eb, false);  // unsigned: floor = trunc
    case ExprKind::FloorMod: return ir::is_unsigned(t) ? b_.CreateURem(a, b) : emit_floordiv(a, b, eb, true);
    // Same operand order as std::min/std::max, so NaN handling matches the
    // reference evaluator; lowers to vminps/vmaxps.
    case ExprKind::Min:
      return b_.CreateSelect(fp ? b_.CreateFCmpOLT(b, a) : unsigned_order ? b_.CreateICmpULT(b, a) : b_.CreateICmpSLT(b, a), b, a);
    case ExprKind::Max:
      return b_.CreateSelect(fp ? b_.CreateFCmpOLT(a, b) : unsigned_order ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b), b, a);
    case ExprKind::EQ: return fp ? b_.CreateFCmpOEQ(a, b) : b_.CreateICmpEQ(a, b);
    case ExprKind::NE: return fp ? b_.CreateFCmpUNE(a, b) : b_.CreateICmpNE(a, b);
    case ExprKind::LT: return fp ? b_.CreateFCmpOLT(a, b) : unsigned_order ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
    case ExprKind::LE: return fp ? b_.CreateFCmpOLE(a, b) : unsigned_order ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
    case ExprKind::GT: return fp ? b_.CreateFCmpOGT(a, b) : unsigned_order ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
    case ExprKind::GE: return fp ? b_.CreateFCmpOGE(a, b) : unsigned_order ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
    case ExprKind::And: return b_.CreateAnd(a, b);
    case ExprKind::Or: return b_.CreateOr(a, b);
    default: internal_fail("not a binary node: ", ir::to_string(k));
  }
}

llvm::Value* Emitter::emit_floordiv(llvm::Value* a, llvm::Value* b, const ir::Expr& divisor, bool mod) {
  const int64_t* c = ir::as_const_int(divisor);
  if (c && *c > 0 && (*c & (*c - 1)) == 0) {
    // Power of two: an arithmetic shift and a mask are exact floor semantics.
    int shift = 0;
    while ((int64_t{1} << shift) < *c) ++shift;
    llvm::Type* t = a->getType();
    return mod ? b_.CreateAnd(a, llvm::ConstantInt::get(t, *c - 1)) : b_.CreateAShr(a, llvm::ConstantInt::get(t, shift));
  }
  llvm::Value* q = b_.CreateSDiv(a, b);
  llvm::Value* r = b_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  // Truncating division rounds toward zero; step down when the remainder's
  // sign differs from the divisor's (for a positive constant: r < 0).
  llvm::Value* adjust = c && *c > 0 ? b_.CreateICmpSLT(r, zero)
                                    : b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                                   b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
  if (mod) return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
  return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
}

llvm::Value* Emitter::emit_cast(DType to, DType from, llvm::Value* v) {
  if (to == from) return v;
  llvm::Type* t = scalar_type(to);
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType())) t = llvm::VectorType::get(t, vt->getElementCount());
  llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
  if (to == DType::Bool) return ir::is_float(from) ? b_.CreateFCmpUNE(v, zero) : b_.CreateICmpNE(v, zero);
  const bool from_unsigned = from == DType::Bool || ir::is_unsigned(from);
  if (ir::is_float(to)) {
    if (ir::is_float(from)) return b_.CreateFPCast(v, t);
    return from_unsigned ? b_.CreateUIToFP(v, t) : b_.CreateSIToFP(v, t);
  }
  // Truncation toward zero, as C++.
  if (ir::is_float(from)) return ir::is_unsigned(to) ? b_.CreateFPToUI(v, t) : b_.CreateFPToSI(v, t);
  return from_unsigned ? b_.CreateZExtOrTrunc(v, t) : b_.CreateSExtOrTrunc(v, t);
}

llvm::Value* Emitter::emit_call(const ir::CallNode* op) {
  std::vector<llvm::Value*> args;
  bool vector = false;
  for (const auto& a : op->args) {
    args.push_back(emit(a));
    vector = vector || args.back()->getType()->isVectorTy();
  }
  if (vector)
    for (auto& a : args) a = splat(a);
  llvm::Type* t = args[0]->getType();
  bool fp = ir::is_float(op->dtype);
  auto intrinsic = [&](llvm::Intrinsic::ID id) { return b_.CreateIntrinsic(id, {t}, args); };
  const bool f32 = op->dtype == DType::Float32;
  // libm's function of the same name (float: "f" suffix), one call per lane in vector code.
  auto libm = [&](const char* base) -> llvm::Value* {
    const std::string name = std::string(base) + (f32 ? "f" : "");
    if (vector) return call_per_lane(args[0], name.c_str());
    return b_.CreateCall(module_.getOrInsertFunction(name, t, t), {args[0]});
  };
  switch (op->func) {
    case ir::MathFunc::exp: return f32 ? emit_fast_exp(b_, args[0]) : intrinsic(llvm::Intrinsic::exp);
    case ir::MathFunc::log: return intrinsic(llvm::Intrinsic::log);
    case ir::MathFunc::sqrt: return intrinsic(llvm::Intrinsic::sqrt);
    case ir::MathFunc::floor: return fp ? intrinsic(llvm::Intrinsic::floor) : args[0];
    case ir::MathFunc::ceil: return fp ? intrinsic(llvm::Intrinsic::ceil) : args[0];
    case ir::MathFunc::round: return fp ? intrinsic(llvm::Intrinsic::roundeven) : args[0];
    case ir::MathFunc::sin: return intrinsic(llvm::Intrinsic::sin);
    case ir::MathFunc::cos: return intrinsic(llvm::Intrinsic::cos);
    case ir::MathFunc::pow: return intrinsic(llvm::Intrinsic::pow);
    case ir::MathFunc::abs:
      if (fp) return intrinsic(llvm::Intrinsic::fabs);
      return b_.CreateIntrinsic(llvm::Intrinsic::abs, {t}, {args[0], b_.getFalse()});
    case ir::MathFunc::tanh:
      return f32 ? emit_fast_tanh(b_, args[0]) : libm("tanh");  // no LLVM intrinsic for float64
    case ir::MathFunc::erf:
      return f32 ? emit_fast_erf(b_, args[0]) : libm("erf");
    case ir::MathFunc::tan:
    case ir::MathFunc::asin:
    case ir::MathFunc::acos:
    case ir::MathFunc::atan:
    case ir::MathFunc::sinh:
    case ir::MathFunc::cosh:
    case ir::MathFunc::asinh:
    case ir::MathFunc::acosh:
    case ir::MathFunc::atanh:
      return libm(ir::to_string(op->func));
    case ir::MathFunc::bitwise_not: return b_.CreateNot(args[0]);
    case ir::MathFunc::bitwise_and: return b_.CreateAnd(args[0], args[1]);
    case ir::MathFunc::bitwise_or: return b_.CreateOr(args[0], args[1]);
    case ir::MathFunc::bitwise_xor: return b_.CreateXor(args[0], args[1]);
    case ir::MathFunc::shift_left:
    case ir::MathFunc::shift_right: {
      // LLVM's shifts by the width or more are poison; the IR's give 0.
      llvm::Value* width = llvm::ConstantInt::get(t, t->getScalarSizeInBits());
      llvm::Value* shifted = op->func == ir::MathFunc::shift_left ? b_.CreateShl(args[0], args[1])
                                                                   : b_.CreateLShr(args[0], args[1]);
      return b_.CreateSelect(b_.CreateICmpUGE(args[1], width), llvm::Constant::getNullValue(t), shifted);
    }
  }
  internal_fail("unknown math function");
}

llvm::Value* Emitter::emit_select(const ir::SelectNode* op) {
  llvm::Value* cond = emit(op->cond);
  // Decided where the copy of an unrolled loop fixed its variable (a
  // Winograd transform's row): only the arm it picks.
  if (auto* known = llvm::dyn_cast<llvm::ConstantInt>(cond)) return emit(known->isOne() ? op->true_value : op->false_value);
  bool lazy = has_load(op->true_value) || has_load(op->false_value);
  if (cond->getType()->isVectorTy()) {
    if (!lazy) return b_.CreateSelect(cond, splat(emit(op->true_value)), splat(emit(op->false_value)));
    // Loads in each arm run masked to the lanes that take that arm.
    llvm::Value* saved = mask_;
    llvm::Value* outer = active_mask();
    mask_ = b_.CreateAnd(outer, cond);
    llvm::Value* t = splat(emit(op->true_value));
    mask_ = b_.CreateAnd(outer, b_.CreateNot(cond));
    llvm::Value* f = splat(emit(op->false_value));
    mask_ = saved;
    return b_.CreateSelect(cond, t, f);
  }
  if (!lazy) {
    llvm::Value* t = emit(op->true_value);
    llvm::Value* f = emit(op->false_value);
    if (t->getType()->isVectorTy() != f->getType()->isVectorTy()) {
      t = splat(t);
      f = splat(f);
    }
    return b_.CreateSelect(cond, t, f);
  }
  // A guarded load (padding): evaluate only the arm the condition picks.
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "sel.true", func_);
  auto* else_bb = llvm::BasicBlock::Create(ctx_, "sel.false", func_);
  auto* merge = llvm::BasicBlock::Create(ctx_, "sel.end", func_);
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  llvm::Value* t = emit(op->true_value);
  if (lanes_ > 0) t = splat(t);
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(else_bb);
  llvm::Value* f = emit(op->false_value);
  if (lanes_ > 0) f = splat(f);
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(t->getType(), 2);
  phi->addIncoming(t, then_end);
  phi->addIncoming(f, else_end);
  return phi;
}

llvm::Value* Emitter::element_address(const ir::Buffer& buffer, llvm::Value* index) {
  auto it = buffers_.find(buffer);
  internal_check(it != buffers_.end(), "buffer ", buffer->name, " is neither an argument nor allocated");
  return b_.CreateInBoundsGEP(memory_type(buffer->dtype), it->second, index);
}

void Emitter::tag_access(llvm::Instruction* inst, const ir::Buffer& buffer) {
  auto it = alias_md_.find(buffer.get());
  if (it == alias_md_.end()) return;
  inst->setMetadata(llvm::LLVMContext::MD_alias_scope, it->second.first);
  inst->setMetadata(llvm::LLVMContext::MD_noalias, it->second.second);
}

llvm::Value* Emitter::emit_load(const ir::LoadNode* op) {
  llvm::Value* addr = element_address(op->buffer, emit(lower::flat_index(op->buffer, op->indices)));
  auto* load = b_.CreateLoad(memory_type(op->buffer->dtype), addr);
  tag_access(load, op->buffer);
  if (op->buffer->dtype == DType::Bool) return b_.CreateICmpNE(load, b_.getInt8(0));
  return load;
}

// ---- module ----------------------------------------------------------------

std::unique_ptr<llvm::Module> build_module(const lower::LoweredFunc& func, llvm::LLVMContext& ctx,
                                           const llvm::TargetMachine& tm) {
  user_check(!func.name.empty(), "a kernel needs a name");
  // Remarks and warnings (e.g. "loop not vectorized" for a vectorize hint on a
  // fallback loop) are expected outcomes, not news for the user; errors still
  // print.
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo* info, void*) {
        if (info->getSeverity() != llvm::DS_Error) return;
        llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
        info->print(printer);
        llvm::errs() << "\n";
      },
      nullptr);
  auto module = std::make_unique<llvm::Module>(func.name, ctx);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  llvm::IRBuilder<> builder(ctx);
  Emitter(*module, builder, tm).emit_kernel(func);
  for (const lower::InputPacking& p : func.packings) Emitter(*module, builder, tm).emit_kernel(p.func);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(*module, &os)) internal_fail("invalid LLVM IR for ", func.name, ": ", os.str());
  return module;
}

}  // namespace tunectl::codegen
