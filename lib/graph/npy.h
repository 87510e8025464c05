// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html),
// the array files Python users hand to `tunectl run` and get back from it.
// Little-endian data of the NDArray dtypes ('<f4', '|u1', '|b1', '<f2', ...),
// C or Fortran order on reading (written in C order, version 1.0).
#pragma once

#include <string>

#include "runtime/ndarray.h"

namespace tunectl::graph {

// UserError naming the file for a missing, truncated or malformed file, a
// big-endian or unsupported dtype ("'<c8' (complex64)"), or an object array.
runtime::NDArray read_npy(const std::string& path);
// SystemError when the file cannot be written.
void write_npy(const std::string& path, const runtime::NDArray& value);

}  // namespace tunectl::graph
