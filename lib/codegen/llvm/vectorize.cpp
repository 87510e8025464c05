// Explicit vector lowering of Vectorized loops. A loop whose body is only
// stores and conditionals (no inner loops, no allocations) is emitted once per
// chunk of lanes with its variable bound to <base, base+1, ...>: a load or
// store whose index has coefficient 1 in the variable becomes a vector
// load/store, an invariant load a broadcast, anything else a gather/scatter.
// Conditions that differ between lanes become masks on the memory accesses.
// Every other Vectorized loop is a scalar loop that asks LLVM's loop
// vectorizer to vectorize it.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm/emitter.h"
#include "ir/error.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "lower/flatten.h"
#include "target/target.h"

namespace tunectl::codegen {
namespace {

// Lanes per vector chunk: one AVX-512 register of fp32.
constexpr int64_t kChunkLanes = 16;

// A store whose index is the same in every lane keeps only the last lane's
// value; that is the serial result only if the value is the same in all lanes
// and no lane-dependent condition decides whether it happens.
bool vectorizable(const ir::Stmt& s, const ir::Var& v, bool under_lane_condition) {
  if (!s) return true;
  switch (s.kind()) {
    case ir::StmtKind::Store: {
      const auto* st = s.as<ir::StoreNode>();
      auto stride = ir::linear_coefficient(lower::flat_index(st->buffer, st->indices), v);
      if (stride && *stride == 0) return !under_lane_condition && !ir::uses_var(st->value, v);
      return true;
    }
    case ir::StmtKind::Seq:
      for (const auto& x : s.as<ir::SeqNode>()->stmts)
        if (!vectorizable(x, v, under_lane_condition)) return false;
      return true;
    case ir::StmtKind::IfThenElse: {
      const auto* i = s.as<ir::IfThenElseNode>();
      bool lane = under_lane_condition || ir::uses_var(i->cond, v);
      return vectorizable(i->then_case, v, lane) && vectorizable(i->else_case, v, lane);
    }
    case ir::StmtKind::Barrier:
      return true;
    case ir::StmtKind::For:
    case ir::StmtKind::Allocate:
    case ir::StmtKind::AllReduce:
      return false;
  }
  return false;
}

}  // namespace

void Emitter::emit_vectorized_for(const ir::ForNode* op) {
  internal_check(lanes_ == 0, "vectorized loop ", op->var.name(), " inside a vector body");
  const int64_t* extent = ir::as_const_int(op->extent);
  llvm::Value* mn = emit(op->min);
  if (!extent || !vectorizable(op->body, op->var, false)) {
    emit_counted_loop(mn, b_.CreateAdd(mn, emit(op->extent)), [&](llvm::Value* i) {
      vars_[op->var] = i;
      emit(op->body);
    }, "vectorize");
    vars_.erase(op->var);
    return;
  }
  if (*extent <= kChunkLanes) {
    if (*extent > 0) emit_vector_body(op, mn, static_cast<int>(*extent));
    return;
  }
  int64_t full = *extent / kChunkLanes;
  emit_counted_loop(b_.getInt64(0), b_.getInt64(full), [&](llvm::Value* c) {
    emit_vector_body(op, b_.CreateAdd(mn, b_.CreateMul(c, b_.getInt64(kChunkLanes))), kChunkLanes);
  });
  if (int64_t rest = *extent % kChunkLanes)
    emit_vector_body(op, b_.CreateAdd(mn, b_.getInt64(full * kChunkLanes)), static_cast<int>(rest));
}

void Emitter::emit_vector_body(const ir::ForNode* op, llvm::Value* base, int lanes) {
  lanes_ = lanes;
  vec_var_ = op->var;
  vec_base_ = base;
  mask_ = nullptr;
  std::vector<llvm::Constant*> steps;
  for (int k = 0; k < lanes; ++k) steps.push_back(b_.getInt64(k));
  vars_[op->var] = b_.CreateAdd(splat(base), llvm::ConstantVector::get(steps), op->var.name());
  emit(op->body);
  vars_.erase(op->var);
  lanes_ = 0;
  vec_var_ = ir::Var();
  vec_base_ = nullptr;
}

llvm::Value* Emitter::splat(llvm::Value* v) {
  if (lanes_ == 0 || v->getType()->isVectorTy()) return v;
  return b_.CreateVectorSplat(lanes_, v);
}

llvm::Value* Emitter::active_mask() {
  return mask_ ? mask_ : llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(b_.getInt1Ty(), lanes_));
}

llvm::Value* Emitter::call_per_lane(llvm::Value* arg, const char* scalar_name) {
  auto* vt = llvm::cast<llvm::FixedVectorType>(arg->getType());
  llvm::Type* et = vt->getElementType();
  llvm::FunctionCallee fn = module_.getOrInsertFunction(scalar_name, et, et);
  llvm::Value* result = llvm::PoisonValue::get(vt);
  for (unsigned k = 0; k < vt->getNumElements(); ++k)
    result = b_.CreateInsertElement(result, b_.CreateCall(fn, {b_.CreateExtractElement(arg, k)}), k);
  return result;
}

namespace {

// The index of lane 0, emitted as scalar code with the vector variable bound
// to the chunk base (valid because the index has coefficient 1).
struct ScalarLaneZero {
  int& lanes;
  llvm::Value*& binding;
  int saved_lanes;
  llvm::Value* saved_binding;
  ScalarLaneZero(int& l, llvm::Value*& b, llvm::Value* base)
      : lanes(l), binding(b), saved_lanes(l), saved_binding(b) {
    lanes = 0;
    binding = base;
  }
  ~ScalarLaneZero() {
    lanes = saved_lanes;
    binding = saved_binding;
  }
};

}  // namespace

llvm::Value* Emitter::emit_vector_load(const ir::LoadNode* op) {
  const ir::Buffer& buf = op->buffer;
  ir::Expr index = lower::flat_index(buf, op->indices);
  auto stride = ir::linear_coefficient(index, vec_var_);
  llvm::Type* et = memory_type(buf->dtype);
  auto* vt = llvm::FixedVectorType::get(et, lanes_);
  llvm::Align align(ir::dtype_bytes(buf->dtype));
  llvm::Instruction* load = nullptr;
  if (stride && *stride == 1) {
    llvm::Value* addr;
    {
      ScalarLaneZero scope(lanes_, vars_[vec_var_], vec_base_);
      addr = element_address(buf, emit(index));
    }
    if (mask_)
      load = b_.CreateMaskedLoad(vt, addr, align, mask_, llvm::Constant::getNullValue(vt));
    else
      load = b_.CreateAlignedLoad(vt, addr, align);
  } else if (stride && *stride > 1 && *stride <= target::Target::kMaxShuffledLoadStride && !mask_) {
    return emit_strided_load(op, index, *stride);
  } else {
    llvm::Value* idx = emit(index);
    if (!idx->getType()->isVectorTy() && !mask_) {
      // Invariant in the lane: one scalar load, widened where it is used.
      load = b_.CreateAlignedLoad(et, element_address(buf, idx), align);
    } else {
      llvm::Value* ptrs = element_address(buf, splat(idx));
      load = b_.CreateMaskedGather(vt, ptrs, align, active_mask(), llvm::Constant::getNullValue(vt));
    }
  }
  tag_access(load, buf);
  if (buf->dtype == ir::DType::Bool)
    return b_.CreateICmpNE(load, llvm::Constant::getNullValue(load->getType()));
  return load;
}

// Lanes `stride` elements apart (a stride-2 convolution's input row): the
// `stride` vectors that cover them, the last masked to end at the last lane's
// element (nothing past what a gather would touch), then one shuffle picks
// every stride-th element. On AVX-512 two loads and a vpermt2ps instead of a
// 16-element gather.
llvm::Value* Emitter::emit_strided_load(const ir::LoadNode* op, const ir::Expr& index, int64_t stride) {
  const ir::Buffer& buf = op->buffer;
  llvm::Type* et = memory_type(buf->dtype);
  const unsigned lanes = static_cast<unsigned>(lanes_);
  auto* vt = llvm::FixedVectorType::get(et, lanes);
  llvm::Align align(ir::dtype_bytes(buf->dtype));
  llvm::Value* addr;
  {
    ScalarLaneZero scope(lanes_, vars_[vec_var_], vec_base_);
    addr = element_address(buf, emit(index));
  }
  const unsigned span = lanes * static_cast<unsigned>(stride) - static_cast<unsigned>(stride - 1);
  std::vector<llvm::Value*> parts;
  for (unsigned start = 0; start < span; start += lanes) {
    llvm::Value* part_addr = b_.CreateGEP(et, addr, b_.getInt64(start));
    llvm::Instruction* part;
    if (start + lanes <= span) {
      part = b_.CreateAlignedLoad(vt, part_addr, align);
    } else {
      std::vector<llvm::Constant*> keep;
      for (unsigned t = 0; t < lanes; ++t) keep.push_back(b_.getInt1(start + t < span));
      part = b_.CreateMaskedLoad(vt, part_addr, align, llvm::ConstantVector::get(keep),
                                 llvm::Constant::getNullValue(vt));
    }
    tag_access(part, buf);
    parts.push_back(part);
  }
  // Concatenate the parts (a shuffle takes two vectors of one type), then pick.
  llvm::Value* wide = parts[0];
  for (size_t k = 1; k < parts.size(); ++k) {
    const unsigned have = llvm::cast<llvm::FixedVectorType>(wide->getType())->getNumElements();
    llvm::Value* next = parts[k];
    if (have > lanes) {
      std::vector<int> widen(have, -1);
      for (unsigned t = 0; t < lanes; ++t) widen[t] = static_cast<int>(t);
      next = b_.CreateShuffleVector(next, widen);
    }
    std::vector<int> concat(have + lanes);
    for (unsigned t = 0; t < have + lanes; ++t) concat[t] = static_cast<int>(t);
    wide = b_.CreateShuffleVector(wide, next, concat);
  }
  std::vector<int> pick(lanes);
  for (unsigned t = 0; t < lanes; ++t) pick[t] = static_cast<int>(t * stride);
  llvm::Value* load = b_.CreateShuffleVector(wide, pick);
  if (buf->dtype == ir::DType::Bool)
    return b_.CreateICmpNE(load, llvm::Constant::getNullValue(load->getType()));
  return load;
}

void Emitter::emit_vector_store(const ir::StoreNode* op) {
  const ir::Buffer& buf = op->buffer;
  ir::Expr index = lower::flat_index(buf, op->indices);
  auto stride = ir::linear_coefficient(index, vec_var_);
  llvm::Value* value = emit(op->value);
  llvm::Align align(ir::dtype_bytes(buf->dtype));
  llvm::Instruction* store = nullptr;
  if (stride && *stride == 0) {
    // vectorizable() guarantees one value for all lanes and no mask.
    internal_check(!value->getType()->isVectorTy() && !mask_, "lane-invariant store of a varying value to ",
                   buf->name);
    llvm::Value* idx = emit(index);
    if (idx->getType()->isVectorTy()) idx = b_.CreateExtractElement(idx, uint64_t{0});
    if (buf->dtype == ir::DType::Bool) value = b_.CreateZExt(value, b_.getInt8Ty());
    store = b_.CreateAlignedStore(value, element_address(buf, idx), align);
  } else {
    value = splat(value);
    if (buf->dtype == ir::DType::Bool)
      value = b_.CreateZExt(value, llvm::FixedVectorType::get(b_.getInt8Ty(), lanes_));
    if (stride && *stride == 1) {
      llvm::Value* addr;
      {
        ScalarLaneZero scope(lanes_, vars_[vec_var_], vec_base_);
        addr = element_address(buf, emit(index));
      }
      if (mask_)
        store = b_.CreateMaskedStore(value, addr, align, mask_);
      else
        store = b_.CreateAlignedStore(value, addr, align);
    } else {
      // Scatter writes lanes in order, so repeated addresses keep the last
      // lane's value, as the serial loop would.
      llvm::Value* ptrs = element_address(buf, splat(emit(index)));
      store = b_.CreateMaskedScatter(value, ptrs, align, active_mask());
    }
  }
  tag_access(store, buf);
}

}  // namespace tunectl::codegen
