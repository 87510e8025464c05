// Converters of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (a log
// softmax over the class axis, then the same loss; its optional second
// output is the log softmax), over ops/loss.h.
#include "graph/convert_util.h"
#include "ops/loss.h"
#include "ops/normalization.h"

namespace tunectl::graph {

namespace {

ops::LossReduction loss_reduction(const NodeContext& c) {
  const std::string r = c.attr_string("reduction", "mean");
  if (r == "none") return ops::LossReduction::None;
  if (r == "sum") return ops::LossReduction::Sum;
  c.check(r == "mean", "attribute 'reduction' = '", r, "' is not one of none, sum, mean");
  return ops::LossReduction::Mean;
}

std::optional<int64_t> ignore_index(const NodeContext& c) {
  if (!c.has_attr("ignore_index")) return std::nullopt;
  return c.attr_int("ignore_index", 0);
}

}  // namespace

void add_loss_converters(ConverterTable& t) {
  t["NegativeLogLikelihoodLoss"] = [](const NodeContext& c) {
    return std::vector<te::Tensor>{
        ops::nll_loss(c.in(0), c.in(1), c.opt(2), loss_reduction(c), ignore_index(c), c.out_name())};
  };
  t["SoftmaxCrossEntropyLoss"] = [](const NodeContext& c) {
    const bool wants_log_prob = c.node.outputs.size() > 1 && !c.node.outputs[1].empty();
    const te::Tensor log_prob = ops::log_softmax(c.in(0), 1, wants_log_prob ? c.out_name(1) : c.out_name() + "_log_prob");
    std::vector<te::Tensor> outs{
        ops::nll_loss(log_prob, c.in(1), c.opt(2), loss_reduction(c), ignore_index(c), c.out_name())};
    if (wants_log_prob) outs.push_back(log_prob);
    return outs;
  };
}

}  // namespace tunectl::graph
