#include "baseline/onednn_matmul.h"

#include <oneapi/dnnl/dnnl.hpp>

namespace tunectl::baseline {

struct OneDnnMatmul::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::memory::desc a_md, b_md, c_md;
  dnnl::matmul primitive;
};

OneDnnMatmul::OneDnnMatmul(int64_t m, int64_t n, int64_t k) : impl_(std::make_unique<Impl>()) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  impl_->a_md = dnnl::memory::desc({m, k}, dt::f32, tag::ab);
  impl_->b_md = dnnl::memory::desc({k, n}, dt::f32, tag::ab);
  impl_->c_md = dnnl::memory::desc({m, n}, dt::f32, tag::ab);
  dnnl::matmul::desc desc(impl_->a_md, impl_->b_md, impl_->c_md);
  impl_->primitive = dnnl::matmul(dnnl::matmul::primitive_desc(desc, impl_->engine));
}

OneDnnMatmul::~OneDnnMatmul() = default;

void OneDnnMatmul::run(const float* a, const float* b, float* c) {
  // oneDNN memory objects wrap the caller's buffers without copying.
  dnnl::memory a_mem(impl_->a_md, impl_->engine, const_cast<float*>(a));
  dnnl::memory b_mem(impl_->b_md, impl_->engine, const_cast<float*>(b));
  dnnl::memory c_mem(impl_->c_md, impl_->engine, c);
  impl_->primitive.execute(impl_->stream, {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}});
  impl_->stream.wait();
}

}  // namespace tunectl::baseline
