#include "baseline/onednn_util.h"

namespace tunectl::baseline {

dnnl::memory to_layout(const dnnl::engine& engine, dnnl::stream& stream, const dnnl::memory::desc& have,
                       const float* data, const dnnl::memory::desc& want) {
  dnnl::memory user(have, engine, const_cast<float*>(data));
  dnnl::memory out(want, engine);
  dnnl::reorder(user, out).execute(stream, user, out);
  stream.wait();
  return out;
}

}  // namespace tunectl::baseline
