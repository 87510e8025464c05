// Private to lib/measure: the worker side of a measurement and the messages
// it exchanges with the parent (measure.cpp).
//
// A worker is forked by measure() for one batch and serves the candidates the
// parent hands it. Commands from the parent are lines:
//   "build I"   build input I of the batch, keep the kernel, report
//   "run I"     check and time the kept kernel of input I, then drop it
// so a worker may hold several built kernels until their turn to run. A
// closed socket tells the worker to exit. The worker sends
// newline-terminated JSON objects, each naming its input:
//   {"stage": "built", "index": 3, "build_s": 0.4}           after a good build
//   {"stage": "done", "index": 3, "error": "none", "msg": "", "costs": [...],
//    "build_s": 0.4, "check_s": 0.01}
// A build failure sends "done" with its error kind and no "built". A run
// happens in the worker itself: a candidate that crashes takes the worker
// down, and the parent ends a worker whose run failed in any other way too,
// since a kernel that computed wrong may also have written where it should
// not. Either way the kernels the worker kept are built again in a fresh one.
#pragma once

#include <cstddef>
#include <vector>

#include "measure/measure.h"
#include "runtime/timer.h"

namespace tunectl::measure {

// How a worker times a checked kernel (MeasureOptions::cpu_calls and
// ::repeats): on the host CPU, single calls with the buffers of the DAG's
// constant placeholders (inputs, in DAG order) and of their packed forms
// evicted before each and its other inputs handed over to the threads by
// rows (runtime::handed_over_by_rows); on a device, repeats of launches.
runtime::TimingOptions timing_options_for(const te::ComputeDAG& dag, std::vector<runtime::NDArray>& inputs,
                                          const std::vector<runtime::NDArray>& packed, const MeasureOptions& options);

// The host CPU's part of it before the flush is limited to the constants
// (runtime::flushing_only): cpu_calls single calls, each after the kernel's
// heap intermediates are evicted (TimingOptions::evict_scratch).
runtime::TimingOptions host_call_timing(const MeasureOptions& options);

// Runs in the forked worker until the parent closes the socket; never returns.
// references holds each input's reference (inputs and expected outputs).
[[noreturn]] void serve_batch(int fd, const std::vector<MeasureInput>& inputs,
                              const std::vector<Measurer::Reference*>& references, const MeasureOptions& options);

}  // namespace tunectl::measure
