// A CUDA kernels folder, built without a GPU: NVRTC compiles each record's
// kernel for the record's arch, the GPU emulator checks it against the
// reference, and the folder holds <symbol>.cu, .ptx and .cubin per task and
// a manifest with each kernel's launch. Two writes are byte-identical (what
// CI's replay-twice check relies on), and CUDA records round-trip.
#include <catch2/catch.hpp>

#include "backend/backend.h"
#include "kernels/kernel_cache.h"
#include "kernels_test_util.h"
#include "log/record.h"

namespace tunectl::kernels {

namespace {

using log::testing::ScratchDir;
using testing::folder_bytes;

using testing::cuda_backend;
using testing::cuda_records;
using testing::kCudaTarget;

}  // namespace

TEST_CASE("cuda kernels folder: sources, PTX, cubins and launches, byte-identical twice", "[gpu-emulator]") {
  ScratchDir scratch;
  const std::vector<log::Record> records = cuda_records();
  const Manifest m = write_kernel_cache(records, scratch.file("a"), cuda_backend());
  write_kernel_cache(records, scratch.file("b"), cuda_backend());
  const std::map<std::string, std::string> a = folder_bytes(scratch.file("a"));
  CHECK(a == folder_bytes(scratch.file("b")));
  CHECK(a.size() == 3 * records.size() + 1);  // .cu .ptx .cubin per kernel, the manifest
  CHECK(m.library.empty());
  CHECK(m.features == std::vector<std::string>{"sm_90"});
  for (const KernelEntry& e : m.kernels) {
    INFO(e.task_name);
    for (const char* suffix : {".cu", ".ptx", ".cubin"}) CHECK(a.count(e.symbol + suffix) == 1);
    CHECK(a.at(e.symbol + ".cu").find("extern \"C\" __global__") != std::string::npos);
    CHECK(a.at(e.symbol + ".ptx").find(".target sm_90") != std::string::npos);
    CHECK(e.launch.at("block").size() == 3);
  }
  const Manifest read = read_manifest(scratch.file("a"));
  CHECK(manifest_to_json(read) == manifest_to_json(m));
  // The hand-written matmul: 4 blocks of 16 threads.
  for (const KernelEntry& e : m.kernels) {
    if (e.task_name != "matmul_32") continue;
    CHECK(e.launch.at("grid") == nlohmann::json::array({4, 1, 1}));
    CHECK(e.launch.at("block") == nlohmann::json::array({16, 1, 1}));
  }
}

TEST_CASE("cuda records round-trip and are applied to their target only", "[gpu-emulator]") {
  for (const log::Record& r : cuda_records()) {
    const log::Record back = log::record_from_json(log::record_to_json(r));
    CHECK(back.task.target == kCudaTarget);
    CHECK(log::record_to_json(back) == log::record_to_json(r));
  }
  ScratchDir scratch;
  CHECK_THROWS_WITH(write_kernel_cache(cuda_records(), scratch.file("cpu"), testing::record_backend()),
                    Catch::Contains("was tuned for target 'cuda -arch=sm_90', not 'llvm"));
  CHECK_THROWS_WITH(read_manifest(scratch.file("none")), Catch::Contains("cannot open"));
}

}  // namespace tunectl::kernels
