#include "lower/double_buffer.h"

#include <optional>
#include <set>

#include "ir/error.h"
#include "ir/functor.h"
#include "ir/simplify.h"
#include "ir/substitute.h"
#include "lower/expand_buffer.h"
#include "lower/fill_nest.h"

namespace tunectl::lower {

namespace {

using namespace ir;
using BufferSet = std::set<const BufferNode*>;

// The buffers a statement loads and stores, and whether it synchronizes.
struct Accesses : IRVisitor {
  BufferSet loads, stores;
  bool barrier = false;

  void visit_Load(const LoadNode* op) override {
    loads.insert(op->buffer.get());
    IRVisitor::visit_Load(op);
  }
  void visit_Store(const StoreNode* op) override {
    stores.insert(op->buffer.get());
    IRVisitor::visit_Store(op);
  }
  void visit_Barrier(const BarrierNode*) override { barrier = true; }
};

Accesses accesses_of(const Stmt& s) {
  Accesses a;
  a.visit(s);
  return a;
}

// One pipelined fill of a loop's body: the statement, its tile, the two
// tiles that replace it and the registers that stage it.
struct Fill {
  Stmt stmt;
  Buffer tile;
  Buffer tiles[2];
  Buffer staging;
};

class Pipeliner : public IRMutator {
 public:
  explicit Pipeliner(const std::vector<std::string>& marked) : marked_(marked.begin(), marked.end()) {}

 protected:
  Stmt mutate_For(const Stmt& s, const ForNode* op) override {
    Stmt visited = IRMutator::mutate_For(s, op);
    std::optional<Stmt> pipelined = pipeline(visited.as<ForNode>());
    return pipelined ? *pipelined : visited;
  }

  // A tile whose every use went to its two copies is no longer allocated.
  Stmt mutate_Allocate(const Stmt& s, const AllocateNode* op) override {
    Stmt visited = IRMutator::mutate_Allocate(s, op);
    const auto* alloc = visited.as<AllocateNode>();
    if (!replaced_.count(alloc->buffer.get())) return visited;
    const Accesses a = accesses_of(alloc->body);
    const bool used = a.loads.count(alloc->buffer.get()) || a.stores.count(alloc->buffer.get());
    return used ? visited : alloc->body;
  }

 private:
  bool is_marked(const BufferNode* b) const { return b->scope == MemScope::Shared && marked_.count(b->name); }

  std::optional<Stmt> pipeline(const ForNode* loop) {
    // Only a loop whose iterations one thread runs in order has a next step.
    if (loop->for_kind != ForKind::Serial && loop->for_kind != ForKind::Unrolled) return std::nullopt;
    std::vector<Buffer> allocs;  // allocated in each iteration
    Stmt body = loop->body;
    while (const auto* a = body.as<AllocateNode>()) {
      allocs.push_back(a->buffer);
      body = a->body;
    }
    std::vector<Stmt> items = body.as<SeqNode>() ? body.as<SeqNode>()->stmts : std::vector<Stmt>{body};
    // The marked tiles that some statement of the body stores and another
    // one loads: a loop that only fills (the fill's own loops) has nothing
    // to overlap.
    BufferSet written, used, pipelined;
    for (const Stmt& item : items) {
      const Accesses a = accesses_of(item);
      written.insert(a.stores.begin(), a.stores.end());
      for (const BufferNode* b : a.loads)
        if (!a.stores.count(b)) used.insert(b);
    }
    for (const BufferNode* b : written)
      if (is_marked(b) && used.count(b)) pipelined.insert(b);

    std::vector<Fill> fills;
    std::vector<Stmt> rest;  // the body without the pipelined fills
    BufferSet read_before_fill;
    for (const Stmt& item : items) {
      const Accesses a = accesses_of(item);
      const BufferNode* tile = nullptr;
      for (const BufferNode* b : a.stores)
        if (pipelined.count(b)) tile = b;
      if (tile == nullptr || !uses_var(item, loop->var)) {
        read_before_fill.insert(a.loads.begin(), a.loads.end());
        rest.push_back(item);
        continue;
      }
      const std::optional<int64_t> staged = staged_elements(item);
      bool reads_shared_or_written = false;
      for (const BufferNode* b : a.loads) reads_shared_or_written |= b->scope == MemScope::Shared || written.count(b);
      user_check(staged && a.stores.size() == 1 && !a.barrier && !reads_shared_or_written, "double_buffer: the fill of ",
                 tile->name, " in loop ", loop->var.name(),
                 " is not a loop nest of one store whose value reads only what the loop does not write");
      user_check(!read_before_fill.count(tile), "double_buffer: loop ", loop->var.name(), " reads ", tile->name,
                 " before filling it");
      Fill f{item, fill_store(item)->buffer, {}, {}};
      for (int t = 0; t < 2; ++t)
        f.tiles[t] = Buffer(tile->name + "." + std::to_string(t), tile->dtype, {tile->num_elements()}, tile->scope);
      f.staging = Buffer(tile->name + ".staged", tile->dtype, {*staged}, MemScope::Local);
      fills.push_back(std::move(f));
    }
    if (fills.empty()) return std::nullopt;
    const auto* extent = loop->extent.as<IntImmNode>();
    user_check(extent != nullptr, "double_buffer: loop ", loop->var.name(), " around the fill of ", fills[0].tile->name,
               " has no constant extent");
    const int64_t steps = extent->value;
    if (steps < 2) return std::nullopt;
    for (const Fill& f : fills) {
      for (const Stmt& item : rest) {
        user_check(!accesses_of(item).stores.count(f.tile.get()), "double_buffer: loop ", loop->var.name(),
                   " writes ", f.tile->name, " outside its fill");
      }
    }

    const auto at = [&](const Stmt& s, const Expr& k) { return substitute(s, VarMap<Expr>{{loop->var, k}}); };
    // Step k computing on tiles[t]; with `next`, the fills of step k + 1
    // go to the other tiles around it.
    const auto step = [&](const Expr& k, int t, bool next) {
      std::vector<Stmt> out;
      if (next) {
        for (const Fill& f : fills) {
          out.push_back(rebuild_fill(at(f.stmt, k + make_int(1)), make_int(0), [&](const StoreNode* st, const Expr& i) {
            return make_store(f.staging, {i}, st->value);
          }));
        }
      }
      Stmt computed = at(make_seq(rest), k);
      for (const Fill& f : fills) computed = expand_buffer(computed, f.tile, f.tiles[t], make_int(0));
      for (auto a = allocs.rbegin(); a != allocs.rend(); ++a)
        if (!replaced_here(fills, *a)) computed = make_allocate(*a, computed);
      out.push_back(computed);
      if (next) {
        for (const Fill& f : fills) {
          out.push_back(rebuild_fill(at(f.stmt, k + make_int(1)), make_int(0), [&](const StoreNode* st, const Expr& i) {
            return make_store(f.tiles[1 - t], st->indices, make_load(f.staging, {i}));
          }));
        }
      }
      return make_seq(std::move(out));
    };

    std::vector<Stmt> out;
    for (const Fill& f : fills) out.push_back(expand_buffer(at(f.stmt, loop->min), f.tile, f.tiles[0], make_int(0)));
    const int64_t pairs = (steps - 1) / 2;
    if (pairs > 0) {
      Var j(loop->var.name() + ".pair");
      const Expr k0 = loop->min + make_int(2) * j;
      out.push_back(make_for(j, make_int(0), make_int(pairs), loop->for_kind,
                             make_seq({step(k0, 0, true), step(k0 + make_int(1), 1, true)})));
    }
    for (int64_t i = 2 * pairs; i < steps; ++i)
      out.push_back(step(loop->min + make_int(i), static_cast<int>(i % 2), i + 1 < steps));
    Stmt result = make_seq(std::move(out));
    for (const Fill& f : fills) {
      result = make_allocate(f.tiles[0], make_allocate(f.tiles[1], make_allocate(f.staging, result)));
      replaced_.insert(f.tile.get());
    }
    return simplify(result);
  }

  static bool replaced_here(const std::vector<Fill>& fills, const Buffer& b) {
    for (const Fill& f : fills)
      if (f.tile.same_as(b)) return true;
    return false;
  }

  std::set<std::string> marked_;
  BufferSet replaced_;
};

}  // namespace

LoweredFunc double_buffer(LoweredFunc func) {
  if (func.double_buffered.empty()) return func;
  func.body = Pipeliner(func.double_buffered).mutate(func.body);
  return func;
}

}  // namespace tunectl::lower
