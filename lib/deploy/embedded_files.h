// Files that `tunectl compile MODEL` writes into a compiled model's folder
// or links into its library, carried inside the tunectl binary (so an
// installed tunectl needs no data folder beside it): the runtime archive
// built with tunectl (lib/deploy_runtime), the C API header and example.c.
#pragma once

#include <string_view>

namespace tunectl::deploy {

std::string_view runtime_archive();  // libtunectl_deploy_runtime.a: position-independent, no LLVM/ONNX/protobuf
std::string_view model_header();     // lib/deploy_runtime/tunectl_model.h
std::string_view example_source();   // lib/deploy_runtime/example.c; "@MODEL@" stands for the model's name

}  // namespace tunectl::deploy
