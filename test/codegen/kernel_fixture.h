// Helpers for codegen tests: 64-byte aligned host arrays (the alignment the
// kernel ABI promises) and a one-call "compile and run" for hand-built
// LoweredFuncs.
#pragma once

#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "backend/backend.h"
#include "codegen/llvm/llvm_codegen.h"

namespace tunectl::test {

// The host CPU target, which the codegen tests compile for.
inline const target::Target& host() { return backend::host_backend()->target(); }

template <typename T>
class AlignedArray {
 public:
  explicit AlignedArray(size_t n, T fill = T{})
      : n_(n), data_(static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64 + 64))) {
    for (size_t i = 0; i < n; ++i) data_.get()[i] = fill;
  }
  T* data() { return data_.get(); }
  T& operator[](size_t i) { return data_.get()[i]; }
  const T& operator[](size_t i) const { return data_.get()[i]; }
  size_t size() const { return n_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  size_t n_;
  std::unique_ptr<T, Free> data_;
};

inline AlignedArray<float> random_floats(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  AlignedArray<float> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = dist(rng);
  return a;
}

// Compiles func with the JIT and runs it once on args (in func.args order).
inline void compile_and_run(const lower::LoweredFunc& func, std::vector<void*> args) {
  std::unique_ptr<runtime::Kernel> kernel = backend::host_backend()->build(func);
  kernel->run(args.data());
}

}  // namespace tunectl::test
