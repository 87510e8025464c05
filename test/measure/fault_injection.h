// Faulty candidates for the isolation tests of measurement and tuning: the
// kernel call that MeasureOptions::run_override makes can instead crash,
// hang, scribble past the output, compute a wrong output or meet an internal
// error (a bug of tunectl's, as a failed internal_check would be). Shared by
// test_measure and test_tune (included as "measure/fault_injection.h").
#pragma once

#include <cstdint>
#include <cstring>

#include "ir/error.h"
#include "measure/measure.h"
#include "runtime/kernel.h"

namespace tunectl::test {

enum class Fault { None, Segfault, Hang, OutOfBounds, WrongOutput, InternalError };

// Runs kernel on args (inputs, then the output at args[output_arg] of
// output_bytes) with the fault injected.
inline void run_with_fault(Fault fault, const runtime::Kernel& kernel, void* const* args, size_t output_arg,
                           size_t output_bytes) {
  switch (fault) {
    case Fault::Segfault: {  // a write to the null page, at an address the compiler cannot fold
      auto address = reinterpret_cast<uintptr_t>(args[output_arg]) & 0xfc;
      *reinterpret_cast<volatile float*>(address) = 1.0f;
      break;
    }
    case Fault::Hang: {  // never returns
      volatile bool spin = true;
      while (spin) {
      }
      break;
    }
    case Fault::OutOfBounds: {  // a huge write far past the end of the output
      char* end = static_cast<char*>(args[output_arg]) + output_bytes;
      if (measure::kAddressSanitizer) {
        // AddressSanitizer's memset would report the overflow itself, which
        // a kernel's (uninstrumented) stores never do: one stray store far
        // away stands in for them.
        *reinterpret_cast<volatile char*>(end + (size_t{1} << 34)) = 0x7f;
      } else {
        std::memset(end, 0x7f, size_t{1} << 34);
      }
      break;
    }
    case Fault::WrongOutput:  // a plausible but wrong output
      kernel.run(args);
      static_cast<float*>(args[output_arg])[5] += 0.5f;
      break;
    case Fault::InternalError:
      internal_fail("planted internal error");
    case Fault::None:
      kernel.run(args);
  }
}

}  // namespace tunectl::test
