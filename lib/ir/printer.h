// Text form of the IR, for debugging (`tunectl compile-op --emit passes` prints
// the loop IR after each lowering pass), golden tests and error messages. The output is
// deterministic: variables print by name, immediates round-trip exactly
// (float32 as "%.9g" with an "f" suffix), so two printings of equal IR agree
// and a golden file changes only when the IR does.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/stmt.h"

namespace tunectl::ir {

// One line, parenthesised only where precedence needs it.
std::string to_string(const Expr& e);
// to_string(e) shared: the same node printed again (the simplifier orders
// index terms by their text, and meets each term many times) is looked up,
// not printed. Remembered per node for this thread's latest 16384 nodes.
std::shared_ptr<const std::string> shared_text(const Expr& e);
// One statement per line, blocks indented by two spaces, each line ending in
// a newline.
std::string to_string(const Stmt& s);
// "name[float32 * 4 * 16]": name, element type and shape.
std::string to_string(const Buffer& b);
// A tensor shape as messages and tables print it: "[1x3x224x224]", "[]" for
// a scalar.
std::string shape_to_string(const std::vector<int64_t>& shape);

std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);

}  // namespace tunectl::ir
