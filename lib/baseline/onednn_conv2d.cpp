#include "baseline/onednn_conv2d.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "baseline/onednn_util.h"

namespace tunectl::baseline {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

struct OneDnnConv2d::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::memory::desc user_src_md, user_dst_md;
  dnnl::memory src, weights, bias, dst;  // in the primitive's layouts
  dnnl::convolution_forward primitive;
  dnnl::reorder src_reorder, dst_reorder;  // empty when the layouts are plain already
  bool has_bias = false;
};

OneDnnConv2d::OneDnnConv2d(const Conv2dShape& s, const float* weights, const float* bias, bool relu)
    : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  // Grouped weights are [groups, K / groups, C / groups, R, S] to oneDNN:
  // the same bytes as ONNX's [K, C / groups, R, S].
  const bool grouped = s.groups > 1;
  const dnnl::memory::dims src_dims = {s.n, s.c, s.h, s.w},
                           weight_dims = grouped ? dnnl::memory::dims{s.groups, s.k / s.groups, s.c / s.groups, s.r, s.s}
                                                 : dnnl::memory::dims{s.k, s.c, s.r, s.s},
                           dst_dims = {s.n, s.k, s.out_h(), s.out_w()}, bias_dims = {s.k};
  p.user_src_md = dnnl::memory::desc(src_dims, dt::f32, tag::nchw);
  p.user_dst_md = dnnl::memory::desc(dst_dims, dt::f32, tag::nchw);
  p.has_bias = bias != nullptr;
  const dnnl::memory::desc bias_md = p.has_bias ? dnnl::memory::desc(bias_dims, dt::f32, tag::x) : dnnl::memory::desc();
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      dnnl::memory::desc(src_dims, dt::f32, tag::any), dnnl::memory::desc(weight_dims, dt::f32, tag::any), bias_md,
      dnnl::memory::desc(dst_dims, dt::f32, tag::any), {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad});
  dnnl::primitive_attr attr;
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  dnnl::convolution_forward::primitive_desc pd(desc, attr, p.engine);
  p.primitive = dnnl::convolution_forward(pd);
  p.weights =
      to_layout(p.engine, p.stream, dnnl::memory::desc(weight_dims, dt::f32, grouped ? tag::goihw : tag::oihw), weights,
                pd.weights_desc());
  if (p.has_bias) p.bias = to_layout(p.engine, p.stream, bias_md, bias, pd.bias_desc());
  p.src = dnnl::memory(pd.src_desc(), p.engine);
  p.dst = dnnl::memory(pd.dst_desc(), p.engine);
  if (pd.src_desc() != p.user_src_md) p.src_reorder = dnnl::reorder(dnnl::memory(p.user_src_md, p.engine), p.src);
  if (pd.dst_desc() != p.user_dst_md) p.dst_reorder = dnnl::reorder(p.dst, dnnl::memory(p.user_dst_md, p.engine));
}

OneDnnConv2d::~OneDnnConv2d() = default;

void OneDnnConv2d::run(const float* src, float* dst) {
  Impl& p = *impl_;
  // Memory objects wrapping the caller's buffers, without copying.
  dnnl::memory user_src(p.user_src_md, p.engine, const_cast<float*>(src));
  dnnl::memory user_dst(p.user_dst_md, p.engine, dst);
  dnnl::memory src_mem = p.src_reorder ? p.src : user_src;
  dnnl::memory dst_mem = p.dst_reorder ? p.dst : user_dst;
  if (p.src_reorder) p.src_reorder.execute(p.stream, user_src, p.src);
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, p.weights}, {DNNL_ARG_DST, dst_mem}};
  if (p.has_bias) args.emplace(DNNL_ARG_BIAS, p.bias);
  p.primitive.execute(p.stream, args);
  if (p.dst_reorder) p.dst_reorder.execute(p.stream, p.dst, user_dst);
  p.stream.wait();
}

void OneDnnConv2d::run_native() {
  Impl& p = *impl_;
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, p.src}, {DNNL_ARG_WEIGHTS, p.weights}, {DNNL_ARG_DST, p.dst}};
  if (p.has_bias) args.emplace(DNNL_ARG_BIAS, p.bias);
  p.primitive.execute(p.stream, args);
  p.stream.wait();
}

}  // namespace tunectl::baseline
