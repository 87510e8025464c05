// Private to lib/measure: the child side of a measurement and the messages it
// exchanges with the parent (measure.cpp). A child sends newline-terminated
// JSON objects on its socket:
//   {"stage": "built", "build_s": 0.4}                       after a good build
//   {"stage": "done", "error": "none", "msg": "", "costs": [...], "build_s": 0.4}
// A build failure sends "done" with its error kind and no "built". After
// "built" the child blocks until the parent sends one byte (kRunByte) and
// then checks and times the kernel; the parent closing the socket instead
// makes it exit quietly.
#pragma once

#include "measure/measure.h"

namespace tunectl::measure {

inline constexpr char kRunByte = 'r';

// Runs in the forked child: builds, reports, waits for the go-ahead, checks,
// times, reports, and _exits. Never returns.
// index is the input's position in the batch (for MeasureOptions::run_override).
[[noreturn]] void run_worker(int fd, size_t index, const MeasureInput& input, Measurer::Reference& reference,
                             const MeasureOptions& options);

}  // namespace tunectl::measure
