// Text form of the IR, for debugging (`tunectl compile --emit passes` prints
// the loop IR after each lowering pass), golden tests and error messages. The output is
// deterministic: variables print by name, immediates round-trip exactly
// (float32 as "%.9g" with an "f" suffix), so two printings of equal IR agree
// and a golden file changes only when the IR does.
#pragma once

#include <ostream>
#include <string>

#include "ir/expr.h"
#include "ir/stmt.h"

namespace tunectl::ir {

// One line, parenthesised only where precedence needs it.
std::string to_string(const Expr& e);
// One statement per line, blocks indented by two spaces, each line ending in
// a newline.
std::string to_string(const Stmt& s);
// "name[float32 * 4 * 16]": name, element type and shape.
std::string to_string(const Buffer& b);

std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);

}  // namespace tunectl::ir
