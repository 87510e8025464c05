// The tuning loop's progress display (tuner.h): one line per update on
// stderr, e.g.
//   [round 12] task 3/7 conv2d_relu_2 | trials 230/1000 | best 41.2 GFLOP/s |
//   est. latency 1.83 ms | elapsed 1m02s, left ~3m40s
// refreshed in place with \r when stderr is a terminal, else one line per
// round so logs of CI runs stay readable.
#pragma once

#include <string>

namespace tunectl::tune {

struct ProgressInfo {
  int round = 0;
  int task = 0;            // index; shown 1-based
  int num_tasks = 0;
  std::string task_name;
  int trials = 0;          // new measurements so far
  int trial_budget = 0;
  double task_gflops = 0;  // best GFLOP/s of the task; 0 = none valid yet or no float ops
  double task_best_s = 0;  // the task's best time, shown when it has no float ops (integer kernels); 0 = none
  double latency_s = 0;    // estimated end-to-end latency; +inf = unknown
  double elapsed_s = 0;
  double left_s = -1;      // estimated time left; < 0 = unknown
};

// "1m02s", "45.3s", "2h05m".
std::string format_duration(double seconds);

std::string progress_line(const ProgressInfo& p);

class ProgressDisplay {
 public:
  explicit ProgressDisplay(bool enabled);
  // A live refresh (overwritten by the next one on a terminal; without one,
  // shown at most every 15 s) or a round's final line (always shown).
  void update(const ProgressInfo& p, bool end_of_round);
  // Ends the live line so later output starts on a fresh line.
  void finish();

 private:
  bool enabled_;
  bool tty_;
  bool line_open_ = false;
  double last_line_s_ = 0;  // elapsed time of the last line printed (not a TTY)
};

}  // namespace tunectl::tune
