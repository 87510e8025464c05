// Progress line formatting and its live refresh on stderr (progress.h).
#include "tune/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace tunectl::tune {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  char buf[32];
  const long s = std::lround(seconds);
  if (seconds < 60) {
    std::snprintf(buf, sizeof(buf), "%.1fs", seconds);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof(buf), "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ldh%02ldm", s / 3600, s % 3600 / 60);
  }
  return buf;
}

std::string progress_line(const ProgressInfo& p) {
  char best[32] = "none yet";
  if (p.task_gflops > 0) {
    std::snprintf(best, sizeof(best), p.task_gflops >= 1 ? "%.1f GFLOP/s" : "%.2g GFLOP/s", p.task_gflops);
  } else if (p.task_best_s > 0) {
    std::snprintf(best, sizeof(best), "%.3g ms", p.task_best_s * 1e3);
  }
  char latency[32] = "?";
  if (std::isfinite(p.latency_s)) std::snprintf(latency, sizeof(latency), "%.3g ms", p.latency_s * 1e3);
  char buf[512];
  std::snprintf(buf, sizeof(buf), "[round %d] task %d/%d %s | trials %d/%d | best %s | est. latency %s | elapsed %s",
                p.round, p.task + 1, p.num_tasks, p.task_name.c_str(), p.trials, p.trial_budget, best, latency,
                format_duration(p.elapsed_s).c_str());
  std::string line = buf;
  if (p.left_s >= 0) line += ", left ~" + format_duration(p.left_s);
  return line;
}

ProgressDisplay::ProgressDisplay(bool enabled) : enabled_(enabled), tty_(isatty(STDERR_FILENO) == 1) {}

void ProgressDisplay::update(const ProgressInfo& p, bool end_of_round) {
  // Without a TTY (a CI log) a line per round, and one at least every
  // kLogInterval seconds within a long round, keeps the log alive but short.
  constexpr double kLogInterval = 15;
  if (!enabled_ || (!tty_ && !end_of_round && p.elapsed_s - last_line_s_ < kLogInterval)) return;
  last_line_s_ = p.elapsed_s;
  const std::string line = progress_line(p);
  if (tty_) {
    std::fprintf(stderr, "\r%s\033[K", line.c_str());  // \033[K clears what a longer line left
    line_open_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void ProgressDisplay::finish() {
  if (line_open_) std::fputc('\n', stderr);
  line_open_ = false;
}

}  // namespace tunectl::tune
