#include "lower/gpu_emulator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "ir/error.h"
#include "ir/printer.h"
#include "lower/launch_dims.h"
#include "lower/lockstep_threads.h"
#include "lower/loop_interpreter.h"

namespace tunectl::lower {

namespace {

using Index3 = std::array<int64_t, 3>;

std::string to_text(const Index3& i) {
  return "(" + std::to_string(i[0]) + "," + std::to_string(i[1]) + "," + std::to_string(i[2]) + ")";
}

// Who last wrote and read one shared element, and in which barrier interval
// (epoch) of the block. Epoch 0 is "never".
struct Shadow {
  int32_t writer = -1;
  uint32_t write_epoch = 0;
  int32_t reader = -1;  // kSeveralReaders when more than one thread read it
  uint32_t read_epoch = 0;
};
constexpr int32_t kSeveralReaders = -2;

struct SharedBuffer {
  runtime::NDArray data;
  std::vector<Shadow> shadow;
};

// What the threads of the block being run share.
struct Block {
  Index3 index{};
  Index3 threads{};  // the block's dimensions
  uint32_t epoch = 1;  // barriers passed + 1
  std::map<const ir::BufferNode*, SharedBuffer> shared;

  Index3 thread_index(int32_t linear) const {
    return {linear % threads[0], linear / threads[0] % threads[1], linear / (threads[0] * threads[1])};
  }
};

bool same_bits(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// One thread of the block: the interpreter with GPU meanings for bound
// loops, barriers, shared allocations and accesses to shared memory.
class GpuThread : public LoopInterpreter {
 public:
  GpuThread(Block& block, int32_t linear_id, LockstepThreads& lockstep)
      : block_(block), id_(linear_id), index_(block.thread_index(linear_id)), lockstep_(lockstep) {}

 protected:
  void run_bound_loop(const ir::ForNode* op) override {
    std::optional<HardwareIndex> hw = hardware_index(op->thread_tag);
    if (!hw) return run_loop(op);  // vthread
    const int64_t i = hw->is_block ? block_.index[hw->dim] : index_[hw->dim];
    if (i < eval_int(op->extent)) run_with(op->var, i, op->body);
  }

  void barrier() override { lockstep_.barrier(); }

  void allocate(const ir::AllocateNode* op) override {
    if (op->buffer->scope != ir::MemScope::Shared) return LoopInterpreter::allocate(op);
    auto it = block_.shared.find(op->buffer.get());
    if (it == block_.shared.end()) {
      SharedBuffer fresh{poisoned_scratch(op->buffer), std::vector<Shadow>(op->buffer->num_elements())};
      it = block_.shared.emplace(op->buffer.get(), std::move(fresh)).first;
    }
    run_with_buffer(op->buffer, &it->second.data, op->body);
  }

  void access(const ir::Buffer& b, int64_t index, bool is_write, double stored) override {
    if (b->scope != ir::MemScope::Shared) return;
    SharedBuffer& buffer = block_.shared.at(b.get());
    Shadow& s = buffer.shadow[index];
    const uint32_t e = block_.epoch;
    if (s.write_epoch == e && s.writer != id_) {
      // Threads that all store the same value (a tile every thread fills
      // whole) race harmlessly; different values are a real race.
      const bool same_value = is_write && same_bits(buffer.data.get(index), stored);
      if (!same_value) race(b, index, s.writer, "written", is_write ? "written" : "read");
    }
    if (is_write) {
      if (s.read_epoch == e && s.reader != id_) race(b, index, s.reader, "read", "written");
      s.writer = id_;
      s.write_epoch = e;
    } else if (s.read_epoch != e) {
      s.reader = id_;
      s.read_epoch = e;
    } else if (s.reader != id_) {
      s.reader = kSeveralReaders;
    }
  }

  [[noreturn]] void out_of_bounds(const ir::Buffer& b, int64_t index, const ir::Expr& index_expr) override {
    throw EmulatorError(where() + "index " + std::to_string(index) + " out of range of buffer " + b->name + " (" +
                        std::to_string(b->num_elements()) + " elements), in " + ir::to_string(index_expr));
  }

 private:
  std::string where() const {
    return "gpu emulator: block " + to_text(block_.index) + " thread " + to_text(index_) + ": ";
  }

  [[noreturn]] void race(const ir::Buffer& b, int64_t index, int32_t other, const char* other_did,
                         const char* this_did) const {
    const std::string other_thread =
        other == kSeveralReaders ? "other threads" : "thread " + to_text(block_.thread_index(other));
    throw EmulatorError(where() + "race on shared buffer " + b->name + "[" + std::to_string(index) + "]: " +
                        other_did + " by " + other_thread + " and " + this_did + " by thread " + to_text(index_) +
                        " with no barrier between");
  }

  Block& block_;
  int32_t id_;
  Index3 index_;
  LockstepThreads& lockstep_;
};

void run_block(Block& block, const LoweredFunc& func, const std::vector<runtime::NDArray*>& args,
               LockstepThreads& lockstep) {
  const int64_t n = block.threads[0] * block.threads[1] * block.threads[2];
  std::vector<std::unique_ptr<GpuThread>> threads;
  for (int64_t i = 0; i < n; ++i) {
    threads.push_back(std::make_unique<GpuThread>(block, static_cast<int32_t>(i), lockstep));
    for (size_t a = 0; a < args.size(); ++a) threads.back()->bind(func.args[a], args[a]);
  }
  try {
    lockstep.run(
        static_cast<size_t>(n), [&](size_t i) { threads[i]->exec(func.body); }, [&] { ++block.epoch; });
  } catch (const DivergentBarrier& e) {
    throw EmulatorError("gpu emulator: block " + to_text(block.index) + ": " + e.what());
  }
}

}  // namespace

void emulate_gpu_blocks(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args, int64_t max_blocks) {
  internal_check(args.size() == func.args.size(), "emulate_gpu ", func.name, ": ", args.size(), " arrays for ",
                 func.args.size(), " arguments");
  for (size_t i = 0; i < args.size(); ++i) {
    internal_check(args[i]->dtype() == func.args[i]->dtype && args[i]->shape() == func.args[i]->shape,
                   "emulate_gpu ", func.name, ": array ", i, " does not match argument ", func.args[i]->name);
  }
  const LaunchDims dims = launch_dims(func);
  const int64_t total = dims.grid[0] * dims.grid[1] * dims.grid[2];
  const int64_t runs = max_blocks > 1 ? std::min(max_blocks, total) : total;
  LockstepThreads lockstep(static_cast<size_t>(dims.threads_per_block()));
  Block block;
  block.threads = dims.block;
  for (int64_t k = 0; k < runs; ++k) {
    // Blocks in launch order (x fastest), evenly spaced, first and last.
    const int64_t linear = runs == total ? k : k * (total - 1) / (runs - 1);
    block.index = {linear % dims.grid[0], linear / dims.grid[0] % dims.grid[1], linear / (dims.grid[0] * dims.grid[1])};
    block.epoch = 1;
    block.shared.clear();
    run_block(block, func, args, lockstep);
  }
}

void emulate_gpu(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args) {
  emulate_gpu_blocks(func, args, 0);
}

}  // namespace tunectl::lower
