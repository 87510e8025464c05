#include "lower/interpreter.h"

#include "ir/error.h"
#include "lower/loop_interpreter.h"

namespace tunectl::lower {

void interpret(const LoweredFunc& func, const std::vector<runtime::NDArray*>& args) {
  internal_check(args.size() == func.args.size(), "interpret ", func.name, ": ", args.size(), " arrays for ",
                 func.args.size(), " arguments");
  LoopInterpreter in;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Buffer& b = func.args[i];
    internal_check(args[i]->dtype() == b->dtype && args[i]->shape() == b->shape, "interpret ", func.name,
                   ": array ", i, " does not match argument ", b->name);
    in.bind(b, args[i]);
  }
  in.exec(func.body);
}

void run_with_packing(const LoweredFunc& func, std::vector<runtime::NDArray*> args, const LoopRunner& run) {
  std::vector<runtime::NDArray> packed;
  packed.reserve(func.packings.size());
  for (const InputPacking& p : func.packings) {
    const ir::Buffer& b = func.args.at(p.arg);
    packed.emplace_back(b->dtype, b->shape);
    run(p.func, {args.at(p.arg), &packed.back()});
    args[p.arg] = &packed.back();
  }
  run(func, args);
}

}  // namespace tunectl::lower
