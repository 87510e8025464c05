#include "lower/promote_accumulators.h"

#include <algorithm>
#include <optional>
#include <set>

#include "ir/functor.h"
#include "ir/simplify.h"
#include "ir/structural.h"
#include "ir/substitute.h"

namespace tunectl::lower {

namespace {

using namespace ir;

struct TileLoop {
  const ForNode* loop;
  int64_t min, extent, stride;  // stride: of the tile buffer's index in the loop's variable
};

// The update at the bottom of a perfect nest below `outer`, and the nest's
// loops, outermost first; nullopt when the nest is not perfect.
std::optional<std::pair<const StoreNode*, std::vector<const ForNode*>>> perfect_nest(const ForNode* outer) {
  std::vector<const ForNode*> loops{outer};
  Stmt body = outer->body;
  while (const ForNode* inner = body.as<ForNode>()) {
    loops.push_back(inner);
    body = inner->body;
  }
  const StoreNode* store = body.as<StoreNode>();
  if (!store || store->indices.size() != 1) return std::nullopt;
  return std::make_pair(store, loops);
}

// Whether the store's value reads its buffer, and only at the element it
// writes.
bool is_update(const StoreNode* store) {
  bool reads = false, elsewhere = false;
  post_order_visit(store->value, [&](const Expr& x) {
    const LoadNode* load = x.as<LoadNode>();
    if (!load || !load->buffer.same_as(store->buffer)) return;
    reads = true;
    elsewhere = elsewhere || load->indices.size() != 1 || !structural_equal(load->indices[0], store->indices[0]);
  });
  return reads && !elsewhere;
}

// Replaces the loads of `from` at `index` by loads of `to` at `to_index`.
class LoadRedirect : public IRMutator {
 public:
  LoadRedirect(const Buffer& from, const Buffer& to, Expr to_index)
      : from_(from), to_(to), to_index_(std::move(to_index)) {}

 protected:
  Expr mutate_Load(const Expr& e, const LoadNode* op) override {
    if (!op->buffer.same_as(from_)) return IRMutator::mutate_Load(e, op);
    return make_load(to_, {to_index_});
  }

 private:
  Buffer from_, to_;
  Expr to_index_;
};

class AccumulatorPromoter : public IRMutator {
 public:
  explicit AccumulatorPromoter(const target::Target& target) : target_(target) {}

 protected:
  Stmt mutate_For(const Stmt& s, const ForNode* op) override {
    if (std::optional<Stmt> promoted = promote(op)) return *promoted;
    return IRMutator::mutate_For(s, op);
  }

 private:
  std::optional<Stmt> promote(const ForNode* outer) const {
    if (outer->for_kind != ForKind::Serial) return std::nullopt;
    const auto nest = perfect_nest(outer);
    if (!nest) return std::nullopt;
    const auto& [store, loops] = *nest;
    const Expr& index = store->indices[0];
    if (uses_var(index, outer->var) || !is_update(store)) return std::nullopt;
    std::vector<TileLoop> tile;
    for (size_t i = 1; i < loops.size(); ++i) {
      const ForNode* l = loops[i];
      const int64_t* mn = as_const_int(l->min);
      const int64_t* ext = as_const_int(l->extent);
      const bool last = i + 1 == loops.size();
      if (!mn || !ext || *ext <= 0 || l->for_kind == ForKind::Parallel || l->for_kind == ForKind::ThreadBinding)
        return std::nullopt;
      if (!uses_var(index, l->var)) {
        if (l->for_kind == ForKind::Vectorized) return std::nullopt;  // a reduction across lanes
        continue;
      }
      if (l->for_kind == ForKind::Vectorized && !last) return std::nullopt;
      const std::optional<int64_t> stride = linear_coefficient(index, l->var);
      if (!stride || *stride == 0) return std::nullopt;
      tile.push_back({l, *mn, *ext, *stride});
    }
    if (tile.empty() || !fits_registers(tile) || !injective(tile)) return std::nullopt;

    // The tile's buffer, dense in its loops (the last fastest).
    int64_t elements = 1;
    for (const TileLoop& t : tile) elements *= t.extent;
    const Buffer acc(store->buffer->name + ".acc", store->buffer->dtype, {elements}, MemScope::Local);
    auto dense_index = [&](const std::vector<Expr>& vars) {
      Expr at = make_int(0);
      int64_t step = elements;
      for (size_t k = 0; k < tile.size(); ++k) {
        step /= tile[k].extent;
        at = at + (vars[k] - make_int(tile[k].min)) * make_int(step);
      }
      return simplify(at);
    };

    std::vector<Expr> loop_vars;
    for (const TileLoop& t : tile) loop_vars.push_back(t.loop->var);
    const Expr at = dense_index(loop_vars);
    Stmt body = make_store(acc, {at}, LoadRedirect(store->buffer, acc, at).mutate(store->value));
    for (size_t i = loops.size(); i-- > 0;) {
      const ForNode* l = loops[i];
      body = make_for(l->var, l->min, l->extent, l->for_kind, body, l->thread_tag);
    }

    // Copies between the tile and its buffer, over loops of their own.
    auto copy = [&](bool in) {
      VarMap<Expr> fresh;
      std::vector<Expr> copy_vars;
      for (const TileLoop& t : tile) {
        const Var v(t.loop->var.name() + (in ? ".load" : ".store"));
        fresh[t.loop->var] = v;
        copy_vars.push_back(v);
      }
      const Expr from = substitute(index, fresh);
      const Expr to = dense_index(copy_vars);
      Stmt s = in ? make_store(acc, {to}, make_load(store->buffer, {from}))
                  : make_store(store->buffer, {from}, make_load(acc, {to}));
      for (size_t k = tile.size(); k-- > 0;)
        s = make_for(Var(copy_vars[k]), make_int(tile[k].min), make_int(tile[k].extent), tile[k].loop->for_kind, s);
      return s;
    };
    return make_allocate(acc, make_seq({copy(true), body, copy(false)}));
  }

  // The tile in vector registers (a vectorized loop fills whole ones) is at
  // most the target's: more spills either way.
  bool fits_registers(const std::vector<TileLoop>& tile) const {
    const int64_t lanes = std::max(1, target_.vector_lanes);
    int64_t registers = 1;
    for (const TileLoop& t : tile)
      registers *= t.loop->for_kind == ForKind::Vectorized ? (t.extent + lanes - 1) / lanes : t.extent;
    return registers <= target_.vector_registers;
  }

  // Whether distinct iterations of the tile's loops write distinct elements.
  static bool injective(const std::vector<TileLoop>& tile) {
    std::vector<int64_t> offsets{0};
    for (const TileLoop& t : tile) {
      std::vector<int64_t> next;
      for (int64_t o : offsets)
        for (int64_t k = 0; k < t.extent; ++k) next.push_back(o + k * t.stride);
      offsets = std::move(next);
    }
    return std::set<int64_t>(offsets.begin(), offsets.end()).size() == offsets.size();
  }

  const target::Target& target_;
};

}  // namespace

LoweredFunc promote_accumulators(LoweredFunc func, const target::Target& target) {
  func.body = AccumulatorPromoter(target).mutate(func.body);
  return func;
}

}  // namespace tunectl::lower
