// The log that test/cli/replay_test.sh replays (test/kernels/data/replay.log.json),
// compared with the records this test builds, so the checked-in file stays a
// log this build writes. Three tasks: a matmul with a slow default schedule
// and a faster tiled parallel one (replay must pick the tiled one), a softmax
// with its default schedule, and a relu whose only record is a failed
// measurement (replay must say it has no kernel for it).
// Beside it, replay_cuda.log.json: testing::cuda_records(), for a CUDA replay.
// TUNECTL_UPDATE_GOLDEN=1 rewrites the files instead (review the diff).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "kernels_test_util.h"
#include "log/log_file.h"

namespace tunectl::kernels {
namespace {

using testing::DagPtr;
using testing::make_record;
using testing::op_dag;

std::vector<log::Record> fixture_records() {
  DagPtr mm = op_dag("matmul", {{"M", 64}, {"N", 64}, {"K", 64}});
  DagPtr sm = op_dag("softmax", {{"shape", {16, 33}}});
  DagPtr relu = op_dag("relu", {{"shape", {1, 8, 9, 9}}});
  log::Record failed = make_record(relu, "relu_1x8x9x9", {}, {});
  failed.result.error = log::MeasureError::CompileHostError;
  failed.result.error_message = "fixture: a failed build";
  return {make_record(mm, "matmul_64", {}, {2.0e-4, 2.2e-4, 1.9e-4}),
          make_record(sm, "softmax_16x33", {}, {5.0e-6}),
          make_record(mm, "matmul_64", testing::tiled_matmul_steps(*mm, 64), {4.0e-5, 4.4e-5, 3.9e-5}),
          failed};
}

// Checks (or, with TUNECTL_UPDATE_GOLDEN=1, rewrites) the fixture log at
// test/kernels/data/<name> against records.
void check_fixture_log(const std::string& name, const std::vector<log::Record>& records) {
  std::string text;
  for (const log::Record& r : records) text += log::record_to_json(r).dump() + "\n";
  std::filesystem::path path = std::filesystem::path(TUNECTL_SOURCE_DIR) / "test/kernels/data" / name;
  const char* update = std::getenv("TUNECTL_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    WARN("rewrote " << path.string());
  }
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream golden;
  golden << in.rdbuf();
  CHECK(text == golden.str());
}

TEST_CASE("golden: the replay fixture log is what this build writes", "[golden]") {
  check_fixture_log("replay.log.json", fixture_records());
  std::filesystem::path path = std::filesystem::path(TUNECTL_SOURCE_DIR) / "test/kernels/data/replay.log.json";

  // best_records keeps the tiled matmul and the softmax; relu has no valid record.
  std::map<std::string, log::Record> best = log::best_records(log::read_log(path.string()).records, log::testing::kRecordTarget);
  REQUIRE(best.size() == 2);
  std::vector<log::Record> records = fixture_records();
  CHECK(best.at(records[2].task.workload_key).steps == records[2].steps);
}

// The CUDA log replay_test.sh replays without a GPU.
TEST_CASE("golden: the CUDA replay fixture log is what this build writes", "[golden]") {
  check_fixture_log("replay_cuda.log.json", testing::cuda_records());
}

}  // namespace
}  // namespace tunectl::kernels
