// Host allocations: cache-line aligned, and blocks of 2 MiB or more on
// 2 MiB boundaries, marked for transparent huge pages where the kernel has
// them (the "hg" flag of the mapping in /proc/self/smaps).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "runtime/host_memory.h"

using namespace tunectl;

namespace {

struct Free {
  void operator()(uint8_t* p) const { std::free(p); }
};

// The VmFlags line of the mapping that holds address p.
std::string vm_flags_of(const void* p) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= address && address < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

}  // namespace

TEST_CASE("small host blocks are cache-line aligned, large ones on huge-page boundaries", "[cpu]") {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{100}, size_t{(2 << 20) - 1}}) {
    std::unique_ptr<uint8_t, Free> p(runtime::allocate_host(bytes));
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p.get()) % runtime::kHostAlignment == 0);
  }
  const size_t large = (6 << 20) + 123;
  std::unique_ptr<uint8_t, Free> p(runtime::allocate_host(large));
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(p.get()) % (2 << 20) == 0);
  p.get()[large - 1] = 1;  // all of it is ours
  if (std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
    const std::string flags = vm_flags_of(p.get());
    INFO(flags);
    CHECK(flags.find(" hg") != std::string::npos);
  }
}
