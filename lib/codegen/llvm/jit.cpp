#include "codegen/llvm/llvm_codegen.h"
