// Host memory for the arrays kernels stream through: aligned to a cache line
// (64 bytes, also an AVX-512 vector), and a block of 2 MiB or more aligned to
// 2 MiB and marked for transparent huge pages (madvise; Debian's default mode
// gives huge pages only on request). A model's weights pass through the TLB
// on every run: light ResNet-50's 97 MiB are 25,000 pages of 4 KiB, six times
// what the second-level TLB of a Zen 5 core holds, and 49 huge pages. In
// the model that is 1% (18.45 and 18.77 ms against 18.66 and 18.96 on 4 KiB
// pages, interleaved runs of bench-vs-ort.sh on the Zen 5 machine); BERT's
// 414 MiB showed no difference beyond the noise (+-1.5%).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tunectl::runtime {

inline constexpr size_t kHostAlignment = 64;

// At least `bytes` (at least one cache line), zeroed only where the system
// says so (not promised); std::bad_alloc when the system has none. Free
// with std::free.
uint8_t* allocate_host(size_t bytes);

}  // namespace tunectl::runtime
