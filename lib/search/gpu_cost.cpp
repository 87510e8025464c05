// The analytic GPU cost (gpu_cost.h): one walk over the kernel's loop IR.
#include "search/gpu_cost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "ir/eval_index.h"
#include "ir/functor.h"
#include "lower/fill_nest.h"
#include "lower/flatten.h"
#include "lower/launch_dims.h"

namespace tunectl::search {

namespace {

using namespace ir;

// L2 serves a GPU's repeated reads at a few times its DRAM bandwidth (H100:
// ~2.5x); launches cost a few microseconds each.
constexpr double kL2OverDram = 2.5;
constexpr double kLaunchSeconds = 3e-6;
// Registers a thread needs beside its private arrays (indices, addresses).
constexpr int64_t kBaseRegisters = 24;
// Warps per SM from which latency is hidden (4 schedulers x 4 warps).
constexpr double kWarpsToHideLatency = 16;
// One trip to memory that the threads of a block wait for before a barrier
// (seen on an H100: a 2-block kernel filling its tiles 1,024 times ran
// 0.40 ms).
constexpr double kFillLatencySeconds = 0.4e-6;

// How far the flat index moves when var moves by one (from 0, every other
// variable 0).
int64_t step_of(const Expr& index, const Var& var) {
  return eval_index(index, {{var.node(), 1}}) - eval_index(index, {{var.node(), 0}});
}

class CostWalker : public IRVisitor {
 public:
  explicit CostWalker(const lower::LoweredFunc& func) : dims_(lower::launch_dims(func)) {
    for (const Buffer& b : func.args) args_.insert(b.get());
  }

  double instructions = 0;    // thread instructions over the grid
  double l2_bytes = 0;        // sector traffic of global accesses
  double shared_transactions = 0;
  double fill_rounds = 0;     // trips to memory a thread waits for in turn, filling shared tiles
  int64_t shared_bytes = 0;   // per block
  int64_t private_elements = 0;  // per thread, the largest set live at once

 protected:
  void visit_For(const ForNode* op) override {
    const int64_t extent = op->extent.as<IntImmNode>() != nullptr ? op->extent.as<IntImmNode>()->value : 1;
    Level level{op->var, extent, op->for_kind, op->thread_tag, lower::staged_elements(op->body).has_value()};
    loops_.push_back(level);
    if (op->for_kind == ForKind::Serial || op->for_kind == ForKind::Parallel) instructions += executions();
    IRVisitor::visit_For(op);
    loops_.pop_back();
  }

  void visit_Allocate(const AllocateNode* op) override {
    if (op->buffer->scope == MemScope::Shared) {
      shared_bytes += op->buffer->num_bytes();
      shared_.insert(op->buffer.get());
    } else {
      private_live_ += op->buffer->num_elements();
      private_elements = std::max(private_elements, private_live_);
    }
    IRVisitor::visit_Allocate(op);
    if (op->buffer->scope != MemScope::Shared) private_live_ -= op->buffer->num_elements();
  }

  void visit_Store(const StoreNode* op) override {
    const double n = executions();
    ops_ = 0;
    IRVisitor::visit(op->value);
    for (const Expr& i : op->indices) IRVisitor::visit(i);
    instructions += n * (ops_ + 1);
    access(op->buffer, op->indices, n);
    // A fill: a shared tile stored from global memory or from the registers
    // that stage it (double_buffer).
    if (shared_.count(op->buffer.get()) != 0 && loads_unshared(op->value))
      pending_fill_ = std::max(pending_fill_, serial_fill_steps());
  }

  // The barrier after a fill waits for its loads: one trip to memory for
  // each time a thread gets here.
  void visit_Barrier(const BarrierNode*) override {
    if (pending_fill_ == 0) return;
    double runs = pending_fill_;
    for (const Level& l : loops_)
      if (l.kind != ForKind::ThreadBinding) runs *= static_cast<double>(l.extent);
    fill_rounds += runs;
    pending_fill_ = 0;
  }

  // Every thread of the block takes a shuffle and a combine per halving of
  // a warp, and across warps a store, two barriers, a load and a warp's
  // halvings again (tc_block_allreduce).
  void visit_AllReduce(const AllReduceNode*) override {
    const int64_t threads = dims_.threads_per_block();
    const double halvings = std::log2(static_cast<double>(std::min(threads, lower::kWarpSize)));
    instructions += executions() * (threads > lower::kWarpSize ? 2 * 2 * halvings + 4 : 2 * halvings);
  }

  void visit_Load(const LoadNode* op) override {
    access(op->buffer, op->indices, executions());
    IRVisitor::visit_Load(op);
  }

  void visit_Add(const AddNode* op) override { float_op(op); }
  void visit_Sub(const SubNode* op) override { float_op(op); }
  void visit_Div(const DivNode* op) override { float_op(op); }
  void visit_Min(const MinNode* op) override { float_op(op); }
  void visit_Max(const MaxNode* op) override { float_op(op); }
  void visit_Call(const CallNode* op) override {
    ops_ += 8;  // a math function is several instructions
    IRVisitor::visit_Call(op);
  }
  // A multiply feeds an add (an FMA, counted there) in the kernels that
  // matter, so multiplies are not counted.

 private:
  lower::LaunchDims dims_;

  struct Level {
    Var var;
    int64_t extent;
    ForKind kind;
    std::string tag;
    bool in_fill;  // a loop of a fill nest (lower/fill_nest.h)
  };

  bool loads_unshared(const Expr& e) const {
    bool unshared = false;
    post_order_visit(e, [&](const Expr& x) {
      if (const auto* load = x.as<LoadNode>()) unshared = unshared || shared_.count(load->buffer.get()) == 0;
    });
    return unshared;
  }

  // The steps of the current fill one thread takes in turn: its loops that
  // are neither thread-bound nor unrolled (whose loads are in flight
  // together).
  double serial_fill_steps() const {
    double steps = 1;
    for (const Level& l : loops_)
      if (l.in_fill && l.kind == ForKind::Serial) steps *= static_cast<double>(l.extent);
    return steps;
  }

  template <typename Node>
  void float_op(const Node* op) {
    if (is_float(op->dtype)) ops_ += 1;
    IRVisitor::visit(op->a);
    IRVisitor::visit(op->b);
  }

  // Runs of the current statement over the whole grid: every loop's extent,
  // but a hardware index bound again inside (a cooperative fetch) counts
  // with its innermost extent only, and every thread of a block runs what
  // no loop binds to a thread index (a reduction's result computed for the
  // block, an all-reduce).
  double executions() const {
    std::map<std::string, int64_t> bound;
    double serial = 1;
    for (const Level& l : loops_) {
      if (l.kind == ForKind::ThreadBinding && l.tag != "vthread") {
        bound[l.tag] = l.extent;
      } else {
        serial *= static_cast<double>(l.extent);
      }
    }
    for (const auto& [tag, extent] : bound) serial *= static_cast<double>(extent);
    for (int d = 0; d < 3; ++d)
      if (bound.count(std::string("threadIdx.") + static_cast<char>('x' + d)) == 0)
        serial *= static_cast<double>(dims_.block[d]);
    return serial;
  }

  const Level* innermost(const std::string& tag) const {
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
      if (it->kind == ForKind::ThreadBinding && it->tag == tag) return &*it;
    return nullptr;
  }

  void access(const Buffer& b, const std::vector<Expr>& indices, double n) {
    const bool shared = shared_.count(b.get()) != 0;
    const bool global = args_.count(b.get()) != 0;
    if (!shared && !global) return;  // a thread's private array: registers
    instructions += n;
    const Level* tx = innermost("threadIdx.x");
    const Expr index = lower::flat_index(b, indices);
    int64_t step = tx != nullptr ? std::abs(step_of(index, tx->var)) : 0;
    if (shared) {
      // Bank conflicts: threads a step apart hit the same of 32 banks every
      // 32 / gcd(step, 32) threads.
      const int64_t ways = step == 0 ? 1 : std::gcd(step, int64_t{32});
      shared_transactions += n / 32 * static_cast<double>(ways);
      return;
    }
    // A vector access's lanes are one wider access of the thread.
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
      if (it->kind != ForKind::Vectorized) continue;
      if (step_of(index, it->var) == 1 && it->extent > 0) step = (step + it->extent - 1) / it->extent;
      break;
    }
    const double bytes_per_thread = step == 0 ? 1.0 : std::min<double>(32.0, 4.0 * static_cast<double>(step));
    l2_bytes += n * bytes_per_thread;
  }

  std::set<const BufferNode*> args_;
  std::set<const BufferNode*> shared_;
  std::vector<Level> loops_;
  int64_t private_live_ = 0;
  double ops_ = 0;
  double pending_fill_ = 0;  // the serial steps of the fills since the last barrier
};

}  // namespace

GpuCost estimate_gpu_cost(const lower::LoweredFunc& func, const target::GpuFacts& gpu) {
  CostWalker walk(func);
  walk.visit(func.body);
  const lower::LaunchDims dims = lower::launch_dims(func);
  GpuCost cost;
  cost.blocks = dims.blocks();
  cost.threads_per_block = dims.threads_per_block();
  cost.shared_bytes_per_block = walk.shared_bytes;

  // Occupancy: blocks resident per SM.
  const int64_t registers = std::min<int64_t>(gpu.max_registers_per_thread, kBaseRegisters + walk.private_elements);
  int64_t per_sm = std::min<int64_t>(32, gpu.max_threads_per_sm / std::max<int64_t>(1, cost.threads_per_block));
  if (cost.shared_bytes_per_block > 0) per_sm = std::min(per_sm, gpu.shared_bytes_per_sm / cost.shared_bytes_per_block);
  per_sm = std::min<int64_t>(per_sm, gpu.registers_per_sm / std::max<int64_t>(1, registers * cost.threads_per_block));
  cost.blocks_per_sm = static_cast<int>(per_sm);
  if (per_sm <= 0) {
    cost.seconds = std::numeric_limits<double>::infinity();
    return cost;
  }
  // The launch runs in waves of `resident` blocks; within one, the busy SMs
  // and FP32 lanes bound the rates.
  const double blocks = static_cast<double>(cost.blocks);
  const double slots = static_cast<double>(per_sm) * gpu.sm_count;
  const double waves = std::ceil(blocks / slots);
  const double resident = std::min(blocks, slots);
  cost.fill = blocks / (waves * slots);
  const double threads = resident * static_cast<double>(cost.threads_per_block);
  const double busy_sms = std::min<double>(gpu.sm_count, resident);
  // Only the busy SMs' lanes: two blocks of 896 threads run on two SMs'
  // 256 lanes, not on 1792 (seen on an H200: a 3x3 convolution built so ran
  // 4.6x slower than its estimate).
  const double lanes = std::min(threads, busy_sms * gpu.fp32_lanes_per_sm);
  const double warps_per_sm = resident / busy_sms * std::ceil(cost.threads_per_block / double(gpu.warp_size));
  const double latency_hidden = std::min(1.0, std::max(0.1, warps_per_sm / kWarpsToHideLatency));

  const double clock = gpu.clock_ghz * 1e9;
  const double per_wave = resident / blocks;  // share of the work one wave does
  cost.compute_s = waves * walk.instructions * per_wave / (lanes * clock);
  cost.shared_s = waves * walk.shared_transactions * per_wave / (busy_sms * clock);
  double footprint = 0;
  for (const ir::Buffer& b : func.args) footprint += static_cast<double>(b->num_bytes());
  // DRAM bandwidth needs loads in flight on most SMs.
  const double dram = gpu.dram_gbytes_per_s * 1e9 * std::max(0.05, std::min(1.0, busy_sms / gpu.sm_count));
  cost.memory_s = footprint / dram + walk.l2_bytes / (kL2OverDram * dram);
  // The blocks of a wave wait for their fills at once; while one block of
  // an SM waits, the others there work, and a double-buffered block works
  // on one tile while the next one's loads are in flight.
  cost.latency_s = waves * walk.fill_rounds * kFillLatencySeconds;
  const double throughput_s = std::max({cost.compute_s, cost.memory_s, cost.shared_s}) / latency_hidden;
  const double overlap = func.double_buffered.empty() ? resident / busy_sms : std::numeric_limits<double>::infinity();
  cost.seconds =
      std::max(throughput_s, cost.latency_s) + std::min(throughput_s, cost.latency_s) / overlap + kLaunchSeconds;
  return cost;
}

}  // namespace tunectl::search
