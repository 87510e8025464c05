#include "lower/prepack.h"

#include "ir/error.h"
#include "ir/functor.h"
#include "ir/printer.h"
#include "ir/simplify.h"

namespace tunectl::lower {

namespace {

using namespace ir;

const te::Tensor& packed_input(const schedule::Stage& stage) { return stage.op->inputs.at(0); }

bool reads_buffer(const Expr& e, const Buffer& buffer) {
  bool found = false;
  post_order_visit(e, [&](const Expr& x) {
    if (const auto* load = x.as<LoadNode>(); load && load->buffer.same_as(buffer)) found = true;
  });
  return found;
}

// packed[t.., x..] = input[t * e + x ..], or 0 past the input's end.
Stmt packing_body(const te::Tensor& input, const StageInfo& info) {
  const int n = info.num_spatial;
  std::vector<Var> tiles, offsets;
  std::vector<Expr> packed_idx, input_idx, inside;
  for (int d = 0; d < n; ++d) tiles.push_back(Var("t" + std::to_string(d)));
  for (int d = 0; d < n; ++d) offsets.push_back(Var("x" + std::to_string(d)));
  for (int d = 0; d < n; ++d) packed_idx.push_back(tiles[d]);
  for (int d = 0; d < n; ++d) {
    packed_idx.push_back(offsets[d]);
    Expr at = tiles[d] * make_int(info.region_extent[d]) + offsets[d];
    input_idx.push_back(at);
    if (info.domain[d] % info.region_extent[d] != 0) inside.push_back(at < make_int(info.domain[d]));
  }
  Stmt body = make_store(info.packed, packed_idx, make_load(input->buffer, input_idx));
  if (!inside.empty()) {
    Expr all = inside[0];
    for (size_t k = 1; k < inside.size(); ++k) all = make_and(all, inside[k]);
    body = make_if(all, body, make_store(info.packed, packed_idx, make_zero(input->dtype())));
  }
  for (int d = n - 1; d >= 0; --d)
    body = make_for(offsets[d], make_int(0), make_int(info.region_extent[d]), ForKind::Serial, body);
  for (int d = n - 1; d >= 0; --d)
    body = make_for(tiles[d], make_int(0), make_int(info.packed->shape[d]), ForKind::Serial, body);
  return body;
}

}  // namespace

void plan_prepacks(const schedule::State& state, std::vector<StageInfo>& stages) {
  for (size_t s = 0; s < stages.size(); ++s) {
    const schedule::Stage& stage = state.stages[s];
    if (!stage.prepacked) continue;
    StageInfo& info = stages[s];
    const te::Tensor& input = packed_input(stage);
    VarMap<IntBound> bounds;
    for (const Loop& l : info.enclosing) bounds[l.var] = loop_bound(0, l.extent);
    std::vector<int64_t> shape;
    for (int d = 0; d < info.num_spatial; ++d) {
      const int64_t e = info.region_extent[d];
      user_check(is_const_int(simplify(info.region_min[d] % make_int(e), bounds), 0), "cannot prepack ",
                 stage.op->name, ": along axis ", d, " its region starts at ", to_string(info.region_min[d]),
                 ", not a multiple of its extent ", e);
      shape.push_back((info.domain[d] + e - 1) / e);
    }
    shape.insert(shape.end(), info.region_extent.begin(), info.region_extent.end());
    info.packed = Buffer(input->name + "_packed", input->dtype(), shape);
    for (size_t r = 0; r < stages.size(); ++r) {
      if (r == s || !stages[r].active) continue;
      user_check(!(state.stages[r].prepacked && packed_input(state.stages[r]).get() == input.get()), "cannot prepack ",
                 input->name, " twice (", stage.op->name, " and ", state.stages[r].op->name, ")");
      user_check(!reads_buffer(stages[r].body, input->buffer), "cannot prepack ", input->name, ": ",
                 state.stages[r].op->name, " also reads it unpacked");
    }
  }
}

void prepacked_args(const schedule::State& state, const std::vector<StageInfo>& stages, LoweredFunc& func) {
  for (const te::Tensor& t : state.dag->placeholders()) {
    const int arg = static_cast<int>(func.args.size());
    func.args.push_back(t->buffer);
    for (size_t s = 0; s < stages.size(); ++s) {
      if (!state.stages[s].prepacked || packed_input(state.stages[s]).get() != t.get()) continue;
      func.args.back() = stages[s].packed;
      LoweredFunc pack{func.name + "_pack" + std::to_string(arg), {t->buffer, stages[s].packed},
                       packing_body(t, stages[s]), {}};
      func.packings.push_back({arg, std::move(pack)});
    }
  }
  for (const te::Tensor& t : state.dag->outputs()) func.args.push_back(t->buffer);
}

}  // namespace tunectl::lower
