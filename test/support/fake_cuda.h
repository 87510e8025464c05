// What a test reads back from the stand-in CUDA driver
// (support/fake_cuda_driver.cpp, loaded with dlopen as TUNECTL_FAKE_CUDA).
#pragma once

#include <catch2/catch.hpp>

#include <dlfcn.h>

namespace tunectl::testing {

// Kernels the driver ran so far: from cuLaunchKernel, and from cuGraphLaunch.
struct FakeCudaLaunches {
  int direct = 0, from_graphs = 0;
};

inline FakeCudaLaunches fake_cuda_launches(void* driver) {
  auto counts = reinterpret_cast<void (*)(int*, int*)>(dlsym(driver, "tunectl_fake_cuda_launches"));
  REQUIRE(counts != nullptr);
  FakeCudaLaunches c;
  counts(&c.direct, &c.from_graphs);
  return c;
}

}  // namespace tunectl::testing
