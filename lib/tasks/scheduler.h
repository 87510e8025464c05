// tasks::TaskScheduler: decides which task the tuner spends its next round on
// (Ansor section 6; ALGORITHMS.md "Ansor task scheduler"). Data flow:
// extract_tasks -> TaskScheduler -> (next_task -> search + measure one round
// -> report_round) until next_task() is -1 or the trial budget is spent. The
// scheduler measures nothing itself: it is pure bookkeeping plus a seeded rng,
// so a scripted sequence of reports always yields the same decisions.
//
// Objective: f = sum_i w_i * best_i (w_i = how often the task's subgraph
// occurs). Every task first gets warm-up rounds in turn (tasks restored from a
// log skip them); one still without a valid program afterwards is dropped.
// Then the gradient policy tunes the task whose next round is expected to cut
// f the most, with an epsilon-greedy random pick on top; round-robin cycles.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tunectl::tasks {

enum class SchedulePolicy { Gradient, RoundRobin };

struct SchedulerParams {
  SchedulePolicy policy = SchedulePolicy::Gradient;
  // Warm-up rounds of every task, in turn, before the policy decides (>= 1:
  // the gradient needs a first best cost; Ansor uses one).
  int warmup_rounds = 1;
  // W: how many rounds back the backward gradient looks (Ansor: 3).
  int window = 3;
  // Weight of the backward (observed) gradient against the forward
  // (predicted) one (Ansor: 0.2).
  double alpha = 0.2;
  // Optimism of the similarity guess: a task may reach 1/beta of the best
  // FLOP/s its similar tasks reached (Ansor: 2).
  double beta = 2.0;
  // Probability that a post-warm-up pick is uniformly random among live
  // tasks instead of the gradient's choice; keeps a task whose gradient
  // underrates it from starving (the paper has it, TVM's code does not).
  double epsilon = 0.05;
  // Stop a task after this many rounds in a row without a better best cost
  // (0 = never).
  int early_stopping_rounds = 0;
  // Stop a task after this many rounds in all (0 = no limit).
  int max_rounds_per_task = 0;
  // Seeds the rng behind epsilon picks and ties.
  uint64_t seed = 0;
};

// What the scheduler knows about a task.
struct SchedulerTask {
  double weight = 1;           // occurrences in the model (df/dbest)
  double flops = 0;            // per call; 0 turns off the similarity guess
  std::string similarity_key;  // tasks::similarity_key of its DAG
};

enum class TaskStatus {
  Active,    // may be picked
  Stopped,   // early stopping: no improvement for early_stopping_rounds
  Finished,  // reached max_rounds_per_task
  Dropped,   // no valid program after warm-up
};

class TaskScheduler {
 public:
  TaskScheduler(std::vector<SchedulerTask> tasks, SchedulerParams params = {});

  // The task to tune for one round, or -1 when no task is active. Each call
  // is a decision (it may draw from the rng); tune that task, then report.
  int next_task();
  // The best cost in seconds of `task` after its latest round, over all its
  // rounds (+inf while no valid program is known). A worse value than the
  // best so far is taken as "no improvement".
  void report_round(int task, double best_cost_seconds);
  // Resume: best cost after each earlier round of `task`, as a log replay
  // reconstructs it (non-empty). The task skips warm-up; statuses (dropped,
  // early stopping, round limit) follow from the history.
  void restore(int task, const std::vector<double>& best_cost_history);

  // sum w_i * best_i; +inf while any task has no valid program.
  double objective() const;
  int num_tasks() const { return static_cast<int>(tasks_.size()); }
  int rounds(int task) const;
  double best_cost(int task) const;  // +inf while none
  const std::vector<double>& history(int task) const;
  TaskStatus status(int task) const;
  bool done(int task) const { return status(task) != TaskStatus::Active; }
  bool dropped(int task) const { return status(task) == TaskStatus::Dropped; }
  // Whether some active task still owes warm-up rounds.
  bool warming_up() const { return warmup_task() >= 0; }
  // The gradient of the objective for one more round of `task` (<= 0; more
  // negative = more promising). Only meaningful once the task has a finite
  // best cost; exposed for the progress display and tests.
  double gradient(int task) const;

 private:
  struct TaskState {
    SchedulerTask info;
    std::vector<double> history;  // best cost after each round
    bool restored = false;
    int rounds_since_improvement = 0;
    TaskStatus status = TaskStatus::Active;
  };

  void check_task(int task) const;
  void update_status(TaskState& t);
  int warmup_task() const;
  int pick_gradient();
  int pick_round_robin() const;

  std::vector<TaskState> tasks_;
  SchedulerParams params_;
  std::mt19937_64 rng_;
  int rr_cursor_ = 0;  // round-robin: the next task to consider
};

const char* to_string(TaskStatus s);

}  // namespace tunectl::tasks
