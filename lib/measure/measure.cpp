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
#include <cstdio>
#include <ctime>
#include <deque>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/error.h"
#include "measure/worker.h"
#include "runtime/timer.h"
#include "target/target.h"
#include "te/evaluate.h"

namespace tunectl::measure {
namespace {

using Clock = std::chrono::steady_clock;
using log::MeasureError;

enum class Activity { Idle, Building, Running };

// One forked worker (worker.h) and what the parent knows about it.
struct Worker {
  pid_t pid = -1;
  int fd = -1;  // the parent's end of the socket
  Activity activity = Activity::Idle;
  size_t current = 0;  // the candidate building or running, unless Idle
  Clock::time_point deadline;
  Clock::time_point run_start;
  std::vector<size_t> built;  // kept by the worker, waiting for their run
  bool run_failed = false;    // to be ended: see measure.h, Isolation
  std::string buffer;         // bytes received, not yet a full line
};

// One message line of a worker, parsed.
struct Report {
  bool built = false;  // "built"; otherwise "done" with its result
  size_t index = 0;
  double build_s = 0;
  double check_s = 0;
  log::MeasureResult result;
};

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

void send_command(const Worker& w, const std::string& command) {
  // A worker that died meanwhile shows up as end of file when polled.
  std::string line = command + "\n";
  send(w.fd, line.data(), line.size(), MSG_NOSIGNAL);
}

// A malformed line can only come from a candidate that scribbled over memory
// before reporting: it is that candidate's (the one running) failure.
Report parse_report(const std::string& line, size_t current) {
  Report rep;
  rep.index = current;
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("stage")) {
    rep.result = error_result(MeasureError::WorkerCrash, "unreadable report from the worker", 0);
    return rep;
  }
  try {
    rep.index = j.at("index").get<size_t>();
    rep.build_s = j.value("build_s", 0.0);
    rep.check_s = j.value("check_s", 0.0);
    rep.built = j.at("stage") == "built";
    if (!rep.built) {
      rep.result.error = log::measure_error_from_string(j.at("error").get<std::string>());
      rep.result.error_message = j.at("msg").get<std::string>();
      rep.result.costs = j.at("costs").get<std::vector<double>>();
    }
  } catch (const std::exception& e) {
    rep.built = false;
    rep.result =
        error_result(MeasureError::WorkerCrash, std::string("unreadable report from the worker: ") + e.what(), 0);
  }
  rep.result.build_seconds = rep.build_s;
  return rep;
}

// Reads what is available into complete lines; false once the worker's end
// is closed.
bool read_lines(Worker& w, std::vector<std::string>& lines) {
  char buf[4096];
  ssize_t n = read(w.fd, buf, sizeof(buf));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  w.buffer.append(buf, static_cast<size_t>(n));
  for (size_t nl; (nl = w.buffer.find('\n')) != std::string::npos;) {
    lines.push_back(w.buffer.substr(0, nl));
    w.buffer.erase(0, nl + 1);
  }
  return true;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// What became of the candidate in the hands of a worker that ended before
// reporting it, from the worker's exit status.
log::MeasureResult lost_candidate(const Worker& w, int status, double build_s, const MeasureOptions& options) {
  if (WIFSIGNALED(status) && w.activity != Activity::Idle) {
    const int sig = WTERMSIG(status);
    char cpu_limit[96];
    std::snprintf(cpu_limit, sizeof(cpu_limit), " used more than its CPU time (%g s, --worker-cpu-time)",
                  options.worker_cpu_seconds);
    const std::string why = sig == SIGXCPU ? cpu_limit : " crashed: " + signal_name(sig);
    if (w.activity == Activity::Building) return error_result(MeasureError::CompileHostError, "build" + why, 0);
    return error_result(MeasureError::RuntimeError, "candidate" + why, build_s);
  }
  const std::string how = WIFSIGNALED(status)
                              ? "killed by " + signal_name(WTERMSIG(status))
                              : "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return error_result(MeasureError::WorkerCrash, "worker ended without a result (" + how + ")", build_s);
}

log::MeasureResult timeout_result(const Worker& w, const MeasureOptions& options, double build_s) {
  if (w.activity == Activity::Building) {
    return error_result(MeasureError::BuildTimeout,
                        "build took longer than " + std::to_string(options.build_timeout_s) + " s", 0);
  }
  return error_result(MeasureError::RunTimeout, "run took longer than " + std::to_string(options.run_timeout_s) + " s",
                      build_s);
}

// One measure_each call: the batch's workers and where each input stands.
class BatchRun {
 public:
  BatchRun(const std::vector<MeasureInput>& inputs, const std::vector<Measurer::Reference*>& references,
           const MeasureOptions& options, MeasureTimes& times, const Measurer::ResultSink& sink)
      : inputs_(inputs), references_(references), options_(options), times_(times), sink_(sink),
        build_s_(inputs.size(), 0.0) {
    for (size_t i = 0; i < inputs.size(); ++i) pending_.push_back(i);
  }
  BatchRun(const BatchRun&) = delete;
  BatchRun& operator=(const BatchRun&) = delete;
  // The batch is over: closed sockets tell the workers to exit.
  ~BatchRun() {
    for (Worker& w : workers_) close(w.fd);
    for (Worker& w : workers_) wait_for(w.pid);
  }

  // Until every input is settled, or stop() says so and nothing is in flight.
  void run(const Measurer::StopCheck& stop) {
    bool stopping = false;
    while (settled_ < inputs_.size()) {
      // An interrupt or a spent budget: finish what is in flight, start nothing.
      if (!stopping && stop && stop()) stopping = true;
      if (stopping && !any_doing(Activity::Building) && !any_doing(Activity::Running)) break;
      if (!stopping) start_work();
      wait_and_read();
    }
  }

  double run_wall_s() const { return run_wall_s_; }

 private:
  bool any_doing(Activity a) const {
    return std::any_of(workers_.begin(), workers_.end(), [&](const Worker& w) { return w.activity == a; });
  }

  // Builds go out while nothing runs: the workers build back to back, on
  // every core, until no candidate is left to build. Then the built
  // candidates run one at a time, in input order, alone.
  void start_work() {
    if (any_doing(Activity::Running)) return;
    for (Worker& w : workers_) {
      if (w.activity == Activity::Idle && !pending_.empty()) start_build(w);
    }
    while (!pending_.empty() && static_cast<int>(workers_.size()) < options_.parallel_builds) {
      start_worker();
      start_build(workers_.back());
    }
    if (!any_doing(Activity::Building)) start_first_run();
  }

  void start_worker() {
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
      // Only this worker's end may stay open: a sibling holding another
      // worker's socket would hide that worker's exit from the parent.
      close(fds[0]);
      for (const Worker& w : workers_) close(w.fd);
      serve_batch(fds[1], inputs_, references_, options_);
    }
    close(fds[1]);
    Worker w;
    w.pid = pid;
    w.fd = fds[0];
    workers_.push_back(std::move(w));
  }

  void start_build(Worker& w) {
    w.current = pending_.front();
    pending_.pop_front();
    w.activity = Activity::Building;
    w.deadline = after(options_.build_timeout_s);
    send_command(w, "build " + std::to_string(w.current));
  }

  void start_first_run() {
    Worker* first = nullptr;
    std::vector<size_t>::iterator first_built;
    for (Worker& w : workers_) {
      auto it = std::min_element(w.built.begin(), w.built.end());
      if (it != w.built.end() && (!first || *it < *first_built)) {
        first = &w;
        first_built = it;
      }
    }
    if (!first) return;
    first->current = *first_built;
    first->built.erase(first_built);
    first->activity = Activity::Running;
    first->run_start = Clock::now();
    first->deadline = after(options_.run_timeout_s);
    send_command(*first, "run " + std::to_string(first->current));
  }

  // Waits for reports until the nearest deadline (a kernel waiting for its
  // run, or an idle worker, has none), then applies them, reaps workers that
  // ended and kills those past their deadline.
  void wait_and_read() {
    Clock::time_point nearest = Clock::time_point::max();
    std::vector<pollfd> pfds;
    for (const Worker& w : workers_) {
      pfds.push_back({w.fd, POLLIN, 0});
      if (w.activity != Activity::Idle) nearest = std::min(nearest, w.deadline);
    }
    int timeout_ms = -1;
    if (nearest != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(nearest - Clock::now()).count() + 1;
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, 60'000));
    }
    // Woken by a signal (Ctrl-C), run() looks at stop() again.
    system_check(poll(pfds.data(), pfds.size(), timeout_ms) >= 0 || errno == EINTR,
                 "measure: cannot wait for the workers", "poll");

    const Clock::time_point now = Clock::now();
    for (size_t i = workers_.size(); i-- > 0;) {
      Worker& w = workers_[i];
      std::vector<std::string> lines;
      const bool open = pfds[i].revents == 0 || read_lines(w, lines);
      for (const std::string& line : lines) apply(w, parse_report(line, w.current));
      if (!open) {
        // The worker is gone, and the candidate in its hands with it.
        const int status = wait_for(w.pid);
        if (w.activity != Activity::Idle) settle(w, lost_candidate(w, status, build_s_[w.current], options_), 0);
        retire(i);
      } else if (w.activity != Activity::Idle && now >= w.deadline) {
        kill(w.pid, SIGKILL);
        wait_for(w.pid);
        settle(w, timeout_result(w, options_, build_s_[w.current]), 0);
        retire(i);
      } else if (w.run_failed) {
        kill(w.pid, SIGKILL);
        wait_for(w.pid);
        retire(i);
      }
    }
  }

  void apply(Worker& w, const Report& rep) {
    // Only the candidate in the worker's hands can report; anything else is
    // a late word on one already settled (a crash report after its result).
    if (w.activity == Activity::Idle || rep.index != w.current) return;
    if (rep.built && w.activity == Activity::Building) {
      build_s_[rep.index] = rep.build_s;
      w.built.push_back(rep.index);
      w.activity = Activity::Idle;
    } else if (!rep.built) {
      settle(w, rep.result, rep.check_s);
    }
  }

  // The candidate in w's hands has its result.
  void settle(Worker& w, log::MeasureResult r, double check_s) {
    if (w.activity == Activity::Running) {
      r.run_seconds = std::chrono::duration<double>(Clock::now() - w.run_start).count();
      check_s = std::min(check_s, r.run_seconds);
      run_wall_s_ += r.run_seconds;
      times_.checking_s += check_s;
      times_.timing_s += r.run_seconds - check_s;
      w.run_failed = !r.ok();
    }
    r.timestamp = static_cast<int64_t>(std::time(nullptr));
    if (!r.ok()) r.costs.clear();
    const size_t index = w.current;
    w.activity = Activity::Idle;
    ++settled_;
    sink_(index, std::move(r));
  }

  // Ends worker i, gone or killed; the kernels it kept are built again elsewhere.
  void retire(size_t i) {
    Worker& w = workers_[i];
    close(w.fd);
    pending_.insert(pending_.begin(), w.built.begin(), w.built.end());
    std::sort(pending_.begin(), pending_.end());
    workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(i));
  }

  const std::vector<MeasureInput>& inputs_;
  const std::vector<Measurer::Reference*>& references_;
  const MeasureOptions& options_;
  MeasureTimes& times_;
  const Measurer::ResultSink& sink_;
  std::vector<Worker> workers_;
  std::deque<size_t> pending_;  // not built yet, in input order
  std::vector<double> build_s_;
  size_t settled_ = 0;
  double run_wall_s_ = 0;
};

}  // namespace

Measurer::Measurer(MeasureOptions options) : options_(std::move(options)) {
  user_check(options_.repeats >= 1 && options_.cpu_calls >= 1, "measure: repeats and cpu_calls must be at least 1, got ",
             options_.repeats, " and ", options_.cpu_calls);
  user_check(options_.build_timeout_s > 0 && options_.run_timeout_s > 0, "measure: timeouts must be positive");
  if (!options_.backend) options_.backend = backend::host_backend();
  // Builds run on this machine's cores whatever the target (a GPU target's
  // NVRTC compiles too).
  if (options_.parallel_builds <= 0) options_.parallel_builds = target::host_cores();
  // Makes the flush buffer here, once, for every worker to share (where
  // there is no flush of single buffers: runtime::flush_buffers).
  if (options_.flush_cache) runtime::flush_cpu_cache();
  if (options_.evict_private_bytes > 0) runtime::evict_private_caches(options_.evict_private_bytes);
}

Measurer::Reference& Measurer::reference_for(const std::shared_ptr<const te::ComputeDAG>& dag) {
  auto it = references_.find(dag.get());
  if (it != references_.end()) return it->second.second;
  Reference ref;
  ref.inputs = check::check_inputs(*dag, options_.reference_seed);
  if (options_.check_reference) ref.expected = check::reference_outputs(*dag, ref.inputs, options_.reference_seed);
  return references_.emplace(dag.get(), std::make_pair(dag, std::move(ref))).first->second.second;
}

std::vector<log::MeasureResult> Measurer::measure(const std::vector<MeasureInput>& inputs) {
  std::vector<log::MeasureResult> results(inputs.size());
  measure_each(inputs, [&](size_t i, log::MeasureResult r) { results[i] = std::move(r); });
  return results;
}

void Measurer::measure_each(const std::vector<MeasureInput>& inputs, const ResultSink& sink, const StopCheck& stop) {
  for (const auto& in : inputs) internal_check(in.dag != nullptr, "measure: input without a DAG");
  // Evaluated before any fork so that every worker inherits the references.
  const Clock::time_point reference_start = Clock::now();
  std::vector<Reference*> references;
  for (const auto& in : inputs) references.push_back(&reference_for(in.dag));
  const Clock::time_point start = Clock::now();
  times_.checking_s += std::chrono::duration<double>(start - reference_start).count();
  double run_wall_s = 0;
  {
    BatchRun batch(inputs, references, options_, times_, sink);
    batch.run(stop);
    run_wall_s = batch.run_wall_s();
  }
  times_.building_s += std::max(0.0, std::chrono::duration<double>(Clock::now() - start).count() - run_wall_s);
}

}  // namespace tunectl::measure
