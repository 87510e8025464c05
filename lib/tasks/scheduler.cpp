// TaskScheduler: warm-up, then Ansor's gradient (or round-robin) over the
// active tasks, with early stopping and a round limit per task.
#include "tasks/scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/error.h"

namespace tunectl::tasks {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_cost(double c) {
  internal_check(!std::isnan(c) && c > 0, "task scheduler: a best cost must be positive or +inf, got ", c);
}

}  // namespace

const char* to_string(TaskStatus s) {
  switch (s) {
    case TaskStatus::Active: return "active";
    case TaskStatus::Stopped: return "stopped";
    case TaskStatus::Finished: return "finished";
    case TaskStatus::Dropped: return "dropped";
  }
  internal_fail("unknown TaskStatus");
}

TaskScheduler::TaskScheduler(std::vector<SchedulerTask> tasks, SchedulerParams params)
    : params_(params), rng_(params.seed) {
  user_check(params.warmup_rounds >= 1, "scheduler: warm-up rounds must be at least 1, got ", params.warmup_rounds);
  user_check(params.window >= 1, "scheduler: window must be at least 1, got ", params.window);
  user_check(params.alpha >= 0 && params.alpha <= 1, "scheduler: alpha must lie in [0, 1], got ", params.alpha);
  user_check(params.beta > 0, "scheduler: beta must be positive, got ", params.beta);
  user_check(params.epsilon >= 0 && params.epsilon <= 1, "scheduler: epsilon must lie in [0, 1], got ",
             params.epsilon);
  user_check(params.early_stopping_rounds >= 0, "scheduler: early stopping rounds must be >= 0, got ",
             params.early_stopping_rounds);
  user_check(params.max_rounds_per_task >= 0, "scheduler: max rounds per task must be >= 0, got ",
             params.max_rounds_per_task);
  for (auto& t : tasks) {
    internal_check(t.weight > 0 && std::isfinite(t.weight), "task scheduler: weight must be positive, got ", t.weight);
    internal_check(t.flops >= 0 && std::isfinite(t.flops), "task scheduler: flops must be >= 0, got ", t.flops);
    TaskState state;
    state.info = std::move(t);
    tasks_.push_back(std::move(state));
  }
}

void TaskScheduler::check_task(int task) const {
  internal_check(task >= 0 && task < num_tasks(), "task scheduler: no task ", task);
}

int TaskScheduler::rounds(int task) const {
  check_task(task);
  return static_cast<int>(tasks_[task].history.size());
}

double TaskScheduler::best_cost(int task) const {
  check_task(task);
  const auto& h = tasks_[task].history;
  return h.empty() ? kInf : h.back();
}

const std::vector<double>& TaskScheduler::history(int task) const {
  check_task(task);
  return tasks_[task].history;
}

TaskStatus TaskScheduler::status(int task) const {
  check_task(task);
  return tasks_[task].status;
}

double TaskScheduler::objective() const {
  double f = 0;
  for (int i = 0; i < num_tasks(); ++i) f += tasks_[i].info.weight * best_cost(i);
  return f;
}

void TaskScheduler::report_round(int task, double best_cost_seconds) {
  check_task(task);
  check_cost(best_cost_seconds);
  TaskState& t = tasks_[task];
  internal_check(t.status == TaskStatus::Active, "task scheduler: round reported for task ", task, ", which is ",
                 to_string(t.status));
  double prev = t.history.empty() ? kInf : t.history.back();
  double best = std::min(prev, best_cost_seconds);
  t.rounds_since_improvement = best < prev ? 0 : t.rounds_since_improvement + 1;
  t.history.push_back(best);
  update_status(t);
  rr_cursor_ = (task + 1) % num_tasks();
}

void TaskScheduler::restore(int task, const std::vector<double>& best_cost_history) {
  check_task(task);
  TaskState& t = tasks_[task];
  internal_check(t.history.empty() && !t.restored, "task scheduler: restore of task ", task, " after its rounds began");
  internal_check(!best_cost_history.empty(), "task scheduler: restore of task ", task, " with an empty history");
  double prev = kInf;
  for (double c : best_cost_history) {
    check_cost(c);
    double best = std::min(prev, c);
    t.rounds_since_improvement = best < prev ? 0 : t.rounds_since_improvement + 1;
    t.history.push_back(best);
    prev = best;
  }
  t.restored = true;
  update_status(t);
}

// Dropped beats the limits: a task without a valid program has nothing to
// stop early on, and the report should say why it produced no kernel.
void TaskScheduler::update_status(TaskState& t) {
  int n = static_cast<int>(t.history.size());
  bool warmed = t.restored || n >= params_.warmup_rounds;
  if (warmed && t.history.back() == kInf) t.status = TaskStatus::Dropped;
  else if (params_.max_rounds_per_task > 0 && n >= params_.max_rounds_per_task) t.status = TaskStatus::Finished;
  else if (params_.early_stopping_rounds > 0 && t.rounds_since_improvement >= params_.early_stopping_rounds)
    t.status = TaskStatus::Stopped;
}

// Warm-up goes through the tasks in order, one round each per pass, so every
// task has a best cost before any gradient compares them.
int TaskScheduler::warmup_task() const {
  int pick = -1;
  for (int i = 0; i < num_tasks(); ++i) {
    const TaskState& t = tasks_[i];
    if (t.status != TaskStatus::Active || t.restored || rounds(i) >= params_.warmup_rounds) continue;
    if (pick < 0 || rounds(i) < rounds(pick)) pick = i;
  }
  return pick;
}

int TaskScheduler::next_task() {
  if (int w = warmup_task(); w >= 0) return w;
  return params_.policy == SchedulePolicy::Gradient ? pick_gradient() : pick_round_robin();
}

int TaskScheduler::pick_round_robin() const {
  for (int k = 0; k < num_tasks(); ++k) {
    int i = (rr_cursor_ + k) % num_tasks();
    if (tasks_[i].status == TaskStatus::Active) return i;
  }
  return -1;
}

double TaskScheduler::gradient(int task) const {
  check_task(task);
  const TaskState& t = tasks_[task];
  const std::vector<double>& h = t.history;
  int n = static_cast<int>(h.size());
  double b = best_cost(task);
  internal_check(n > 0 && std::isfinite(b), "task scheduler: gradient of task ", task, " without a best cost");

  // Backward: the observed slope over the last W rounds (0 while the window
  // reaches back before the first valid program).
  int w = params_.window;
  double backward = 0;
  if (n - 1 - w >= 0 && std::isfinite(h[n - 1 - w])) backward = (h[n - 1] - h[n - 1 - w]) / w;

  // Forward, optimistic guess 1: the next round helps as much as an average
  // round so far.
  double g1 = b - b / n;
  // Guess 2: this task may reach 1/beta of the best FLOP/s of a similar task
  // (same structure, other shapes). Needs FLOPs on both sides to mean
  // anything; a group of one is no evidence.
  double g2 = kInf;
  if (t.info.flops > 0 && !t.info.similarity_key.empty()) {
    int members = 0;
    double best_flops = 0;
    for (int j = 0; j < num_tasks(); ++j) {
      const TaskState& o = tasks_[j];
      if (o.info.similarity_key != t.info.similarity_key) continue;
      ++members;
      double bj = best_cost(j);
      if (o.info.flops > 0 && std::isfinite(bj)) best_flops = std::max(best_flops, o.info.flops / bj);
    }
    if (members > 1 && best_flops > 0) g2 = params_.beta * t.info.flops / best_flops;
  }
  double forward = std::min(g1, g2) - b;
  return t.info.weight * (params_.alpha * backward + (1 - params_.alpha) * forward);
}

int TaskScheduler::pick_gradient() {
  std::vector<int> live;
  for (int i = 0; i < num_tasks(); ++i)
    if (tasks_[i].status == TaskStatus::Active) live.push_back(i);
  if (live.empty()) return -1;
  auto uniform = [&](const std::vector<int>& among) {
    return among[std::uniform_int_distribution<size_t>(0, among.size() - 1)(rng_)];
  };
  if (params_.epsilon > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < params_.epsilon)
    return uniform(live);

  double best = kInf;
  std::vector<int> ties;
  for (int i : live) {
    double g = gradient(i);
    if (g < best) {
      best = g;
      ties.assign(1, i);
    } else if (g == best) {
      ties.push_back(i);
    }
  }
  return ties.size() == 1 ? ties[0] : uniform(ties);
}

}  // namespace tunectl::tasks
