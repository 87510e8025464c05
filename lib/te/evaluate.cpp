#include "te/evaluate.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "ir/error.h"
#include "ir/scalar_math.h"
#include "ir/var_map.h"
#include "runtime/thread_pool.h"

namespace tunectl::te {

namespace {

using runtime::NDArray;

// Calls f(std::type_identity<H>{}) with H the host type t is computed in:
// float32 and float16 in float, uint64 in uint64, every other integer type in int64
// (wrapped to its width after each operation, ir::wrap_to), bool in bool.
template <typename F>
auto with_host_type(ir::DType t, F&& f) {
  switch (t) {
    case ir::DType::Bool: return f(std::type_identity<bool>{});
    case ir::DType::Int8:
    case ir::DType::UInt8:
    case ir::DType::Int16:
    case ir::DType::UInt16:
    case ir::DType::Int32:
    case ir::DType::UInt32:
    case ir::DType::Int64: return f(std::type_identity<int64_t>{});
    case ir::DType::UInt64: return f(std::type_identity<uint64_t>{});
    case ir::DType::Float32:
    case ir::DType::Float16: return f(std::type_identity<float>{});
    case ir::DType::Float64: return f(std::type_identity<double>{});
  }
  internal_fail("bad dtype");
}

// Calls f with the array's data as a pointer to its storage type.
template <typename F>
auto with_storage(const NDArray& a, F&& f) {
  switch (a.dtype()) {
    case ir::DType::Bool: return f(a.data<uint8_t>());
    case ir::DType::Int8: return f(a.data<int8_t>());
    case ir::DType::UInt8: return f(a.data<uint8_t>());
    case ir::DType::Int16: return f(a.data<int16_t>());
    case ir::DType::UInt16: return f(a.data<uint16_t>());
    case ir::DType::Int32: return f(a.data<int32_t>());
    case ir::DType::UInt32: return f(a.data<uint32_t>());
    case ir::DType::Int64: return f(a.data<int64_t>());
    case ir::DType::UInt64: return f(a.data<uint64_t>());
    case ir::DType::Float32: return f(a.data<float>());
    case ir::DType::Float64: return f(a.data<double>());
    case ir::DType::Float16: return f(a.data<_Float16>());
  }
  internal_fail("bad dtype");
}

// v as a value of type t: integers narrower than their host type wrap,
// float16 (held in a float) rounds to its precision.
template <typename H>
H wrapped(ir::DType t, H v) {
  if constexpr (std::is_same_v<H, int64_t>) return ir::wrap_to(t, v);
  if constexpr (std::is_same_v<H, float>)
    if (t == ir::DType::Float16) return static_cast<float>(static_cast<_Float16>(v));
  return v;
}

// a op b for +, - and *: integers (held in int64_t) wrap modulo 2^64, then
// to their type's width (wrapped), as the generated code's do; in int64_t
// the overflow would be undefined behaviour.
template <typename H, typename Op>
H modular(H a, H b, Op op) {
  if constexpr (std::is_same_v<H, int64_t>) {
    return static_cast<int64_t>(op(static_cast<uint64_t>(a), static_cast<uint64_t>(b)));
  } else {
    return op(a, b);
  }
}

template <typename H>
bool host_matches(ir::DType t) {
  return with_host_type(t, [](auto tag) { return std::is_same_v<typename decltype(tag)::type, H>; });
}

// A compiled expression: its value given the values of the variables, which
// live in slots of one array.
template <typename H>
using Fn = std::function<H(const int64_t*)>;

// Turns an expression into a tree of closures once, so evaluating it per
// element costs no lookups by variable or buffer.
class Compiler {
 public:
  // slots: each loop variable's slot; extents: each slot's loop extent.
  Compiler(const ir::VarMap<int>& slots, const std::vector<int64_t>& extents,
           const std::unordered_map<const ir::BufferNode*, const NDArray*>& arrays)
      : slots_(slots), extents_(extents), arrays_(arrays) {}

  template <typename H>
  Fn<H> compile(const ir::Expr& e) {
    internal_check(host_matches<H>(e.dtype()), "evaluator: host type mismatch at ", ir::to_string(e.kind()));
    switch (e.kind()) {
      case ir::ExprKind::IntImm: {
        H v = static_cast<H>(e.as<ir::IntImmNode>()->value);
        return [v](const int64_t*) { return v; };
      }
      case ir::ExprKind::FloatImm: {
        H v = static_cast<H>(e.as<ir::FloatImmNode>()->value);
        return [v](const int64_t*) { return v; };
      }
      case ir::ExprKind::Var: {
        auto it = slots_.find(ir::Var(e));
        internal_check(it != slots_.end(), "evaluator: unbound variable ", e.as<ir::VarNode>()->name);
        if constexpr (std::is_same_v<H, int64_t>) {
          int s = it->second;
          return [s](const int64_t* x) { return x[s]; };
        } else {
          internal_fail("evaluator: non-index variable ", e.as<ir::VarNode>()->name);
        }
      }
      case ir::ExprKind::Add: return arith<H, ir::AddNode>(e, [](H a, H b) { return modular(a, b, std::plus<>()); });
      case ir::ExprKind::Sub: return arith<H, ir::SubNode>(e, [](H a, H b) { return modular(a, b, std::minus<>()); });
      case ir::ExprKind::Mul:
        return arith<H, ir::MulNode>(e, [](H a, H b) { return modular(a, b, std::multiplies<>()); });
      case ir::ExprKind::Div: return arith<H, ir::DivNode>(e, [](H a, H b) { return a / b; });
      case ir::ExprKind::Min: return arith<H, ir::MinNode>(e, [](H a, H b) { return b < a ? b : a; });
      case ir::ExprKind::Max: return arith<H, ir::MaxNode>(e, [](H a, H b) { return a < b ? b : a; });
      case ir::ExprKind::FloorDiv:
      case ir::ExprKind::FloorMod:
        if constexpr (std::is_same_v<H, int64_t>) {
          if (e.kind() == ir::ExprKind::FloorDiv) return arith<H, ir::FloorDivNode>(e, ir::floordiv_int);
          return arith<H, ir::FloorModNode>(e, ir::floormod_int);
        } else if constexpr (std::is_same_v<H, uint64_t>) {
          if (e.kind() == ir::ExprKind::FloorDiv) return arith<H, ir::FloorDivNode>(e, [](H a, H b) { return a / b; });
          return arith<H, ir::FloorModNode>(e, [](H a, H b) { return a % b; });
        } else {
          internal_fail("evaluator: floor division of a non-integer");
        }
      case ir::ExprKind::EQ: return compare<H, ir::EQNode>(e, [](auto a, auto b) { return a == b; });
      case ir::ExprKind::NE: return compare<H, ir::NENode>(e, [](auto a, auto b) { return a != b; });
      case ir::ExprKind::LT: return compare<H, ir::LTNode>(e, [](auto a, auto b) { return a < b; });
      case ir::ExprKind::LE: return compare<H, ir::LENode>(e, [](auto a, auto b) { return a <= b; });
      case ir::ExprKind::GT: return compare<H, ir::GTNode>(e, [](auto a, auto b) { return a > b; });
      case ir::ExprKind::GE: return compare<H, ir::GENode>(e, [](auto a, auto b) { return a >= b; });
      case ir::ExprKind::And: return arith<H, ir::AndNode>(e, [](H a, H b) { return a && b; });
      case ir::ExprKind::Or: return arith<H, ir::OrNode>(e, [](H a, H b) { return a || b; });
      case ir::ExprKind::Not: {
        Fn<H> a = compile<H>(e.as<ir::NotNode>()->a);
        return [a](const int64_t* x) { return !a(x); };
      }
      case ir::ExprKind::Select: {
        // Lazy: only the chosen branch runs, so a guarded out-of-range read
        // (padding, concat) is never evaluated.
        const auto* op = e.as<ir::SelectNode>();
        Fn<bool> c = compile<bool>(op->cond);
        Fn<H> t = compile<H>(op->true_value);
        Fn<H> f = compile<H>(op->false_value);
        return [c, t, f](const int64_t* x) { return c(x) ? t(x) : f(x); };
      }
      case ir::ExprKind::Cast: {
        const auto* op = e.as<ir::CastNode>();
        return with_host_type(op->value.dtype(), [&](auto tag) -> Fn<H> {
          using U = typename decltype(tag)::type;
          Fn<U> v = compile<U>(op->value);
          if constexpr (std::is_same_v<H, bool>) {
            return [v](const int64_t* x) { return v(x) != U(0); };
          } else {
            const ir::DType t = e.dtype();
            return [v, t](const int64_t* x) { return wrapped<H>(t, static_cast<H>(v(x))); };
          }
        });
      }
      case ir::ExprKind::Call: {
        if constexpr (std::is_floating_point_v<H>) {
          const auto* op = e.as<ir::CallNode>();
          ir::MathFunc f = op->func;
          Fn<H> a = compile<H>(op->args[0]);
          if (op->args.size() == 1) return [f, a](const int64_t* x) { return ir::eval_math<H>(f, a(x), H(0)); };
          Fn<H> b = compile<H>(op->args[1]);
          return [f, a, b](const int64_t* x) { return ir::eval_math<H>(f, a(x), b(x)); };
        } else {
          const auto* op = e.as<ir::CallNode>();
          ir::MathFunc f = op->func;
          Fn<H> a = compile<H>(op->args[0]);
          const ir::DType t = e.dtype();
          if (op->args.size() == 1) return [f, a, t](const int64_t* x) { return wrapped<H>(t, ir::eval_math_int<H>(f, a(x))); };
          Fn<H> b = compile<H>(op->args[1]);
          const int width = 8 * ir::dtype_bytes(t);
          return [f, a, b, t, width](const int64_t* x) {
            return wrapped<H>(t, ir::eval_math_int<H>(f, a(x), b(x), width));
          };
        }
      }
      case ir::ExprKind::Load: return load<H>(e.as<ir::LoadNode>());
      case ir::ExprKind::Reduce: internal_fail("evaluator: reduction below the top of a body");
    }
    internal_fail("evaluator: bad expression kind");
  }

 private:
  template <typename H, typename Node, typename Op>
  Fn<H> arith(const ir::Expr& e, Op op) {
    const auto* n = e.as<Node>();
    Fn<H> a = compile<H>(n->a);
    Fn<H> b = compile<H>(n->b);
    const ir::DType t = e.dtype();
    return [a, b, op, t](const int64_t* x) { return wrapped<H>(t, static_cast<H>(op(a(x), b(x)))); };
  }

  template <typename H, typename Node, typename Op>
  Fn<H> compare(const ir::Expr& e, Op op) {
    const auto* n = e.as<Node>();
    return with_host_type(n->a.dtype(), [&](auto tag) -> Fn<H> {
      using U = typename decltype(tag)::type;
      Fn<U> a = compile<U>(n->a);
      Fn<U> b = compile<U>(n->b);
      return [a, b, op](const int64_t* x) { return static_cast<H>(op(a(x), b(x))); };
    });
  }

  // An index that is an affine function of the loop variables: constant +
  // sum of coeff * slot. Computed in unsigned 64-bit arithmetic and wrapped
  // to the index type once at the end, which equals wrapping after each add
  // and multiply (both commute with reduction modulo 2^width).
  struct Affine {
    uint64_t constant = 0;
    std::vector<std::pair<int, uint64_t>> terms;  // slot, coefficient
  };

  std::optional<Affine> affine(const ir::Expr& e, ir::DType t) const {
    if (e.dtype() != t) return std::nullopt;
    switch (e.kind()) {
      case ir::ExprKind::IntImm: return Affine{static_cast<uint64_t>(e.as<ir::IntImmNode>()->value), {}};
      case ir::ExprKind::Var: {
        auto it = slots_.find(ir::Var(e));
        if (it == slots_.end()) return std::nullopt;
        return Affine{0, {{it->second, 1}}};
      }
      case ir::ExprKind::Add:
      case ir::ExprKind::Sub: {
        const ir::Expr& a = e.kind() == ir::ExprKind::Add ? e.as<ir::AddNode>()->a : e.as<ir::SubNode>()->a;
        const ir::Expr& b = e.kind() == ir::ExprKind::Add ? e.as<ir::AddNode>()->b : e.as<ir::SubNode>()->b;
        std::optional<Affine> x = affine(a, t), y = affine(b, t);
        if (!x || !y) return std::nullopt;
        const uint64_t sign = e.kind() == ir::ExprKind::Add ? 1 : ~uint64_t{0};  // -1 modulo 2^64
        x->constant += sign * y->constant;
        for (auto [slot, c] : y->terms) add_term(*x, slot, sign * c);
        return x;
      }
      case ir::ExprKind::Mul: {
        std::optional<Affine> x = affine(e.as<ir::MulNode>()->a, t), y = affine(e.as<ir::MulNode>()->b, t);
        if (!x || !y) return std::nullopt;
        if (!x->terms.empty()) std::swap(x, y);
        if (!x->terms.empty()) return std::nullopt;  // a product of two variables
        for (auto& term : y->terms) term.second *= x->constant;
        y->constant *= x->constant;
        return y;
      }
      default: return std::nullopt;
    }
  }

  static void add_term(Affine& a, int slot, uint64_t coeff) {
    for (auto& term : a.terms)
      if (term.first == slot) {
        term.second += coeff;
        return;
      }
    a.terms.emplace_back(slot, coeff);
  }

  // The flat offset of a load whose every index is affine and, over the
  // loops' ranges, within its dimension and its type (interval arithmetic
  // in 128 bits; then no wrapping changes a value), or nothing. Guarded
  // reads (padding) keep their checks.
  template <typename Term>
  std::optional<Affine> in_bounds_offset(const std::vector<Term>& terms) const {
    Affine offset;
    for (const Term& t : terms) {
      if (!t.affine) return std::nullopt;
      const auto as_signed = [](uint64_t v) { return static_cast<__int128>(static_cast<int64_t>(v)); };
      __int128 lo = as_signed(t.affine->constant), hi = lo;
      for (auto [slot, coeff] : t.affine->terms) {
        if (extents_[slot] <= 0) return std::nullopt;
        (coeff >> 63 ? lo : hi) += as_signed(coeff) * (extents_[slot] - 1);
      }
      if (lo < 0 || hi >= t.extent) return std::nullopt;
      const auto narrow_lo = static_cast<int64_t>(lo), narrow_hi = static_cast<int64_t>(hi);
      if (ir::wrap_to(t.dtype, narrow_lo) != narrow_lo || ir::wrap_to(t.dtype, narrow_hi) != narrow_hi)
        return std::nullopt;
      offset.constant += t.affine->constant * static_cast<uint64_t>(t.stride);
      for (auto [slot, coeff] : t.affine->terms) add_term(offset, slot, coeff * static_cast<uint64_t>(t.stride));
    }
    return offset;
  }

  // One index of a load: affine in the loop variables (the common case, and
  // the hot path of every reduction: no closure calls), else a closure.
  struct IndexTerm {
    std::optional<Affine> affine;
    ir::DType dtype = ir::DType::Int64;
    Fn<int64_t> fn;
    int64_t stride = 1;
    int64_t extent = 1;

    int64_t value(const int64_t* x) const {
      if (!affine) return fn(x);
      uint64_t v = affine->constant;
      for (auto [slot, c] : affine->terms) v += c * static_cast<uint64_t>(x[slot]);
      return ir::wrap_to(dtype, static_cast<int64_t>(v));
    }
  };

  template <typename H>
  Fn<H> load(const ir::LoadNode* op) {
    auto it = arrays_.find(op->buffer.get());
    internal_check(it != arrays_.end(), "evaluator: read of '", op->buffer->name, "' before it is computed");
    const NDArray* arr = it->second;
    const std::vector<int64_t>& shape = arr->shape();
    std::vector<IndexTerm> terms(op->indices.size());
    int64_t stride = 1;
    for (size_t k = op->indices.size(); k-- > 0;) {
      const ir::Expr& i = op->indices[k];
      terms[k].dtype = i.dtype();
      terms[k].affine = host_matches<int64_t>(i.dtype()) ? affine(i, i.dtype()) : std::nullopt;
      if (!terms[k].affine) terms[k].fn = compile<int64_t>(i);
      terms[k].stride = stride;
      terms[k].extent = shape[k];
      stride *= shape[k];
    }
    if (std::optional<Affine> offset = in_bounds_offset(terms)) {
      // Every index provably in range: one affine offset, no checks.
      // Modulo 2^64: the sum is in range, whatever the partial sums are.
      const uint64_t constant = offset->constant;
      std::vector<std::pair<int, uint64_t>> slots;
      for (auto [slot, c] : offset->terms)
        if (c != 0) slots.emplace_back(slot, c);
      return with_storage(*arr, [&](auto* data) -> Fn<H> {
        return [data, constant, slots](const int64_t* x) {
          uint64_t off = constant;
          for (auto [slot, c] : slots) off += c * static_cast<uint64_t>(x[slot]);
          return static_cast<H>(data[off]);
        };
      });
    }
    std::string name = op->buffer->name;
    return with_storage(*arr, [&](auto* data) -> Fn<H> {
      return [data, terms, name](const int64_t* x) {
        int64_t off = 0;
        for (size_t k = 0; k < terms.size(); ++k) {
          const IndexTerm& t = terms[k];
          const int64_t i = t.value(x);
          if (i < 0 || i >= t.extent)
            internal_fail("evaluator: read of ", name, " out of range: index ", i, " of dimension ", k,
                          " with extent ", t.extent);
          off += i * t.stride;
        }
        return static_cast<H>(data[off]);
      };
    });
  }

  const ir::VarMap<int>& slots_;
  const std::vector<int64_t>& extents_;
  const std::unordered_map<const ir::BufferNode*, const NDArray*>& arrays_;
};

// Advances the odometer idx over extents (last fastest) in slots
// [first, first + extents.size()); false when it wraps around.
bool advance(int64_t* slots, int first, const std::vector<int64_t>& extents) {
  for (int k = static_cast<int>(extents.size()) - 1; k >= 0; --k) {
    if (++slots[first + k] < extents[k]) return true;
    slots[first + k] = 0;
  }
  return false;
}

template <typename H>
H combine(ir::ReduceOp op, H acc, H v) {
  if constexpr (std::is_same_v<H, bool>) {
    // Bool sums and products are logical or / and (no overflow past true).
    if (op == ir::ReduceOp::Sum) return acc || v;
    if (op == ir::ReduceOp::Prod) return acc && v;
  }
  switch (op) {
    case ir::ReduceOp::Sum: return static_cast<H>(acc + v);
    case ir::ReduceOp::Prod: return static_cast<H>(acc * v);
    case ir::ReduceOp::Max: return acc < v ? v : acc;
    case ir::ReduceOp::Min: return v < acc ? v : acc;
  }
  internal_fail("bad reduce op");
}

// Computes t into out: every element, or only those at `positions` (flat
// row-major indices) when it is not null.
template <typename H>
void run_op(const TensorNode& t, const std::unordered_map<const ir::BufferNode*, const NDArray*>& arrays,
            NDArray& out, const std::vector<int64_t>* positions) {
  ir::VarMap<int> slots;
  std::vector<int64_t> spatial;
  for (const auto& a : t.axes) {
    slots[a.var] = static_cast<int>(spatial.size());
    spatial.push_back(a.extent);
  }
  const ir::ReduceNode* r = t.reduce();
  std::vector<int64_t> reduce;
  if (r) {
    for (const auto& a : r->axes) {
      slots[a.var] = static_cast<int>(spatial.size() + reduce.size());
      reduce.push_back(a.extent);
    }
  }
  std::vector<int64_t> extents = spatial;
  extents.insert(extents.end(), reduce.begin(), reduce.end());
  Compiler compiler(slots, extents, arrays);
  Fn<H> value = compiler.compile<H>(r ? r->source : t.body);
  H identity{};
  if (r) identity = compiler.compile<H>(ir::reduce_identity(r->combiner, r->dtype))(nullptr);
  const int first_reduce = static_cast<int>(spatial.size());
  int64_t total = 1;
  for (int64_t e : spatial) total *= e;
  if (total == 0) return;  // an empty output
  // A reduction over an empty axis is its identity.
  const bool empty_reduction = std::find(reduce.begin(), reduce.end(), int64_t{0}) != reduce.end();
  with_storage(out, [&](auto* data) {
    using S = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
    S* dst = const_cast<S*>(data);
    // Output elements [begin, end) in row-major order. Compiled expressions
    // keep no state, so disjoint ranges run on the thread pool in parallel:
    // the reference of a big task (a 1024^3 GEMM) is computed once per
    // tuning run and would otherwise dominate a short one.
    std::vector<int64_t> x0(spatial.size() + reduce.size(), 0);
    auto seek = [&](std::vector<int64_t>& x, int64_t flat) {
      for (int64_t k = first_reduce - 1, rest = flat; k >= 0; --k) {
        x[k] = rest % spatial[k];
        rest /= spatial[k];
      }
    };
    auto compute_range = [&](int64_t begin, int64_t end) {
      std::vector<int64_t> x = x0;
      if (!positions) seek(x, begin);
      for (int64_t i = begin; i < end; ++i) {
        const int64_t flat = positions ? (*positions)[i] : i;
        if (positions) seek(x, flat);
        H v;
        if (r) {
          H acc = identity;
          if (!empty_reduction) {
            do {
              acc = combine(r->combiner, acc, value(x.data()));
            } while (advance(x.data(), first_reduce, reduce));
          }
          v = acc;
        } else {
          v = value(x.data());
        }
        dst[flat] = static_cast<S>(v);
        if (!positions) advance(x.data(), 0, spatial);
      }
    };
    // An error (a read out of range) must reach the caller, not end a worker.
    std::mutex error_mu;
    std::exception_ptr error;
    auto guarded_range = [&](int64_t begin, int64_t end) {
      try {
        compute_range(begin, end);
      } catch (...) {
        std::lock_guard lock(error_mu);
        if (!error) error = std::current_exception();
      }
    };
    using Range = decltype(guarded_range);
    tunectl_parallel_for(
        [](void* closure, int64_t begin, int64_t end) { (*static_cast<Range*>(closure))(begin, end); },
        &guarded_range, positions ? static_cast<int64_t>(positions->size()) : total);
    if (error) std::rethrow_exception(error);
  });
}

bool read_by_another_op(const ComputeDAG& dag, const Tensor& t) {
  for (const Tensor& op : dag.ops())
    for (const Tensor& in : op->inputs)
      if (in.get() == t.get()) return true;
  return false;
}

}  // namespace

std::vector<NDArray> evaluate(const ComputeDAG& dag, const std::vector<NDArray>& inputs) {
  return evaluate_at(dag, inputs, {});
}

std::vector<NDArray> evaluate_at(const ComputeDAG& dag, const std::vector<NDArray>& inputs,
                                 const std::vector<std::vector<int64_t>>& positions) {
  user_check(positions.empty() || positions.size() == dag.outputs().size(), "evaluate: ", positions.size(),
             " position lists for ", dag.outputs().size(), " outputs");
  std::vector<Tensor> phs = dag.placeholders();
  user_check(inputs.size() == phs.size(), "evaluate: expected ", phs.size(), " inputs, got ", inputs.size());
  std::unordered_map<const ir::BufferNode*, NDArray> values;
  std::unordered_map<const ir::BufferNode*, const NDArray*> arrays;
  for (size_t i = 0; i < phs.size(); ++i) {
    user_check(inputs[i].dtype() == phs[i]->dtype(), "evaluate: input '", phs[i]->name, "' must be ",
               ir::to_string(phs[i]->dtype()), ", got ", ir::to_string(inputs[i].dtype()));
    user_check(inputs[i].shape() == phs[i]->shape(), "evaluate: input '", phs[i]->name,
               "' has the wrong shape");
    arrays[phs[i]->buffer.get()] = &inputs[i];
  }
  for (const auto& t : dag.ops()) {
    if (t->is_placeholder()) continue;
    NDArray out(t->dtype(), t->shape());
    // An output another op reads is computed whole, for its reader.
    const std::vector<int64_t>* at = nullptr;
    for (size_t o = 0; o < positions.size(); ++o)
      if (dag.outputs()[o].get() == t.get() && !read_by_another_op(dag, t)) at = &positions[o];
    with_host_type(t->dtype(), [&](auto tag) { run_op<typename decltype(tag)::type>(*t, arrays, out, at); });
    auto [it, inserted] = values.emplace(t->buffer.get(), std::move(out));
    arrays[t->buffer.get()] = &it->second;
  }
  std::vector<NDArray> result;
  for (const auto& t : dag.outputs()) {
    auto it = arrays.find(t->buffer.get());
    internal_check(it != arrays.end(), "evaluate: output '", t->name, "' was not computed");
    result.push_back(*it->second);
  }
  return result;
}

std::vector<NDArray> random_inputs(const ComputeDAG& dag, std::mt19937_64& rng, double lo, double hi) {
  std::vector<NDArray> out;
  for (const auto& t : dag.placeholders()) {
    NDArray a(t->dtype(), t->shape());
    a.fill_random(rng, lo, hi);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace tunectl::te
