// The manifest of a kernels folder (manifest.json): what write_kernel_cache
// writes last and what KernelLibrary and `tunectl bench` read first. One entry
// per kernel, in workload-key order, with the record it was built from, so a
// folder documents itself. nlohmann's json objects keep keys sorted, and
// nothing here depends on time or the machine, so the text is deterministic.
//
// Format version 4 (version 3 had no "launch" and always a library, version
// 2 no "target" and "features", version 1 no "packings"):
//   {"features": ["avx", "avx2", ...], "kernels": [{"args": [{"dtype": "float32", "name": "A", "shape": [64, 64]}, ...],
//                 "cost_seconds": 0.0012, "launch": null, "name": "matmul_64",
//                 "packings": [{"arg": 1, "input": {"dtype": ..., "name": "B", "shape": [64, 64]},
//                               "symbol": "tunectl_9f2c..._pack1"}, ...],
//                 "record": {...}, "symbol": "tunectl_9f2c...", "workload_key": "9f2c..."}, ...],
//    "library": "libtunectl_kernels.so", "target": "llvm -mcpu=znver4", "version": 4}
// A cuda folder has "library": "" (each kernel is its <symbol>.cubin) and per
// kernel "launch": {"block": [x, y, z], "dynamic_shared_bytes": 0, "grid": [x, y, z]}.
#include <cctype>
#include <filesystem>
#include <fstream>

#include "ir/error.h"
#include "kernels/kernel_cache.h"
#include "kernels/kernel_files.h"

namespace tunectl::kernels {

namespace {

constexpr int kManifestVersion = 4;

using nlohmann::json;

json arg_to_json(const KernelArg& a) { return json{{"name", a.name}, {"shape", a.shape}, {"dtype", a.dtype}}; }

KernelArg arg_from_json(const json& a) {
  return KernelArg{a.at("name").get<std::string>(), a.at("shape").get<std::vector<int64_t>>(),
                   a.at("dtype").get<std::string>()};
}

json entry_to_json(const KernelEntry& e) {
  json args = json::array();
  for (const KernelArg& a : e.args) args.push_back(arg_to_json(a));
  json packings = json::array();
  for (const KernelPacking& p : e.packings)
    packings.push_back(json{{"arg", p.arg}, {"symbol", p.symbol}, {"input", arg_to_json(p.input)}});
  return json{{"workload_key", e.workload_key},
              {"name", e.task_name},
              {"symbol", e.symbol},
              {"args", args},
              {"packings", packings},
              {"launch", e.launch},
              {"cost_seconds", e.cost_seconds},
              {"record", log::record_to_json(e.record)}};
}

KernelEntry entry_from_json(const json& j) {
  KernelEntry e;
  e.workload_key = j.at("workload_key").get<std::string>();
  e.task_name = j.at("name").get<std::string>();
  e.symbol = j.at("symbol").get<std::string>();
  for (const json& a : j.at("args")) e.args.push_back(arg_from_json(a));
  for (const json& p : j.at("packings")) {
    KernelPacking packing{p.at("arg").get<int>(), p.at("symbol").get<std::string>(), arg_from_json(p.at("input"))};
    user_check(packing.arg >= 0 && packing.arg < static_cast<int>(e.args.size()), "packing ", packing.symbol,
               " of argument ", packing.arg, ": the kernel has ", e.args.size(), " arguments");
    e.packings.push_back(std::move(packing));
  }
  e.launch = j.at("launch");
  e.cost_seconds = j.at("cost_seconds").get<double>();
  e.record = log::record_from_json(j.at("record"));
  // The symbol names a file and a function: it must be the one the key gives.
  user_check(e.symbol == kernel_symbol(e.workload_key), "symbol ", e.symbol, " does not match workload key ",
             e.workload_key);
  return e;
}

}  // namespace

std::string kernel_symbol(const std::string& workload_key) {
  // The key comes from a log file, so it must not smuggle a path or an
  // invalid identifier into file and symbol names.
  user_check(!workload_key.empty(), "empty workload key");
  for (char c : workload_key)
    user_check(std::isalnum(static_cast<unsigned char>(c)) || c == '_', "workload key '", workload_key,
               "' is not made of letters, digits and underscores");
  return "tunectl_" + workload_key;
}

nlohmann::json manifest_to_json(const Manifest& manifest) {
  json kernels = json::array();
  for (const KernelEntry& e : manifest.kernels) kernels.push_back(entry_to_json(e));
  return json{{"version", kManifestVersion}, {"library", manifest.library}, {"target", manifest.target},
              {"features", manifest.features}, {"kernels", kernels}};
}

Manifest read_manifest(const std::string& dir) {
  std::string path = (std::filesystem::path(dir) / kManifestName).string();
  std::ifstream in(path);
  user_check(in.good(), "cannot open ", path, " (not a kernels folder?)");
  try {
    json j = json::parse(in);
    int version = j.at("version").get<int>();
    user_check(version == kManifestVersion, "manifest version ", version, " is not supported (this build reads ",
               kManifestVersion, ")");
    Manifest manifest;
    manifest.library = j.at("library").get<std::string>();
    user_check(manifest.library.empty() || manifest.library == kLibraryName, "unexpected library name");
    manifest.target = j.at("target").get<std::string>();
    manifest.features = j.at("features").get<std::vector<std::string>>();
    for (const json& k : j.at("kernels")) {
      manifest.kernels.push_back(entry_from_json(k));
      user_check(manifest.kernels.back().record.task.target == manifest.target, "kernel ",
                 manifest.kernels.back().symbol, " was tuned for target '", manifest.kernels.back().record.task.target,
                 "', not the folder's '", manifest.target, "'");
    }
    return manifest;
  } catch (const json::exception& e) {
    user_fail(path, ": malformed manifest: ", e.what());
  } catch (const UserError& e) {
    user_fail(path, ": ", e.what());
  }
}

}  // namespace tunectl::kernels
