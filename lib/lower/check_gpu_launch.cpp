#include "lower/check_gpu_launch.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/functor.h"
#include "ir/printer.h"
#include "lower/launch_dims.h"

namespace tunectl::lower {

namespace {

using namespace ir;

// Shared bytes, and what bindings enclose each loop and each store.
class LaunchChecker : public IRVisitor {
 public:
  LaunchChecker(std::string kernel, const LaunchDims& dims, const std::vector<std::string>& double_buffered,
                const Stmt& body)
      : kernel_(std::move(kernel)), dims_(dims), double_buffered_(double_buffered.begin(), double_buffered.end()) {
    struct AllReduced : IRVisitor {
      std::set<const BufferNode*> buffers;
      void visit_AllReduce(const AllReduceNode* op) override { buffers.insert(op->buffer.get()); }
    } all_reduced;
    all_reduced.visit(body);
    all_reduced_ = std::move(all_reduced.buffers);
  }
  int64_t shared_bytes = 0;

 protected:
  void visit_For(const ForNode* loop) override {
    user_check(loop->for_kind != ForKind::Parallel, "kernel ", kernel_, ": loop ", name(loop),
               " is parallel, a CPU annotation (bind it to blockIdx/threadIdx)");
    const std::optional<HardwareIndex> hw =
        loop->for_kind == ForKind::ThreadBinding ? hardware_index(loop->thread_tag) : std::nullopt;
    if (loop->for_kind != ForKind::ThreadBinding) return IRVisitor::visit_For(loop);
    if (!hw) {  // vthread
      const auto* extent = loop->extent.as<IntImmNode>();
      if (!extent || extent->value > kMaxVirtualThreads) {
        user_fail("kernel ", kernel_, ": vthread loop ", name(loop), " has ", ir::to_string(loop->extent),
                  " iterations (at most ", kMaxVirtualThreads, ")");
      }
      ++inside_threads_;
      vthreads_ *= extent->value;
      IRVisitor::visit_For(loop);
      vthreads_ /= extent->value;
      --inside_threads_;
      return;
    }
    user_check(!hw->is_block || inside_threads_ == 0, "kernel ", kernel_, ": loop ", name(loop), " is bound to ",
               loop->thread_tag, " inside a threadIdx or vthread loop (blocks are the outermost level)");
    // An index bound again inside (another stage attached there) takes the
    // same values: it can only cover what the outer loop lets through.
    const int64_t extent = loop->extent.as<IntImmNode>()->value;
    for (const ForNode* outer : bound_) {
      user_check(outer->thread_tag != loop->thread_tag || extent <= outer->extent.as<IntImmNode>()->value, "kernel ",
                 kernel_, ": loop ", name(loop), " bound to ", loop->thread_tag, " with extent ", extent,
                 " inside loop ", name(outer), " bound to it with extent ", outer->extent.as<IntImmNode>()->value);
    }
    if (!hw->is_block) ++inside_threads_;
    bound_.push_back(loop);
    IRVisitor::visit_For(loop);
    bound_.pop_back();
    if (!hw->is_block) --inside_threads_;
  }

  // An all-reduce: reached by every thread of a one-dimensional block of
  // whole warps (or of a power of two below a warp: one shuffle mask); past
  // one warp, each type's warp values take a warp's length of shared memory.
  void visit_AllReduce(const AllReduceNode* op) override {
    user_check(inside_threads_ == 0, "kernel ", kernel_, ": the all-reduce of ", op->buffer->name,
               " is inside a threadIdx or vthread loop (every thread of the block must reach it)");
    const int64_t threads = dims_.block[0];
    user_check(dims_.block[1] == 1 && dims_.block[2] == 1, "kernel ", kernel_, ": the all-reduce of ",
               op->buffer->name, " needs a block along threadIdx.x alone (the launch has ", dims_.block[0], "x",
               dims_.block[1], "x", dims_.block[2], ")");
    const bool whole = threads <= kWarpSize ? (threads & (threads - 1)) == 0 : threads % kWarpSize == 0;
    user_check(whole, "kernel ", kernel_, ": the all-reduce of ", op->buffer->name, " across ", threads,
               " threads (a block of whole warps, or a power of two below ", kWarpSize, ")");
    if (threads > kWarpSize && warp_value_types_.insert(op->buffer->dtype).second)
      shared_bytes += kWarpSize * dtype_bytes(op->buffer->dtype);
    IRVisitor::visit_AllReduce(op);
  }

  void visit_Allocate(const AllocateNode* op) override {
    if (op->buffer->scope == MemScope::Shared) {
      // A double-buffered tile has two copies (double_buffer.h, which runs
      // later: a tile it finds nothing to pipeline for counts twice too).
      shared_bytes += op->buffer->num_bytes() * (double_buffered_.count(op->buffer->name) ? 2 : 1);
    } else {
      // One copy per enclosing vthread (inject_virtual_threads.h).
      const int64_t bytes = op->buffer->num_bytes() * vthreads_;
      user_check(bytes <= kMaxLocalBytes, "kernel ", kernel_, ": buffer ", op->buffer->name, " of ", bytes,
                 " bytes is private to each thread (at most ", kMaxLocalBytes,
                 "; attach its stage inside the thread loops or cache it in shared memory)");
    }
    allocated_at_[op->buffer.get()] = bound_.size();
    IRVisitor::visit_Allocate(op);
  }

  // A store under a binding made inside the buffer's allocation fills only
  // part of it per thread (or per block): the rest must come from other
  // threads, which only shared memory (threads of one block) allows.
  // (A buffer whose per-thread values an all-reduce combines is meant to
  // be filled by several threads.)
  void visit_Store(const StoreNode* op) override {
    auto it = allocated_at_.find(op->buffer.get());
    if (it != allocated_at_.end()) {
      const bool shared = op->buffer->scope == MemScope::Shared;
      for (size_t i = it->second; i < bound_.size(); ++i) {
        const bool is_block = hardware_index(bound_[i]->thread_tag)->is_block;
        if (!is_block && all_reduced_.count(op->buffer.get())) continue;
        user_check(shared && !is_block, "kernel ", kernel_, ": buffer ", op->buffer->name, " is ",
                   shared ? "shared by the threads of a block" : "private to each thread",
                   " but filled by several ", shared ? "blocks" : "threads", " (loop ", name(bound_[i]), " bound to ",
                   bound_[i]->thread_tag, "); ",
                   shared ? "attach its stage inside the blockIdx loops" : "cache it in shared memory");
      }
    } else if (accumulates(op)) {
      check_every_index_bound(op);
    }
    IRVisitor::visit_Store(op);
  }

 private:
  static const std::string& name(const ForNode* loop) { return loop->var.node()->name; }

  // Whether the store reads the element it writes (a reduction's update).
  static bool accumulates(const StoreNode* op) {
    bool reads = false;
    post_order_visit(op->value, [&](const Expr& e) {
      if (const auto* load = e.as<LoadNode>()) reads = reads || load->buffer.same_as(op->buffer);
    });
    return reads;
  }

  // An update of a kernel argument under no loop bound to some hardware
  // index the launch spreads (more than one block or thread along it) runs
  // once per block or thread of that index, each adding to the same
  // elements: a race, and a sum counted many times.
  void check_every_index_bound(const StoreNode* op) const {
    for (int d = 0; d < 3; ++d) {
      for (const bool block : {true, false}) {
        if ((block ? dims_.grid[d] : dims_.block[d]) <= 1) continue;
        const std::string tag = std::string(block ? "blockIdx." : "threadIdx.") + static_cast<char>('x' + d);
        const bool bound = std::any_of(bound_.begin(), bound_.end(), [&](const ForNode* l) { return l->thread_tag == tag; });
        user_check(bound, "kernel ", kernel_, ": the update of ", op->buffer->name, " runs under no loop bound to ",
                   tag, " while the launch has ", block ? dims_.grid[d] : dims_.block[d], " along it: every ",
                   block ? "block" : "thread", " would add to the same elements (bind a loop of its stage to ", tag,
                   ", or compute it per thread)");
      }
    }
  }

  std::string kernel_;
  LaunchDims dims_;
  std::set<std::string> double_buffered_;
  int inside_threads_ = 0;
  int64_t vthreads_ = 1;  // product of the enclosing vthread loops' extents
  std::vector<const ForNode*> bound_;  // open loops bound to blockIdx/threadIdx, outermost first
  std::map<const BufferNode*, size_t> allocated_at_;  // bound_.size() at the allocation
  std::set<const BufferNode*> all_reduced_;           // the buffers of the kernel's all-reduces
  std::set<DType> warp_value_types_;                  // of all-reduces past one warp
};

}  // namespace

LoweredFunc check_gpu_launch(LoweredFunc func, const target::Target& target) {
  const LaunchDims dims = launch_dims(func);
  const target::GpuFacts& gpu = target.gpu;
  user_check(dims.threads_per_block() <= gpu.max_threads_per_block, "kernel ", func.name, ": ",
             dims.threads_per_block(), " threads per block (", dims.block[0], "x", dims.block[1], "x", dims.block[2],
             "), more than ", target.str(), " allows (", gpu.max_threads_per_block, ")");
  // CUDA's limits on each dimension (the same on every arch since sm_30).
  constexpr std::array<int64_t, 3> kMaxGrid{(int64_t{1} << 31) - 1, 65535, 65535};
  constexpr std::array<int64_t, 3> kMaxBlock{1024, 1024, 64};
  for (int d = 0; d < 3; ++d) {
    const char axis = static_cast<char>('x' + d);
    user_check(dims.grid[d] <= kMaxGrid[d], "kernel ", func.name, ": ", dims.grid[d], " blocks along blockIdx.", axis,
               " (at most ", kMaxGrid[d], ")");
    user_check(dims.block[d] <= kMaxBlock[d], "kernel ", func.name, ": ", dims.block[d], " threads along threadIdx.",
               axis, " (at most ", kMaxBlock[d], ")");
  }
  LaunchChecker checker(func.name, dims, func.double_buffered, func.body);
  checker.visit(func.body);
  user_check(checker.shared_bytes <= gpu.shared_bytes_per_block, "kernel ", func.name, ": ", checker.shared_bytes,
             " bytes of shared memory per block, more than ", target.str(), " allows (", gpu.shared_bytes_per_block,
             ")");
  return func;
}

}  // namespace tunectl::lower
