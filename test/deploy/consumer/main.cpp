// Runs the compiled small_cnn on a .npy input (C++ side of the install test)
// and prints its output as `tunectl run` prints one:
// "output float32 [1x10]: v0 ... v5 ...".
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "small_cnn.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  tunectl_model* m = tunectl_model_create(argv[1]);
  if (!m) {
    std::fprintf(stderr, "%s\n", tunectl_model_last_error());
    return 1;
  }
  std::ifstream in(argv[2], std::ios::binary);
  const std::string npy((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t bytes = tunectl_model_input_bytes(m, 0);
  if (npy.size() < bytes) return 1;
  const std::string data = npy.substr(npy.size() - bytes);  // the data ends the file
  std::vector<float> out(tunectl_model_output_bytes(m, 0) / sizeof(float));
  const void* inputs[] = {data.data()};
  void* outputs[] = {out.data()};
  if (tunectl_model_run(m, inputs, outputs) != 0) {
    std::fprintf(stderr, "%s\n", tunectl_model_last_error());
    return 1;
  }
  std::string shape;
  for (int d = 0; d < tunectl_model_output_rank(m, 0); ++d)
    shape += (d ? "x" : "") + std::to_string(tunectl_model_output_shape(m, 0)[d]);
  std::printf("%s %s [%s]:", tunectl_model_output_name(m, 0), tunectl_model_output_dtype(m, 0), shape.c_str());
  for (size_t i = 0; i < out.size() && i < 6; ++i) std::printf(" %.6g", out[i]);
  std::printf("%s\n", out.size() > 6 ? " ..." : "");
  tunectl_model_destroy(m);
  return 0;
}
