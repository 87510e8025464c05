#include "target/target.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/error.h"

namespace tunectl::target {

const char* to_string(TargetKind kind) {
  switch (kind) {
#define TUNECTL_TARGET_KIND_CASE(name, text) \
  case TargetKind::name:                     \
    return text;
    TUNECTL_TARGET_KINDS(TUNECTL_TARGET_KIND_CASE)
#undef TUNECTL_TARGET_KIND_CASE
  }
  return "?";
}

namespace {

TargetKind kind_from_string(const std::string& text, const std::string& whole) {
#define TUNECTL_TARGET_KIND_MATCH(name, str) \
  if (text == str) return TargetKind::name;
  TUNECTL_TARGET_KINDS(TUNECTL_TARGET_KIND_MATCH)
#undef TUNECTL_TARGET_KIND_MATCH
  user_fail("unknown target '", whole, "' (expected llvm or cuda, e.g. \"llvm -mcpu=x86-64-v3\", \"cuda -arch=sm_90\")");
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

// The data (or unified) cache of this level as the kernel describes the
// first CPU's caches, else sysconf, else fallback. The kernel's figure comes
// first because glibc's sysconf can report the L3 of the whole package
// (384 MiB on the Zen 5 virtual machine here) where a core reaches only its
// own complex's 32 MiB.
int64_t cache_size(int level, int sysconf_name, int64_t fallback) {
  for (int index = 0;; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level");
    if (!level_file) break;
    int l = 0;
    std::string type, size;
    level_file >> l;
    std::ifstream(dir + "type") >> type;
    std::ifstream(dir + "size") >> size;  // "32768K"
    if (l != level || type == "Instruction" || size.empty()) continue;
    const int64_t value = std::atoll(size.c_str());
    const char unit = size.back();
    const int64_t bytes = unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : value;
    if (bytes > 0) return bytes;
  }
  const long v = sysconf(sysconf_name);
  return v > 0 ? v : fallback;
}

}  // namespace

TargetSpec parse_target_string(const std::string& text) {
  std::istringstream in(text);
  std::string word;
  user_check(static_cast<bool>(in >> word), "empty target (expected llvm or cuda, e.g. \"llvm -mcpu=znver4\")");
  TargetSpec spec;
  spec.kind = kind_from_string(word, text);
  while (in >> word) {
    const size_t eq = word.find('=');
    const std::string key = word.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
    user_check(!value.empty(), "target '", text, "': '", word, "' needs a value (-mcpu=NAME or -mattr=+a,-b)");
    const bool cuda = spec.kind == TargetKind::Cuda;
    if (cuda && key == "-arch") {
      user_check(spec.arch.empty(), "target '", text, "': -arch given twice");
      spec.arch = value;
    } else if (!cuda && key == "-mcpu") {
      user_check(spec.cpu.empty(), "target '", text, "': -mcpu given twice");
      spec.cpu = value;
    } else if (!cuda && key == "-mattr") {
      for (const std::string& f : split(value, ',')) {
        user_check(f.size() > 1 && (f[0] == '+' || f[0] == '-'), "target '", text, "': feature '", f,
                   "' must start with + or - (e.g. -mattr=+avx2,-avx512f)");
        spec.mattr.push_back(f);
      }
    } else {
      user_fail("target '", text, "': unknown option '", key, "' (",
                cuda ? "cuda takes -arch=sm_NN" : "llvm takes -mcpu= and -mattr=", ")");
    }
  }
  return spec;
}

std::string Target::str() const {
  if (kind == TargetKind::Cuda) return "cuda -arch=" + gpu.arch;
  std::string s = std::string(to_string(kind)) + " -mcpu=" + cpu;
  for (size_t i = 0; i < mattr.size(); ++i) s += (i ? "," : " -mattr=") + mattr[i];
  return s;
}

bool Target::has_feature(const std::string& feature) const {
  return std::binary_search(features.begin(), features.end(), feature);
}

int host_cores() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? std::max(1, CPU_COUNT(&set)) : 1;
}

void fill_host_facts(Target& target) {
  target.cores = host_cores();
  target.l1d_bytes = cache_size(1, _SC_LEVEL1_DCACHE_SIZE, target.l1d_bytes);
  target.l2_bytes = cache_size(2, _SC_LEVEL2_CACHE_SIZE, target.l2_bytes);
  target.l3_bytes = cache_size(3, _SC_LEVEL3_CACHE_SIZE, target.l3_bytes);
}

}  // namespace tunectl::target
