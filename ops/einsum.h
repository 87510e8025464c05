// Einstein summation (ONNX Einsum): an equation such as "bij,bjk->bik" names
// each operand's axes with letters; the output's letters are its axes (or,
// without "->", the letters used once, in alphabetical order) and every other
// letter is summed over. "..." stands for the same leading axes in every
// operand. One compute op: the product of the operands' elements at the
// letters' positions, reduced over the summed letters, so matmul-like
// contractions, transposes, diagonals and traces are all one stage.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

te::Tensor einsum(const std::string& equation, const std::vector<te::Tensor>& operands,
                  const std::string& name = "einsum");

}  // namespace tunectl::ops
