// A fixed sequence of kernel launches recorded once as a CUDA graph and
// replayed with one call: the driver checks and queues a whole model's
// kernels at once instead of one launch at a time, and the GPU starts each
// kernel as the one before it ends. The executor (`run`/`bench --target
// cuda`) and compiled GPU models replay their launches so: every argument of
// every launch is a device address fixed when the model loads.
//
// The launches go to a stream of the graph's own, a blocking one: it waits
// for what was queued before on the default stream (the inputs' copies) and
// the default stream waits for it (the outputs' copies).
#pragma once

#include <functional>

#include "runtime/cuda_driver.h"

namespace tunectl::runtime {

class CudaGraph {
 public:
  // Calls record(stream) once, which queues launches on stream; they are
  // captured, not run. UserError where the driver refuses (a launch that
  // record makes elsewhere, or a call capture forbids).
  CudaGraph(const CudaDriver& driver, const std::function<void(CUstream)>& record);
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Queues every recorded launch, in order; returns at once.
  void launch() const;

 private:
  const CudaDriver& driver_;
  CUstream stream_ = nullptr;
  CUgraphExec exec_ = nullptr;
};

}  // namespace tunectl::runtime
