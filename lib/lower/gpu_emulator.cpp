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

// The value each lane of a warp of `values.size()` lanes (a power of two)
// holds after a butterfly of shuffles (__shfl_xor_sync), as the CUDA code
// combines (codegen/cuda/cuda_source.cpp, tc_warp_allreduce): every lane
// ends with the same value, combined in the same order.
template <typename T, typename Combine>
T warp_allreduce(std::vector<T> values, const Combine& combine) {
  const size_t n = values.size();
  for (size_t offset = n / 2; offset > 0; offset /= 2) {
    std::vector<T> next(n);
    for (size_t lane = 0; lane < n; ++lane) next[lane] = combine(values[lane], values[lane ^ offset]);
    values = std::move(next);
  }
  return values[0];
}

// A block's all-reduce: within each warp, then (more than one warp) the
// warps' values, a warp's worth padded with the identity (tc_block_allreduce).
template <typename T, typename Combine>
T block_allreduce(const std::vector<T>& values, T identity, const Combine& combine) {
  const int64_t n = static_cast<int64_t>(values.size());
  if (n <= kWarpSize) return warp_allreduce(values, combine);
  std::vector<T> warps(kWarpSize, identity);
  for (int64_t w = 0; w < n / kWarpSize; ++w)
    warps[w] = warp_allreduce(std::vector<T>(values.begin() + w * kWarpSize, values.begin() + (w + 1) * kWarpSize),
                              combine);
  return warp_allreduce(warps, combine);
}

// The values the threads of a block put into an all-reduce, and its result.
struct Exchange {
  const ir::AllReduceNode* op = nullptr;
  int64_t arrived = 0;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  double float_result = 0;
  int64_t int_result = 0;
};

// What the threads of the block being run share.
struct Block {
  Index3 index{};
  Index3 threads{};  // the block's dimensions
  uint32_t epoch = 1;  // barriers passed + 1
  std::map<const ir::BufferNode*, SharedBuffer> shared;
  Exchange exchange;

  Index3 thread_index(int32_t linear) const {
    return {linear % threads[0], linear / threads[0] % threads[1], linear / (threads[0] * threads[1])};
  }
  int64_t size() const { return threads[0] * threads[1] * threads[2]; }

  // Once every thread waits: a barrier passed, or an all-reduce's values
  // all in. Within one warp an all-reduce is shuffles, no barrier; across
  // warps it synchronizes the block.
  void after_barrier() {
    if (exchange.op == nullptr) {
      ++epoch;
      return;
    }
    if (exchange.arrived != size())
      throw EmulatorError("gpu emulator: block " + to_text(index) + ": an all-reduce that " +
                          std::to_string(size() - exchange.arrived) + " of the block's " + std::to_string(size()) +
                          " threads do not reach with the others");
    const ir::ReduceOp op = exchange.op->combiner;
    const ir::DType t = exchange.op->buffer->dtype;
    const ir::Expr identity = ir::reduce_identity(op, t);
    if (ir::is_float(t)) {
      exchange.float_result = block_allreduce(exchange.floats, identity.as<ir::FloatImmNode>()->value,
                                              [&](double a, double b) { return LoopInterpreter::combine_floats(op, t, a, b); });
    } else {
      exchange.int_result = block_allreduce(exchange.ints, identity.as<ir::IntImmNode>()->value,
                                            [&](int64_t a, int64_t b) { return LoopInterpreter::combine_ints(op, t, a, b); });
    }
    exchange.op = nullptr;
    exchange.arrived = 0;
    if (size() > kWarpSize) ++epoch;
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

  void all_reduce(const ir::AllReduceNode* op, runtime::NDArray& a, int64_t index) override {
    Exchange& x = block_.exchange;
    x.op = op;
    ++x.arrived;
    const bool fp = ir::is_float(op->buffer->dtype);
    if (fp) {
      x.floats.resize(block_.size());
      x.floats[id_] = a.get(index);
    } else {
      x.ints.resize(block_.size());
      x.ints[id_] = a.get_int(index);
    }
    lockstep_.barrier();  // Block::after_barrier combines them
    fp ? a.set(index, x.float_result) : a.set_int(index, x.int_result);
  }

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
        static_cast<size_t>(n), [&](size_t i) { threads[i]->exec(func.body); }, [&] { block.after_barrier(); });
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
    block.exchange = Exchange{};
    run_block(block, func, args, lockstep);
  }
}

void emulate_gpu(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args) {
  emulate_gpu_blocks(func, args, 0);
}

}  // namespace tunectl::lower
