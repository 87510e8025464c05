// The double_buffer pass: shared tiles marked by pragma double_buffer get
// two copies and register-staged fills, compute the reference in the GPU
// emulator for every number of reduction steps (odd, even, two, one),
// with one barrier per step; misuse is an error naming the stage.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "ir/functor.h"
#include "lower/lower.h"
#include "support/gpu_schedules.h"
#include "lower_check.h"

namespace tunectl::lower::test {

namespace {

using namespace schedule;

// Allocations by buffer name (elements and scope) and the barriers inside
// loops that are not bound to threads (the pipelined reduction loop).
struct Shape : ir::IRVisitor {
  std::map<std::string, int64_t> elements;
  std::map<std::string, ir::MemScope> scope;
  int barriers = 0, barriers_in_serial_loops = 0, serial_depth = 0;
  void visit_Allocate(const ir::AllocateNode* op) override {
    elements[op->buffer->name] = op->buffer->num_elements();
    scope[op->buffer->name] = op->buffer->scope;
    IRVisitor::visit_Allocate(op);
  }
  void visit_For(const ir::ForNode* op) override {
    const bool serial = op->for_kind == ir::ForKind::Serial;
    serial_depth += serial;
    IRVisitor::visit_For(op);
    serial_depth -= serial;
  }
  void visit_Barrier(const ir::BarrierNode*) override {
    ++barriers;
    barriers_in_serial_loops += serial_depth > 0;
  }
};

State double_buffered(State s) {
  s.apply(PragmaStep{stage_named(s, "A.shared"), 0, "double_buffer"});
  s.apply(PragmaStep{stage_named(s, "B.shared"), 0, "double_buffer"});
  return s;
}

}  // namespace

TEST_CASE("double-buffered shared tiles compute the reference with one barrier per step", "[gpu-emulator]") {
  const target::Target cuda = cuda_target();
  // k = 24 in steps of k_inner: 6 steps (even), 3 (odd), 2, 1.
  for (int64_t k_inner : {4, 8, 12, 24}) {
    CAPTURE(k_inner);
    const State plain = gpu_matmul(32, 32, 24, {2, 4, 2}, {2, 4, 2}, k_inner);
    const State s = double_buffered(plain);
    const LoweredFunc f = lower(s, "mm", cuda);
    CHECK(emulate_against_reference(f, s) == "");
    Shape shape;
    shape.visit(f.body);
    const int64_t steps = 24 / k_inner;
    if (steps == 1) {  // nothing to overlap: the plain program
      CHECK(shape.elements.count("A.shared") == 1);
      CHECK(shape.barriers == 1);
      continue;
    }
    // Two copies of each tile, the thread's share staged in registers (a
    // 16 x k_inner tile over 16 threads), the single tile gone.
    CHECK(shape.elements.count("A.shared") == 0);
    CHECK(shape.elements["A.shared.0"] == 16 * k_inner);
    CHECK(shape.elements["A.shared.1"] == 16 * k_inner);
    CHECK(shape.scope["A.shared.1"] == ir::MemScope::Shared);
    CHECK(shape.elements["A.shared.staged"] == k_inner);
    CHECK(shape.scope["A.shared.staged"] == ir::MemScope::Local);
    // One barrier per step: two in the loop over pairs of steps (unrolled
    // when there is one pair), one in each step after it.
    const int64_t pairs = (steps - 1) / 2;
    CHECK(shape.barriers_in_serial_loops == (pairs > 1 ? 2 : 0));
    CHECK(shape.barriers == 2 * std::min<int64_t>(pairs, 1) + (steps - 2 * pairs));
  }
}

TEST_CASE("double buffering keeps guards, vector fetches and one marked tile of two", "[gpu-emulator]") {
  const target::Target cuda = cuda_target();
  SECTION("non-divisible tiles") {
    const State s = double_buffered(gpu_matmul(20, 12, 10, {1, 4, 2}, {1, 2, 3}, 3));
    CHECK(emulate_against_reference(lower(s, "mm", cuda), s) == "");
  }
  SECTION("more threads than tile elements") {
    const State s = double_buffered(gpu_matmul(16, 16, 8, {1, 8, 1}, {1, 8, 1}, 2));
    CHECK(emulate_against_reference(lower(s, "mm", cuda), s) == "");
  }
  SECTION("only A's tile") {
    State s = gpu_matmul(32, 32, 24, {2, 4, 2}, {2, 4, 2}, 4);
    s.apply(PragmaStep{stage_named(s, "A.shared"), 0, "double_buffer"});
    const LoweredFunc f = lower(s, "mm", cuda);
    Shape shape;
    shape.visit(f.body);
    CHECK(shape.elements.count("A.shared.0") == 1);
    CHECK(shape.elements.count("B.shared") == 1);
    CHECK(emulate_against_reference(f, s) == "");
  }
  SECTION("the pragma names a shared stage") {
    State s = gpu_matmul(16, 16, 8, {1, 4, 2}, {1, 4, 2}, 4);
    CHECK_THROWS_WITH(s.apply(PragmaStep{stage_named(s, "matmul.local"), 0, "double_buffer"}),
                      Catch::Contains("pragma double_buffer applies to a shared cache stage, not matmul.local"));
  }
  SECTION("the doubled tiles count against the shared memory limit") {
    // 2 x (128 x 32 + 32 x 128) floats = 64 KiB, over sm_80's 48 KiB per block.
    const State plain = gpu_matmul(128, 128, 64, {1, 16, 8}, {1, 16, 8}, 32);
    CHECK_NOTHROW(lower(plain, "mm", cuda_target("sm_80")));
    CHECK_THROWS_WITH(lower(double_buffered(plain), "mm", cuda_target("sm_80")),
                      Catch::Contains("bytes of shared memory per block, more than"));
  }
}

}  // namespace tunectl::lower::test
