#include "measure/measure.h"

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "measure/worker.h"
#include "runtime/timer.h"
#include "te/evaluate.h"

namespace tunectl::measure {
namespace {

using Clock = std::chrono::steady_clock;
using log::MeasureError;

enum class Phase { Building, Built, Running };

// One forked child and what the parent knows about it.
struct Child {
  size_t index = 0;  // into the inputs
  pid_t pid = -1;
  int fd = -1;       // the parent's end of the socket
  Phase phase = Phase::Building;
  Clock::time_point deadline;
  Clock::time_point run_start;
  double build_s = 0;
  double check_s = 0;
  std::string buffer;                      // bytes received, not yet a full line
  std::optional<log::MeasureResult> done;  // the child's final report
};

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

log::MeasureResult error_result(MeasureError error, std::string msg, double build_s) {
  log::MeasureResult r;
  r.error = error;
  r.error_message = std::move(msg);
  r.build_seconds = build_s;
  return r;
}

// Applies one message line from a child. A malformed line can only come from
// a candidate that scribbled over its own memory before reporting.
void handle_line(Child& c, const std::string& line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("stage")) {
    c.done = error_result(MeasureError::WorkerCrash, "unreadable report from the worker", c.build_s);
    return;
  }
  c.build_s = j.value("build_s", c.build_s);
  c.check_s = j.value("check_s", c.check_s);
  if (j["stage"] == "built") {
    c.phase = Phase::Built;
    return;
  }
  log::MeasureResult r;
  try {
    r.error = log::measure_error_from_string(j.at("error").get<std::string>());
    r.error_message = j.at("msg").get<std::string>();
    r.costs = j.at("costs").get<std::vector<double>>();
  } catch (const std::exception& e) {
    r = error_result(MeasureError::WorkerCrash, std::string("unreadable report from the worker: ") + e.what(), 0);
  }
  r.build_seconds = c.build_s;
  c.done = std::move(r);
}

// Reads what is available; false once the child's end is closed.
bool read_messages(Child& c) {
  char buf[4096];
  ssize_t n = read(c.fd, buf, sizeof(buf));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  c.buffer.append(buf, static_cast<size_t>(n));
  for (size_t nl; (nl = c.buffer.find('\n')) != std::string::npos;) {
    std::string line = c.buffer.substr(0, nl);
    c.buffer.erase(0, nl + 1);
    if (!c.done) handle_line(c, line);
  }
  return true;
}

// The result of a child whose socket has closed: its report if it sent one,
// otherwise what its exit status says.
log::MeasureResult reap(Child& c) {
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (c.done) return std::move(*c.done);
  if (WIFSIGNALED(status)) {
    std::string sig = signal_name(WTERMSIG(status));
    if (c.phase == Phase::Building) return error_result(MeasureError::CompileHostError, "build crashed: " + sig, 0);
    if (c.phase == Phase::Running) return error_result(MeasureError::RuntimeError, "candidate crashed: " + sig, c.build_s);
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return error_result(MeasureError::WorkerCrash, "worker ended without a result (exit status " + std::to_string(code) + ")",
                      c.build_s);
}

log::MeasureResult kill_for_timeout(Child& c, const MeasureOptions& options) {
  kill(c.pid, SIGKILL);
  while (waitpid(c.pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (c.phase == Phase::Building) {
    return error_result(MeasureError::BuildTimeout, "build took longer than " + std::to_string(options.build_timeout_s) + " s", 0);
  }
  return error_result(MeasureError::RunTimeout, "run took longer than " + std::to_string(options.run_timeout_s) + " s",
                      c.build_s);
}

}  // namespace

Measurer::Measurer(MeasureOptions options) : options_(std::move(options)) {
  user_check(options_.repeats >= 1, "measure: repeats must be at least 1, got ", options_.repeats);
  user_check(options_.build_timeout_s > 0 && options_.run_timeout_s > 0, "measure: timeouts must be positive");
  if (!options_.backend) options_.backend = backend::host_backend();
  if (options_.parallel_builds <= 0) options_.parallel_builds = options_.backend->target().cores;
  // Makes the flush buffer here, once, for every child to share.
  if (options_.flush_cache) runtime::flush_cpu_cache();
}

Measurer::Reference& Measurer::reference_for(const std::shared_ptr<const te::ComputeDAG>& dag) {
  auto it = references_.find(dag.get());
  if (it != references_.end()) return it->second.second;
  Reference ref;
  ref.inputs = check::check_inputs(*dag, options_.reference_seed);
  if (options_.check_reference) ref.expected = te::evaluate(*dag, ref.inputs);
  return references_.emplace(dag.get(), std::make_pair(dag, std::move(ref))).first->second.second;
}

std::vector<log::MeasureResult> Measurer::measure(const std::vector<MeasureInput>& inputs) {
  std::vector<log::MeasureResult> results(inputs.size());
  for (const auto& in : inputs) internal_check(in.dag != nullptr, "measure: input without a DAG");
  // Evaluated before any fork so that every child inherits the references.
  const Clock::time_point reference_start = Clock::now();
  for (const auto& in : inputs) reference_for(in.dag);
  const Clock::time_point start = Clock::now();
  times_.checking_s += std::chrono::duration<double>(start - reference_start).count();

  double run_wall_s = 0;
  std::vector<Child> active;
  size_t next = 0;
  auto finish = [&](size_t i, log::MeasureResult r) {
    Child& c = active[i];
    close(c.fd);
    if (c.phase == Phase::Running) {
      r.run_seconds = std::chrono::duration<double>(Clock::now() - c.run_start).count();
      const double check_s = std::min(c.check_s, r.run_seconds);
      run_wall_s += r.run_seconds;
      times_.checking_s += check_s;
      times_.timing_s += r.run_seconds - check_s;
    }
    r.timestamp = static_cast<int64_t>(std::time(nullptr));
    if (!r.ok()) r.costs.clear();
    results[c.index] = std::move(r);
    active.erase(active.begin() + static_cast<std::ptrdiff_t>(i));
  };

  while (next < inputs.size() || !active.empty()) {
    // Start builds while there is room.
    auto waiting = [&] {
      return std::count_if(active.begin(), active.end(), [](const Child& c) { return c.phase != Phase::Running; });
    };
    auto any_in = [&](Phase phase) {
      return std::any_of(active.begin(), active.end(), [&](const Child& c) { return c.phase == phase; });
    };
    while (next < inputs.size() && waiting() < options_.parallel_builds && !any_in(Phase::Running)) {
      int fds[2];
      system_check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "measure: cannot start a worker",
                   "socketpair");
      pid_t pid = fork();
      if (pid < 0) {
        const int err = errno;
        close(fds[0]);
        close(fds[1]);
        system_fail("measure: cannot start a worker", "fork", "", strerror(err));
      }
      if (pid == 0) {
        // Only this child's end may stay open: a sibling holding another
        // child's socket would hide that child's exit from the parent.
        close(fds[0]);
        for (const Child& c : active) close(c.fd);
        run_worker(fds[1], next, inputs[next], reference_for(inputs[next].dag), options_);
      }
      close(fds[1]);
      Child c;
      c.index = next++;
      c.pid = pid;
      c.fd = fds[0];
      c.deadline = after(options_.build_timeout_s);
      active.push_back(std::move(c));
    }

    // Let the first built child run when nothing else runs or builds.
    if (!any_in(Phase::Running) && !any_in(Phase::Building)) {
      for (Child& c : active) {
        if (c.phase != Phase::Built || c.done) continue;
        c.phase = Phase::Running;
        c.run_start = Clock::now();
        c.deadline = after(options_.run_timeout_s);
        // A child that died meanwhile shows up as end of file below.
        send(c.fd, &kRunByte, 1, MSG_NOSIGNAL);
        break;
      }
    }

    // Wait for reports until the nearest deadline; a built child waiting for
    // its turn has no deadline of its own.
    Clock::time_point nearest = Clock::time_point::max();
    std::vector<pollfd> pfds;
    for (const Child& c : active) {
      pfds.push_back({c.fd, POLLIN, 0});
      if (c.phase != Phase::Built) nearest = std::min(nearest, c.deadline);
    }
    int timeout_ms = -1;
    if (nearest != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(nearest - Clock::now()).count() + 1;
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, 60'000));
    }
    system_check(poll(pfds.data(), pfds.size(), timeout_ms) >= 0 || errno == EINTR, "measure: cannot wait for the workers",
                 "poll");

    Clock::time_point now = Clock::now();
    for (size_t i = active.size(); i-- > 0;) {
      Child& c = active[i];
      if (pfds[i].revents != 0 && !read_messages(c)) {
        finish(i, reap(c));
      } else if (c.phase != Phase::Built && now >= c.deadline && !c.done) {
        finish(i, kill_for_timeout(c, options_));
      }
    }
  }
  times_.building_s += std::max(0.0, std::chrono::duration<double>(Clock::now() - start).count() - run_wall_s);
  return results;
}

}  // namespace tunectl::measure
