// Converters of the recurrent layers RNN, GRU and LSTM (opsets 7-21),
// unrolled over the sequence, whose length the model fixes. Per direction:
// the input projection of every step at once (one reduction), then per step
// the recurrent projection and the gates, each step's hidden (and cell)
// state the input of the next. Y stacks the steps' hidden states, Y_h (and
// Y_c) hold the last ones. With sequence_lens a batch entry keeps its state
// past its length and its Y there is 0, as ONNX's reference.
#include <variant>

#include "graph/convert_util.h"
#include "ir/printer.h"
#include "ops/transform.h"

namespace tunectl::graph {

namespace {

using ir::Expr;

enum class Cell { Rnn, Gru, Lstm };

int gates(Cell cell) { return cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4; }

// The ONNX activation `name` of x.
Expr activate(const NodeContext& c, const std::string& name, Expr x, double clip) {
  const ir::DType t = x.dtype();
  if (clip > 0) x = ir::make_min(ir::make_max(x, ir::make_const(t, -clip)), ir::make_const(t, clip));
  if (name == "Sigmoid") {
    return ir::make_const(t, 1) / (ir::make_const(t, 1) + ir::make_call(ir::MathFunc::exp, {ir::make_zero(t) - x}));
  }
  if (name == "Tanh") return ir::make_call(ir::MathFunc::tanh, {x});
  if (name == "Relu") return ir::make_max(x, ir::make_zero(t));
  c.fail("activation '", name, "' is not supported (Sigmoid, Tanh, Relu)");
}

struct Layer {
  Cell cell;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool batch_first = false;
  std::vector<std::string> activations;  // per direction: f (and g, h)
  double clip = 0;
  bool linear_before_reset = false;
};

// The state h or c at the start: input i of the node ([dirs, batch, hidden],
// batch first [batch, dirs, hidden]) for direction d, or zeros.
te::Tensor initial_state(const NodeContext& c, const Layer& l, size_t i, int64_t d, const std::string& name) {
  const te::Tensor given = c.opt(i);
  const ir::DType t = c.in(0)->dtype();
  return te::compute(
      name, {l.batch, l.hidden},
      [&](const std::vector<ir::Var>& v) -> Expr {
        if (!given) return ir::make_zero(t);
        return l.batch_first ? te::read(given, {v[0], ir::make_int(d), v[1]}) : te::read(given, {ir::make_int(d), v[0], v[1]});
      },
      "injective", t);
}

// The hidden states of direction d, one [batch, hidden] tensor per time
// step in time order, and the last hidden (and cell) state.
struct Direction {
  std::vector<te::Tensor> y;
  te::Tensor h, c;
};

Direction run_direction(const NodeContext& c, const Layer& l, int64_t d) {
  const te::Tensor &x = c.in(0), &w = c.in(1), &r = c.in(2);
  const te::Tensor bias = c.opt(3), lens = c.opt(4), peephole = c.opt(7);
  const ir::DType t = x->dtype();
  const int64_t g = gates(l.cell), hs = l.hidden;
  const std::string base = c.out_name(1) + "_d" + std::to_string(d);
  const Expr dir = ir::make_int(d);
  auto act = [&](int k, Expr v) {
    const size_t per_direction = l.activations.size() / static_cast<size_t>(l.dirs);
    return activate(c, l.activations[static_cast<size_t>(d) * per_direction + static_cast<size_t>(k)], std::move(v),
                    l.clip);
  };
  // Wb + Rb of row n of the stacked gates.
  auto b = [&](Expr n) -> Expr {
    if (!bias) return ir::make_zero(t);
    return te::read(bias, {dir, n}) + te::read(bias, {dir, n + ir::make_int(g * hs)});
  };
  // X W^T for every step: [seq, batch, gates * hidden].
  ir::IterVar rk = te::reduce_axis(l.input, "rk");
  te::Tensor xw = te::compute(
      base + "_xw", {l.seq, l.batch, g * hs},
      [&](const std::vector<ir::Var>& v) {
        Expr xv = l.batch_first ? te::read(x, {v[1], v[0], rk.var}) : te::read(x, {v[0], v[1], rk.var});
        return te::sum(xv * te::read(w, {dir, v[2], rk.var}), {rk});
      },
      "matmul", t);
  // state . R^T of rows [first, first + rows) of the stacked gates.
  auto recurrent = [&](const te::Tensor& state, int64_t first, int64_t rows, const std::string& name) {
    ir::IterVar rh = te::reduce_axis(hs, "rh");
    return te::compute(
        name, {l.batch, rows},
        [&](const std::vector<ir::Var>& v) {
          return te::sum(te::read(state, {v[0], rh.var}) * te::read(r, {dir, v[1] + ir::make_int(first), rh.var}), {rh});
        },
        "matmul", t);
  };
  Direction out;
  out.h = initial_state(c, l, 5, d, base + "_h0");
  if (l.cell == Cell::Lstm) out.c = initial_state(c, l, 6, d, base + "_c0");
  out.y.resize(static_cast<size_t>(l.seq));
  const bool reverse = c.attr_string("direction", "forward") == "reverse" || d == 1;
  for (int64_t s = 0; s < l.seq; ++s) {
    const int64_t step = reverse ? l.seq - 1 - s : s;
    const std::string n = base + "_t" + std::to_string(step);
    const Expr ts = ir::make_int(step);
    // Whether step `step` lies within batch entry b's length.
    auto valid = [&](Expr batch) -> Expr {
      return lens ? ir::make_cast(ir::kIndexType, te::read(lens, {batch})) > ts : Expr();
    };
    auto pre = [&](const std::vector<ir::Var>& v, const te::Tensor& hr, int gate) {
      const Expr row = v[1] + ir::make_int(gate * hs);
      return te::read(xw, {ts, v[0], row}) + te::read(hr, {v[0], row}) + b(row);
    };
    const te::Tensor prev_h = out.h, prev_c = out.c;
    te::Tensor hr = recurrent(prev_h, 0, l.cell == Cell::Gru && !l.linear_before_reset ? 2 * hs : g * hs, n + "_hr");
    te::Tensor h_new;
    if (l.cell == Cell::Rnn) {
      h_new = te::compute(n + "_h", {l.batch, hs}, [&](const std::vector<ir::Var>& v) { return act(0, pre(v, hr, 0)); },
                          "injective", t);
    } else if (l.cell == Cell::Gru) {
      te::Tensor z = te::compute(n + "_z", {l.batch, hs}, [&](const std::vector<ir::Var>& v) { return act(0, pre(v, hr, 0)); },
                                 "injective", t);
      te::Tensor rg = te::compute(n + "_r", {l.batch, hs}, [&](const std::vector<ir::Var>& v) { return act(0, pre(v, hr, 1)); },
                                  "injective", t);
      te::Tensor candidate_in;  // the recurrent part of the candidate, Rbh included
      if (l.linear_before_reset) {
        candidate_in = te::compute(
            n + "_rh", {l.batch, hs},
            [&](const std::vector<ir::Var>& v) {
              const Expr row = v[1] + ir::make_int(2 * hs);
              Expr rb = bias ? te::read(bias, {dir, row + ir::make_int(g * hs)}) : ir::make_zero(t);
              return te::read(rg, {v[0], v[1]}) * (te::read(hr, {v[0], row}) + rb);
            },
            "injective", t);
      } else {
        te::Tensor reset = te::compute(
            n + "_rs", {l.batch, hs},
            [&](const std::vector<ir::Var>& v) { return te::read(rg, {v[0], v[1]}) * te::read(prev_h, {v[0], v[1]}); },
            "injective", t);
        te::Tensor rh = recurrent(reset, 2 * hs, hs, n + "_rhm");
        candidate_in = te::compute(
            n + "_rh", {l.batch, hs},
            [&](const std::vector<ir::Var>& v) {
              Expr rb = bias ? te::read(bias, {dir, v[1] + ir::make_int(2 * hs + g * hs)}) : ir::make_zero(t);
              return te::read(rh, {v[0], v[1]}) + rb;
            },
            "injective", t);
      }
      h_new = te::compute(
          n + "_h", {l.batch, hs},
          [&](const std::vector<ir::Var>& v) {
            const Expr row = v[1] + ir::make_int(2 * hs);
            Expr wb = bias ? te::read(bias, {dir, row}) : ir::make_zero(t);
            Expr cand = act(1, te::read(xw, {ts, v[0], row}) + te::read(candidate_in, {v[0], v[1]}) + wb);
            Expr zv = te::read(z, {v[0], v[1]});
            return (ir::make_const(t, 1) - zv) * cand + zv * te::read(prev_h, {v[0], v[1]});
          },
          "injective", t);
    } else {
      // Gates i, o, f, c; peepholes P = [Pi, Po, Pf].
      auto peep = [&](int k, Expr j, Expr state) -> Expr {
        return peephole ? te::read(peephole, {dir, j + ir::make_int(k * hs)}) * state : ir::make_zero(t);
      };
      te::Tensor c_new = te::compute(
          n + "_c", {l.batch, hs},
          [&](const std::vector<ir::Var>& v) {
            Expr cp = te::read(prev_c, {v[0], v[1]});
            Expr i = act(0, pre(v, hr, 0) + peep(0, v[1], cp));
            Expr f = act(0, pre(v, hr, 2) + peep(2, v[1], cp));
            Expr cell = f * cp + i * act(1, pre(v, hr, 3));
            return lens ? ir::make_select(valid(v[0]), cell, cp) : cell;
          },
          "injective", t);
      h_new = te::compute(
          n + "_h", {l.batch, hs},
          [&](const std::vector<ir::Var>& v) {
            Expr cn = te::read(c_new, {v[0], v[1]});
            return act(0, pre(v, hr, 1) + peep(1, v[1], cn)) * act(2, cn);
          },
          "injective", t);
      out.c = c_new;
    }
    if (lens) {
      // Past its length an entry keeps its state and writes 0 to Y.
      te::Tensor computed = h_new;
      h_new = te::compute(
          n + "_hk", {l.batch, hs},
          [&](const std::vector<ir::Var>& v) {
            return ir::make_select(valid(v[0]), te::read(computed, {v[0], v[1]}), te::read(prev_h, {v[0], v[1]}));
          },
          "injective", t);
      out.y[static_cast<size_t>(step)] = te::compute(
          n + "_y", {l.batch, hs},
          [&](const std::vector<ir::Var>& v) {
            return ir::make_select(valid(v[0]), te::read(computed, {v[0], v[1]}), ir::make_zero(t));
          },
          "injective", t);
    } else {
      out.y[static_cast<size_t>(step)] = h_new;
    }
    out.h = h_new;
  }
  return out;
}

std::vector<te::Tensor> convert_recurrent(const NodeContext& c, Cell cell) {
  Layer l;
  l.cell = cell;
  l.batch_first = c.attr_int("layout", 0) != 0;
  const std::vector<int64_t> xs = c.shape(0), ws = c.shape(1);
  c.check(xs.size() == 3 && ws.size() == 3, "X and W must have rank 3");
  l.seq = xs[l.batch_first ? 1 : 0];
  l.batch = xs[l.batch_first ? 0 : 1];
  l.input = xs[2];
  l.hidden = c.attr_int("hidden_size", ws[1] / gates(cell));
  c.check(ws[1] == gates(cell) * l.hidden && ws[2] == l.input, "W has shape ", ir::shape_to_string(ws), " for ",
          gates(cell), " gates of hidden size ", l.hidden, " and input size ", l.input);
  const std::string direction = c.attr_string("direction", "forward");
  c.check(direction == "forward" || direction == "reverse" || direction == "bidirectional",
          "attribute 'direction' = '", direction, "' is not forward, reverse or bidirectional");
  l.dirs = direction == "bidirectional" ? 2 : 1;
  c.check(ws[0] == l.dirs, "W has ", ws[0], " directions; '", direction, "' needs ", l.dirs);
  c.check(ir::is_float(c.in(0)->dtype()), "needs a float input");
  l.clip = c.attr_float("clip", 0);
  l.linear_before_reset = c.attr_int("linear_before_reset", 0) != 0;
  c.check(c.attr_int("input_forget", 0) == 0, "attribute 'input_forget' = 1 is not supported");
  c.reject_attr("activation_alpha", "no activation here takes one");
  c.reject_attr("activation_beta", "no activation here takes one");
  const std::vector<std::string> defaults = cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
                                            : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  if (c.has_attr("activations")) {
    const auto* names = std::get_if<std::vector<std::string>>(&c.node.attrs.values.at("activations"));
    c.check(names != nullptr && names->size() == defaults.size() * static_cast<size_t>(l.dirs),
            "attribute 'activations' needs ", defaults.size() * static_cast<size_t>(l.dirs), " names");
    l.activations = *names;
  } else {
    for (int64_t d = 0; d < l.dirs; ++d) l.activations.insert(l.activations.end(), defaults.begin(), defaults.end());
  }

  std::vector<te::Tensor> ys, hs, cs;
  for (int64_t d = 0; d < l.dirs; ++d) {
    Direction dir = run_direction(c, l, d);
    std::vector<te::Tensor> steps;
    for (const te::Tensor& y : dir.y) steps.push_back(ops::reshape(y, {1, 1, l.batch, l.hidden}, y->name + "_4d"));
    ys.push_back(ops::concat(steps, 0, c.out_name(0) + "_d" + std::to_string(d)));
    hs.push_back(ops::reshape(dir.h, {1, l.batch, l.hidden}, dir.h->name + "_3d"));
    if (dir.c) cs.push_back(ops::reshape(dir.c, {1, l.batch, l.hidden}, dir.c->name + "_3d"));
  }
  // [seq, dirs, batch, hidden] and [dirs, batch, hidden]; batch first:
  // [batch, seq, dirs, hidden] and [batch, dirs, hidden].
  te::Tensor y = ops::concat(ys, 1, l.batch_first ? c.out_name(0) + "_sdbh" : c.out_name(0));
  te::Tensor h = ops::concat(hs, 0, l.batch_first ? c.out_name(1) + "_dbh" : c.out_name(1));
  if (l.batch_first) {
    y = ops::transpose(y, {2, 0, 1, 3}, c.out_name(0));
    h = ops::transpose(h, {1, 0, 2}, c.out_name(1));
  }
  // Y_c only where the node lists it.
  if (cell != Cell::Lstm || c.node.outputs.size() < 3) return {y, h};
  te::Tensor cl = ops::concat(cs, 0, l.batch_first ? c.out_name(2) + "_dbh" : c.out_name(2));
  if (l.batch_first) cl = ops::transpose(cl, {1, 0, 2}, c.out_name(2));
  return {y, h, cl};
}

}  // namespace

void add_rnn_converters(ConverterTable& t) {
  t["RNN"] = [](const NodeContext& c) { return convert_recurrent(c, Cell::Rnn); };
  t["GRU"] = [](const NodeContext& c) { return convert_recurrent(c, Cell::Gru); };
  t["LSTM"] = [](const NodeContext& c) { return convert_recurrent(c, Cell::Lstm); };
}

}  // namespace tunectl::graph
