#include "graph/executor.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "backend/backend.h"
#include "graph/concat_views.h"
#include "graph/convert.h"
#include "graph/memory_plan.h"
#include "ir/error.h"
#include "ir/printer.h"
#include "lower/lower.h"
#include "runtime/host_memory.h"

namespace tunectl::graph {

namespace {

// Where the bytes of a value live while the model runs.
enum class Home : uint8_t { Input, Constant, Arena };

struct ValueSlot {
  Home home = Home::Arena;
  size_t offset = 0;  // Arena only
};

// One kernel argument list per subgraph: which value each argument is, in
// LoweredFunc::args order (DAG placeholders, then DAG outputs). A prepacked
// constant is packed once, when the executor is built, into `packed`. Every
// address is bound once too, but those of graph inputs, which each run
// patches in: a run does no lookups.
struct Launch {
  const runtime::Kernel* kernel = nullptr;
  std::vector<std::string> args;
  std::vector<runtime::NDArray> packed;
  std::vector<void*> packed_address;  // per argument: its packed copy, or nullptr
  std::vector<void*> bound;           // per argument: its address
  std::vector<std::pair<size_t, std::string>> graph_inputs;  // (argument, graph input) to patch per run
};

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};

// An allocation in a kernel's device memory, released with it.
class DeviceBuffer {
 public:
  DeviceBuffer(const runtime::DeviceMemory& memory, size_t bytes) : memory_(&memory), p_(memory.allocate(bytes)) {}
  ~DeviceBuffer() { memory_->release(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return p_; }

 private:
  const runtime::DeviceMemory* memory_;
  void* p_;
};

}  // namespace

std::string subgraph_kernel_symbol(const std::string& subgraph_name) {
  std::string s = "sg_" + subgraph_name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return s;
}

struct Executor::Impl {
  Graph graph;
  std::vector<Subgraph> subgraphs;
  ExecutorOptions options;
  std::map<std::string, std::unique_ptr<runtime::Kernel>> kernels;  // by workload key
  std::vector<Launch> launches;                       // one per subgraph
  std::map<std::string, ValueSlot> slots;
  MemoryPlan plan;
  std::unique_ptr<uint8_t, FreeDeleter> arena;
  std::vector<runtime::Timing> times;  // per subgraph, one entry per profiled run
  // Where the kernels keep their arguments between calls (a GPU's memory),
  // or nullptr for the host. On a device the model's constants are uploaded
  // once, the arena and a buffer per graph input live there, and a run
  // copies only its inputs in and its outputs out.
  const runtime::DeviceMemory* device = nullptr;
  std::unique_ptr<DeviceBuffer> device_arena;
  std::map<std::string, std::unique_ptr<DeviceBuffer>> device_values;  // constants and graph inputs
  // Every launch recorded once (on a device, every argument is fixed when
  // the model loads), replayed by each run; nullptr: launch one by one.
  std::unique_ptr<runtime::LaunchGraph> graph_of_launches;

  void compile();
  void choose_memory();
  void plan_values();
  void pack_constants();
  void bind_arguments();
  void record_launches();
  // Runs (on a device: queues) every subgraph's kernel in order.
  void launch_each(const std::map<std::string, runtime::NDArray>& inputs);
  void check_inputs(const std::map<std::string, runtime::NDArray>& inputs) const;
  void* address(const std::string& value, const std::map<std::string, runtime::NDArray>& inputs);
};

void Executor::Impl::compile() {
  std::shared_ptr<const backend::Backend> backend = options.backend ? options.backend : backend::host_backend();
  for (const auto& sg : subgraphs) {
    internal_check(sg.dag != nullptr, "subgraph ", sg.name, " has no ComputeDAG");
    const std::string key = sg.dag->workload_key();
    auto it = kernels.find(key);
    if (it == kernels.end()) {
      std::optional<schedule::State> state = options.schedule ? options.schedule(sg.dag) : std::nullopt;
      if (!state) state = backend->default_schedule(sg.dag);
      lower::LoweredFunc func = lower::lower(*state, subgraph_kernel_symbol(sg.name), backend->target());
      it = kernels.emplace(key, options.emulate ? backend::emulated_kernel(backend, std::move(func)) : backend->build(func))
               .first;
    }
    // The partitioner promises placeholders in `inputs` order and outputs in
    // `outputs` order; check it, since a mix-up would silently swap buffers.
    const auto placeholders = sg.dag->placeholders();
    const auto& outs = sg.dag->outputs();
    internal_check(placeholders.size() == sg.inputs.size() && outs.size() == sg.outputs.size(), "subgraph ",
                   sg.name, ": ", placeholders.size(), " placeholders and ", outs.size(), " outputs for ",
                   sg.inputs.size(), " inputs and ", sg.outputs.size(), " outputs");
    Launch launch;
    launch.kernel = it->second.get();
    auto add_arg = [&](const te::Tensor& t, const std::string& value) {
      const ValueInfo& info = graph.info(value);
      internal_check(t->shape() == te_shape(info.shape) && t->dtype() == info.dtype, "subgraph ", sg.name, ": tensor ",
                     t->name, " ", ir::to_string(t->dtype()), ir::shape_to_string(t->shape()), " does not fit value ",
                     value, " ", ir::to_string(info.dtype), ir::shape_to_string(info.shape));
      launch.args.push_back(value);
    };
    for (size_t i = 0; i < placeholders.size(); ++i) add_arg(placeholders[i], sg.inputs[i]);
    for (size_t i = 0; i < outs.size(); ++i) add_arg(outs[i], sg.outputs[i]);
    launches.push_back(std::move(launch));
  }
}

void Executor::Impl::choose_memory() {
  for (const Launch& l : launches) {
    internal_check(l.kernel->device_memory() == launches.front().kernel->device_memory(),
                   "the kernels of one model run in different memories");
  }
  if (!launches.empty()) device = launches.front().kernel->device_memory();
  if (!device) return;
  for (const auto& [name, value] : graph.constants) {
    auto buffer = std::make_unique<DeviceBuffer>(*device, value.num_bytes());
    device->upload(buffer->get(), value.raw(), value.num_bytes());
    device_values.emplace(name, std::move(buffer));
  }
  for (const auto& name : graph.inputs)
    device_values.emplace(name, std::make_unique<DeviceBuffer>(*device, value_bytes(graph.info(name))));
}

void Executor::Impl::plan_values() {
  for (const auto& name : graph.inputs) slots[name] = {Home::Input, 0};
  for (const auto& [name, value] : graph.constants) {
    // Kernels read constants in place, so their bytes must be what the DAG expects.
    internal_check(value.dtype() == graph.info(name).dtype && value.num_bytes() == value_bytes(graph.info(name)),
                   "constant ", name, " does not match its value info");
    slots[name] = {Home::Constant, 0};
  }
  // A placed Concat's output is one buffer and each of its inputs a run of
  // it (concat_views): the buffer lives from its first part's kernel to the
  // last reader of it or of any part.
  std::map<std::string, std::pair<std::string, size_t>> part_of;  // part -> (the Concat's output, byte offset)
  const std::vector<ConcatView> views = concat_views(graph);
  for (const ConcatView& v : views)
    for (const ConcatView::Part& p : v.parts) part_of[p.value] = {v.output, p.offset};
  auto buffer_of = [&](const std::string& value) {
    auto it = part_of.find(value);
    return it == part_of.end() ? value : it->second.first;
  };
  // Lifetimes of the buffers, in subgraph order; graph outputs live to the end.
  std::vector<std::string> names;
  std::vector<BufferLifetime> lifetimes;
  std::map<std::string, size_t> index;
  const int end = static_cast<int>(subgraphs.size());
  for (int s = 0; s < end; ++s) {
    for (const auto& in : subgraphs[s].inputs) {
      if (slots.count(in) && slots[in].home != Home::Arena) continue;
      auto it = index.find(buffer_of(in));
      internal_check(it != index.end(), "subgraph ", subgraphs[s].name, " reads ", in,
                     ", which is neither a graph input, a constant nor an earlier subgraph's output");
      lifetimes[it->second].last = s;
    }
    for (const auto& out : subgraphs[s].outputs) {
      internal_check(!slots.count(out), "value ", out, " is defined twice");
      slots[out] = {Home::Arena, 0};
      const std::string buffer = buffer_of(out);
      internal_check(buffer == out || !slots.count(buffer), "value ", buffer, " is computed by a kernel and placed");
      if (index.emplace(buffer, names.size()).second) {
        names.push_back(buffer);
        lifetimes.push_back({value_bytes(graph.info(buffer)), s, s});
      }
      lifetimes[index[buffer]].last = s;
    }
  }
  for (const ConcatView& v : views) {
    for (const ConcatView::Part& p : v.parts)
      internal_check(slots.count(p.value), "no subgraph computes ", p.value, ", a part of ", v.output);
    slots[v.output] = {Home::Arena, 0};
  }
  for (const auto& out : graph.outputs) {
    internal_check(slots.count(out), "graph output ", out, " is produced by no subgraph");
    if (auto it = index.find(buffer_of(out)); it != index.end()) lifetimes[it->second].last = end;
  }
  plan = plan_memory(lifetimes);
  for (size_t i = 0; i < names.size(); ++i) slots[names[i]].offset = plan.offsets[i];
  for (const auto& [part, place] : part_of) slots[part].offset = slots[place.first].offset + place.second;
  const size_t bytes = std::max<size_t>(plan.arena_bytes, kBufferAlignment);
  if (device) {
    device_arena = std::make_unique<DeviceBuffer>(*device, bytes);
    return;
  }
  arena.reset(runtime::allocate_host(bytes));
}

void Executor::Impl::pack_constants() {
  for (size_t s = 0; s < launches.size(); ++s) {
    Launch& l = launches[s];
    l.packed_address.assign(l.args.size(), nullptr);
    const std::vector<int> packed_args = l.kernel->packed_args();
    if (packed_args.empty()) continue;
    internal_check(!device, "subgraph ", subgraphs[s].name, " takes prepacked constants on a device");
    std::vector<void*> raw(l.args.size(), nullptr);
    for (int a : packed_args) {
      internal_check(slots.at(l.args[a]).home == Home::Constant, "subgraph ", subgraphs[s].name, " takes ",
                     l.args[a], " prepacked, but it is not a constant");
      raw[a] = graph.constants.at(l.args[a]).raw();
    }
    raw = l.kernel->pack_inputs(std::move(raw), l.packed);
    for (int a : packed_args) l.packed_address[a] = raw[a];
  }
}

void Executor::Impl::bind_arguments() {
  for (Launch& l : launches) {
    l.bound.assign(l.args.size(), nullptr);
    for (size_t a = 0; a < l.args.size(); ++a) {
      if (l.packed_address[a]) {
        l.bound[a] = l.packed_address[a];
      } else if (slots.at(l.args[a]).home == Home::Input && !device) {
        l.graph_inputs.emplace_back(a, l.args[a]);
      } else {
        l.bound[a] = address(l.args[a], {});
      }
    }
  }
}

void Executor::Impl::record_launches() {
  if (!device || options.profile || !options.launch_graph) return;
  graph_of_launches = device->capture([&] {
    for (const Launch& l : launches) l.kernel->launch(l.bound.data());
  });
}

void Executor::Impl::launch_each(const std::map<std::string, runtime::NDArray>& inputs) {
  for (size_t s = 0; s < launches.size(); ++s) {
    Launch& l = launches[s];
    // Kernels never write their inputs, so the caller's arrays are read in place.
    for (const auto& [a, name] : l.graph_inputs) l.bound[a] = const_cast<void*>(inputs.at(name).raw());
    // On a device, kernels are queued back to back; a profiled run waits
    // for each (so its times include the launch).
    auto call = [&] { device ? l.kernel->launch(l.bound.data()) : l.kernel->run(l.bound.data()); };
    if (options.profile) {
      const auto start = std::chrono::steady_clock::now();
      call();
      if (device) device->synchronize();
      times[s].seconds_per_call.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    } else {
      call();
    }
  }
}

void Executor::Impl::check_inputs(const std::map<std::string, runtime::NDArray>& inputs) const {
  for (const auto& [name, value] : inputs) {
    bool known = false;
    for (const auto& in : graph.inputs) known = known || in == name;
    if (!known) {
      std::string expected;
      for (const auto& in : graph.inputs) expected += (expected.empty() ? "" : ", ") + in;
      user_fail("unknown input '", name, "'; the model's inputs are: ", expected.empty() ? "(none)" : expected);
    }
  }
  for (const auto& name : graph.inputs) {
    auto it = inputs.find(name);
    const ValueInfo& info = graph.info(name);
    user_check(it != inputs.end(), "missing input '", name, "' (", ir::to_string(info.dtype), " ",
               ir::shape_to_string(info.shape), ")");
    user_check(it->second.shape() == info.shape, "input '", name, "' has shape ", ir::shape_to_string(it->second.shape()),
               "; the model expects ", ir::shape_to_string(info.shape));
    user_check(it->second.dtype() == info.dtype, "input '", name, "' has dtype ", ir::to_string(it->second.dtype()),
               "; the model expects ", ir::to_string(info.dtype));
  }
}

void* Executor::Impl::address(const std::string& value, const std::map<std::string, runtime::NDArray>& inputs) {
  const ValueSlot& slot = slots.at(value);
  if (device) return slot.home == Home::Arena ? static_cast<uint8_t*>(device_arena->get()) + slot.offset
                                              : device_values.at(value)->get();
  switch (slot.home) {
    case Home::Input:
      // Kernels never write their inputs, so the caller's array is read in place.
      return const_cast<void*>(inputs.at(value).raw());
    case Home::Constant:
      return graph.constants.at(value).raw();
    case Home::Arena:
      return arena.get() + slot.offset;
  }
  internal_fail("unknown value home");
}

Executor::Executor(Graph graph, std::vector<Subgraph> subgraphs, ExecutorOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->graph = std::move(graph);
  impl_->subgraphs = std::move(subgraphs);
  impl_->options = std::move(options);
  impl_->compile();
  impl_->choose_memory();
  impl_->plan_values();
  impl_->pack_constants();
  impl_->bind_arguments();
  impl_->record_launches();
  impl_->times.resize(impl_->subgraphs.size());
}

Executor::~Executor() = default;
Executor::Executor(Executor&&) noexcept = default;

std::map<std::string, runtime::NDArray> Executor::run(const std::map<std::string, runtime::NDArray>& inputs) {
  Impl& m = *impl_;
  m.check_inputs(inputs);
  if (m.device) {
    for (const auto& [name, value] : inputs) m.device->upload(m.device_values.at(name)->get(), value.raw(), value.num_bytes());
  }
  if (m.graph_of_launches) {
    m.graph_of_launches->launch();
  } else {
    m.launch_each(inputs);
  }
  std::map<std::string, runtime::NDArray> outputs;
  for (const auto& name : m.graph.outputs) {
    const ValueInfo& info = m.graph.info(name);
    runtime::NDArray out(info.dtype, info.shape);
    if (m.device) {
      m.device->download(out.raw(), m.address(name, inputs), out.num_bytes());
    } else {
      std::memcpy(out.raw(), m.address(name, inputs), out.num_bytes());
    }
    outputs.emplace(name, std::move(out));
  }
  return outputs;
}

std::vector<SubgraphTime> Executor::time_kernels_alone(const std::map<std::string, runtime::NDArray>& inputs,
                                                       const runtime::TimingOptions& timing) {
  Impl& m = *impl_;
  internal_check(!m.device, "time_kernels_alone: the kernels run on a device");
  run(inputs);  // also binds the graph inputs
  std::vector<SubgraphTime> times;
  for (size_t s = 0; s < m.launches.size(); ++s) {
    const Launch& l = m.launches[s];
    std::vector<std::span<const std::byte>> constants;
    std::vector<runtime::HandedOver> activations;
    for (const runtime::NDArray& packed : l.packed) constants.push_back(packed.bytes());
    const size_t inputs_of_kernel = m.subgraphs[s].dag->placeholders().size();
    for (size_t a = 0; a < l.args.size(); ++a) {
      if (m.slots.at(l.args[a]).home == Home::Constant) {
        if (!l.packed_address[a]) constants.push_back(m.graph.constants.at(l.args[a]).bytes());
      } else if (a < inputs_of_kernel) {
        const ValueInfo& info = m.graph.info(l.args[a]);
        activations.push_back(runtime::handed_over_by_rows(l.bound[a], value_bytes(info), info.shape));
      }
    }
    runtime::TimingOptions t = runtime::flushing_only(timing, std::move(constants));
    t.handed_over = std::move(activations);
    times.push_back({m.subgraphs[s].name, l.kernel->time(l.bound.data(), t).median()});
  }
  return times;
}

std::vector<PlannedLaunch> Executor::launch_plan() const {
  // On a device the plan is the same: the arena at the same offsets, each
  // constant and input in a buffer of its own (and nothing prepacked).
  const Impl& m = *impl_;
  std::vector<PlannedLaunch> plan;
  for (size_t s = 0; s < m.launches.size(); ++s) {
    const Launch& l = m.launches[s];
    PlannedLaunch p{m.subgraphs[s].dag->workload_key(), {}};
    for (size_t a = 0; a < l.args.size(); ++a) {
      ArgSource src;
      src.value = l.args[a];
      const ValueSlot& slot = m.slots.at(l.args[a]);
      if (l.packed_address[a]) {
        src.kind = ArgSource::Kind::Packed;
        for (const runtime::NDArray& packed : l.packed)
          if (packed.raw() == l.packed_address[a]) src.packed = &packed;
        internal_check(src.packed != nullptr, "launch_plan: no packed array for ", l.args[a]);
      } else if (slot.home == Home::Input) {
        src.kind = ArgSource::Kind::Input;
      } else if (slot.home == Home::Constant) {
        src.kind = ArgSource::Kind::Constant;
      } else {
        src.offset = slot.offset;
      }
      p.args.push_back(std::move(src));
    }
    plan.push_back(std::move(p));
  }
  return plan;
}

size_t Executor::arena_offset(const std::string& value) const {
  const ValueSlot& slot = impl_->slots.at(value);
  internal_check(slot.home == Home::Arena, "value ", value, " does not live in the arena");
  return slot.offset;
}

std::vector<SubgraphTime> Executor::profile() const {
  std::vector<SubgraphTime> medians;
  for (size_t s = 0; s < impl_->subgraphs.size(); ++s) {
    const runtime::Timing& t = impl_->times[s];
    medians.push_back({impl_->subgraphs[s].name, t.seconds_per_call.empty() ? 0.0 : t.median()});
  }
  return medians;
}
const std::vector<Subgraph>& Executor::subgraphs() const { return impl_->subgraphs; }
size_t Executor::planned_bytes() const { return impl_->plan.arena_bytes; }
size_t Executor::unplanned_bytes() const { return impl_->plan.unplanned_bytes; }

}  // namespace tunectl::graph
