// The kernels folder: the deliverable of `tunectl tune` and `tunectl replay`
// (DESIGN.md "Kernels folder"). From the best record of each task alone
// (its DAG JSON and schedule steps; no model needed) it rebuilds the program,
// checks it against the reference evaluator on random inputs, and writes
//   <dir>/<symbol>.o              one relocatable object per task
//   <dir>/libtunectl_kernels.so   all of them in one shared library
//   <dir>/manifest.json           per kernel: task key and name, symbol,
//                                 argument order with shapes and dtypes,
//                                 packing functions of prepacked constants,
//                                 measured cost, the record it came from
// Every kernel has the KernelFn calling convention (one pointer per argument
// buffer, placeholders then outputs). Parallel kernels call
// tunectl_parallel_for, which the loading process provides (libtunectl_runtime;
// the tunectl executable exports it). Output is deterministic: the same
// records give byte-identical files, which CI checks by replaying twice.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/llvm/llvm_codegen.h"
#include "log/record.h"

namespace tunectl::kernels {

struct KernelArg {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;  // ir::DType name, e.g. "float32"
};

// A constant the kernel takes prepacked (lower::InputPacking): the function
// `symbol`, called as symbol({input, packed}), fills argument `arg` from the
// constant in its placeholder layout `input`. Call it once per constant.
struct KernelPacking {
  int arg = 0;
  std::string symbol;
  KernelArg input;
};

struct KernelEntry {
  std::string workload_key;
  std::string task_name;
  std::string symbol;   // exported function name, also <symbol>.o
  std::vector<KernelArg> args;  // a prepacked argument in its packed shape
  std::vector<KernelPacking> packings;
  double cost_seconds = 0;  // median measured cost of the record
  log::Record record;       // the record it was built from
};

// The symbol of a task's kernel: "tunectl_" + workload key (stable across
// runs and machines, a valid C identifier).
std::string kernel_symbol(const std::string& workload_key);

// Builds, checks and writes every record (best records, one per task, e.g.
// log::best_records) into dir, creating it; replaces earlier contents of the
// files it writes. UserError naming the task when a record does not rebuild
// or its kernel computes a wrong answer. Returns the manifest's entries in
// workload-key order.
std::vector<KernelEntry> write_kernel_cache(const std::vector<log::Record>& records, const std::string& dir);

nlohmann::json manifest_to_json(const std::vector<KernelEntry>& entries);
// Reads <dir>/manifest.json; UserError when missing or malformed.
std::vector<KernelEntry> read_manifest(const std::string& dir);

// A kernels folder loaded with dlopen: kernels by workload key.
class KernelLibrary {
 public:
  // UserError when the folder, its manifest or its library is unusable.
  explicit KernelLibrary(const std::string& dir);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  const std::vector<KernelEntry>& entries() const { return entries_; }
  // The kernel of a task, or nullptr when the folder has none for it.
  codegen::KernelFn find(const std::string& workload_key) const;
  // A packing function an entry lists (KernelPacking::symbol), or nullptr.
  codegen::KernelFn find_packing(const std::string& symbol) const;

 private:
  std::vector<KernelEntry> entries_;
  std::map<std::string, codegen::KernelFn> by_key_;
  std::map<std::string, codegen::KernelFn> packings_;  // by symbol
  void* handle_ = nullptr;
};

}  // namespace tunectl::kernels
