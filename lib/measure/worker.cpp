#include "measure/worker.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cmath>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "lower/lower.h"
#include "runtime/timer.h"
#include "schedule/state.h"

namespace tunectl::measure {
namespace {

using Clock = std::chrono::steady_clock;

// The caller may have installed handlers (Ctrl-C for tune, Catch2's crash
// reporter in tests). In the child a crash must kill it plainly so that the
// parent sees the signal, and Ctrl-C is the parent's to handle.
void reset_signals() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM}) std::signal(sig, SIG_DFL);
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  // Die with the parent rather than linger blocked on the socket.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
}

void send_message(int fd, const nlohmann::json& message) {
  std::string text = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t sent = 0;
  while (sent < text.size()) {
    ssize_t n = send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) _exit(1);  // the parent is gone; nobody is listening
    sent += static_cast<size_t>(n);
  }
}

// check_s: seconds of the checked first run and the comparison.
[[noreturn]] void finish(int fd, log::MeasureError error, const std::string& msg, double build_s, double check_s = 0,
                         const std::vector<double>& costs = {}) {
  send_message(fd, {{"stage", "done"},
                    {"error", log::to_string(error)},
                    {"msg", msg},
                    {"costs", costs},
                    {"build_s", build_s},
                    {"check_s", check_s}});
  _exit(0);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

void run_worker(int fd, size_t index, const MeasureInput& input, Measurer::Reference& reference, const MeasureOptions& options) {
  reset_signals();
  Clock::time_point t0 = Clock::now();

  std::shared_ptr<const lower::LoweredFunc> func = input.lowered;
  if (!func) {
    try {
      func = std::make_shared<const lower::LoweredFunc>(
          lower::lower(schedule::replay(input.dag, input.steps), "candidate"));
    } catch (const InternalError& e) {
      finish(fd, log::MeasureError::InternalError, e.what(), seconds_since(t0));
    } catch (const std::exception& e) {
      finish(fd, log::MeasureError::InstantiationError, e.what(), seconds_since(t0));
    }
  }
  std::unique_ptr<runtime::Kernel> kernel;
  try {
    kernel = options.backend->build(*func);
  } catch (const InternalError& e) {
    finish(fd, log::MeasureError::InternalError, e.what(), seconds_since(t0));
  } catch (const std::exception& e) {
    finish(fd, log::MeasureError::CompileHostError, e.what(), seconds_since(t0));
  }
  double build_s = seconds_since(t0);
  send_message(fd, {{"stage", "built"}, {"build_s", build_s}});

  char go = 0;
  if (recv(fd, &go, 1, 0) != 1 || go != kRunByte) _exit(0);

  std::vector<runtime::NDArray> outputs = check::poisoned_outputs(*input.dag);
  std::vector<void*> args;
  for (auto& a : reference.inputs) args.push_back(a.raw());
  for (auto& a : outputs) args.push_back(a.raw());
  std::vector<runtime::NDArray> packed;
  auto run = [&] {
    if (options.run_override) {
      options.run_override(index, *kernel, args.data());
    } else {
      kernel->run(args.data());
    }
  };
  const Clock::time_point run_start = Clock::now();
  double check_s = 0;
  try {
    // Prepacked constants are packed once, as a model load would: not timed.
    args = kernel->pack_inputs(std::move(args), packed);
    const Clock::time_point first_run = Clock::now();
    run();
    const double first_run_s = seconds_since(first_run);
    if (options.check_reference) {
      check::CheckResult r = check::compare_outputs(*input.dag, outputs, reference.expected, options.tolerance);
      if (!r.ok) finish(fd, log::MeasureError::WrongAnswer, r.message, build_s, seconds_since(run_start));
    }
    check_s = seconds_since(run_start);
    if (input.slow_cutoff_s > 0 && first_run_s > input.slow_cutoff_s) {
      finish(fd, log::MeasureError::None, "", build_s, check_s, {first_run_s});
    }
    runtime::TimingOptions timing_options;
    timing_options.repeats = options.repeats;
    timing_options.min_repeat_seconds = options.min_repeat_seconds;
    timing_options.flush_cache = options.flush_cache;
    runtime::Timing timing = runtime::time_function(run, timing_options);
    for (double c : timing.seconds_per_call) {
      if (!std::isfinite(c) || c < 0) finish(fd, log::MeasureError::RuntimeError, "non-finite timing", build_s, check_s);
    }
    finish(fd, log::MeasureError::None, "", build_s, check_s, timing.seconds_per_call);
  } catch (const InternalError& e) {
    finish(fd, log::MeasureError::InternalError, e.what(), build_s, check_s);
  } catch (const std::exception& e) {
    finish(fd, log::MeasureError::RuntimeError, e.what(), build_s, check_s);
  }
}

}  // namespace tunectl::measure
