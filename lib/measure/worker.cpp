#include "measure/worker.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <exception>
#include <fstream>
#include <new>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "lower/lower.h"
#include "runtime/timer.h"
#include "schedule/state.h"

namespace tunectl::measure {
namespace {

using Clock = std::chrono::steady_clock;
using log::MeasureError;

// The caller may have installed handlers (Ctrl-C for tune, Catch2's crash
// reporter in tests). In a worker a crash must kill it plainly so that its
// parent sees the signal, and Ctrl-C is tune's to handle. Each process dies
// with its parent rather than linger blocked on the socket.
void reset_signals() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM}) std::signal(sig, SIG_DFL);
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
}

// The worker's address space may grow by options.worker_memory_mib beyond
// what it inherited from the parent (its heap, LLVM, thread stacks). Not
// where candidates run on a GPU: the CUDA driver reserves address space for
// the device's memory and every context (tens of GiB, never touched), so
// under such a limit cuInit fails and every candidate with it.
void limit_memory(const MeasureOptions& options) {
  if (options.worker_memory_mib <= 0 || !kWorkerMemoryLimited || options.backend->builds_device_code()) return;
  long pages = 0;
  std::ifstream("/proc/self/statm") >> pages;  // VmSize in pages
  const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
                       (static_cast<rlim_t>(options.worker_memory_mib) << 20);
  const struct rlimit rl{limit, limit};
  setrlimit(RLIMIT_AS, &rl);
}

// The next build or run may use options.worker_cpu_seconds of CPU time: the
// soft limit, whose SIGXCPU ends the worker. The hard limit stays, so that
// the next command can raise the soft one again.
void limit_cpu_time(const MeasureOptions& options) {
  if (options.worker_cpu_seconds <= 0) return;
  struct rusage used;
  getrusage(RUSAGE_SELF, &used);
  const rlim_t soft = static_cast<rlim_t>(used.ru_utime.tv_sec + used.ru_stime.tv_sec + 1 +
                                          std::ceil(options.worker_cpu_seconds));
  struct rlimit rl;
  getrlimit(RLIMIT_CPU, &rl);
  rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? soft : std::min(soft, rl.rlim_max);
  setrlimit(RLIMIT_CPU, &rl);
}

// Sends every byte of text, or ends this process when the parent is gone
// (nobody is listening).
void send_text(int fd, const std::string& text) {
  size_t sent = 0;
  while (sent < text.size()) {
    ssize_t n = send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(1);
    sent += static_cast<size_t>(n);
  }
}

void send_message(int fd, const nlohmann::json& message) {
  send_text(fd, message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// check_s: seconds of the checked first run and the comparison.
void send_done(int fd, size_t index, MeasureError error, const std::string& msg, double build_s, double check_s = 0,
               const std::vector<double>& costs = {}) {
  send_message(fd, {{"stage", "done"},
                    {"index", index},
                    {"error", log::to_string(error)},
                    {"msg", msg},
                    {"costs", costs},
                    {"build_s", build_s},
                    {"check_s", check_s}});
}

std::string out_of_memory(const MeasureOptions& options) {
  return "out of memory: the worker may use " + std::to_string(options.worker_memory_mib) +
         " MiB (--worker-memory)";
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The parent's next command line; exits quietly once the parent has closed
// the socket (the batch is over, or the parent died).
std::string next_command(int fd) {
  std::string line;
  char c = 0;
  while (true) {
    ssize_t n = recv(fd, &c, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(0);
    if (c == '\n') return line;
    line.push_back(c);
  }
}

// Builds input `index`; null after sending the failure as its "done".
std::unique_ptr<runtime::Kernel> build(int fd, size_t index, const MeasureInput& input, const MeasureOptions& options,
                                       double& build_s) {
  const Clock::time_point t0 = Clock::now();
  if (options.before_build) options.before_build(index);
  std::shared_ptr<const lower::LoweredFunc> func = input.lowered;
  MeasureError stage_error = MeasureError::InstantiationError;
  try {
    if (!func) {
      func = std::make_shared<const lower::LoweredFunc>(
          lower::lower(schedule::replay(input.dag, input.steps), "candidate", options.backend->target()));
    }
    stage_error =
        options.backend->builds_device_code() ? MeasureError::CompileDeviceError : MeasureError::CompileHostError;
    std::unique_ptr<runtime::Kernel> kernel = options.backend->build(*func);
    build_s = seconds_since(t0);
    return kernel;
  } catch (const InternalError& e) {
    send_done(fd, index, MeasureError::InternalError, e.what(), seconds_since(t0));
  } catch (const std::bad_alloc&) {
    send_done(fd, index, stage_error, out_of_memory(options), seconds_since(t0));
  } catch (const std::exception& e) {
    send_done(fd, index, stage_error, e.what(), seconds_since(t0));
  }
  return nullptr;
}

// Checks the kernel against the reference, times it and reports.
void check_and_time(int fd, size_t index, const MeasureInput& input, const runtime::Kernel& kernel,
                    Measurer::Reference& reference, const MeasureOptions& options, double build_s) {
  std::vector<runtime::NDArray> outputs = check::poisoned_outputs(*input.dag);
  std::vector<void*> args;
  for (auto& a : reference.inputs) args.push_back(a.raw());
  for (auto& a : outputs) args.push_back(a.raw());
  std::vector<runtime::NDArray> packed;
  auto run = [&] {
    if (options.run_override) {
      options.run_override(index, kernel, args.data());
    } else {
      kernel.run(args.data());
    }
  };
  const Clock::time_point run_start = Clock::now();
  double check_s = 0;
  try {
    // Prepacked constants are packed once, as a model load would: not timed.
    args = kernel.pack_inputs(std::move(args), packed);
    const Clock::time_point first_run = Clock::now();
    run();
    const double first_run_s = seconds_since(first_run);
    if (options.check_reference) {
      check::CheckResult r = check::compare_outputs(*input.dag, outputs, reference.expected, options.tolerance);
      if (!r.ok) return send_done(fd, index, MeasureError::WrongAnswer, r.message, build_s, seconds_since(run_start));
    }
    check_s = seconds_since(run_start);
    if (input.slow_cutoff_s > 0 && first_run_s > input.slow_cutoff_s) {
      return send_done(fd, index, MeasureError::None, "", build_s, check_s, {first_run_s});
    }
    const runtime::TimingOptions timing_options = timing_options_for(*input.dag, reference.inputs, packed, options);
    runtime::Timing timing = options.run_override ? runtime::time_function(run, timing_options)
                                                  : kernel.time(args.data(), timing_options);
    for (double c : timing.seconds_per_call) {
      if (!std::isfinite(c) || c < 0) {
        return send_done(fd, index, MeasureError::RuntimeError, "non-finite timing", build_s, check_s);
      }
    }
    send_done(fd, index, MeasureError::None, "", build_s, check_s, timing.seconds_per_call);
  } catch (const InternalError& e) {
    send_done(fd, index, MeasureError::InternalError, e.what(), build_s, check_s);
  } catch (const std::bad_alloc&) {
    send_done(fd, index, MeasureError::RuntimeError, out_of_memory(options), build_s, check_s);
  } catch (const std::exception& e) {
    send_done(fd, index, MeasureError::RuntimeError, e.what(), build_s, check_s);
  }
}

}  // namespace

runtime::TimingOptions timing_options_for(const te::ComputeDAG& dag, std::vector<runtime::NDArray>& inputs,
                                          const std::vector<runtime::NDArray>& packed, const MeasureOptions& options) {
  if (options.backend->builds_device_code()) {
    runtime::TimingOptions timing;
    timing.repeats = options.repeats;
    timing.min_repeat_seconds = options.min_repeat_seconds;
    timing.flush_cache = options.flush_cache;
    return timing;
  }
  const std::vector<te::Tensor> placeholders = dag.placeholders();
  internal_check(placeholders.size() == inputs.size(), "timing: ", inputs.size(), " inputs for ",
                 placeholders.size(), " placeholders");
  std::vector<std::span<const std::byte>> constants;
  std::vector<runtime::HandedOver> activations;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (placeholders[i]->constant) {
      constants.push_back(inputs[i].bytes());
    } else {
      activations.push_back(runtime::handed_over_by_rows(inputs[i].raw(), inputs[i].num_bytes(), inputs[i].shape()));
    }
  }
  for (const runtime::NDArray& a : packed) constants.push_back(a.bytes());
  runtime::TimingOptions timing = runtime::flushing_only(host_call_timing(options), std::move(constants));
  timing.handed_over = std::move(activations);
  return timing;
}

runtime::TimingOptions host_call_timing(const MeasureOptions& options) {
  runtime::TimingOptions timing;
  timing.repeats = options.cpu_calls;
  timing.min_repeat_seconds = 0;  // one call per repeat
  timing.flush_cache = options.flush_cache;
  timing.evict_private_bytes = options.evict_private_bytes;
  timing.evict_scratch = true;
  return timing;
}

void serve_batch(int fd, const std::vector<MeasureInput>& inputs, const std::vector<Measurer::Reference*>& references,
                 const MeasureOptions& options) {
  reset_signals();
  limit_memory(options);
  struct Built {
    std::unique_ptr<runtime::Kernel> kernel;
    double build_s = 0;
  };
  std::map<size_t, Built> built;
  while (true) {
    const std::string command = next_command(fd);
    limit_cpu_time(options);
    size_t index = 0;
    if (std::sscanf(command.c_str(), "build %zu", &index) == 1 && index < inputs.size()) {
      double build_s = 0;
      std::unique_ptr<runtime::Kernel> kernel = build(fd, index, inputs[index], options, build_s);
      if (!kernel) continue;
      built[index] = {std::move(kernel), build_s};
      send_message(fd, {{"stage", "built"}, {"index", index}, {"build_s", build_s}});
    } else if (std::sscanf(command.c_str(), "run %zu", &index) == 1 && built.count(index) > 0) {
      const Built& b = built.at(index);
      check_and_time(fd, index, inputs[index], *b.kernel, *references[index], options, b.build_s);
      built.erase(index);
    } else {
      _exit(2);  // not a command of measure.cpp's
    }
  }
}

}  // namespace tunectl::measure
