// NDArray: a dense, 64-byte aligned host array with a dtype and a shape. The
// currency between the reference evaluator, compiled kernels and tests.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace tunectl::runtime {

// The most elements one array may have: 2^40 (4 TiB of float32), past any
// real model, and small enough that its byte count and every index into it
// stay far inside int64.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

// The number of elements of an array of `shape`; UserError naming `what`
// (and the shape) for a negative dimension or more than kMaxTensorElements,
// so that it can be checked before anything of that size is allocated.
int64_t checked_element_count(const std::vector<int64_t>& shape, const std::string& what);

class NDArray {
 public:
  NDArray() = default;
  // Zero-filled; UserError for a shape checked_element_count refuses.
  NDArray(ir::DType dtype, std::vector<int64_t> shape);

  ir::DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const;
  size_t num_bytes() const;
  void* raw() { return data_.get(); }
  const void* raw() const { return data_.get(); }
  std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(raw()), num_bytes()}; }
  template <typename T>
  T* data() { return static_cast<T*>(raw()); }
  template <typename T>
  const T* data() const { return static_cast<const T*>(raw()); }

  // Element i (flat, row-major) converted to / from double, any dtype.
  double get(int64_t i) const;
  void set(int64_t i, double v);
  // The same for integer and bool elements, exact (a double holds int64
  // values only up to 2^53; INT64_MAX, a reduction's identity, overflows).
  int64_t get_int(int64_t i) const;
  void set_int(int64_t i, int64_t v);

  // Uniform values in [lo, hi) (integers: rounded down).
  void fill_random(std::mt19937_64& rng, double lo = -1.0, double hi = 1.0);

 private:
  ir::DType dtype_ = ir::DType::Float32;
  std::vector<int64_t> shape_;
  std::shared_ptr<uint8_t[]> data_;
};

// a's values (row-major order unchanged) under another shape of the same
// element count; InternalError when the counts differ.
NDArray with_shape(const NDArray& a, const std::vector<int64_t>& shape);

// Elementwise |a - b| <= atol + rtol * |b|; on failure a message naming the
// first mismatching element and the count of mismatches.
struct CompareResult {
  bool ok = true;
  std::string message;
};
CompareResult all_close(const NDArray& actual, const NDArray& expected, double rtol = 1e-4, double atol = 1e-5);

}  // namespace tunectl::runtime
