// The checks every GPU program of the compiler tests goes through without a
// GPU: the emulator (bounds, shared-memory races, divergent barriers, the
// reference's output), its CUDA C compiled for and run on the CPU
// (support/cuda_on_host.h), and NVRTC for sm_80 and sm_90 with a ptxas
// report per kernel (one of the two in a share run, support/property_cases.h:
// NVRTC is most of these tests' time). Failures are Catch CHECKs carrying the program.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/lower.h"
#include "schedule/state.h"
#include "te/compute_dag.h"

namespace tunectl::testing {

struct GpuProgram {
  schedule::State state;
  lower::LoweredFunc func;
};

void check_in_emulator(const te::ComputeDAG& dag, const GpuProgram& p, uint64_t seed);
// All programs of one DAG, their CUDA C in one library.
void check_on_host(const te::ComputeDAG& dag, const std::vector<GpuProgram>& programs);
// All kernels in one NVRTC module per arch: compiling is the slow part, and
// one module costs little more than one kernel. A share run compiles for
// one arch, chosen by rotation: give successive DAGs successive rotations.
void check_compiles(const std::vector<GpuProgram>& programs, size_t rotation);

}  // namespace tunectl::testing
