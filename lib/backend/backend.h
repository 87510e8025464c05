// Backend: where a target plugs in (DESIGN.md "Lowering and code generation").
// After lowering, every place that compiles (the measurement worker, the
// kernels folder, the executor, the bench, `tunectl compile-op`) asks the backend
// of its target, never a code generator directly, so adding a target means
// one implementation of this interface and its resolve function below.
//
//   lowered function --build-->  runtime::Kernel (runs in this process)
//                    --write-->  a file in the kernels folder (an object file)
//                    --emit--->  text for people (LLVM IR, assembly)
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lower/lower.h"
#include "runtime/kernel.h"
#include "target/target.h"

namespace tunectl::backend {

class Backend {
 public:
  explicit Backend(target::Target target) : target_(std::move(target)) {}
  virtual ~Backend() = default;
  const target::Target& target() const { return target_; }

  // Compiles func into a kernel this process can run. InternalError when
  // code generation fails (the lowered function is valid by construction).
  virtual std::unique_ptr<runtime::Kernel> build(const lower::LoweredFunc& func) const = 0;
  // Writes func for the kernels folder to `path` (one exported symbol per
  // kernel and packing function). UserError when the file cannot be written.
  virtual void write(const lower::LoweredFunc& func, const std::string& path) const = 0;
  // The file name suffix write() uses (".o", ".cubin").
  virtual std::string file_suffix() const = 0;
  // Whether build() compiles code for a device beside the host (cuda):
  // measurement records its failures as compile_device_error, not
  // compile_host_error.
  virtual bool builds_device_code() const = 0;
  // Whether write() makes relocatable objects that the kernels folder links
  // into one shared library (llvm), or files loaded one by one (cuda).
  virtual bool links_objects() const = 0;
  // How func is launched, for the kernels manifest: null where a kernel is
  // a plain function call (llvm); grid, block and shared memory (cuda).
  virtual nlohmann::json launch_config(const lower::LoweredFunc& func) const = 0;
  // What emit() can show, and the text of one of them.
  virtual std::vector<std::string> emit_kinds() const = 0;
  virtual std::string emit(const lower::LoweredFunc& func, const std::string& kind) const = 0;
  // The schedule of a task nothing better is known for (no log record):
  // the DAG as written (llvm), schedule/gpu_default_schedule.h (cuda).
  virtual schedule::State default_schedule(std::shared_ptr<const te::ComputeDAG> dag) const = 0;
  // Why this machine cannot run the target's code ("this machine's CPU
  // lacks avx512f ..."), or nullopt when it can.
  virtual std::optional<std::string> why_not_here() const = 0;
  // UserError "<what> code for target '<target>', but <why_not_here>"
  // (`what` says what was about to run it: "tune measures", "bench runs").
  void check_runs_here(const std::string& what) const;
  // Runs func on this machine's CPU with the target's semantics, needing
  // none of its hardware: the same program compiled for this CPU for llvm
  // (another CPU's target), the GPU emulator (lower/gpu_emulator.h) for cuda. args in
  // LoweredFunc::args order, packed inputs in their placeholder layout.
  virtual void emulate(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args) const = 0;
  // emulate() of a sample of the work where the target's code has one to
  // take (a GPU kernel's grid: `max_blocks` of its blocks, gpu_emulator.h),
  // leaving the rest of the outputs as they were; whether it sampled. For
  // checks of kernels too big to emulate whole.
  virtual bool emulate_sample(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args,
                              int64_t max_blocks) const;

 private:
  target::Target target_;
};

// How checks run func on host arrays (LoweredFunc::args order, packed
// inputs in their placeholder layout): the kernel build() makes when this
// machine runs the target's code, else the backend's emulate().
// With `sample` (a workload too big to emulate whole, check::emulate_in_part),
// an emulated run covers kSampledBlocks blocks of a GPU kernel: `partial`
// says so, and the check compares the outputs those blocks wrote.
struct CheckRun {
  std::function<void(const std::vector<runtime::NDArray*>&)> run;
  std::optional<std::string> emulated_because;  // why_not_here() when emulated
  bool partial = false;
};
constexpr int64_t kSampledBlocks = 8;
CheckRun check_run(const Backend& backend, const lower::LoweredFunc& func, bool sample = false);

// A kernel that runs func in the backend's emulate() on copies of its
// arguments: slow, but it runs a target's code (a whole model's, with
// `run --emulate`) where this machine cannot. Prepacked inputs are taken in
// their placeholder layout and packed on every call (packed_args is empty).
std::unique_ptr<runtime::Kernel> emulated_kernel(std::shared_ptr<const Backend> backend, lower::LoweredFunc func);

// Parses and resolves a target string ("llvm", "llvm -mcpu=x86-64-v3", ...;
// target.h) with the backend of its kind. UserError for a bad string.
target::Target resolve_target(const std::string& text);

// The backend of a resolved target.
std::unique_ptr<Backend> make_backend(const target::Target& target);

// The backend of the host CPU ("llvm"), made once: the default of the
// executor and the measurer when their caller names no target.
std::shared_ptr<const Backend> host_backend();

}  // namespace tunectl::backend
