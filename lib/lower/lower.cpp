#include "lower/lower.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "ir/error.h"
#include "ir/printer.h"
#include "lower/check_gpu_launch.h"
#include "lower/double_buffer.h"
#include "lower/flatten.h"
#include "lower/inject_virtual_threads.h"
#include "lower/insert_barriers.h"
#include "lower/partition_loops.h"
#include "lower/promote_accumulators.h"
#include "lower/unroll_fills.h"
#include "lower/schedule_to_loops.h"
#include "lower/simplify_loops.h"

namespace tunectl::lower {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

LoweredFunc run_pass(const Pass& pass, LoweredFunc func, const target::Target& target) {
  for (InputPacking& p : func.packings) p.func = pass.run(std::move(p.func), target);
  return pass.run(std::move(func), target);
}

// A pass that needs no target.
template <LoweredFunc (*run)(LoweredFunc)>
LoweredFunc any_target(LoweredFunc func, const target::Target&) {
  return run(std::move(func));
}

}  // namespace

const std::vector<Pass>& passes_for(target::TargetKind kind) {
  static const std::vector<Pass> llvm = {
      {"flatten_buffers", any_target<flatten_buffers>},
      {"simplify_loops", any_target<simplify_loops>},
      {"partition_loops", any_target<partition_loops>},
      {"promote_accumulators", promote_accumulators},
  };
  static const std::vector<Pass> cuda = {
      {"flatten_buffers", any_target<flatten_buffers>},
      {"simplify_loops", any_target<simplify_loops>},
      {"check_gpu_launch", check_gpu_launch},
      {"inject_virtual_threads", any_target<inject_virtual_threads>},
      {"double_buffer", any_target<double_buffer>},
      {"unroll_fills", any_target<unroll_fills>},
      {"insert_barriers", any_target<insert_barriers>},
  };
  switch (kind) {
    case target::TargetKind::Llvm: return llvm;
    case target::TargetKind::Cuda: return cuda;
  }
  internal_fail("no lowering passes for target kind ", static_cast<int>(kind));
}

std::string to_string(const LoweredFunc& func) {
  std::string out = "func " + func.name + "(";
  for (size_t i = 0; i < func.args.size(); ++i) out += (i ? ", " : "") + ir::to_string(func.args[i]);
  out += ")\n" + ir::to_string(func.body);
  for (const InputPacking& p : func.packings)
    out += "// packs argument " + std::to_string(p.arg) + "\n" + to_string(p.func);
  return out;
}

LoweredFunc lower(const schedule::State& state, const std::string& name, const target::Target& target,
                  const PassObserver& observe) {
  auto start = std::chrono::steady_clock::now();
  LoweredFunc func = schedule_to_loops(state, name);
  func.lowered_for = target.kind;
  for (InputPacking& p : func.packings) p.func.lowered_for = target.kind;
  spdlog::debug("lower {}: schedule_to_loops {:.3f} ms", name, ms_since(start));
  if (observe) observe("schedule_to_loops", func);
  for (const Pass& pass : passes_for(target.kind)) {
    start = std::chrono::steady_clock::now();
    func = run_pass(pass, std::move(func), target);
    spdlog::debug("lower {}: {} {:.3f} ms", name, pass.name, ms_since(start));
    if (observe) observe(pass.name, func);
  }
  return func;
}

}  // namespace tunectl::lower
