#include "tune/side_by_side.h"

#include <cstring>
#include <functional>
#include <utility>

#include "ir/error.h"
#include "measure/worker.h"

namespace tunectl::tune {

SideBySide::SideBySide(std::shared_ptr<const te::ComputeDAG> dag, measure::MeasureOptions options, uint64_t seed)
    : dag_(std::move(dag)),
      options_(std::move(options)),
      seed_(seed),
      inputs_(check::check_inputs(*dag_, seed)),
      outputs_(check::poisoned_outputs(*dag_)) {}

size_t SideBySide::add(const lower::LoweredFunc& func) {
  auto p = std::make_unique<Program>();
  p->kernel = options_.backend->build(func);
  std::vector<void*> args;
  for (runtime::NDArray& a : inputs_) args.push_back(a.raw());
  for (runtime::NDArray& a : outputs_) args.push_back(a.raw());
  p->args = p->kernel->pack_inputs(std::move(args), p->packed);
  p->timing = measure::timing_options_for(*dag_, inputs_, p->packed, options_);
  programs_.push_back(std::move(p));
  return programs_.size() - 1;
}

std::string SideBySide::check(size_t i) {
  internal_check(i < programs_.size() && programs_[i], "side by side: no program ", i);
  if (!reference_) reference_ = std::make_unique<check::ReferenceOutputs>(check::reference_outputs(*dag_, inputs_, seed_));
  // Poisoned again in place: every program's arguments point at these buffers.
  const std::vector<runtime::NDArray> poison = check::poisoned_outputs(*dag_);
  for (size_t k = 0; k < outputs_.size(); ++k) std::memcpy(outputs_[k].raw(), poison[k].raw(), outputs_[k].num_bytes());
  programs_[i]->kernel->run(programs_[i]->args.data());
  const check::CheckResult r = check::compare_outputs(*dag_, outputs_, *reference_, options_.tolerance);
  return r.ok ? "" : r.message;
}

std::vector<runtime::Timing> SideBySide::time(const std::vector<size_t>& which) {
  std::vector<std::function<void()>> calls;
  std::vector<runtime::TimingOptions> timing;
  for (size_t i : which) {
    internal_check(i < programs_.size() && programs_[i], "side by side: no program ", i);
    const Program* p = programs_[i].get();
    calls.push_back([p] { p->kernel->run(p->args.data()); });
    timing.push_back(p->timing);
  }
  return runtime::time_interleaved(calls, timing);
}

std::vector<runtime::Timing> SideBySide::time_in_rounds(const std::vector<size_t>& which, int rounds) {
  std::vector<runtime::Timing> out(which.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < which.size(); ++k) {
      const size_t j = r % 2 == 0 ? k : which.size() - 1 - k;
      internal_check(which[j] < programs_.size() && programs_[which[j]], "side by side: no program ", which[j]);
      const Program& p = *programs_[which[j]];
      const runtime::Timing t = p.kernel->time(p.args.data(), p.timing);
      out[j].seconds_per_call.insert(out[j].seconds_per_call.end(), t.seconds_per_call.begin(),
                                     t.seconds_per_call.end());
    }
  }
  return out;
}

void SideBySide::release(size_t i) {
  internal_check(i < programs_.size(), "side by side: no program ", i);
  programs_[i].reset();
}

}  // namespace tunectl::tune
