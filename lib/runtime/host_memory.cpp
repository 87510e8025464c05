#include "runtime/host_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace tunectl::runtime {

uint8_t* allocate_host(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;  // x86-64's
  const size_t alignment = bytes >= kHugePage ? kHugePage : kHostAlignment;
  // aligned_alloc wants a multiple of the alignment.
  const size_t rounded = (std::max<size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(alignment, rounded));
  if (!p) throw std::bad_alloc();
  // Before the first touch, which is when the kernel picks the page size.
  // A refusal (no THP in this kernel) leaves small pages: only slower.
  if (alignment == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

}  // namespace tunectl::runtime
