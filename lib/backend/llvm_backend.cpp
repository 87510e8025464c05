#include "backend/llvm_backend.h"

#include "codegen/llvm/llvm_codegen.h"
#include "ir/error.h"

namespace tunectl::backend {

target::Target resolve_llvm_target(const target::TargetSpec& spec, const std::string& text) {
  return codegen::resolve_cpu_target(spec, text);
}

std::unique_ptr<runtime::Kernel> LlvmBackend::build(const lower::LoweredFunc& func) const {
  return std::make_unique<codegen::JitKernel>(codegen::jit_compile(func, target()));
}

void LlvmBackend::write(const lower::LoweredFunc& func, const std::string& path) const {
  codegen::emit_object_file(func, target(), path);
}

std::string LlvmBackend::emit(const lower::LoweredFunc& func, const std::string& kind) const {
  if (kind == "llvm") return codegen::emit_llvm_ir(func, target());
  if (kind == "asm") return codegen::emit_assembly(func, target());
  internal_fail("the llvm backend cannot emit '", kind, "'");
}

schedule::State LlvmBackend::default_schedule(std::shared_ptr<const te::ComputeDAG> dag) const {
  return schedule::State::initial(std::move(dag));
}

std::optional<std::string> LlvmBackend::why_not_here() const {
  const std::vector<std::string> missing = codegen::missing_host_features(target());
  if (missing.empty()) return std::nullopt;
  std::string names;
  for (const std::string& f : missing) names += (names.empty() ? "" : ", ") + f;
  return "this machine's CPU lacks " + names + " (its own target is '" + resolve_target("llvm").str() + "')";
}

// The LLVM IR of a lowered function is the same for every CPU (generic
// intrinsics only; the target picks instructions and vector registers), so
// compiled for this machine's CPU it computes what the target's code would,
// far faster than the reference interpreter did (a BERT log's replay on a
// CPU without AVX-512: 5 minutes before, 18 s).
void LlvmBackend::emulate(const lower::LoweredFunc& func, const std::vector<runtime::NDArray*>& args) const {
  std::vector<void*> raw;
  for (runtime::NDArray* a : args) raw.push_back(a->raw());
  host_backend()->build(func)->pack_and_run(raw);
}

}  // namespace tunectl::backend
