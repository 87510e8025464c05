#include "runtime/ndarray.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "ir/error.h"
#include "ir/printer.h"
#include "runtime/host_memory.h"

namespace tunectl::runtime {

namespace {

// Calls f with a typed pointer to element i of a (bool stored as one byte).
template <typename F>
auto with_element(ir::DType t, const void* base, int64_t i, F f) {
  switch (t) {
    case ir::DType::Bool: return f(static_cast<const uint8_t*>(base) + i);
    case ir::DType::Int8: return f(static_cast<const int8_t*>(base) + i);
    case ir::DType::UInt8: return f(static_cast<const uint8_t*>(base) + i);
    case ir::DType::Int16: return f(static_cast<const int16_t*>(base) + i);
    case ir::DType::UInt16: return f(static_cast<const uint16_t*>(base) + i);
    case ir::DType::Int32: return f(static_cast<const int32_t*>(base) + i);
    case ir::DType::UInt32: return f(static_cast<const uint32_t*>(base) + i);
    case ir::DType::Int64: return f(static_cast<const int64_t*>(base) + i);
    case ir::DType::UInt64: return f(static_cast<const uint64_t*>(base) + i);
    case ir::DType::Float32: return f(static_cast<const float*>(base) + i);
    case ir::DType::Float64: return f(static_cast<const double*>(base) + i);
    case ir::DType::Float16: return f(static_cast<const _Float16*>(base) + i);
  }
  internal_fail("bad dtype");
}

}  // namespace

int64_t checked_element_count(const std::vector<int64_t>& shape, const std::string& what) {
  for (int64_t d : shape) user_check(d >= 0, what, " has shape ", ir::shape_to_string(shape), ", a negative dimension");
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d == 0) return 0;
    user_check(d <= kMaxTensorElements / count, what, " has shape ", ir::shape_to_string(shape),
               ": more than 2^40 elements, past what tunectl can hold");
    count *= d;
  }
  return count;
}

NDArray::NDArray(ir::DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  checked_element_count(shape_, "an array");
  const size_t bytes = std::max<size_t>(num_bytes(), 1);  // a scalar array has storage too
  uint8_t* p = allocate_host(bytes);
  std::memset(p, 0, bytes);
  data_ = std::shared_ptr<uint8_t[]>(p, [](uint8_t* q) { std::free(q); });
}

int64_t NDArray::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

size_t NDArray::num_bytes() const { return static_cast<size_t>(num_elements()) * ir::dtype_bytes(dtype_); }

double NDArray::get(int64_t i) const {
  internal_check(i >= 0 && i < num_elements(), "NDArray::get index ", i, " out of range");
  return with_element(dtype_, raw(), i, [](auto* p) { return static_cast<double>(*p); });
}

void NDArray::set(int64_t i, double v) {
  internal_check(i >= 0 && i < num_elements(), "NDArray::set index ", i, " out of range");
  if (!ir::is_float(dtype_)) {
    // Through a 64-bit integer, which the narrower types wrap (a uint64 past
    // INT64_MAX keeps its value).
    set_int(i, v >= 0x1p63 ? static_cast<int64_t>(static_cast<uint64_t>(v)) : static_cast<int64_t>(v));
    return;
  }
  with_element(dtype_, raw(), i, [&](auto* p) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(p)>>;
    *const_cast<T*>(p) = static_cast<T>(v);
  });
}

int64_t NDArray::get_int(int64_t i) const {
  internal_check(i >= 0 && i < num_elements() && !ir::is_float(dtype_), "NDArray::get_int index ", i,
                 " out of range or not an integer array");
  return with_element(dtype_, raw(), i, [](auto* p) { return static_cast<int64_t>(*p); });
}

void NDArray::set_int(int64_t i, int64_t v) {
  internal_check(i >= 0 && i < num_elements() && !ir::is_float(dtype_), "NDArray::set_int index ", i,
                 " out of range or not an integer array");
  const int64_t value = ir::wrap_to(dtype_, v);  // bool: 0 or 1
  with_element(dtype_, raw(), i, [&](auto* p) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(p)>>;
    *const_cast<T*>(p) = static_cast<T>(value);
  });
}

void NDArray::fill_random(std::mt19937_64& rng, double lo, double hi) {
  user_check(lo < hi, "fill_random needs lo < hi, got [", lo, ", ", hi, ")");
  std::uniform_real_distribution<double> dist(lo, hi);
  int64_t n = num_elements();
  for (int64_t i = 0; i < n; ++i) {
    double v = dist(rng);
    // Unsigned integers take the values of [lo, hi) shifted to start at 0.
    if (ir::is_unsigned(dtype_)) v -= std::min(lo, 0.0);
    set(i, ir::is_float(dtype_) ? v : std::floor(v));
  }
}

NDArray with_shape(const NDArray& a, const std::vector<int64_t>& shape) {
  if (a.shape() == shape) return a;
  NDArray out(a.dtype(), shape);
  internal_check(out.num_bytes() == a.num_bytes(), "with_shape: a different element count");
  std::memcpy(out.raw(), a.raw(), a.num_bytes());
  return out;
}

CompareResult all_close(const NDArray& actual, const NDArray& expected, double rtol, double atol) {
  CompareResult r;
  if (actual.shape() != expected.shape() || actual.dtype() != expected.dtype()) {
    r.ok = false;
    r.message = "shape/dtype mismatch: actual " + std::string(ir::to_string(actual.dtype())) +
                ir::shape_to_string(actual.shape()) + " vs expected " + std::string(ir::to_string(expected.dtype())) +
                ir::shape_to_string(expected.shape());
    return r;
  }
  int64_t n = expected.num_elements();
  int64_t mismatches = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < n; ++i) {
    double a = actual.get(i), b = expected.get(i);
    bool close;
    if (std::isnan(a) || std::isnan(b)) {
      close = std::isnan(a) && std::isnan(b);
    } else if (std::isinf(a) || std::isinf(b)) {
      close = a == b;
    } else {
      close = std::fabs(a - b) <= atol + rtol * std::fabs(b);
    }
    if (!close) {
      if (first < 0) first = i;
      ++mismatches;
    }
  }
  if (mismatches > 0) {
    r.ok = false;
    std::ostringstream os;
    os.precision(9);
    os << "mismatch at flat index " << first << ": actual " << actual.get(first) << " vs expected "
       << expected.get(first) << " (" << mismatches << " of " << n << " elements differ, rtol=" << rtol
       << ", atol=" << atol << ")";
    r.message = os.str();
  }
  return r;
}

}  // namespace tunectl::runtime
