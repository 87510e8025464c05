// Private to lib/codegen/llvm: float32 exp, erf and tanh emitted inline as
// LLVM IR on a scalar or a vector, so that a vector loop of them stays vector
// code. LLVM has no vector library here: llvm.exp on <16 x float> becomes 16
// calls of expf, and erf/tanh have no intrinsic at all (softmax, GELU and
// sigmoid ran at 2-3 GFLOP/s). Range reduction and polynomial for exp (the
// Cephes expf scheme), rational minimax approximations for erf and tanh (the
// ones Eigen and TVM's fast_erf/fast_tanh use), all within a few float ulp of
// libm, with libm's values for NaN, the infinities and outside the range.
#pragma once

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace tunectl::codegen {

// x: float or <N x float>.
llvm::Value* emit_fast_exp(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_fast_erf(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_fast_tanh(llvm::IRBuilderBase& b, llvm::Value* x);

}  // namespace tunectl::codegen
