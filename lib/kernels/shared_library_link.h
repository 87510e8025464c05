// The last build step of a kernels folder and of a compiled model: object
// files (and sources, archives) linked into one shared library by the system
// C compiler driver (shared_library_link.cpp).
#pragma once

#include <string>
#include <vector>

namespace tunectl::kernels {

// Links dir/<inputs...> (objects, C sources, archives) into dir/<output_name>
// with `$CC -shared` (default cc) and then `flags` (e.g. "-lstdc++"), run
// inside dir with relative names so that no folder path ends up in the
// output. UserError when no compiler can be started or the link fails, with
// the compiler's output.
void link_shared_library(const std::string& dir, const std::vector<std::string>& inputs,
                         const std::string& output_name, const std::vector<std::string>& flags = {});

}  // namespace tunectl::kernels
