// The promote_accumulators pass: a tile updated inside a serial reduction
// loop that does not move it gets a buffer of its own around the outermost
// such loop, and the function computes what it did before; nests it cannot
// promote (the loop moves the tile, two iterations share an element, the
// tile outgrows the registers, a guard, another read of the buffer) are
// left as they are.
#include <catch2/catch.hpp>

#include <vector>

#include "ir/functor.h"
#include "ir/printer.h"
#include "lower/interpreter.h"
#include "lower/promote_accumulators.h"
#include "runtime/ndarray.h"

namespace tunectl::lower::test {

namespace {

using namespace ir;

constexpr int64_t kIn = 64, kOut = 128;

// out[index] = out[index] + in[k0 * 8 + k1 * 4 + i] * 2, for k0 (serial, 2)
// around k1 (serial, 2) around the tile loops i (0..3, `unrolled`) and v
// (0..3, `vector`), index a function of i, v and the tile base t of an
// outer serial loop (0..2).
LoweredFunc tile_update(const std::function<Expr(Expr t, Expr i, Expr v)>& index, ForKind unrolled = ForKind::Unrolled,
                        ForKind vector = ForKind::Vectorized, int64_t vector_extent = 4) {
  Var t("t"), k0("k0"), k1("k1"), i("i"), v("v");
  Buffer in("in", DType::Float32, {kIn}), out("out", DType::Float32, {kOut});
  const Expr at = index(t, i, v);
  Stmt s = make_store(out, {at}, make_load(out, {at}) + make_load(in, {k0 * 8 + k1 * 4 + i}) * 2.0);
  s = make_for(v, make_int(0), make_int(vector_extent), vector, s);
  s = make_for(i, make_int(0), make_int(4), unrolled, s);
  s = make_for(k1, make_int(0), make_int(2), ForKind::Serial, s);
  s = make_for(k0, make_int(0), make_int(2), ForKind::Serial, s);
  s = make_for(t, make_int(0), make_int(2), ForKind::Serial, s);
  return LoweredFunc{"tile", {in, out}, s};
}

Expr tile_index(Expr t, Expr i, Expr v) { return t * 16 + i * 4 + v; }

// What func leaves in out, from in[k] = k + 1 and out[k] = k.
std::vector<double> run(const LoweredFunc& func) {
  runtime::NDArray in(DType::Float32, {kIn}), out(DType::Float32, {kOut});
  for (int64_t k = 0; k < kIn; ++k) in.set(k, static_cast<double>(k) + 1);
  for (int64_t k = 0; k < kOut; ++k) out.set(k, static_cast<double>(k));
  interpret(func, {&in, &out});
  std::vector<double> values;
  for (int64_t k = 0; k < kOut; ++k) values.push_back(out.get(k));
  return values;
}

target::Target avx512() {
  target::Target t;
  t.vector_lanes = 16;
  t.vector_registers = 32;
  return t;
}

LoweredFunc promoted(const LoweredFunc& f, const target::Target& target = avx512()) {
  return promote_accumulators(f, target);
}

}  // namespace

TEST_CASE("promote_accumulators gives a tile its own buffer around the outermost loop that does not move it",
          "[cpu]") {
  const LoweredFunc f = tile_update(tile_index);
  const LoweredFunc p = promoted(f);
  INFO(to_string(p));
  // for t { allocate out.acc { load copy; for k0 { for k1 { ... } }; store copy } }
  const ForNode* t = p.body.as<ForNode>();
  REQUIRE(t != nullptr);
  const AllocateNode* acc = t->body.as<AllocateNode>();
  REQUIRE(acc != nullptr);
  CHECK(acc->buffer->name == "out.acc");
  CHECK(acc->buffer->scope == MemScope::Local);
  CHECK(acc->buffer->shape == std::vector<int64_t>{16});
  const SeqNode* seq = acc->body.as<SeqNode>();
  REQUIRE(seq != nullptr);
  REQUIRE(seq->stmts.size() == 3);
  const ForNode* k0 = seq->stmts[1].as<ForNode>();
  REQUIRE(k0 != nullptr);
  CHECK(k0->var.name() == "k0");
  // The copies keep the tile's loop kinds: unrolled rows of vectors.
  const ForNode* load_rows = seq->stmts[0].as<ForNode>();
  REQUIRE(load_rows != nullptr);
  CHECK(load_rows->for_kind == ForKind::Unrolled);
  CHECK(load_rows->body.as<ForNode>()->for_kind == ForKind::Vectorized);
  // The update reads and writes only the tile's buffer.
  struct Accesses : IRVisitor {
    int out = 0;
    void visit_Load(const LoadNode* op) override { out += op->buffer->name == "out"; }
    void visit_Store(const StoreNode* op) override {
      out += op->buffer->name == "out";
      IRVisitor::visit_Store(op);
    }
  } accesses;
  accesses.visit(seq->stmts[1]);
  CHECK(accesses.out == 0);
  CHECK(run(p) == run(f));
}

TEST_CASE("promote_accumulators takes serial tile loops and a scalar tile", "[cpu]") {
  const LoweredFunc f = tile_update(tile_index, ForKind::Serial, ForKind::Serial);
  const LoweredFunc p = promoted(f);
  INFO(to_string(p));
  REQUIRE(p.body.as<ForNode>() != nullptr);
  CHECK(p.body.as<ForNode>()->body.as<AllocateNode>() != nullptr);
  CHECK(run(p) == run(f));
}

TEST_CASE("promote_accumulators leaves nests it cannot promote as they are", "[cpu]") {
  SECTION("every serial loop moves the element") {
    const LoweredFunc f = tile_update([](Expr t, Expr i, Expr v) { return t * 64 + i * 4 + v; });
    // Only k0 and k1 do not move it: promoted there. With them moving it too,
    // nothing is.
    CHECK(!promoted(f).body.same_as(f.body));
    Var t("t"), k("k"), i("i");
    Buffer in("in", DType::Float32, {kIn}), out("out", DType::Float32, {kOut});
    const Expr at = t * 16 + k * 4 + i;
    Stmt s = make_store(out, {at}, make_load(out, {at}) + make_load(in, {k}));
    s = make_for(t, make_int(0), make_int(2), ForKind::Serial,
                 make_for(k, make_int(0), make_int(4), ForKind::Serial,
                          make_for(i, make_int(0), make_int(4), ForKind::Unrolled, s)));
    const LoweredFunc moved{"moved", {in, out}, s};
    CHECK(promoted(moved).body.same_as(moved.body));
  }
  SECTION("two iterations of the tile update one element") {
    const LoweredFunc f = tile_update([](Expr t, Expr i, Expr v) { return t * 16 + i + v; });
    const LoweredFunc p = promoted(f);
    CHECK(p.body.same_as(f.body));
    CHECK(run(p) == run(f));
  }
  SECTION("the tile takes more registers than the target has") {
    target::Target few = avx512();
    few.vector_registers = 3;  // the tile is 4 rows of one register each
    const LoweredFunc f = tile_update(tile_index);
    CHECK(promoted(f, few).body.same_as(f.body));
  }
  SECTION("a reduction across the vector lanes") {
    const LoweredFunc f = tile_update([](Expr t, Expr i, Expr) { return t * 16 + i; });
    CHECK(promoted(f).body.same_as(f.body));
  }
  SECTION("a guard inside the nest") {
    Var k("k"), i("i");
    Buffer in("in", DType::Float32, {kIn}), out("out", DType::Float32, {kOut});
    Stmt s = make_if(k < make_int(3), make_store(out, {i}, make_load(out, {i}) + make_load(in, {k})));
    s = make_for(k, make_int(0), make_int(4), ForKind::Serial,
                 make_for(i, make_int(0), make_int(4), ForKind::Unrolled, s));
    const LoweredFunc f{"guarded", {in, out}, s};
    CHECK(promoted(f).body.same_as(f.body));
  }
  SECTION("the update reads its buffer at another element") {
    Var k("k"), i("i");
    Buffer in("in", DType::Float32, {kIn}), out("out", DType::Float32, {kOut});
    Stmt s = make_store(out, {i}, make_load(out, {i}) + make_load(out, {i + 4}) * make_load(in, {k}));
    s = make_for(k, make_int(0), make_int(4), ForKind::Serial,
                 make_for(i, make_int(0), make_int(4), ForKind::Unrolled, s));
    const LoweredFunc f{"shifted", {in, out}, s};
    CHECK(promoted(f).body.same_as(f.body));
  }
}

}  // namespace tunectl::lower::test
