// The kernels folder: the deliverable of `tunectl tune` and `tunectl replay`
// (DESIGN.md "Kernels folder"). From the best record of each task alone
// (its DAG JSON and schedule steps; no model needed) it rebuilds the program,
// checks it against the reference evaluator on random inputs (on this
// machine when it runs the target's code, else in the backend's emulator:
// a CUDA folder is built and checked without a GPU), and writes
//   <dir>/<symbol>.o              llvm: one relocatable object per task
//   <dir>/libtunectl_kernels.so   llvm: all of them in one shared library
//   <dir>/<symbol>.cubin .cu .ptx cuda: per task the binary, its source and PTX
//   <dir>/manifest.json           the target and the features its code needs
//                                 (CPU features, or the GPU arch); per kernel:
//                                 task key and name, symbol, argument order
//                                 with shapes and dtypes, packing functions of
//                                 prepacked constants, launch configuration
//                                 (cuda), measured cost, the record it came from
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

#include "backend/backend.h"
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
  // How it is launched (backend::Backend::launch_config): null on the CPU;
  // grid, block and shared memory of a CUDA kernel.
  nlohmann::json launch;
  double cost_seconds = 0;  // median measured cost of the record
  log::Record record;       // the record it was built from
};

// What a kernels folder holds: kernels built for one target.
struct Manifest {
  std::string target;                 // target::Target::str()
  std::vector<std::string> features;  // instruction-set features its code may use
  std::string library;                // the shared library of all kernels; "" for cubins
  std::vector<KernelEntry> kernels;   // in workload-key order
};

// The symbol of a task's kernel: "tunectl_" + workload key (stable across
// runs and machines, a valid C identifier).
std::string kernel_symbol(const std::string& workload_key);

// Whether a kernel is checked against the reference evaluator before it is
// written (None: a log replayed and checked before, rewritten to compare files).
enum class KernelCheck { AgainstReference, None };

// Builds with `backend`, checks and writes every record (best records, one
// per task, e.g. log::best_records) into dir, which it replaces whole once
// everything is written (StagedFolder: complete or as it was, never half
// written; UserError for an existing folder that is not a kernels folder). UserError naming the task when a record
// is for another target, does not rebuild or computes a wrong answer.
Manifest write_kernel_cache(const std::vector<log::Record>& records, const std::string& dir,
                            const backend::Backend& backend, KernelCheck checking = KernelCheck::AgainstReference);

// Lowers `state` as kernel kernel_symbol(its workload key), checks it
// against the reference evaluator on random inputs (in the backend's
// emulator where this machine cannot run the target's code) and writes
// dir/<symbol><backend file suffix>. The entry's task name, cost and record
// are left empty. UserError for a wrong answer.
KernelEntry build_checked_kernel(const schedule::State& state, const std::string& dir, const backend::Backend& backend,
                                 KernelCheck checking = KernelCheck::AgainstReference);

nlohmann::json manifest_to_json(const Manifest& manifest);
// Reads <dir>/manifest.json; UserError when missing or malformed.
Manifest read_manifest(const std::string& dir);

// A kernels folder loaded with dlopen: kernels by workload key.
class KernelLibrary {
 public:
  // UserError when the folder, its manifest or its library is unusable, and
  // when this machine's CPU lacks a feature the manifest's target needs.
  explicit KernelLibrary(const std::string& dir);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  const Manifest& manifest() const { return manifest_; }
  // The kernel of a task, or nullptr when the folder has none for it.
  runtime::KernelFn find(const std::string& workload_key) const;
  // A packing function an entry lists (KernelPacking::symbol), or nullptr.
  runtime::KernelFn find_packing(const std::string& symbol) const;

 private:
  Manifest manifest_;
  std::map<std::string, runtime::KernelFn> by_key_;
  std::map<std::string, runtime::KernelFn> packings_;  // by symbol
  void* handle_ = nullptr;
};

}  // namespace tunectl::kernels
