// Fuzz target: tuning-log bytes -> records -> each record's DAG and the
// state its steps replay to, as `tunectl replay LOG` and resume read a log.
#include <memory>

#include "fuzz_input.h"
#include "log/log_file.h"
#include "schedule/state.h"
#include "te/dag_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tunectl;
  const std::string path = fuzz::input_file(data, size, "log.json");
  fuzz::refusal_allowed([&] {
    for (const log::Record& r : log::read_log(path).records) {
      fuzz::refusal_allowed([&] {
        auto dag = std::make_shared<const te::ComputeDAG>(te::dag_from_json(r.task.dag));
        schedule::replay(dag, r.steps);
      });
    }
  });
  return 0;
}
