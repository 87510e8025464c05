#include "schedule/op_rewrite.h"

#include <memory>

#include "ir/error.h"
#include "ir/functor.h"
#include "ir/substitute.h"

namespace tunectl::schedule::detail {

namespace {

class LoadRedirector : public ir::IRMutator {
 public:
  LoadRedirector(ir::Buffer from, ir::Buffer to) : from_(std::move(from)), to_(std::move(to)) {}

 protected:
  ir::Expr mutate_Load(const ir::Expr& e, const ir::LoadNode* op) override {
    ir::Expr m = IRMutator::mutate_Load(e, op);
    const auto* load = m.as<ir::LoadNode>();
    if (!load->buffer.same_as(from_)) return m;
    return ir::make_load(to_, load->indices);
  }

 private:
  ir::Buffer from_, to_;
};

}  // namespace

ir::Expr redirect_loads(const ir::Expr& e, const ir::Buffer& from, const ir::Buffer& to) {
  LoadRedirector r(from, to);
  return r.mutate(e);
}

bool loads_buffer(const ir::Expr& e, const ir::Buffer& b) {
  bool found = false;
  ir::post_order_visit(e, [&](const ir::Expr& x) {
    if (const auto* load = x.as<ir::LoadNode>()) found |= load->buffer.same_as(b);
  });
  return found;
}

te::Tensor make_compute_op(const std::string& name, ir::Buffer buffer, std::vector<ir::IterVar> axes, ir::Expr body,
                           const std::vector<te::Tensor>& candidates, const std::string& tag) {
  internal_check(axes.size() == buffer->shape.size(), "op ", name, " has ", axes.size(), " axes for ",
                 buffer->shape.size(), " dimensions");
  auto node = std::make_shared<te::TensorNode>();
  node->name = name;
  node->op_kind = te::OpKind::Compute;
  node->buffer = std::move(buffer);
  node->axes = std::move(axes);
  node->body = std::move(body);
  node->tag = tag;
  ir::post_order_visit(node->body, [&](const ir::Expr& x) {
    const auto* load = x.as<ir::LoadNode>();
    if (!load) return;
    for (const auto& in : node->inputs)
      if (in->buffer.same_as(load->buffer)) return;
    for (const auto& c : candidates) {
      if (c->buffer.same_as(load->buffer)) {
        node->inputs.push_back(c);
        return;
      }
    }
    internal_fail("op ", name, " reads buffer ", load->buffer->name, " of no known tensor");
  });
  return node;
}

te::Tensor clone_with_fresh_vars(const te::Tensor& op, const std::string& name, ir::Buffer buffer,
                                 const std::string& tag) {
  VarMap map;
  std::vector<ir::IterVar> axes;
  for (const auto& a : op->axes) {
    ir::Var v(a.var.name());
    map.emplace(a.var, v);
    axes.push_back({v, a.extent, a.kind});
  }
  ir::Expr body;
  if (const auto* red = op->reduce()) {
    std::vector<ir::IterVar> raxes;
    for (const auto& a : red->axes) {
      ir::Var v(a.var.name());
      map.emplace(a.var, v);
      raxes.push_back({v, a.extent, a.kind});
    }
    body = ir::make_reduce(red->combiner, ir::substitute(red->source, map), std::move(raxes));
  } else {
    body = ir::substitute(op->body, map);
  }
  return make_compute_op(name, std::move(buffer), std::move(axes), std::move(body), op->inputs, tag);
}

te::Tensor make_copy_op(const std::string& name, ir::Buffer buffer, const te::Tensor& src, const std::string& tag) {
  std::vector<ir::IterVar> axes;
  std::vector<ir::Expr> indices;
  const auto& shape = src->shape();
  for (size_t d = 0; d < shape.size(); ++d) {
    // Name the copy's axes like the source's where it has axes (a compute
    // op), so printed loop nests line up; placeholders get ax0, ax1, ...
    std::string vname = d < src->axes.size() ? src->axes[d].var.name() : "ax" + std::to_string(d);
    ir::Var v(vname);
    axes.push_back({v, shape[d], ir::IterKind::Spatial});
    indices.push_back(v);
  }
  ir::Expr body = ir::make_load(src->buffer, std::move(indices));
  return make_compute_op(name, std::move(buffer), std::move(axes), std::move(body), {src}, tag);
}

}  // namespace tunectl::schedule::detail
