#include "baseline/onednn_dense.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "baseline/onednn_util.h"

namespace tunectl::baseline {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

struct OneDnnDense::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::memory::desc src_md, dst_md;
  dnnl::memory weights, bias;  // in the primitive's layouts
  dnnl::inner_product_forward primitive;
  bool has_bias = false;
};

OneDnnDense::OneDnnDense(int64_t m, int64_t k, int64_t n, const float* weights, const float* bias,
                         DenseWeights layout)
    : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  p.src_md = dnnl::memory::desc({m, k}, dt::f32, tag::nc);
  p.dst_md = dnnl::memory::desc({m, n}, dt::f32, tag::nc);
  p.has_bias = bias != nullptr;
  const dnnl::memory::desc bias_md = p.has_bias ? dnnl::memory::desc({n}, dt::f32, tag::x) : dnnl::memory::desc();
  dnnl::inner_product_forward::desc desc(dnnl::prop_kind::forward_inference, p.src_md,
                                         dnnl::memory::desc({n, k}, dt::f32, tag::any), bias_md, p.dst_md);
  dnnl::inner_product_forward::primitive_desc pd(desc, p.engine);
  // src and dst were given as plain layouts, so the primitive works on them directly.
  p.primitive = dnnl::inner_product_forward(pd);
  p.weights = to_layout(p.engine, p.stream, dnnl::memory::desc({n, k}, dt::f32, layout == DenseWeights::OutIn ? tag::oi : tag::io), weights, pd.weights_desc());
  if (p.has_bias) p.bias = to_layout(p.engine, p.stream, bias_md, bias, pd.bias_desc());
}

OneDnnDense::~OneDnnDense() = default;

void OneDnnDense::run(const float* x, float* y) {
  Impl& p = *impl_;
  dnnl::memory src(p.src_md, p.engine, const_cast<float*>(x));
  dnnl::memory dst(p.dst_md, p.engine, y);
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, p.weights}, {DNNL_ARG_DST, dst}};
  if (p.has_bias) args.emplace(DNNL_ARG_BIAS, p.bias);
  p.primitive.execute(p.stream, args);
  p.stream.wait();
}

}  // namespace tunectl::baseline
