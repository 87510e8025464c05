#include "runtime/cuda_graph.h"

namespace tunectl::runtime {

CudaGraph::CudaGraph(const CudaDriver& driver, const std::function<void(CUstream)>& record) : driver_(driver) {
  driver_.check(driver_.StreamCreate(&stream_, 0), "cuStreamCreate");
  CUgraph graph = nullptr;
  try {
    driver_.check(driver_.StreamBeginCapture(stream_, kCaptureThreadLocal), "cuStreamBeginCapture");
    try {
      record(stream_);
    } catch (...) {
      // Ends the capture, so the stream can be destroyed; the partial graph is dropped.
      if (driver_.StreamEndCapture(stream_, &graph) == 0 && graph) driver_.GraphDestroy(graph);
      throw;
    }
    driver_.check(driver_.StreamEndCapture(stream_, &graph), "cuStreamEndCapture");
    const CUresult r = driver_.GraphInstantiate(&exec_, graph, 0);
    driver_.GraphDestroy(graph);  // the executable graph does not need it
    driver_.check(r, "cuGraphInstantiate");
  } catch (...) {
    driver_.StreamDestroy(stream_);
    throw;
  }
}

CudaGraph::~CudaGraph() {
  driver_.GraphExecDestroy(exec_);
  driver_.StreamDestroy(stream_);
}

void CudaGraph::launch() const { driver_.check(driver_.GraphLaunch(exec_, stream_), "cuGraphLaunch"); }

}  // namespace tunectl::runtime
