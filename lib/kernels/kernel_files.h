// Private to lib/kernels: the file names of a kernels folder and the step
// that links its object files into one shared library with the system C
// compiler driver (shared_library_link.cpp). write_kernel_cache (writer side)
// and KernelLibrary/read_manifest (reader side) share these names.
#pragma once

#include <string>
#include <vector>

namespace tunectl::kernels {

inline constexpr const char* kLibraryName = "libtunectl_kernels.so";
inline constexpr const char* kManifestName = "manifest.json";

// Links dir/<object_names...> into dir/<output_name> with `$CC -shared`
// (default cc), run inside dir with relative names so that no folder path
// ends up in the output. UserError when no compiler can be started or the
// link fails, with the compiler's output.
void link_shared_library(const std::string& dir, const std::vector<std::string>& object_names,
                         const std::string& output_name);

}  // namespace tunectl::kernels
