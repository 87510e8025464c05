#include "codegen/cuda/nvrtc.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <regex>
#include <sstream>

#include "codegen/cuda/compile_process.h"
#include "ir/error.h"
#include "runtime/cuda_library.h"

namespace tunectl::codegen::cuda {

namespace {

// The part of nvrtc.h tunectl calls, declared here so the build needs no
// toolkit.
using nvrtcResult = int;
using nvrtcProgram = struct nvrtcProgramOpaque*;

struct Nvrtc {
  void* handle = nullptr;
  std::string why;  // why handle is null
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
};

// NVRTC opens libnvrtc-builtins.so.<version> by name when it compiles, which
// the loader finds only where the toolkit's folder is on its path. Opened
// here first from NVRTC's own folder, it is found loaded, wherever that is.
void preload_builtins(const Nvrtc& n) {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(n.Version), &info) || !info.dli_fname) return;
  const std::string dir = std::filesystem::path(info.dli_fname).parent_path().string();
  int major = 0, minor = 0;
  n.Version(&major, &minor);
  const std::string name = "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor);
  dlopen((dir + "/" + name).c_str(), RTLD_NOW | RTLD_GLOBAL);  // if missing, NVRTC's own error says so
}

template <typename F>
void bind(Nvrtc& n, F& f, const char* name) {
  runtime::bind_symbol(n.handle, f, name, "libnvrtc.so.13", n.why);
}

const Nvrtc& nvrtc() {
  static const Nvrtc lib = [] {
    Nvrtc n;
    n.handle = runtime::open_cuda_library("libnvrtc.so.13", n.why);
    if (!n.handle) {
      n.why = "NVRTC: " + n.why;
      return n;
    }
    bind(n, n.GetErrorString, "nvrtcGetErrorString");
    bind(n, n.Version, "nvrtcVersion");
    bind(n, n.CreateProgram, "nvrtcCreateProgram");
    bind(n, n.DestroyProgram, "nvrtcDestroyProgram");
    bind(n, n.CompileProgram, "nvrtcCompileProgram");
    bind(n, n.GetProgramLogSize, "nvrtcGetProgramLogSize");
    bind(n, n.GetProgramLog, "nvrtcGetProgramLog");
    bind(n, n.GetPTXSize, "nvrtcGetPTXSize");
    bind(n, n.GetPTX, "nvrtcGetPTX");
    bind(n, n.GetCUBINSize, "nvrtcGetCUBINSize");
    bind(n, n.GetCUBIN, "nvrtcGetCUBIN");
    if (!n.why.empty()) n.handle = nullptr;
    if (n.handle) preload_builtins(n);
    return n;
  }();
  return lib;
}

const Nvrtc& checked_nvrtc() {
  const Nvrtc& n = nvrtc();
  user_check(n.handle != nullptr, n.why);
  return n;
}

void check_call(const Nvrtc& n, nvrtcResult r, const char* call, const std::string& name) {
  internal_check(r == 0, "NVRTC ", call, " failed for ", name, ": ", n.GetErrorString(r));
}

// Owns one NVRTC program.
class Program {
 public:
  Program(const Nvrtc& n, const std::string& source, const std::string& name) : n_(n) {
    check_call(n_, n_.CreateProgram(&prog_, source.c_str(), name.c_str(), 0, nullptr, nullptr), "CreateProgram", name);
  }
  ~Program() { n_.DestroyProgram(&prog_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return prog_; }

 private:
  const Nvrtc& n_;
  nvrtcProgram prog_ = nullptr;
};

}  // namespace

bool nvrtc_available(std::string* why) {
  const Nvrtc& n = nvrtc();
  if (!n.handle && why) *why = n.why;
  return n.handle != nullptr;
}

std::string nvrtc_version() {
  const Nvrtc& n = checked_nvrtc();
  int major = 0, minor = 0;
  n.Version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::map<std::string, KernelResources> parse_ptxas_report(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::map<std::string, KernelResources> out;
  KernelResources* current = nullptr;
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      current = &out[m[1].str()];
      continue;
    }
    if (!current) continue;
    if (std::regex_search(line, m, frame)) {
      current->stack_bytes = std::stoll(m[1].str());
      current->spill_store_bytes = std::stoll(m[2].str());
      current->spill_load_bytes = std::stoll(m[3].str());
    }
    if (std::regex_search(line, m, used)) current->registers = std::stoi(m[1].str());
    if (std::regex_search(line, m, smem)) current->shared_bytes = std::stoll(m[1].str());
  }
  return out;
}

namespace {

CompiledCuda compile_here(const CompileRequest& request) {
  const Nvrtc& n = checked_nvrtc();
  const std::string& name = request.name;
  const std::string& source = request.source;
  const std::string& arch = request.arch;
  Program program(n, source, name + ".cu");
  const std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str(), "--std=c++17", "--ptxas-options=-v"};
  const nvrtcResult compiled = n.CompileProgram(program.get(), 3, options);
  CompiledCuda out;
  size_t size = 0;
  check_call(n, n.GetProgramLogSize(program.get(), &size), "GetProgramLogSize", name);
  out.log.resize(size);
  check_call(n, n.GetProgramLog(program.get(), out.log.data()), "GetProgramLog", name);
  while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
  // A compilation error is tunectl's (generated code must compile); any
  // other failure is the toolkit's installation.
  constexpr nvrtcResult kCompilationError = 6;
  internal_check(compiled != kCompilationError, "NVRTC cannot compile the generated kernel ", name, " for ", arch,
                 ":\n", out.log, "\nsource:\n", source);
  user_check(compiled == 0, "NVRTC fails (", n.GetErrorString(compiled), "): ", out.log,
             " (is the CUDA Toolkit installed completely?)");
  check_call(n, n.GetPTXSize(program.get(), &size), "GetPTXSize", name);
  out.ptx.resize(size);
  check_call(n, n.GetPTX(program.get(), out.ptx.data()), "GetPTX", name);
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  check_call(n, n.GetCUBINSize(program.get(), &size), "GetCUBINSize", name);
  out.cubin.resize(size);
  check_call(n, n.GetCUBIN(program.get(), out.cubin.data()), "GetCUBIN", name);
  out.resources = parse_ptxas_report(out.log);
  return out;
}

}  // namespace

void start_nvrtc_helper() {
  if (!compiles_in_helper() || !nvrtc_available()) return;
  start_helper(compile_here);
}

CompiledCuda nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) {
  // Loaded before a helper is forked: dlopen in the child of a threaded
  // process could wait forever on a lock another thread held at the fork.
  checked_nvrtc();
  // NVRTC keeps global state that is not documented as thread-safe, and a
  // helper serves one request at a time.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const CompileRequest request{source, name, arch};
  if (!compiles_in_helper()) return compile_here(request);
  CompiledCuda out = compile_in_helper(request, compile_here);
  out.resources = parse_ptxas_report(out.log);
  return out;
}

}  // namespace tunectl::codegen::cuda
