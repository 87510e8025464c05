// The partition_loops pass: a loop is cut where a guard that is linear in
// its variable becomes decided (a parallel loop's body branches instead),
// the decided guards and the segments that do nothing are gone, the
// function computes what it did before, and vectorized loops and
// non-linear guards are left alone.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ir/functor.h"
#include "ir/printer.h"
#include "lower/interpreter.h"
#include "lower/partition_loops.h"
#include "lower_check.h"

namespace tunectl::lower::test {

namespace {

using namespace ir;

struct Shape : IRVisitor {
  int ifs = 0;
  std::vector<const ForNode*> loops;
  void visit_IfThenElse(const IfThenElseNode* op) override {
    ++ifs;
    IRVisitor::visit_IfThenElse(op);
  }
  void visit_For(const ForNode* op) override {
    loops.push_back(op);
    IRVisitor::visit_For(op);
  }
};

Shape shape_of(const Stmt& s) {
  Shape v;
  v.visit(s);
  return v;
}

constexpr int64_t kElems = 40;

// for k in 0..9 (a loop of that kind): out[k] = 2 * in[k] where cond holds.
LoweredFunc guarded_copy(const Var& k, const Expr& cond, ForKind kind = ForKind::Serial) {
  Buffer in("in", DType::Float32, {kElems}), out("out", DType::Float32, {kElems});
  Stmt store = make_if(cond, make_store(out, {k}, make_load(in, {k}) * 2.0));
  return LoweredFunc{"guarded", {in, out}, make_for(k, make_int(0), make_int(10), kind, store)};
}

// What func leaves in out, from in[k] = k + 1 and out[k] = -1.
std::vector<double> run(const LoweredFunc& func) {
  runtime::NDArray in(DType::Float32, {kElems}), out(DType::Float32, {kElems});
  for (int64_t k = 0; k < kElems; ++k) {
    in.set(k, static_cast<double>(k) + 1);
    out.set(k, -1);
  }
  interpret(func, {&in, &out});
  std::vector<double> values;
  for (int64_t k = 0; k < kElems; ++k) values.push_back(out.get(k));
  return values;
}

// 38 elements in tiles of 4: for i in 0..9 (tiles), j in 0..3 (elements),
// if (i * 4 + j < 38) out[i * 4 + j] = 2 * in[i * 4 + j].
LoweredFunc tiled_copy(ForKind tiles, ForKind elements) {
  Var i("i"), j("j");
  Expr flat = i * make_int(4) + j;
  Buffer in("in", DType::Float32, {kElems}), out("out", DType::Float32, {kElems});
  Stmt store = make_if(flat < make_int(38), make_store(out, {flat}, make_load(in, {flat}) * 2.0));
  return LoweredFunc{"tiled", {in, out},
                     make_for(i, make_int(0), make_int(10), tiles, make_for(j, make_int(0), make_int(4), elements, store))};
}

LoweredFunc partitioned(const LoweredFunc& func) { return partition_loops(func); }

}  // namespace

TEST_CASE("partition_loops cuts the partial tile off a non-dividing split and drops every guard", "[cpu]") {
  LoweredFunc f = tiled_copy(ForKind::Serial, ForKind::Unrolled);
  LoweredFunc cut = partitioned(f);
  INFO(to_string(cut.body));
  const Shape s = shape_of(cut.body);
  CHECK(s.ifs == 0);
  // The 9 whole tiles, then the last tile's 2 elements.
  REQUIRE(s.loops.size() == 3);
  CHECK(is_const_int(s.loops[0]->extent, 9));
  CHECK(s.loops[1]->for_kind == ForKind::Unrolled);
  CHECK(is_const_int(s.loops[2]->extent, 2));
  CHECK(s.loops[2]->for_kind == ForKind::Unrolled);
  CHECK(run(cut) == run(f));
}

TEST_CASE("partition_loops keeps only the run where a two-sided guard holds", "[cpu]") {
  Var k("k");
  LoweredFunc f = guarded_copy(k, make_and(k >= make_int(3), k < make_int(8)));
  LoweredFunc cut = partitioned(f);
  INFO(to_string(cut.body));
  const Shape s = shape_of(cut.body);
  CHECK(s.ifs == 0);
  REQUIRE(s.loops.size() == 1);
  CHECK(is_const_int(s.loops[0]->min, 3));
  CHECK(is_const_int(s.loops[0]->extent, 5));
  CHECK(run(cut) == run(f));
}

TEST_CASE("partition_loops branches a parallel loop's body to its segments, one dispatch still", "[cpu]") {
  LoweredFunc f = tiled_copy(ForKind::Parallel, ForKind::Serial);
  LoweredFunc cut = partitioned(f);
  INFO(to_string(cut.body));
  const ForNode* loop = cut.body.as<ForNode>();
  REQUIRE(loop != nullptr);
  CHECK(loop->for_kind == ForKind::Parallel);
  CHECK(is_const_int(loop->extent, 10));
  // if (i < 9) the whole tile; if (i >= 9) its 2 elements: no guard below.
  const SeqNode* branches = loop->body.as<SeqNode>();
  REQUIRE(branches != nullptr);
  REQUIRE(branches->stmts.size() == 2);
  for (const Stmt& b : branches->stmts) {
    const IfThenElseNode* branch = b.as<IfThenElseNode>();
    REQUIRE(branch != nullptr);
    CHECK(shape_of(branch->then_case).ifs == 0);
  }
  CHECK(run(cut) == run(f));
}

TEST_CASE("partition_loops leaves vectorized loops and non-linear guards as they are", "[cpu]") {
  Var v("k");
  LoweredFunc vectorized = guarded_copy(v, v < make_int(7), ForKind::Vectorized);
  CHECK(partitioned(vectorized).body.same_as(vectorized.body));
  Var k("k");
  LoweredFunc f = guarded_copy(k, make_eq(k % make_int(3), make_int(0)));
  LoweredFunc cut = partitioned(f);
  CHECK(shape_of(cut.body).ifs == 1);
  CHECK(run(cut) == run(f));
}

TEST_CASE("partition_loops cuts a function at most kMaxLoopCuts times", "[cpu]") {
  const int n = kMaxLoopCuts + 4;
  std::vector<Stmt> loops;
  LoweredFunc f;
  for (int l = 0; l < n; ++l) {
    Var k("k");
    f = guarded_copy(k, k < make_int(7));
    loops.push_back(f.body);
  }
  f.body = make_seq(loops);  // each with buffers of its own: only the cuts are counted
  CHECK(shape_of(partitioned(f).body).ifs == n - kMaxLoopCuts);
}

TEST_CASE("lowering a non-dividing split leaves no guard and computes the reference", "[cpu]") {
  using namespace schedule;
  State s = State::initial(op_dag("matmul", {{"M", 10}, {"N", 16}, {"K", 8}}));
  const int mm = static_cast<int>(s.stages.size()) - 1;
  s.apply(SplitStep{mm, 0, 10, {4}});  // i.0 (3 tiles, the last one partial) i.1 j k
  s.apply(SplitStep{mm, 2, 16, {16}});
  s.apply(AnnotationStep{mm, 3, "vectorize"});
  LoweredFunc f = lower(s, "matmul");
  INFO(to_string(f.body));
  CHECK(shape_of(f.body).ifs == 0);
  CHECK(check_against_reference(s) == "");
}

}  // namespace tunectl::lower::test
