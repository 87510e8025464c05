#include "graph/specialize.h"

#include <algorithm>

#include "graph/convert.h"
#include "graph/partition.h"
#include "graph/passes.h"
#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::graph {

namespace {

// One --bind value of the input's dtype, or a UserError naming the input.
void parse_value(const std::string& input, const std::string& text, runtime::NDArray& array, int64_t i) {
  const ir::DType dtype = array.dtype();
  size_t used = 0;
  try {
    if (dtype == ir::DType::Bool && (text == "true" || text == "false")) {
      array.set_int(i, text == "true");
      return;
    }
    if (ir::is_float(dtype)) {
      const double v = std::stod(text, &used);
      if (used == text.size()) array.set(i, v);
    } else {
      const long long v = std::stoll(text, &used);
      if (used == text.size()) {
        user_check(dtype != ir::DType::Bool || v == 0 || v == 1, "--bind ", input, ": '", text,
                   "' is not a bool (0, 1, true or false)");
        user_check(ir::wrap_to(dtype, v) == v, "--bind ", input, ": ", text, " does not fit ", ir::to_string(dtype));
        array.set_int(i, v);
      }
    }
  } catch (const std::logic_error&) {  // stod/stoll: not a number or out of range
    used = 0;
  }
  user_check(used == text.size() && used > 0, "--bind ", input, ": '", text, "' is not a ",
             ir::to_string(dtype), " value");
}

}  // namespace

InputValues bound_values(const Graph& imported, const ImportOptions& options) {
  InputValues out;
  for (const auto& [name, texts] : options.bindings) {
    user_check(std::find(imported.inputs.begin(), imported.inputs.end(), name) != imported.inputs.end(), "--bind ",
               name, ": the model has no input of that name");
    const ValueInfo& info = imported.info(name);
    runtime::NDArray array(info.dtype, info.shape);
    user_check(array.num_elements() == static_cast<int64_t>(texts.size()), "--bind ", name, " gives ", texts.size(),
               " values, but input '", name, "' of shape ", ir::shape_to_string(info.shape), " holds ",
               array.num_elements());
    for (size_t i = 0; i < texts.size(); ++i) parse_value(name, texts[i], array, static_cast<int64_t>(i));
    out.emplace(name, std::move(array));
  }
  return out;
}

Graph specialize(const Graph& imported, const InputValues& known) {
  InputValues bound;
  for (;;) {
    // Converting every node (to infer shapes while simplifying, and to
    // partition) is what tells which inputs decide shapes.
    try {
      Graph g = simplify_graph(bind_inputs(imported, bound));
      partition(g);
      return g;
    } catch (const ShapeInputError& e) {
      size_t added = 0;
      for (const std::string& name : e.inputs) {
        auto it = known.find(name);
        if (it != known.end() && !bound.count(name)) added += bound.emplace(name, it->second).second;
      }
      if (added == 0) throw;
    }
  }
}

}  // namespace tunectl::graph
