#include "lower/lower.h"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <sstream>

#include "ir/printer.h"
#include "ir/simplify.h"
#include "lower/auto_unroll.h"
#include "lower/bound_inference.h"
#include "lower/flatten.h"
#include "lower/inline_stages.h"
#include "lower/loop_nest.h"
#include "lower/prepack.h"
#include "lower/stage_info.h"

namespace tunectl::lower {

namespace {

bool debug_enabled() {
  const char* v = std::getenv("TUNECTL_DEBUG");
  return v != nullptr && std::string(v) != "0" && std::string(v) != "";
}

// Runs one pass and, under TUNECTL_DEBUG, prints what it produced and how
// long it took.
class PassLog {
 public:
  explicit PassLog(std::string func) : func_(std::move(func)), debug_(debug_enabled()) {}

  template <typename F>
  void run(const char* pass, F&& f, const std::function<std::string()>& show) {
    auto start = std::chrono::steady_clock::now();
    f();
    if (!debug_) return;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "// lower " << func_ << ": after " << pass << " (" << ms << " ms)\n" << show() << "\n";
  }

 private:
  std::string func_;
  bool debug_;
};

std::string describe_regions(const schedule::State& state, const std::vector<StageInfo>& stages) {
  std::ostringstream os;
  for (size_t s = 0; s < stages.size(); ++s) {
    const StageInfo& info = stages[s];
    if (!info.active) continue;
    os << state.stages[s].op->name << " = " << (info.body ? ir::to_string(info.body) : "?") << "\n";
    if (!info.buffer) continue;
    os << "  computes " << info.buffer->name << "[";
    for (int d = 0; d < info.num_spatial; ++d)
      os << (d ? ", " : "") << info.region_min[d] << " + 0.." << info.region_extent[d];
    os << "] in " << to_string(info.buffer->scope) << ", loops";
    for (const Loop& l : info.loops) os << " " << l.var.name() << ":" << l.extent;
    os << "\n";
  }
  return os.str();
}

}  // namespace

LoweredFunc lower(const schedule::State& state, const std::string& name) {
  PassLog log(name);
  std::vector<StageInfo> stages;
  ir::Stmt body;
  auto show_body = [&] { return ir::to_string(body); };
  auto show_regions = [&] { return describe_regions(state, stages); };

  log.run("collect_stages", [&] { stages = collect_stages(state); }, show_regions);
  log.run("inline_stages", [&] { inline_stages(state, stages); }, show_regions);
  log.run("infer_bounds", [&] { infer_bounds(state, stages); }, show_regions);
  log.run("plan_prepacks", [&] { plan_prepacks(state, stages); }, show_regions);
  log.run("auto_unroll", [&] {
    for (size_t s = 0; s < stages.size(); ++s)
      if (stages[s].active) auto_unroll(stages[s].loops, state.stages[s].auto_unroll_max_step);
  }, show_regions);
  log.run("build_loop_nests", [&] { body = build_loop_nests(state, stages); }, show_body);
  log.run("flatten", [&] { body = flatten(body); }, show_body);
  log.run("simplify", [&] { body = ir::simplify(body); }, show_body);

  LoweredFunc func{name, {}, body, {}};
  prepacked_args(state, stages, func);
  return func;
}

}  // namespace tunectl::lower
