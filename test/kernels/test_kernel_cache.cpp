// The kernels folder end to end: records -> write_kernel_cache -> files and
// manifest -> KernelLibrary (dlopen) -> every kernel, called through the
// shared library, computes the reference. Also: two writes are byte-identical,
// and records or folders that are unusable are UserErrors naming what is wrong.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "check/reference_check.h"
#include "ir/error.h"
#include "kernels/kernel_cache.h"
#include "kernels_test_util.h"
#include "ops/registry.h"
#include "support/foreign_cpu.h"

namespace tunectl::kernels {
namespace {

using Catch::Matchers::Contains;
using log::testing::ScratchDir;
using testing::folder_bytes;
using log::testing::user_error;
using testing::DagPtr;
using testing::make_record;
using testing::op_dag;

struct Task {
  DagPtr dag;
  log::Record record;
};

// Six tasks: a parallel, vectorized matmul by hand, a gemm whose constant B
// is prepacked, and random schedules of ops with reductions, broadcasts,
// padding and several stages.
std::vector<Task> sample_tasks() {
  std::vector<Task> tasks;
  DagPtr mm = op_dag("matmul", {{"M", 32}, {"N", 32}, {"K", 32}});
  tasks.push_back({mm, make_record(mm, "matmul_32", testing::tiled_matmul_steps(*mm, 32), {2e-6, 1e-6, 3e-6})});
  // Stages A, B, matmul; then A, B, B.local, matmul with B.local at j.0.
  DagPtr gemm = op_dag("gemm", {{"M", 16}, {"N", 24}, {"K", 8}, {"c_shape", nlohmann::json::array()}});
  std::vector<schedule::Step> packed = {schedule::SplitStep{2, 1, 24, {8}, true}, schedule::ReorderStep{2, {1, 0, 2, 3}},
                                        schedule::CacheReadStep{1, "local", {2}}, schedule::ComputeAtStep{2, 3, 0},
                                        schedule::PrepackStep{2}, schedule::AnnotationStep{3, 0, "parallel"}};
  tasks.push_back({gemm, make_record(gemm, "gemm_prepacked", packed, {5e-6})});
  struct Random {
    const char* op;
    nlohmann::json params;
    uint64_t seed;
  };
  for (const Random& r : {Random{"matmul", {{"M", 24}, {"N", 20}, {"K", 18}}, 3},
                          Random{"softmax", {{"shape", {7, 13}}}, 5},
                          Random{"conv2d", ops::test_configs("conv2d").front(), 7},
                          Random{"layer_norm", ops::test_configs("layer_norm").front(), 9}}) {
    DagPtr dag = op_dag(r.op, r.params);
    tasks.push_back({dag, make_record(dag, std::string(r.op) + "_small", testing::random_steps(dag, r.seed, 12), {4e-6})});
  }
  return tasks;
}

std::vector<log::Record> records_of(const std::vector<Task>& tasks) {
  std::vector<log::Record> records;
  for (const Task& t : tasks) records.push_back(t.record);
  return records;
}


TEST_CASE("kernels folder: files, manifest, and kernels that compute the reference through the .so", "[unit]") {
  ScratchDir scratch;
  std::string dir = scratch.file("kernels");  // created by write_kernel_cache
  std::vector<Task> tasks = sample_tasks();
  Manifest manifest = write_kernel_cache(records_of(tasks), dir, testing::record_backend());
  const std::vector<KernelEntry>& entries = manifest.kernels;

  REQUIRE(entries.size() == tasks.size());
  for (size_t i = 1; i < entries.size(); ++i) CHECK(entries[i - 1].workload_key < entries[i].workload_key);
  std::map<std::string, const Task*> by_key;
  for (const Task& t : tasks) by_key[t.dag->workload_key()] = &t;

  CHECK(std::filesystem::is_regular_file(dir + "/libtunectl_kernels.so"));
  CHECK(manifest_to_json(read_manifest(dir)) == manifest_to_json(manifest));
  CHECK(manifest.target == testing::record_backend().target().str());
  CHECK(manifest.features == testing::record_backend().target().features);
  for (const KernelEntry& e : entries) {
    INFO(e.task_name);
    REQUIRE(by_key.count(e.workload_key) == 1);
    const Task& t = *by_key[e.workload_key];
    CHECK(e.task_name == t.record.task.name);
    CHECK(e.symbol == "tunectl_" + e.workload_key);
    CHECK(std::filesystem::file_size(dir + "/" + e.symbol + ".o") > 0);
    CHECK(e.cost_seconds == t.record.result.median_cost());
    CHECK(e.record.steps == t.record.steps);
    // Arguments: placeholders in DAG order, then outputs; a prepacked one
    // in its packed shape, with its placeholder's in the packing.
    std::vector<te::Tensor> want = t.dag->placeholders();
    for (const te::Tensor& out : t.dag->outputs()) want.push_back(out);
    REQUIRE(e.args.size() == want.size());
    CHECK(e.packings.size() == (t.record.task.name == "gemm_prepacked" ? 1u : 0u));
    for (size_t i = 0; i < want.size(); ++i) {
      const KernelPacking* packing = nullptr;
      for (const KernelPacking& p : e.packings)
        if (p.arg == static_cast<int>(i)) packing = &p;
      const KernelArg& placeholder = packing ? packing->input : e.args[i];
      CHECK(placeholder.name == want[i]->buffer->name);
      CHECK(placeholder.shape == want[i]->shape());
      CHECK(e.args[i].dtype == ir::to_string(want[i]->dtype()));
      if (packing) {
        CHECK(e.args[i].shape == std::vector<int64_t>{1, 3, 8, 8});
        CHECK(packing->symbol == e.symbol + "_pack1");
      }
    }
  }

  KernelLibrary library(dir);
  CHECK(library.manifest().kernels.size() == entries.size());
  CHECK(library.find("0000000000000000") == nullptr);
  for (const KernelEntry& e : entries) {
    INFO(e.task_name);
    runtime::KernelFn fn = library.find(e.workload_key);
    REQUIRE(fn != nullptr);
    auto run = [&](const std::vector<runtime::NDArray*>& args) {
      std::vector<void*> raw = check::raw_pointers(args);
      std::vector<runtime::NDArray> packed;
      for (const KernelPacking& p : e.packings) {
        runtime::KernelFn pack = library.find_packing(p.symbol);
        REQUIRE(pack != nullptr);
        packed.emplace_back(ir::DType::Float32, e.args[p.arg].shape);
        void* pack_args[] = {raw[p.arg], packed.back().raw()};
        pack(pack_args);
        raw[p.arg] = packed.back().raw();
      }
      fn(raw.data());
    };
    check::CheckResult r = check::check_against_reference(*by_key[e.workload_key]->dag, run, 42);
    CHECK(r.message == "");
    CHECK(r.ok);
  }
}

TEST_CASE("kernels folder: two writes of the same records are byte-identical", "[unit]") {
  ScratchDir scratch;
  std::vector<log::Record> records = records_of(sample_tasks());
  write_kernel_cache(records, scratch.file("a"), testing::record_backend());
  write_kernel_cache(records, scratch.file("b"), testing::record_backend());
  std::map<std::string, std::string> a = folder_bytes(scratch.file("a"));
  std::map<std::string, std::string> b = folder_bytes(scratch.file("b"));
  CHECK(a.size() == records.size() + 2);  // objects, library, manifest
  CHECK(a.count("manifest.json") == 1);
  for (const auto& [name, bytes] : a) {
    INFO(name);
    REQUIRE(b.count(name) == 1);
    CHECK(bytes == b.at(name));
  }
  CHECK(a.size() == b.size());
  // Rewriting a folder in place replaces its files with the same bytes.
  write_kernel_cache(records, scratch.file("a"), testing::record_backend());
  CHECK(folder_bytes(scratch.file("a")) == a);
}

TEST_CASE("kernels folder: unusable records are UserErrors naming the task", "[unit]") {
  ScratchDir scratch;
  DagPtr mm = op_dag("matmul", {{"M", 16}, {"N", 16}, {"K", 16}});
  int stage = testing::output_stage(*mm);

  // A split whose recorded extent is not the loop's.
  log::Record bad_split = make_record(mm, "matmul_broken", {schedule::SplitStep{stage, 0, 17, {4}}}, {1e-6});
  std::string msg = user_error([&] { write_kernel_cache({bad_split}, scratch.file("k"), testing::record_backend()); });
  CHECK_THAT(msg, Contains("task matmul_broken (" + mm->workload_key() + ")"));
  // A step on a stage that does not exist.
  log::Record bad_stage = make_record(mm, "matmul_nostage", {schedule::AnnotationStep{99, 0, "parallel"}}, {1e-6});
  CHECK_THAT(user_error([&] { write_kernel_cache({bad_stage}, scratch.file("k"), testing::record_backend()); }), Contains("task matmul_nostage"));
  // A failed measurement is no program to keep.
  log::Record failed = make_record(mm, "matmul_failed", {}, {});
  failed.result.error = log::MeasureError::RunTimeout;
  CHECK_THAT(user_error([&] { write_kernel_cache({failed}, scratch.file("k"), testing::record_backend()); }),
             Contains("task matmul_failed") && Contains("run_timeout"));
  // A DAG that is not the task's.
  log::Record mixed = make_record(mm, "matmul_mixed", {}, {1e-6});
  mixed.task.workload_key = "0123456789abcdef";
  CHECK_THAT(user_error([&] { write_kernel_cache({mixed}, scratch.file("k"), testing::record_backend()); }), Contains("task matmul_mixed"));
  // Two records of one task.
  log::Record ok = make_record(mm, "matmul_16", {}, {1e-6});
  CHECK_THAT(user_error([&] { write_kernel_cache({ok, ok}, scratch.file("k"), testing::record_backend()); }), Contains("two records for task matmul_16"));
  CHECK_THAT(user_error([&] { write_kernel_cache({}, scratch.file("k"), testing::record_backend()); }), Contains("no records"));
  // A record tuned for another target.
  log::Record other = make_record(mm, "matmul_other", {}, {1e-6});
  other.task.target = "llvm -mcpu=znver4";
  CHECK_THAT(user_error([&] { write_kernel_cache({other}, scratch.file("k"), testing::record_backend()); }),
             Contains("task matmul_other") && Contains("tuned for target 'llvm -mcpu=znver4', not '" +
                                                       testing::record_backend().target().str() + "'"));
}

TEST_CASE("kernel symbols are the workload key, refused when the key is not an identifier", "[unit]") {
  CHECK(kernel_symbol("9f2c00aa11bb22cc") == "tunectl_9f2c00aa11bb22cc");
  CHECK_THROWS_AS(kernel_symbol("../../etc/x"), UserError);
  CHECK_THROWS_AS(kernel_symbol(""), UserError);
}

TEST_CASE("kernels folder: no C compiler is a clear UserError", "[unit]") {
  ScratchDir scratch;
  DagPtr mm = op_dag("matmul", {{"M", 8}, {"N", 8}, {"K", 8}});
  const char* old = std::getenv("CC");
  std::string saved = old ? old : "";
  ::setenv("CC", "/nonexistent/tunectl-cc", 1);
  std::string msg = user_error([&] { write_kernel_cache({make_record(mm, "matmul_8", {}, {1e-6})}, scratch.file("k"), testing::record_backend()); });
  if (old)
    ::setenv("CC", saved.c_str(), 1);
  else
    ::unsetenv("CC");
  CHECK_THAT(msg, Contains("cannot run the C compiler '/nonexistent/tunectl-cc'") && Contains("set $CC"));
}

TEST_CASE("KernelLibrary refuses a missing folder, a corrupt manifest and a missing library", "[unit]") {
  ScratchDir scratch;
  CHECK_THAT(user_error([&] { KernelLibrary lib(scratch.file("missing")); }), Contains("cannot open"));

  DagPtr mm = op_dag("matmul", {{"M", 8}, {"N", 8}, {"K", 8}});
  std::string dir = scratch.file("k");
  write_kernel_cache({make_record(mm, "matmul_8", {}, {1e-6})}, dir, testing::record_backend());
  std::filesystem::remove(dir + "/libtunectl_kernels.so");
  CHECK_THAT(user_error([&] { KernelLibrary lib(dir); }), Contains("cannot load"));
  std::ofstream(dir + "/manifest.json", std::ios::trunc) << "{\"version\": 1, \"kernels\": [";
  CHECK_THAT(user_error([&] { KernelLibrary lib(dir); }), Contains("malformed manifest"));
}

TEST_CASE("KernelLibrary refuses a folder whose target needs CPU features this machine lacks", "[unit][error]") {
  ScratchDir scratch;
  DagPtr mm = op_dag("matmul", {{"M", 8}, {"N", 8}, {"K", 8}});
  std::string dir = scratch.file("k");
  Manifest manifest = write_kernel_cache({make_record(mm, "matmul_8", {}, {1e-6})}, dir, testing::record_backend());
  { KernelLibrary loads(dir); }
  // The same folder as a build for another CPU would write it.
  const std::optional<tunectl::testing::ForeignCpu> foreign = tunectl::testing::foreign_cpu();
  REQUIRE(foreign.has_value());
  manifest.target = foreign->target;
  manifest.features = backend::resolve_target(foreign->target).features;
  for (KernelEntry& e : manifest.kernels) e.record.task.target = foreign->target;
  std::ofstream(dir + "/manifest.json", std::ios::trunc) << manifest_to_json(manifest).dump(2);
  const std::string msg = user_error([&] { KernelLibrary lib(dir); });
  CHECK_THAT(msg, Contains("kernels folder " + dir + " holds code for target '" + foreign->target + "'") &&
                      Contains("lacks ") && Contains(foreign->lacked_feature));
}

}  // namespace
}  // namespace tunectl::kernels
