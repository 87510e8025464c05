// Private to lib/kernels: the file names of a kernels folder.
// write_kernel_cache (writer side) and KernelLibrary/read_manifest (reader
// side) share these names.
#pragma once

namespace tunectl::kernels {

inline constexpr const char* kLibraryName = "libtunectl_kernels.so";
inline constexpr const char* kManifestName = "manifest.json";

}  // namespace tunectl::kernels
