#include "lower_check.h"

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "ir/printer.h"
#include "lower/interpreter.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "te/evaluate.h"

namespace tunectl::lower::test {

namespace {

// Ops whose reference is only finite on positive inputs.
bool needs_positive_inputs(const te::ComputeDAG& dag) {
  static const std::set<std::string> positive = {"sqrt", "pow", "div"};
  for (const te::Tensor& t : dag.ops())
    if (positive.count(t->name)) return true;
  return false;
}

bool has_nan(const runtime::NDArray& a) {
  for (int64_t i = 0; i < a.num_elements(); ++i)
    if (std::isnan(a.get(i))) return true;
  return false;
}

}  // namespace

std::shared_ptr<const te::ComputeDAG> op_dag(const std::string& name, const nlohmann::json& params) {
  return std::make_shared<const te::ComputeDAG>(ops::make_op_dag(name, params));
}

std::string check_against_reference(const schedule::State& state, uint64_t seed) {
  const te::ComputeDAG& dag = *state.dag;
  std::mt19937_64 rng(seed);
  bool positive = needs_positive_inputs(dag);
  std::vector<runtime::NDArray> inputs = te::random_inputs(dag, rng, positive ? 0.5 : -1.0, positive ? 1.5 : 1.0);
  std::vector<runtime::NDArray> expected = te::evaluate(dag, inputs);
  LoweredFunc func = lower(state, "check");
  std::vector<runtime::NDArray> outputs;
  for (const te::Tensor& t : dag.outputs()) {
    runtime::NDArray a(t->dtype(), t->shape());
    // An element the kernel never writes stays NaN and fails the compare.
    for (int64_t i = 0; i < a.num_elements(); ++i) a.set(i, std::numeric_limits<double>::quiet_NaN());
    outputs.push_back(std::move(a));
  }
  std::vector<runtime::NDArray*> args;
  for (runtime::NDArray& a : inputs) args.push_back(&a);
  for (runtime::NDArray& a : outputs) args.push_back(&a);
  interpret(func, args);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (has_nan(expected[i])) return "reference output " + dag.outputs()[i]->name + " has NaN; choose other inputs";
    runtime::CompareResult r = runtime::all_close(outputs[i], expected[i]);
    if (!r.ok)
      return "output " + dag.outputs()[i]->name + ": " + r.message + "\nstate:\n" + state.to_string() + "\nIR:\n" +
             ir::to_string(func.body);
  }
  return "";
}

}  // namespace tunectl::lower::test
