// The cost model on real measurements: annotated sketch states (random
// annotations plus their mutations) of a small matmul and a small conv2d are
// JIT-compiled and timed in process; XGBoost trained on a random 2/3 must
// rank the held-out third of each task better than chance, with margin
// ([slow]: about a minute of CPU, lowering, compiling and timing). The
// random model's correlation is printed next to it as the baseline.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "check/reference_check.h"
#include "codegen/llvm/llvm_codegen.h"
#include "lower/lower.h"
#include "ops/registry.h"
#include "runtime/thread_pool.h"
#include "runtime/timer.h"
#include "search/cost_model.h"
#include "search/features.h"
#include "search/mutation.h"
#include "search/sketch.h"

using namespace tunectl;

namespace {

struct Measured {
  std::vector<search::ProgramFeatures> programs;
  std::vector<double> throughputs;  // 1 / median seconds
};

// Distinct states of dag: n random annotations of its sketches, then one
// mutation of each while they last (the search's neighbourhood).
std::vector<schedule::State> sample_states(std::shared_ptr<const te::ComputeDAG> dag, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto sketches = search::generate_sketches(dag);
  std::vector<schedule::State> states;
  std::set<std::string> keys;
  auto add = [&](schedule::State s) {
    if (keys.insert(schedule::steps_to_json(s.history).dump()).second) states.push_back(std::move(s));
  };
  for (auto& c : search::sample_initial_population(sketches, n / 2, rng)) add(std::move(c.state));
  for (size_t i = 0; i < states.size() && static_cast<int>(states.size()) < n; ++i)
    if (auto m = search::mutate(states[i], rng)) add(std::move(*m));
  return states;
}

Measured measure(const te::ComputeDAG& dag, const std::vector<schedule::State>& states, int task_id) {
  Measured out;
  std::vector<runtime::NDArray> inputs = check::check_inputs(dag, 1);
  std::vector<runtime::NDArray> outputs = check::poisoned_outputs(dag);
  std::vector<runtime::NDArray*> args;
  for (auto& a : inputs) args.push_back(&a);
  for (auto& a : outputs) args.push_back(&a);
  std::vector<void*> raw = check::raw_pointers(args);
  // Short repeats: the kernels take well under a millisecond to a few, and
  // ranking needs relative times, not benchmark-grade ones.
  runtime::TimingOptions timing{.repeats = 3, .min_repeat_seconds = 0.005, .flush_cache = false};
  for (const auto& s : states) {
    lower::LoweredFunc func = lower::lower(s, "kernel");
    std::unique_ptr<runtime::Kernel> kernel = backend::host_backend()->build(func);
    std::vector<runtime::NDArray> packed;
    std::vector<void*> kernel_args = kernel->pack_inputs(raw, packed);
    double seconds = runtime::time_function([&] { kernel->run(kernel_args.data()); }, timing).median();
    search::ProgramFeatures f;
    f.task_id = task_id;
    f.rows = search::extract_features(func);
    out.programs.push_back(std::move(f));
    out.throughputs.push_back(1.0 / seconds);
  }
  return out;
}

}  // namespace

TEST_CASE("cost model ranks held-out measured programs better than chance", "[cost_model][cpu][timed]") {
  // Bounds from runs on a loaded 2-core machine, held-out Spearman of
  // matmul 0.60-0.67 and conv2d 0.32-0.52 (random: |rho| < 0.15; with 46
  // held-out programs chance has a standard deviation of about 0.15); on a
  // 2-core Zen 3 with a second copy running beside it, matmul 0.53-0.60.
  // [timed]: CTest runs it alone; sharing the cores with CI's other tests
  // it once fell to 0.446.
  struct Task {
    std::string op;
    nlohmann::json params;
    double min_spearman;
  };
  const std::vector<Task> tasks = {
      {"matmul", {{"M", 128}, {"N", 128}, {"K", 128}}, 0.45},
      {"conv2d", {{"N", 1}, {"C", 16}, {"H", 14}, {"W", 14}, {"K", 32}, {"R", 3}, {"S", 3}}, 0.2},
  };
  constexpr int kStatesPerTask = 140;
  // One worker: five processes share two cores here, and parallel timings
  // would rank by the machine's load instead of the programs.
  runtime::set_num_threads(1);
  std::vector<Measured> measured;
  for (size_t t = 0; t < tasks.size(); ++t) {
    auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(tasks[t].op, tasks[t].params));
    measured.push_back(measure(*dag, sample_states(dag, kStatesPerTask, 100 + t), static_cast<int>(t)));
  }

  // One model for both tasks (as the tuner uses it), trained on a random 2/3
  // of each; ranking is judged per task, since scores of different tasks are
  // not comparable.
  std::mt19937_64 rng(7);
  std::vector<search::ProgramFeatures> train;
  std::vector<double> train_y;
  std::vector<Measured> held_out(tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    std::vector<size_t> order(measured[t].programs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t k = 0; k < order.size(); ++k) {
      Measured& dst = held_out[t];
      if (3 * k < 2 * order.size()) {
        train.push_back(measured[t].programs[order[k]]);
        train_y.push_back(measured[t].throughputs[order[k]]);
      } else {
        dst.programs.push_back(measured[t].programs[order[k]]);
        dst.throughputs.push_back(measured[t].throughputs[order[k]]);
      }
    }
  }
  search::XgbCostModel xgb;
  xgb.update(train, train_y);
  search::RandomCostModel random(7);
  for (size_t t = 0; t < tasks.size(); ++t) {
    const Measured& h = held_out[t];
    double rho_xgb = search::spearman(xgb.predict(h.programs), h.throughputs);
    double rho_random = search::spearman(random.predict(h.programs), h.throughputs);
    double fastest = *std::max_element(measured[t].throughputs.begin(), measured[t].throughputs.end());
    double slowest = *std::min_element(measured[t].throughputs.begin(), measured[t].throughputs.end());
    std::cout << tasks[t].op << ": " << measured[t].programs.size() << " programs (throughput spread "
              << fastest / slowest << "x), held-out " << h.programs.size() << ", spearman xgb " << rho_xgb
              << ", random " << rho_random << "\n";
    INFO(tasks[t].op);
    CHECK(rho_xgb >= tasks[t].min_spearman);
  }
}
