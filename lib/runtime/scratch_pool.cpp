#include "runtime/scratch_pool.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace tunectl::runtime {
namespace {

// A block serves requests down to half its size: a kernel's buffers come
// back whole, and a smaller one does not pin much memory it never uses.
constexpr size_t kMaxWaste = 2;

struct Pool {
  std::mutex mutex;
  std::multimap<size_t, void*> idle;  // bytes -> block
  std::map<void*, size_t> in_use;     // block -> bytes
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: kernels may free after static destructors ran
  return *p;
}

// Blocks have the alignment every kernel asks for (a cache line); a stricter
// request goes to the C library unpooled.
constexpr size_t kPoolAlignment = 64;

}  // namespace

std::vector<std::span<const std::byte>> idle_scratch() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  std::vector<std::span<const std::byte>> blocks;
  for (const auto& [bytes, block] : p.idle) blocks.emplace_back(static_cast<const std::byte*>(block), bytes);
  return blocks;
}

void release_idle_scratch() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  for (const auto& [bytes, block] : p.idle) std::free(block);
  p.idle.clear();
}

}  // namespace tunectl::runtime

extern "C" void* tunectl_scratch_alloc(size_t alignment, size_t bytes) {
  using tunectl::runtime::kMaxWaste;
  using tunectl::runtime::kPoolAlignment;
  if (alignment > kPoolAlignment || bytes == 0) return std::aligned_alloc(alignment, bytes);
  tunectl::runtime::Pool& p = tunectl::runtime::pool();
  {
    std::lock_guard lock(p.mutex);
    auto it = p.idle.lower_bound(bytes);
    if (it != p.idle.end() && it->first <= kMaxWaste * bytes) {
      void* block = it->second;
      p.in_use[block] = it->first;
      p.idle.erase(it);
      return block;
    }
  }
  const size_t rounded = (bytes + kPoolAlignment - 1) / kPoolAlignment * kPoolAlignment;
  void* block = std::aligned_alloc(kPoolAlignment, rounded);
  if (block == nullptr) return nullptr;
  std::lock_guard lock(p.mutex);
  p.in_use[block] = rounded;
  return block;
}

extern "C" void tunectl_scratch_free(void* block) {
  if (block == nullptr) return;
  tunectl::runtime::Pool& p = tunectl::runtime::pool();
  std::lock_guard lock(p.mutex);
  auto it = p.in_use.find(block);
  if (it == p.in_use.end()) {
    std::free(block);  // an unpooled (over-aligned) block
    return;
  }
  p.idle.emplace(it->second, block);
  p.in_use.erase(it);
}
