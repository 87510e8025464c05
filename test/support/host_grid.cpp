#include "support/host_grid.h"

#include <dlfcn.h>

#include <stdexcept>
#include <vector>

#include "lower/lockstep_threads.h"

namespace tunectl::testing {

namespace {

struct ThreadState {
  unsigned thread[3], block[3];
};

// The block whose threads are running, and the module's tc_current.
thread_local lower::LockstepThreads* running_block = nullptr;
thread_local ThreadState** current_slot = nullptr;

// __syncthreads: waits at the block's barrier, then names this thread to
// the module again (the other threads have run in between).
void sync_hook() {
  ThreadState* me = *current_slot;
  running_block->barrier();
  *current_slot = me;
}

}  // namespace

void run_host_grid(void* library, const std::string& kernel, const std::array<int64_t, 3>& grid,
                   const std::array<int64_t, 3>& block, void* const* args) {
  auto entry = reinterpret_cast<void (*)(void* const*)>(dlsym(library, ("tc_entry_" + kernel).c_str()));
  auto** current = static_cast<ThreadState**>(dlsym(library, "tc_current"));
  auto* hook = static_cast<void (**)()>(dlsym(library, "tc_sync_hook"));
  if (!entry || !current || !hook) throw std::runtime_error("the host kernels have no kernel '" + kernel + "'");
  *hook = sync_hook;
  const auto threads = static_cast<size_t>(block[0] * block[1] * block[2]);
  lower::LockstepThreads runner(threads);
  running_block = &runner;
  current_slot = current;
  std::vector<ThreadState> states(threads);
  for (int64_t bz = 0; bz < grid[2]; ++bz) {
    for (int64_t by = 0; by < grid[1]; ++by) {
      for (int64_t bx = 0; bx < grid[0]; ++bx) {
        for (size_t t = 0; t < threads; ++t) {
          const auto tx = static_cast<unsigned>(t % block[0]), ty = static_cast<unsigned>(t / block[0] % block[1]);
          const auto tz = static_cast<unsigned>(t / (block[0] * block[1]));
          states[t] = {{tx, ty, tz}, {static_cast<unsigned>(bx), static_cast<unsigned>(by), static_cast<unsigned>(bz)}};
        }
        runner.run(threads, [&](size_t t) {
          *current = &states[t];
          entry(args);
        });
      }
    }
  }
  running_block = nullptr;
}

}  // namespace tunectl::testing
