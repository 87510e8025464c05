#include "codegen/llvm/fast_math.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <initializer_list>

namespace tunectl::codegen {

namespace {

llvm::Value* constant(llvm::Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }

llvm::Value* fmuladd(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* y, llvm::Value* z) {
  return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {x->getType()}, {x, y, z});
}

// c[0] * x^(n-1) + ... + c[n-1], by Horner's rule.
llvm::Value* polynomial(llvm::IRBuilderBase& b, llvm::Value* x, std::initializer_list<double> c) {
  auto it = c.begin();
  llvm::Value* p = constant(x, *it++);
  for (; it != c.end(); ++it) p = fmuladd(b, p, x, constant(x, *it));
  return p;
}

// min(max(x, lo), hi) that keeps a NaN (ordered compares are false for it).
llvm::Value* clamp(llvm::IRBuilderBase& b, llvm::Value* x, double lo, double hi) {
  llvm::Value* y = b.CreateSelect(b.CreateFCmpOLT(x, constant(x, lo)), constant(x, lo), x);
  return b.CreateSelect(b.CreateFCmpOGT(y, constant(x, hi)), constant(x, hi), y);
}

// 2^n for an integer-valued float n in [-126, 127], built in the exponent bits.
llvm::Value* exp2_int(llvm::IRBuilderBase& b, llvm::Value* n) {
  // i32 of n's shape (Type::getWithNewBitWidth takes integer types only).
  llvm::Type* int_type = b.getInt32Ty();
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(n->getType()))
    int_type = llvm::VectorType::get(int_type, vector->getElementCount());
  llvm::Value* bits = b.CreateAdd(b.CreateFPToSI(n, int_type), llvm::ConstantInt::get(int_type, 127));
  return b.CreateBitCast(b.CreateShl(bits, llvm::ConstantInt::get(int_type, 23)), n->getType());
}

}  // namespace

llvm::Value* emit_fast_exp(llvm::IRBuilderBase& b, llvm::Value* x) {
  // Past these, expf is +inf or below the smallest normal float (flushed to 0).
  constexpr double kHi = 88.72283935546875, kLo = -87.33654475;
  llvm::Value* xc = clamp(b, x, kLo, kHi);
  // x = n ln2 + r, |r| <= ln2 / 2; ln2 in two parts keeps r exact.
  llvm::Value* n = b.CreateIntrinsic(llvm::Intrinsic::roundeven, {x->getType()},
                                     {b.CreateFMul(xc, constant(x, 1.44269504088896341))});
  llvm::Value* r = fmuladd(b, n, constant(x, -0.693359375), xc);
  r = fmuladd(b, n, constant(x, 2.12194440e-4), r);
  llvm::Value* p = polynomial(b, r, {1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                                     1.6666665459e-1, 5.0000001201e-1});
  llvm::Value* y = fmuladd(b, b.CreateFMul(p, r), r, b.CreateFAdd(r, constant(x, 1.0)));
  // 2^n in two factors: n reaches 128 at kHi, past the exponent field.
  llvm::Value* half = b.CreateIntrinsic(llvm::Intrinsic::floor, {x->getType()}, {b.CreateFMul(n, constant(x, 0.5))});
  y = b.CreateFMul(b.CreateFMul(y, exp2_int(b, half)), exp2_int(b, b.CreateFSub(n, half)));
  y = b.CreateSelect(b.CreateFCmpOLT(x, constant(x, kLo)), constant(x, 0.0), y);
  y = b.CreateSelect(b.CreateFCmpOGT(x, constant(x, kHi)), llvm::ConstantFP::getInfinity(x->getType()), y);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

llvm::Value* emit_fast_erf(llvm::IRBuilderBase& b, llvm::Value* x) {
  // |erf(x)| rounds to 1 past 4; a NaN stays a NaN through the clamp.
  llvm::Value* xc = clamp(b, x, -4.0, 4.0);
  llvm::Value* x2 = b.CreateFMul(xc, xc);
  llvm::Value* p = polynomial(b, x2, {-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                                      -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                                      -1.60960333262415e-02});
  llvm::Value* q = polynomial(b, x2, {-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                                      -7.37332916720468e-03, -1.42647390514189e-02});
  return b.CreateFDiv(b.CreateFMul(xc, p), q);
}

llvm::Value* emit_fast_tanh(llvm::IRBuilderBase& b, llvm::Value* x) {
  // tanh rounds to +-1 past 7.9; below 4e-4 it is x to float precision.
  llvm::Value* xc = clamp(b, x, -7.90531110763549805, 7.90531110763549805);
  llvm::Value* x2 = b.CreateFMul(xc, xc);
  llvm::Value* p = polynomial(b, x2, {-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11,
                                      5.12229709037114e-08, 1.48572235717979e-05, 6.37261928875436e-04,
                                      4.89352455891786e-03});
  llvm::Value* q = polynomial(b, x2, {1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03,
                                      4.89352518554385e-03});
  llvm::Value* y = b.CreateFDiv(b.CreateFMul(xc, p), q);
  llvm::Value* tiny = b.CreateFCmpOLT(b.CreateIntrinsic(llvm::Intrinsic::fabs, {x->getType()}, {x}), constant(x, 4e-4));
  return b.CreateSelect(tiny, x, y);
}

}  // namespace tunectl::codegen
