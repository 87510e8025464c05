#include "measure/stage_profile.h"

#include <functional>
#include <memory>

#include "check/reference_check.h"
#include "ir/error.h"
#include "lower/split_stages.h"
#include "measure/worker.h"
#include "runtime/kernel.h"
#include "runtime/timer.h"

namespace tunectl::measure {

StageProfile profile_stages(const te::ComputeDAG& dag, const lower::LoweredFunc& func, const MeasureOptions& options,
                            uint64_t seed) {
  const backend::Backend& backend = *options.backend;
  user_check(!backend.builds_device_code(), "--profile times the stages of a CPU kernel; target ",
             backend.target().str(), " builds device code");
  backend.check_runs_here("--profile runs");
  const lower::SplitKernel split = lower::split_root_stages(func);
  const std::unique_ptr<runtime::Kernel> kernel = backend.build(func);
  std::vector<std::unique_ptr<runtime::Kernel>> parts;
  for (const lower::StagePart& p : split.parts) parts.push_back(backend.build(p.func));

  std::vector<runtime::NDArray> inputs = check::check_inputs(dag, seed);
  std::vector<runtime::NDArray> kernel_outputs = check::poisoned_outputs(dag);
  std::vector<runtime::NDArray> part_outputs = check::poisoned_outputs(dag);
  std::vector<runtime::NDArray> packed, shared;
  std::vector<void*> args;
  for (runtime::NDArray& a : inputs) args.push_back(a.raw());
  const size_t outputs_at = args.size();
  for (runtime::NDArray& a : kernel_outputs) args.push_back(a.raw());
  args = kernel->pack_inputs(std::move(args), packed);
  std::vector<void*> part_args = args;
  for (size_t i = 0; i < part_outputs.size(); ++i) part_args[outputs_at + i] = part_outputs[i].raw();
  for (const ir::Buffer& b : split.shared) {
    shared.emplace_back(b->dtype, std::vector<int64_t>{b->num_elements()});
    part_args.push_back(shared.back().raw());
  }

  kernel->run(args.data());
  for (const auto& p : parts) p->run(part_args.data());
  const check::CheckResult same = check::compare_outputs(dag, part_outputs, kernel_outputs);
  internal_check(same.ok, func.name, ": its stages run one by one compute another result than the kernel: ",
                 same.message);

  std::vector<std::function<void()>> calls{[&] { kernel->run(args.data()); }};
  for (const auto& p : parts) calls.push_back([&, k = p.get()] { k->run(part_args.data()); });
  const std::vector<runtime::Timing> timings =
      runtime::time_interleaved(calls, timing_options_for(dag, inputs, packed, options));
  StageProfile out;
  out.kernel_seconds = timings[0].median();
  for (size_t i = 0; i < parts.size(); ++i) out.stages.push_back({split.parts[i].label, timings[i + 1].median()});
  return out;
}

}  // namespace tunectl::measure
