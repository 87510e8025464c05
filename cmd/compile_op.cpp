// `tunectl compile-op`: the developer's window into the compiler. Builds one
// operator from ops/ under a schedule given as JSON steps (or the task and
// steps of one tuning-log record), and prints the
// schedule state, the loop IR after each lowering pass or at the end, the
// LLVM IR or the assembly; --check runs the kernel against the reference on
// random inputs; --profile times a CPU kernel's root stages one by one.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "check/reference_check.h"
#include "cmd/json_arg.h"
#include "cmd/subcommands.h"
#include "backend/backend.h"
#include "ir/error.h"
#include "ir/printer.h"
#include "log/log_file.h"
#include "lower/lower.h"
#include "measure/stage_profile.h"
#include "ops/registry.h"
#include "schedule/state.h"
#include "te/dag_json.h"

namespace tunectl::cmd {

namespace {

struct CompileOptions {
  std::string op;
  std::string params = "{}";
  std::string steps = "[]";
  std::vector<std::string> emit;
  std::string object_path;
  bool check = false;
  int profile_calls = 0;  // --profile: timed calls of each stage (0: no profile)
  bool list_ops = false;
  uint64_t seed = 1;
  std::string target;  // "": llvm, or the record's target with --log
  std::string log_path;
  int line = 0;
};

// What to compile: an operator of ops/ under --steps, or the record at line
// N of a tuning log (its task's DAG and steps; the reproduction the tune
// summary prints for a candidate that hit an internal error).
struct Program {
  std::string name;
  schedule::State state;
  std::string target;  // the record's, "" for an operator
};

Program program_to_compile(const CompileOptions& o) {
  if (o.log_path.empty()) {
    user_check(!o.op.empty(), "compile: --op or --log is required (see --list-ops)");
    auto dag = std::make_shared<const te::ComputeDAG>(ops::make_op_dag(o.op, parse_json_arg(o.params, "--params")));
    return {o.op, schedule::replay(dag, schedule::steps_from_json(parse_json_arg(o.steps, "--steps"))), ""};
  }
  user_check(o.op.empty(), "compile: --op and --log exclude each other");
  user_check(o.line > 0, "compile: --log needs --line N, the line of the record to compile");
  log::LogContents contents = log::read_log(o.log_path);
  for (size_t i = 0; i < contents.records.size(); ++i) {
    if (contents.lines[i] != o.line) continue;
    const log::Record& r = contents.records[i];
    auto dag = std::make_shared<const te::ComputeDAG>(te::dag_from_json(r.task.dag));
    return {r.task.name, schedule::replay(dag, r.steps), r.task.target};
  }
  user_fail("compile: ", o.log_path, " has no record at line ", o.line);
}

// One line a root stage: its median time per call, its share of their sum,
// then the sum against the whole kernel timed in the same run (the rest is
// what running the stages as one kernel saves or costs: fork-joins, and
// intermediates left in other caches).
void print_stage_profile(const measure::StageProfile& p, int calls) {
  size_t width = 5;
  for (const measure::StageTime& s : p.stages) width = std::max(width, s.label.size());
  const int w = static_cast<int>(width);
  double sum = 0;
  for (const measure::StageTime& s : p.stages) sum += s.seconds;
  std::printf("profile: the kernel's %zu root stages, each timed alone (median of %d calls, in the kernel's order)\n",
              p.stages.size(), calls);
  std::printf("%-3s %-*s %10s %7s\n", "#", w, "stage", "ms", "share");
  for (size_t i = 0; i < p.stages.size(); ++i)
    std::printf("%-3zu %-*s %10.4f %6.1f%%\n", i, w, p.stages[i].label.c_str(), p.stages[i].seconds * 1e3,
                sum > 0 ? 100 * p.stages[i].seconds / sum : 0.0);
  std::printf("    %-*s %10.4f\n    %-*s %10.4f\n", w, "sum of the stages", sum * 1e3, w, "the whole kernel",
              p.kernel_seconds * 1e3);
}

void run_compile(const CompileOptions& o) {
  if (o.list_ops) {
    for (const auto& name : ops::op_names()) std::printf("%s\n", name.c_str());
    return;
  }
  const Program program = program_to_compile(o);
  const schedule::State& state = program.state;
  const te::ComputeDAG& dag = *state.dag;
  std::vector<std::string> emit = o.emit.empty() ? std::vector<std::string>{"state", "loop"} : o.emit;
  const std::string target = !o.target.empty() ? o.target : !program.target.empty() ? program.target : "llvm";
  std::unique_ptr<backend::Backend> backend = backend::make_backend(backend::resolve_target(target));
  std::string passes;
  lower::LoweredFunc func = lower::lower(state, program.name, backend->target(),
                                         [&](std::string_view step, const lower::LoweredFunc& f) {
                                           passes += "// after " + std::string(step) + "\n" + lower::to_string(f) + "\n";
                                         });
  for (const auto& what : emit) {
    if (what == "state") {
      std::printf("// schedule state\n%s\n", state.to_string().c_str());
    } else if (what == "passes") {
      std::printf("%s", passes.c_str());
    } else if (what == "loop") {
      std::printf("// loop IR\n%s\n", ir::to_string(func.body).c_str());
    } else {
      const std::vector<std::string> kinds = backend->emit_kinds();
      user_check(std::find(kinds.begin(), kinds.end(), what) != kinds.end(), "compile: target ",
                 backend->target().str(), " cannot emit ", what);
      std::printf("%s\n", backend->emit(func, what).c_str());
    }
  }
  if (!o.object_path.empty()) {
    backend->write(func, o.object_path);
    std::printf("wrote %s (symbol %s)\n", o.object_path.c_str(), func.name.c_str());
  }
  if (o.check) {
    const backend::CheckRun run = backend::check_run(*backend, func, check::emulate_in_part(dag));
    check::CheckResult r = check::check_against_reference(dag, run.run, o.seed, {}, run.partial);
    user_check(r.ok, "check failed: ", r.message);
    const std::string how = check::is_sampled(dag) || run.partial ? " at sampled elements" : "";
    const std::string where = run.partial ? " in the emulator, " + std::to_string(backend::kSampledBlocks) +
                                                " blocks of the grid: " + *run.emulated_because
                              : run.emulated_because ? " in the emulator: " + *run.emulated_because
                                                     : "";
    std::printf("check: output matches the reference%s (%.3f GFLOP per call)%s\n", how.c_str(),
                dag.flop_count() * 1e-9, where.c_str());
  }
  if (o.profile_calls > 0) {
    measure::MeasureOptions timing;
    timing.backend = std::shared_ptr<const backend::Backend>(std::move(backend));
    timing.cpu_calls = o.profile_calls;
    print_stage_profile(measure::profile_stages(dag, func, timing, o.seed), o.profile_calls);
  }
}

}  // namespace

void register_compile_op(CLI::App& app) {
  auto options = std::make_shared<CompileOptions>();
  CLI::App* sub = app.add_subcommand("compile-op", "Lower one operator under a schedule; print its IR, optionally check it");
  sub->add_option("--op", options->op, "operator from ops/ (see --list-ops)");
  sub->add_option("--params", options->params, "operator parameters as JSON, or @file (e.g. '{\"M\":64,\"N\":64,\"K\":64}')");
  sub->add_option("--steps", options->steps, "schedule steps as a JSON array, or @file (format: README)");
  sub->add_option("--emit", options->emit,
                  "what to print: state, passes (the function after each lowering pass), loop; llvm, asm (llvm "
                  "targets); cuda, ptx, resources (cuda targets: registers, spills, shared memory, launch) "
                  "(repeatable; default state and loop)")
      ->check(CLI::IsMember({"state", "passes", "loop", "llvm", "asm", "cuda", "ptx", "resources"}));
  sub->add_option("--object", options->object_path,
                  "also write the compiled kernel to this path (llvm: an object file NAME.o; cuda: NAME.cubin with "
                  "NAME.cu and NAME.ptx beside it)");
  sub->add_option("--target", options->target,
                  "code generation target: llvm (this CPU), \"llvm -mcpu=NAME\", cuda, \"cuda -arch=sm_80\", ... "
                  "(default: llvm, or the record's with --log)");
  sub->add_option("--log", options->log_path, "compile a record of this tuning log instead of --op (with --line)");
  sub->add_option("--line", options->line, "the line number of that record in the log");
  sub->add_flag("--check", options->check,
                "build, run on random inputs and compare with the reference (in the GPU emulator when this machine "
                "cannot run the target's code)");
  sub->add_option("--profile", options->profile_calls,
                  "time each root stage of the kernel alone (CPU targets this machine runs), this many calls each, "
                  "beside the whole kernel")
      ->check(CLI::Range(1, 100000))
      ->expected(0, 1)
      ->default_str("20");
  sub->add_option("--seed", options->seed, "seed of the random inputs of --check and --profile");
  sub->add_flag("--list-ops", options->list_ops, "list the operators and exit");
  sub->callback([options] { run_compile(*options); });
}

}  // namespace tunectl::cmd
