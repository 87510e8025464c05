// Converters of GatherND, ScatterND, ScatterElements (and its opset-9/10
// name Scatter), over ops/scatter.h.
#include "graph/convert_util.h"
#include "ops/scatter.h"

namespace tunectl::graph {

namespace {

ops::ScatterReduction reduction(const NodeContext& c) {
  const std::string r = c.attr_string("reduction", "none");
  if (r == "none") return ops::ScatterReduction::None;
  if (r == "add") return ops::ScatterReduction::Add;
  if (r == "mul") return ops::ScatterReduction::Mul;
  if (r == "max") return ops::ScatterReduction::Max;
  c.check(r == "min", "attribute 'reduction' = '", r, "' is not one of none, add, mul, max, min");
  return ops::ScatterReduction::Min;
}

std::vector<te::Tensor> convert_scatter_elements(const NodeContext& c) {
  const int64_t rank = static_cast<int64_t>(c.shape(0).size()), axis = c.attr_int("axis", 0);
  c.check(axis >= -rank && axis < rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank);
  return {ops::scatter_elements(c.in(0), c.in(1), c.in(2), axis, reduction(c), c.out_name())};
}

}  // namespace

void add_scatter_converters(ConverterTable& t) {
  t["GatherND"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::gather_nd(c.in(0), c.in(1), c.attr_int("batch_dims", 0), c.out_name())};
  };
  t["ScatterND"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{ops::scatter_nd(c.in(0), c.in(1), c.in(2), reduction(c), c.out_name())};
  };
  t["ScatterElements"] = convert_scatter_elements;
  t["Scatter"] = convert_scatter_elements;
}

}  // namespace tunectl::graph
