// The tests that need an NVIDIA GPU (CTest label `gpu`). Without a CUDA
// driver and device they print why and exit 77, which CTest reports as
// skipped; on the lent GPU machine they run (README "CUDA").
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "runtime/cuda_driver.h"

int main(int argc, char* argv[]) {
  std::string why;
  if (!tunectl::runtime::cuda_device(&why)) {
    std::printf("skipped: no CUDA device (%s)\n", why.c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
