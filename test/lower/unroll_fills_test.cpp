// The unroll_fills pass: the loops one thread runs in a small shared-tile
// fill are unrolled (its loads in flight together), a large fill's stay
// serial, nothing else changes kind, and both compute the reference in the
// GPU emulator.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "ir/functor.h"
#include "lower/fill_nest.h"
#include "lower/lower.h"
#include "support/gpu_schedules.h"
#include "lower_check.h"

namespace tunectl::lower::test {

namespace {

using namespace schedule;

// The kinds of the loops that one thread runs around the stores into
// shared tiles, and those around every other store.
struct FillLoops : ir::IRVisitor {
  std::vector<ir::ForKind> enclosing;
  std::vector<ir::ForKind> fill_kinds, other_kinds;
  void visit_For(const ir::ForNode* op) override {
    enclosing.push_back(is_thread_loop(op) ? ir::ForKind::ThreadBinding : op->for_kind);
    IRVisitor::visit_For(op);
    enclosing.pop_back();
  }
  void visit_Store(const ir::StoreNode* op) override {
    std::vector<ir::ForKind>& kinds = op->buffer->scope == ir::MemScope::Shared ? fill_kinds : other_kinds;
    kinds.insert(kinds.end(), enclosing.begin(), enclosing.end());
  }
};

FillLoops fill_loops(const LoweredFunc& f) {
  FillLoops v;
  v.visit(f.body);
  return v;
}

int count(const std::vector<ir::ForKind>& kinds, ir::ForKind k) {
  return static_cast<int>(std::count(kinds.begin(), kinds.end(), k));
}

}  // namespace

TEST_CASE("unroll_fills unrolls the loops of small shared-tile fills and keeps large ones serial", "[gpu-emulator]") {
  const target::Target cuda = cuda_target();
  // 32 x 32 tiles over 8 x 8 threads, k by 8: each thread stores 4 elements
  // of each 32 x 8 tile (unrolled); over 2 x 2 threads, 64 (serial).
  const State small = gpu_matmul(64, 64, 32, {1, 8, 4}, {1, 8, 4}, 8);
  const State large = gpu_matmul(64, 64, 32, {1, 2, 16}, {1, 2, 16}, 8);
  // Each function before and after the pass.
  std::map<std::string, LoweredFunc> before;
  auto keep_input = [&](const std::string& name) {
    return [&before, name](std::string_view step, const LoweredFunc& f) {
      if (step == "double_buffer") before.insert_or_assign(name, f);
    };
  };
  const LoweredFunc small_f = lower(small, "mm", cuda, keep_input("small"));
  const LoweredFunc large_f = lower(large, "mm", cuda, keep_input("large"));
  CHECK(emulate_against_reference(small_f, small) == "");
  CHECK(emulate_against_reference(large_f, large) == "");

  const FillLoops s = fill_loops(small_f), l = fill_loops(large_f);
  const FillLoops s0 = fill_loops(before.at("small")), l0 = fill_loops(before.at("large"));
  // Around each fill: the serial reduction loop, then the fill's loops.
  CHECK(count(s0.fill_kinds, ir::ForKind::Serial) > 2);
  CHECK(count(s.fill_kinds, ir::ForKind::Unrolled) > 0);
  CHECK(count(s.fill_kinds, ir::ForKind::Serial) == 2);  // the reduction loop, once per tile
  CHECK(l.fill_kinds == l0.fill_kinds);                  // 64 elements a thread: left serial
  CHECK(count(l.fill_kinds, ir::ForKind::Serial) > 2);
  // The rest of each kernel is as the schedule made it.
  CHECK(s.other_kinds == s0.other_kinds);
  CHECK(l.other_kinds == l0.other_kinds);
}

}  // namespace tunectl::lower::test
