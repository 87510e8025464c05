#include "ops/registry.h"

#include <functional>
#include <set>

#include "ir/error.h"
#include "ops/col2im.h"
#include "ops/deform_conv.h"
#include "ops/conv2d.h"
#include "ops/conv2d_winograd.h"
#include "ops/conv_nd.h"
#include "ops/dft.h"
#include "ops/einsum.h"
#include "ops/elemwise.h"
#include "ops/loss.h"
#include "ops/matmul.h"
#include "ops/normalization.h"
#include "ops/pool.h"
#include "ops/reduce.h"
#include "ops/resize.h"
#include "ops/scatter.h"
#include "ops/transform.h"

namespace tunectl::ops {

namespace {

using nlohmann::json;
using Shape = std::vector<int64_t>;

// Typed access to an op's JSON parameters; remembers which keys were read so
// that an unknown (misspelt) key is reported instead of silently ignored.
class Params {
 public:
  Params(const std::string& op, json j) : op_(op), j_(std::move(j)) {
    user_check(j_.is_object(), op, ": parameters must be a JSON object");
  }

  int64_t integer(const std::string& key, int64_t def) {
    const json* v = find(key);
    if (!v) return def;
    user_check(v->is_number_integer(), op_, ": parameter '", key, "' must be an integer");
    return v->get<int64_t>();
  }
  int64_t dim(const std::string& key, int64_t def) {
    int64_t v = integer(key, def);
    user_check(v > 0, op_, ": parameter '", key, "' must be positive, got ", v);
    return v;
  }
  double number(const std::string& key, double def) {
    const json* v = find(key);
    if (!v) return def;
    user_check(v->is_number(), op_, ": parameter '", key, "' must be a number");
    return v->get<double>();
  }
  std::string text(const std::string& key, const std::string& def) {
    const json* v = find(key);
    if (!v) return def;
    user_check(v->is_string(), op_, ": parameter '", key, "' must be a string");
    return v->get<std::string>();
  }
  bool boolean(const std::string& key, bool def) {
    const json* v = find(key);
    if (!v) return def;
    user_check(v->is_boolean(), op_, ": parameter '", key, "' must be true or false");
    return v->get<bool>();
  }
  std::vector<int64_t> ints(const std::string& key, std::vector<int64_t> def) {
    const json* v = find(key);
    if (!v) return def;
    return to_ints(*v, key);
  }
  Shape shape(const std::string& key, Shape def) {
    Shape s = ints(key, std::move(def));
    for (int64_t d : s) user_check(d > 0, op_, ": parameter '", key, "' has non-positive dimension ", d);
    return s;
  }
  std::vector<Shape> shapes(const std::string& key, std::vector<Shape> def) {
    const json* v = find(key);
    if (!v) return def;
    user_check(v->is_array() && !v->empty(), op_, ": parameter '", key, "' must be a non-empty array of shapes");
    std::vector<Shape> out;
    for (const auto& e : *v) out.push_back(to_ints(e, key));
    return out;
  }
  // An int (same for every entry) or an array of n (or, if n2 > 0, n2)
  // integers; an array of n is widened by repetition to n2 when n2 is given.
  std::vector<int64_t> spread(const std::string& key, int64_t def, size_t n, size_t n2 = 0) {
    const json* v = find(key);
    size_t full = n2 ? n2 : n;
    if (!v) return std::vector<int64_t>(full, def);
    if (v->is_number_integer()) return std::vector<int64_t>(full, v->get<int64_t>());
    std::vector<int64_t> x = to_ints(*v, key);
    if (n2 && x.size() == n) {
      std::vector<int64_t> w = x;
      w.insert(w.end(), x.begin(), x.end());
      return w;
    }
    user_check(x.size() == full, op_, ": parameter '", key, "' needs ", n, n2 ? " or " + std::to_string(n2) : "",
               " entries");
    return x;
  }
  // Fails on keys no accessor asked for.
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      user_check(used_.count(it.key()), op_, ": unknown parameter '", it.key(), "'");
  }

 private:
  const json* find(const std::string& key) {
    used_.insert(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  std::vector<int64_t> to_ints(const json& v, const std::string& key) const {
    user_check(v.is_array(), op_, ": parameter '", key, "' must be an array of integers");
    std::vector<int64_t> out;
    for (const auto& e : v) {
      user_check(e.is_number_integer(), op_, ": parameter '", key, "' must be an array of integers");
      out.push_back(e.get<int64_t>());
    }
    return out;
  }

  std::string op_;
  json j_;
  std::set<std::string> used_;
};

te::Tensor input(const std::string& name, const Shape& shape) { return te::placeholder(name, shape); }
// A model constant: the weights and biases of conv2d and gemm, which ONNX
// models store as initializers.
te::Tensor weight(const std::string& name, const Shape& shape) {
  return te::placeholder(name, shape, ir::DType::Float32, true);
}

std::vector<te::Tensor> one(te::Tensor t) { return {std::move(t)}; }

// Default activation shape of the elementwise ops.
const Shape kActShape{1, 64, 56, 56};

struct OpEntry {
  std::string name;
  // Builds the outputs from the parameters (placeholders made inside).
  std::function<std::vector<te::Tensor>(Params&)> build;
  std::vector<json> configs;
};

Conv2dAttrs conv_attrs(Params& p) {
  Conv2dAttrs a;
  auto st = p.spread("stride", 1, 2);
  auto pd = p.spread("pad", 1, 2, 4);
  auto dl = p.spread("dilation", 1, 2);
  a.stride = {st[0], st[1]};
  // [h, w] widened by repetition is [h, w, h, w] = top, left, bottom, right.
  a.padding = {pd[0], pd[1], pd[2], pd[3]};
  a.dilation = {dl[0], dl[1]};
  a.groups = p.dim("groups", 1);
  return a;
}

te::Tensor build_conv2d(Params& p) {
  int64_t n = p.dim("N", 1), c = p.dim("C", 64), h = p.dim("H", 56), w = p.dim("W", 56);
  int64_t k = p.dim("K", 64), r = p.dim("R", 3), s = p.dim("S", 3);
  Conv2dAttrs a = conv_attrs(p);
  bool bias = p.boolean("bias", false), relu_after = p.boolean("relu", false);
  user_check(a.groups > 0 && c % a.groups == 0, "conv2d: groups must divide C");
  te::Tensor data = input("data", {n, c, h, w});
  te::Tensor kernel = weight("weight", {k, c / a.groups, r, s});
  te::Tensor out = conv2d_nchw(data, kernel, a);
  if (bias) out = bias_add_nchw(out, weight("bias", {k}));
  if (relu_after) out = relu(out);
  return out;
}

// Channel-blocked: C and K in blocks of bi and bo; groups 1 or depthwise.
te::Tensor build_conv2d_nchwc(Params& p) {
  int64_t n = p.dim("N", 1), c = p.dim("C", 64), h = p.dim("H", 56), w = p.dim("W", 56);
  int64_t k = p.dim("K", 64), r = p.dim("R", 3), s = p.dim("S", 3);
  int64_t bi = p.dim("bi", 16), bo = p.dim("bo", 16);
  Conv2dAttrs a = conv_attrs(p);
  bool bias = p.boolean("bias", false), relu_after = p.boolean("relu", false);
  user_check(c % bi == 0 && k % bo == 0, "conv2d_nchwc: blocks must divide C and K");
  bool depthwise = a.groups != 1;
  te::Tensor data = input("data", {n, c / bi, h, w, bi});
  te::Tensor kernel = depthwise ? weight("weight", {k / bo, 1, r, s, 1, bo}) : weight("weight", {k / bo, c / bi, r, s, bi, bo});
  te::Tensor out = conv2d_nchwc(data, kernel, a);
  if (bias) out = bias_add_nchwc(out, weight("bias", {k / bo, bo}));
  if (relu_after) out = relu(out);
  return out;
}

// F(m x m, 3x3) on channel blocks; the weight input is the transformed one.
te::Tensor build_conv2d_winograd_nchwc(Params& p) {
  int64_t n = p.dim("N", 1), c = p.dim("C", 64), h = p.dim("H", 56), w = p.dim("W", 56), k = p.dim("K", 64);
  int64_t bi = p.dim("bi", 16), bo = p.dim("bo", 16), pad = p.integer("pad", 1), m = p.integer("m", 4);
  bool bias = p.boolean("bias", false), relu_after = p.boolean("relu", false);
  user_check(c % bi == 0 && k % bo == 0, "conv2d_winograd_nchwc: blocks must divide C and K");
  user_check(winograd_tile_supported(m), "conv2d_winograd_nchwc: m must be 2 or 4, not ", m);
  const int64_t alpha = winograd_alpha(m);
  te::Tensor data = input("data", {n, c / bi, h, w, bi});
  te::Tensor u = weight("transformed_weight", {alpha, alpha, k / bo, c / bi, bi, bo});
  te::Tensor out = conv2d_winograd_nchwc(data, u, pad);
  if (bias) out = bias_add_nchwc(out, weight("bias", {k / bo, bo}));
  if (relu_after) out = relu(out);
  return out;
}

PoolAttrs pool_attrs(Params& p) {
  PoolAttrs a;
  auto k = p.spread("kernel", 2, 2);
  auto st = p.spread("stride", 2, 2);
  auto pd = p.spread("pad", 0, 2, 4);  // top, left, bottom, right
  a.kernel = {k[0], k[1]};
  a.stride = {st[0], st[1]};
  a.pad_begin = {pd[0], pd[1]};
  a.pad_end = {pd[2], pd[3]};
  a.ceil_mode = p.boolean("ceil_mode", false);
  a.count_include_pad = p.boolean("count_include_pad", false);
  return a;
}

Shape nchw(Params& p, int64_t c, int64_t hw) {
  return {p.dim("N", 1), p.dim("C", c), p.dim("H", hw), p.dim("W", hw)};
}

// NCHW, or with parameter "block" channel-blocked [N, C/block, H, W, block].
Shape pool_input(Params& p, int64_t c, int64_t hw) {
  Shape s = nchw(p, c, hw);
  int64_t block = p.integer("block", 0);
  if (block == 0) return s;
  user_check(block > 0 && s[1] % block == 0, "pooling: block must divide C");
  return {s[0], s[1] / block, s[2], s[3], block};
}

std::vector<OpEntry> make_entries() {
  std::vector<OpEntry> e;
  e.push_back({"conv2d", [](Params& p) { return one(build_conv2d(p)); },
               {{{"N", 1}, {"C", 3}, {"H", 7}, {"W", 9}, {"K", 4}, {"R", 3}, {"S", 3}, {"pad", 1}},
                {{"N", 2}, {"C", 4}, {"H", 13}, {"W", 13}, {"K", 6}, {"R", 3}, {"S", 3}, {"stride", 2},
                 {"pad", {0, 1, 1, 2}}, {"dilation", 1}, {"groups", 2}, {"bias", true}, {"relu", true}},
                {{"N", 1}, {"C", 5}, {"H", 15}, {"W", 11}, {"K", 5}, {"R", 3}, {"S", 3}, {"pad", 2},
                 {"dilation", 2}, {"groups", 5}},
                {{"N", 1}, {"C", 8}, {"H", 8}, {"W", 8}, {"K", 16}, {"R", 1}, {"S", 1}, {"pad", 0}}}});
  e.push_back({"conv2d_nchwc", [](Params& p) { return one(build_conv2d_nchwc(p)); },
               {{{"C", 3}, {"H", 9}, {"W", 7}, {"K", 16}, {"bi", 3}, {"bo", 8}, {"stride", 2}, {"bias", true}},
                {{"N", 2}, {"C", 16}, {"H", 6}, {"W", 5}, {"K", 8}, {"bi", 8}, {"bo", 4}, {"R", 1}, {"S", 1},
                 {"pad", 0}, {"relu", true}},
                {{"C", 8}, {"H", 7}, {"W", 7}, {"K", 8}, {"bi", 4}, {"bo", 4}, {"groups", 8}, {"dilation", 2},
                 {"pad", 2}, {"bias", true}}}});
  e.push_back({"channel_blocks",
               [](Params& p) {
                 te::Tensor x = input("x", nchw(p, 16, 5));
                 return one(from_channel_blocks(relu(to_channel_blocks(x, p.dim("block", 8))), x->shape()[1]));
               },
               {{{"C", 16}, {"block", 8}}, {{"N", 2}, {"C", 12}, {"H", 3}, {"W", 7}, {"block", 4}}}});
  e.push_back({"matmul",
               [](Params& p) {
                 int64_t m = p.dim("M", 512), n = p.dim("N", 512), k = p.dim("K", 512);
                 bool ta = p.boolean("trans_a", false), tb = p.boolean("trans_b", false);
                 return one(matmul(input("A", ta ? Shape{k, m} : Shape{m, k}),
                                   input("B", tb ? Shape{n, k} : Shape{k, n}), ta, tb));
               },
               {{{"M", 16}, {"N", 16}, {"K", 16}},
                {{"M", 7}, {"N", 13}, {"K", 15}},
                {{"M", 15}, {"N", 9}, {"K", 33}, {"trans_a", true}, {"trans_b", true}}}});
  e.push_back({"gemm",
               [](Params& p) {
                 int64_t m = p.dim("M", 512), n = p.dim("N", 512), k = p.dim("K", 512);
                 double alpha = p.number("alpha", 1.0), beta = p.number("beta", 1.0);
                 bool ta = p.boolean("trans_a", false), tb = p.boolean("trans_b", false);
                 Shape cs = p.shape("c_shape", {n});
                 te::Tensor a = input("A", ta ? Shape{k, m} : Shape{m, k});
                 te::Tensor b = weight("B", tb ? Shape{n, k} : Shape{k, n});
                 te::Tensor c = cs.empty() ? nullptr : weight("C", cs);
                 return one(gemm(a, b, c, alpha, beta, ta, tb));
               },
               {{{"M", 7}, {"N", 13}, {"K", 15}, {"alpha", 0.5}, {"beta", 2.0}},
                {{"M", 9}, {"N", 8}, {"K", 5}, {"trans_b", true}, {"c_shape", {9, 8}}},
                {{"M", 8}, {"N", 8}, {"K", 8}, {"c_shape", json::array()}}}});
  e.push_back({"dense",
               [](Params& p) {
                 int64_t m = p.dim("M", 128), k = p.dim("K", 768), n = p.dim("N", 768);
                 bool bias = p.boolean("bias", true);
                 te::Tensor x = input("x", {m, k});
                 te::Tensor w = input("weight", {n, k});
                 return one(dense(x, w, bias ? input("bias", {n}) : nullptr));
               },
               {{{"M", 7}, {"K", 13}, {"N", 15}}, {{"M", 16}, {"K", 32}, {"N", 8}, {"bias", false}}}});
  e.push_back({"batch_matmul",
               [](Params& p) {
                 Shape as = p.shape("a_shape", {12, 128, 64}), bs = p.shape("b_shape", {12, 64, 128});
                 return one(batch_matmul(input("A", as), input("B", bs), p.boolean("trans_b", false)));
               },
               {{{"a_shape", {3, 7, 5}}, {"b_shape", {3, 5, 9}}},
                {{"a_shape", {2, 3, 4, 13}}, {"b_shape", {3, 6, 13}}, {"trans_b", true}},
                {{"a_shape", {2, 1, 5, 7}}, {"b_shape", {1, 3, 7, 4}}}}});
  e.push_back({"max_pool2d", [](Params& p) {
                 Shape s = pool_input(p, 64, 56);
                 return one(max_pool(input("data", s), pool_attrs(p)));
               },
               {{{"C", 3}, {"H", 8}, {"W", 8}},
                {{"C", 8}, {"H", 9}, {"W", 9}, {"kernel", 3}, {"stride", 2}, {"pad", 1}, {"block", 4}},
                {{"N", 2}, {"C", 3}, {"H", 13}, {"W", 15}, {"kernel", 3}, {"stride", 2}, {"pad", 1}},
                {{"C", 2}, {"H", 7}, {"W", 7}, {"kernel", 3}, {"stride", 2}, {"ceil_mode", true}}}});
  e.push_back({"avg_pool2d", [](Params& p) {
                 Shape s = pool_input(p, 64, 56);
                 return one(avg_pool(input("data", s), pool_attrs(p)));
               },
               {{{"C", 3}, {"H", 8}, {"W", 8}},
                {{"C", 8}, {"H", 9}, {"W", 9}, {"kernel", 3}, {"stride", 2}, {"pad", 1}, {"block", 4}},
                {{"N", 2}, {"C", 3}, {"H", 13}, {"W", 15}, {"kernel", 3}, {"stride", 2}, {"pad", 1}},
                {{"C", 2}, {"H", 7}, {"W", 9}, {"kernel", 3}, {"stride", 2}, {"pad", 1},
                 {"count_include_pad", true}, {"ceil_mode", true}}}});
  e.push_back({"global_avg_pool2d", [](Params& p) { return one(global_avg_pool2d(input("data", pool_input(p, 512, 7)))); },
               {{{"C", 5}, {"H", 7}, {"W", 7}}, {{"N", 2}, {"C", 3}, {"H", 13}, {"W", 9}},
                {{"C", 8}, {"H", 5}, {"W", 6}, {"block", 4}}}});
  e.push_back({"global_max_pool2d", [](Params& p) { return one(global_max_pool2d(input("data", pool_input(p, 512, 7)))); },
               {{{"C", 5}, {"H", 7}, {"W", 7}}, {{"N", 2}, {"C", 3}, {"H", 13}, {"W", 9}},
                {{"C", 8}, {"H", 5}, {"W", 6}, {"block", 4}}}});

  const std::vector<json> unary_configs{{{"shape", {2, 7, 13}}}, {{"shape", {15, 16}}}};
  using Unary = te::Tensor (*)(const te::Tensor&, const std::string&);
  const std::vector<std::pair<std::string, Unary>> unaries{
      {"relu", relu}, {"sigmoid", sigmoid}, {"tanh", tanh}, {"erf", erf}, {"gelu", gelu},
      {"exp", exp},   {"sqrt", sqrt},       {"neg", neg},   {"abs", abs},
      {"hard_swish", hard_swish}, {"softplus", softplus}, {"softsign", softsign}, {"mish", mish}};
  for (const auto& [name, f] : unaries) {
    Unary fn = f;
    std::string n = name;
    e.push_back({n, [fn, n](Params& p) { return one(fn(input("x", p.shape("shape", kActShape)), n)); }, unary_configs});
  }
  e.push_back({"clip",
               [](Params& p) {
                 Shape s = p.shape("shape", kActShape);
                 double lo = p.number("min", 0.0), hi = p.number("max", 6.0);
                 return one(clip(input("x", s), lo, hi));
               },
               {{{"shape", {2, 7, 13}}, {"min", -0.5}, {"max", 0.5}}, {{"shape", {15, 16}}}}});
  e.push_back({"leaky_relu",
               [](Params& p) {
                 Shape s = p.shape("shape", kActShape);
                 return one(leaky_relu(input("x", s), p.number("alpha", 0.01)));
               },
               {{{"shape", {2, 7, 13}}, {"alpha", 0.2}}, {{"shape", {15, 16}}}}});

  // Activations with attributes, away from ONNX's defaults.
  const std::vector<std::pair<std::string, std::function<te::Tensor(const te::Tensor&)>>> activations{
      {"hard_sigmoid", [](const te::Tensor& x) { return hard_sigmoid(x, 0.3, 0.4); }},
      {"elu", [](const te::Tensor& x) { return elu(x, 0.7); }},
      {"selu", [](const te::Tensor& x) { return selu(x, 1.5, 1.1); }},
      {"celu", [](const te::Tensor& x) { return celu(x, 0.8); }},
      {"thresholded_relu", [](const te::Tensor& x) { return thresholded_relu(x, 0.25); }}};
  for (const auto& [name, f] : activations) {
    auto fn = f;
    e.push_back({name, [fn](Params& p) { return one(fn(input("x", p.shape("shape", kActShape)))); }, unary_configs});
  }

  using Binary = te::Tensor (*)(const te::Tensor&, const te::Tensor&, const std::string&);
  const std::vector<std::pair<std::string, Binary>> binaries{{"add", add}, {"sub", sub}, {"mul", mul},
                                                             {"div", div}, {"pow", pow}, {"maximum", maximum},
                                                             {"minimum", minimum}, {"prelu", prelu}};
  const std::vector<json> binary_configs{{{"a_shape", {2, 7, 13}}, {"b_shape", {2, 7, 13}}},
                                         {{"a_shape", {3, 1, 15}}, {"b_shape", {5, 1}}},
                                         {{"a_shape", {1, 6, 7, 7}}, {"b_shape", {1, 6, 1, 1}}}};
  for (const auto& [name, f] : binaries) {
    Binary fn = f;
    std::string n = name;
    e.push_back({n,
                 [fn, n](Params& p) {
                   Shape as = p.shape("a_shape", kActShape), bs = p.shape("b_shape", {1, 64, 1, 1});
                   return one(fn(input("a", as), input("b", bs), n));
                 },
                 binary_configs});
  }

  e.push_back({"softmax",
               [](Params& p) {
                 Shape s = p.shape("shape", {12, 128, 128});
                 return one(softmax(input("x", s), p.integer("axis", -1)));
               },
               // Rows longer than a warp: the GPU's cross-thread reductions.
               {{{"shape", {7, 13}}}, {{"shape", {2, 15, 9}}, {"axis", 1}}, {{"shape", {33}}}, {{"shape", {3, 100}}}}});
  e.push_back({"layer_norm",
               [](Params& p) {
                 Shape s = p.shape("shape", {128, 768});
                 int64_t axis = p.integer("axis", -1);
                 double eps = p.number("epsilon", 1e-5);
                 bool affine = p.boolean("affine", true);
                 te::Tensor x = input("x", s);
                 te::Tensor scale_t, bias_t;
                 if (affine) {
                   int64_t r = static_cast<int64_t>(s.size());
                   user_check(axis >= -r && axis < r, "layer_norm: axis ", axis, " out of range");
                   Shape inner(s.begin() + (axis < 0 ? axis + r : axis), s.end());
                   scale_t = input("scale", inner);
                   bias_t = input("bias", inner);
                 }
                 return one(layer_norm(x, scale_t, bias_t, axis, eps));
               },
               {{{"shape", {7, 13}}}, {{"shape", {2, 5, 3, 4}}, {"axis", -2}, {"affine", false}},
                {{"shape", {16, 32}}, {"epsilon", 1e-3}}, {{"shape", {3, 80}}}}});
  using Reduce = te::Tensor (*)(const te::Tensor&, const std::vector<int64_t>&, bool, const std::string&);
  auto add_reduce = [&e](const std::string& n, Reduce fn) {
    e.push_back({n,
                 [fn, n](Params& p) {
                   Shape s = p.shape("shape", {32, 512});
                   auto axes = p.ints("axes", {-1});
                   return one(fn(input("x", s), axes, p.boolean("keepdims", false), n));
                 },
                 {{{"shape", {7, 13}}},
                  {{"shape", {3, 5, 15}}, {"axes", {0, 2}}, {"keepdims", true}},
                  {{"shape", {4, 9}}, {"axes", json::array()}}}});
  };
  add_reduce("reduce_sum", reduce_sum);
  add_reduce("reduce_mean", reduce_mean);
  add_reduce("reduce_max", reduce_max);
  e.push_back({"transpose",
               [](Params& p) {
                 Shape s = p.shape("shape", {12, 128, 64});
                 return one(transpose(input("x", s), p.ints("perm", {0, 2, 1})));
               },
               {{{"shape", {7, 13}}, {"perm", {1, 0}}}, {{"shape", {2, 3, 5, 7}}, {"perm", {0, 2, 3, 1}}}}});
  e.push_back({"pad",
               [](Params& p) {
                 Shape s = p.shape("shape", {1, 64, 56, 56});
                 auto b = p.ints("begins", {0, 0, 1, 1}), en = p.ints("ends", {0, 0, 1, 1});
                 return one(pad(input("x", s), b, en, p.number("value", 0.0)));
               },
               {{{"shape", {1, 3, 7, 7}}, {"begins", {0, 0, 1, 2}}, {"ends", {0, 0, 2, 1}}},
                {{"shape", {5, 13}}, {"begins", {1, 0}}, {"ends", {0, 3}}, {"value", 1.5}}}});
  e.push_back({"concat",
               [](Params& p) {
                 auto shapes = p.shapes("shapes", {{1, 64, 28, 28}, {1, 32, 28, 28}});
                 int64_t axis = p.integer("axis", 1);
                 std::vector<te::Tensor> ins;
                 for (size_t i = 0; i < shapes.size(); ++i) ins.push_back(input("x" + std::to_string(i), shapes[i]));
                 return one(concat(ins, axis));
               },
               {{{"shapes", {{1, 3, 7, 7}, {1, 5, 7, 7}}}, {"axis", 1}},
                {{"shapes", {{7, 13}, {7, 2}, {7, 5}}}, {"axis", -1}}}});
  e.push_back({"reshape",
               [](Params& p) {
                 Shape s = p.shape("shape", {1, 128, 768});
                 return one(reshape(input("x", s), p.ints("new_shape", {1, 128, 12, 64})));
               },
               {{{"shape", {2, 15, 6}}, {"new_shape", {0, 5, -1}}}, {{"shape", {7, 13}}, {"new_shape", {13, 7}}}}});
  e.push_back({"flatten",
               [](Params& p) {
                 Shape s = p.shape("shape", {1, 512, 7, 7});
                 return one(flatten(input("x", s), p.integer("axis", 1)));
               },
               {{{"shape", {2, 3, 5, 7}}}, {{"shape", {3, 5, 7}}, {"axis", 2}}}});

  // Last, so that the random schedules the property tests draw for the
  // entries above (one random stream over the whole list) stay the same.
  const std::vector<std::pair<std::string, Unary>> more_unaries{
      {"log", log}, {"floor", floor}, {"ceil", ceil}, {"round", round}, {"sin", sin}, {"cos", cos},
      {"sign", sign}, {"is_nan", is_nan}};
  for (const auto& [name, f] : more_unaries) {
    Unary fn = f;
    std::string n = name;
    e.push_back({n, [fn, n](Params& p) { return one(fn(input("x", p.shape("shape", kActShape)), n)); }, unary_configs});
  }
  e.push_back({"is_inf", [](Params& p) { return one(is_inf(input("x", p.shape("shape", kActShape)), false, true)); },
               unary_configs});
  e.push_back({"mod",
               [](Params& p) {
                 Shape s = p.shape("shape", kActShape);
                 return one(mod(input("a", s), input("b", s), true));
               },
               unary_configs});
  add_reduce("reduce_min", reduce_min);
  add_reduce("reduce_prod", reduce_prod);
  add_reduce("reduce_l1", reduce_l1);
  add_reduce("reduce_l2", reduce_l2);
  add_reduce("reduce_sum_square", reduce_sum_square);
  add_reduce("reduce_log_sum", reduce_log_sum);
  add_reduce("reduce_log_sum_exp", reduce_log_sum_exp);
  e.push_back({"log_softmax",
               [](Params& p) { return one(log_softmax(input("x", p.shape("shape", {12, 128})), p.integer("axis", -1))); },
               {{{"shape", {7, 13}}}, {{"shape", {2, 15, 9}}, {"axis", 1}}}});
  e.push_back({"arg_extreme",
               [](Params& p) {
                 Shape s = p.shape("shape", {32, 512});
                 return one(arg_extreme(input("x", s), p.integer("axis", -1), p.boolean("keepdims", false),
                                        p.boolean("max", true), p.boolean("select_last", false), "arg_extreme"));
               },
               {{{"shape", {7, 13}}},
                {{"shape", {3, 5, 15}}, {"axis", 1}, {"keepdims", true}, {"max", false}, {"select_last", true}}}});
  e.push_back({"hardmax",
               [](Params& p) { return one(hardmax(input("x", p.shape("shape", {32, 512})), p.integer("axis", -1))); },
               {{{"shape", {7, 13}}}, {{"shape", {3, 5, 4}}, {"axis", 1}}}});
  e.push_back({"trilu",
               [](Params& p) {
                 return one(trilu(input("x", p.shape("shape", {512, 512})), p.boolean("upper", true), p.integer("k", 0)));
               },
               {{{"shape", {7, 13}}, {"k", 2}}, {{"shape", {2, 9, 6}}, {"upper", false}, {"k", -1}}}});
  e.push_back({"cumsum",
               [](Params& p) {
                 return one(cumsum(input("x", p.shape("shape", {32, 512})), p.integer("axis", -1),
                                   p.boolean("exclusive", false), p.boolean("reverse", false)));
               },
               {{{"shape", {7, 13}}}, {{"shape", {3, 9, 5}}, {"axis", 1}, {"exclusive", true}, {"reverse", true}}}});
  e.push_back({"resize",
               [](Params& p) {
                 Shape s = p.shape("shape", {1, 64, 56, 56});
                 ResizeAttrs a;
                 a.mode = p.boolean("cubic", false)   ? ResizeMode::Cubic
                          : p.boolean("linear", true) ? ResizeMode::Linear
                                                      : ResizeMode::Nearest;
                 a.exclude_outside = p.boolean("exclude_outside", false);
                 a.antialias = p.boolean("antialias", false);
                 a.transform = p.boolean("align_corners", false) ? CoordinateTransform::AlignCorners
                                                                 : CoordinateTransform::HalfPixel;
                 const double scale = p.number("scale", 2.0);
                 a.out_shape = s;
                 a.scales.assign(s.size(), 1.0);
                 for (size_t d = s.size() - 2; d < s.size(); ++d) {
                   a.scales[d] = scale;
                   a.out_shape[d] = static_cast<int64_t>(static_cast<double>(s[d]) * scale);
                 }
                 return one(resize(input("x", s), a));
               },
               {{{"shape", {1, 2, 10, 9}}, {"antialias", true}, {"scale", 0.4}},
                {{"shape", {2, 2, 8, 6}}, {"linear", false}, {"scale", 0.5}},
                {{"shape", {1, 1, 9, 12}}, {"cubic", true}, {"antialias", true}, {"exclude_outside", true}, {"scale", 0.6}},
                {{"shape", {1, 2, 4, 5}}, {"align_corners", true}, {"scale", 3.0}}}});
  e.push_back({"top_k",
               [](Params& p) {
                 TopK r = top_k(input("x", p.shape("shape", {32, 512})), p.integer("k", 8), p.integer("axis", -1),
                                p.boolean("largest", true));
                 return std::vector<te::Tensor>{r.values, r.indices};
               },
               {{{"shape", {5, 9}}, {"k", 3}}, {{"shape", {3, 7, 4}}, {"k", 2}, {"axis", 1}, {"largest", false}}}});
  e.push_back({"einsum",
               [](Params& p) {
                 std::vector<te::Tensor> operands;
                 std::vector<Shape> shapes = p.shapes("shapes", {{12, 128, 64}, {12, 64, 128}});
                 for (size_t k = 0; k < shapes.size(); ++k) operands.push_back(input("x" + std::to_string(k), shapes[k]));
                 return one(einsum(p.text("equation", "bij,bjk->bik"), operands));
               },
               {{{"shapes", {{2, 5, 3}, {2, 3, 7}}}},
                {{"equation", "ij,kj->ik"}, {"shapes", {{5, 6}, {7, 6}}}},
                {{"equation", "...ii->...i"}, {"shapes", {{3, 4, 4}}}}}});
  auto scatter_reduction = [](Params& p) {
    const std::string r = p.text("reduction", "none");
    if (r == "add") return ScatterReduction::Add;
    if (r == "mul") return ScatterReduction::Mul;
    if (r == "max") return ScatterReduction::Max;
    if (r == "min") return ScatterReduction::Min;
    user_check(r == "none", "scatter: parameter 'reduction' = '", r, "' is not none, add, mul, max or min");
    return ScatterReduction::None;
  };
  e.push_back({"gather_nd",
               [](Params& p) {
                 return one(gather_nd(input("data", p.shape("data_shape", {8, 16, 32})),
                                      te::placeholder("indices", p.shape("indices_shape", {64, 2}), ir::DType::Int64),
                                      p.integer("batch_dims", 0)));
               },
               {{{"data_shape", {4, 5, 6}}, {"indices_shape", {7, 2}}},
                {{"data_shape", {3, 4, 5}}, {"indices_shape", {3, 2, 1}}, {"batch_dims", 1}}}});
  e.push_back({"scatter_elements",
               [scatter_reduction](Params& p) {
                 const Shape is = p.shape("indices_shape", {16, 64});
                 return one(scatter_elements(input("data", p.shape("shape", {64, 64})),
                                             te::placeholder("indices", is, ir::DType::Int64), input("updates", is),
                                             p.integer("axis", 0), scatter_reduction(p)));
               },
               {{{"shape", {6, 5}}, {"indices_shape", {3, 4}}},
                {{"shape", {4, 7}}, {"indices_shape", {4, 3}}, {"axis", 1}, {"reduction", "add"}}}});
  e.push_back({"scatter_nd",
               [scatter_reduction](Params& p) {
                 const Shape s = p.shape("shape", {16, 8, 32}), is = p.shape("indices_shape", {8, 1});
                 Shape us(is.begin(), is.end() - 1);
                 us.insert(us.end(), s.begin() + is.back(), s.end());
                 return one(scatter_nd(input("data", s), te::placeholder("indices", is, ir::DType::Int64),
                                       input("updates", us), scatter_reduction(p)));
               },
               {{{"shape", {6, 4, 3}}, {"indices_shape", {3, 1}}},
                {{"shape", {5, 4}}, {"indices_shape", {2, 3, 2}}, {"reduction", "max"}}}});
  e.push_back({"nll_loss",
               [](Params& p) {
                 const Shape s = p.shape("shape", {64, 1000});
                 Shape ts = s;
                 ts.erase(ts.begin() + 1);
                 const std::string r = p.text("reduction", "mean");
                 const LossReduction reduction =
                     r == "none" ? LossReduction::None : r == "sum" ? LossReduction::Sum : LossReduction::Mean;
                 te::Tensor weight = p.boolean("weight", true) ? input("weight", {s[1]}) : nullptr;
                 return one(nll_loss(input("input", s), te::placeholder("target", ts, ir::DType::Int64), weight,
                                     reduction, std::nullopt));
               },
               {{{"shape", {5, 7}}}, {{"shape", {3, 4, 5}}, {"reduction", "none"}, {"weight", false}}}});
  e.push_back({"bitwise_xor",
               [](Params& p) {
                 return one(bitwise(te::placeholder("a", p.shape("a_shape", {4, 32}), ir::DType::Int32),
                                    te::placeholder("b", p.shape("b_shape", {32}), ir::DType::Int32),
                                    ir::MathFunc::bitwise_xor));
               },
               {{{"a_shape", {3, 5, 8}}, {"b_shape", {5, 1}}}, {{"a_shape", {7}}, {"b_shape", {7}}}}});
  e.push_back({"bit_shift",
               [](Params& p) {
                 Shape s = p.shape("shape", {8, 32});
                 const auto f = p.boolean("left", true) ? ir::MathFunc::shift_left : ir::MathFunc::shift_right;
                 return one(bitwise(te::placeholder("a", s, ir::DType::UInt32),
                                    te::placeholder("b", s, ir::DType::UInt32), f));
               },
               {{{"shape", {6, 10}}}, {{"shape", {3, 7}}, {"left", false}}}});
  e.push_back({"grid_sample",
               [](Params& p) {
                 Shape s = p.shape("shape", {1, 32, 28, 28}), g = p.shape("grid_shape", {1, 28, 28, 2});
                 GridSampleAttrs a;
                 const std::string mode = p.text("mode", "linear"), padding = p.text("padding", "zeros");
                 a.mode = mode == "nearest" ? ResizeMode::Nearest : mode == "cubic" ? ResizeMode::Cubic : ResizeMode::Linear;
                 a.padding = padding == "border"       ? GridPadding::Border
                             : padding == "reflection" ? GridPadding::Reflection
                                                       : GridPadding::Zeros;
                 a.align_corners = p.boolean("align_corners", false);
                 return one(grid_sample(input("x", s), input("grid", g), a));
               },
               {{{"shape", {1, 2, 5, 6}}, {"grid_shape", {1, 4, 3, 2}}},
                {{"shape", {2, 1, 4, 4}}, {"grid_shape", {2, 3, 5, 2}}, {"mode", "cubic"}, {"padding", "reflection"}},
                {{"shape", {1, 2, 3, 4, 5}}, {"grid_shape", {1, 2, 3, 2, 3}}, {"mode", "nearest"}, {"padding", "border"},
                 {"align_corners", true}}}});
  e.push_back({"affine_grid",
               [](Params& p) {
                 Shape sizes = p.shape("sizes", {28, 28});
                 const auto r = static_cast<int64_t>(sizes.size());
                 return one(affine_grid(input("theta", {p.integer("batch", 1), r, r + 1}), sizes,
                                        p.boolean("align_corners", false)));
               },
               {{{"sizes", {5, 7}}, {"batch", 2}}, {{"sizes", {3, 4, 5}}, {"align_corners", true}}}});
  e.push_back({"reverse_sequence",
               [](Params& p) {
                 Shape s = p.shape("shape", {16, 8, 32});
                 return one(reverse_sequence(input("x", s), te::placeholder("lens", {s[1]}, ir::DType::Int64), 1, 0));
               },
               {{{"shape", {5, 3, 4}}}, {{"shape", {3, 7}}}}});
  e.push_back({"col2im",
               [](Params& p) {
                 Col2ImAttrs a{p.ints("image", {28, 28}), p.ints("block", {3, 3}), {}, {}, {}};
                 const size_t dims = a.image.size();
                 a.dilations = p.ints("dilations", std::vector<int64_t>(dims, 1));
                 a.pads = p.ints("pads", std::vector<int64_t>(2 * dims, 0));
                 a.strides = p.ints("strides", std::vector<int64_t>(dims, 1));
                 int64_t block = 1, positions = 1;
                 for (size_t d = 0; d < dims && d < a.block.size(); ++d) {
                   block *= a.block[d];
                   const int64_t span = a.dilations.at(d) * (a.block[d] - 1) + 1;
                   positions *= (a.image[d] + a.pads.at(d) + a.pads.at(d + dims) - span) / a.strides.at(d) + 1;
                 }
                 return one(col2im(input("x", {p.dim("N", 1), p.dim("C", 16) * block, positions}), a));
               },
               {{{"C", 2}, {"image", {5, 5}}, {"block", {2, 2}}},
                {{"C", 3}, {"image", {6, 7}}, {"block", {3, 2}}, {"dilations", {2, 1}}, {"pads", {1, 0, 1, 2}},
                 {"strides", {2, 3}}},
                {{"N", 2}, {"C", 1}, {"image", {4, 3, 5}}, {"block", {2, 1, 3}}, {"strides", {1, 2, 1}}}}});
  e.push_back({"dft",
               [](Params& p) {
                 DftAttrs a{p.integer("axis", 1), p.integer("length", 0), p.boolean("inverse", false),
                            p.boolean("onesided", false)};
                 return one(dft(input("x", p.shape("shape", {8, 256, 2})), a));
               },
               {{{"shape", {2, 10, 1}}},
                {{"shape", {3, 6, 2}}, {"inverse", true}},
                {{"shape", {2, 5, 7, 2}}, {"axis", 2}, {"length", 9}, {"onesided", true}},
                {{"shape", {4, 12, 1}}, {"length", 8}}}});
  e.push_back({"deform_conv2d",
               [](Params& p) {
                 const int64_t n = p.dim("N", 1), c = p.dim("C", 64), h = p.dim("H", 28), w = p.dim("W", 28);
                 const int64_t k = p.dim("K", 64), r = p.dim("R", 3), s = p.dim("S", 3), g = p.dim("offset_groups", 1);
                 const Conv2dAttrs a = conv_attrs(p);
                 user_check(a.groups > 0 && c % a.groups == 0, "deform_conv2d: groups must divide C");
                 const int64_t oh = (h + a.padding[0] + a.padding[2] - a.dilation[0] * (r - 1) - 1) / a.stride[0] + 1;
                 const int64_t ow = (w + a.padding[1] + a.padding[3] - a.dilation[1] * (s - 1) - 1) / a.stride[1] + 1;
                 te::Tensor mask = p.boolean("mask", false) ? input("mask", {n, g * r * s, oh, ow}) : nullptr;
                 return one(deform_conv2d(input("data", {n, c, h, w}), weight("weight", {k, c / a.groups, r, s}),
                                          input("offset", {n, g * r * s * 2, oh, ow}), mask, a, g));
               },
               {{{"C", 2}, {"H", 5}, {"W", 6}, {"K", 3}},
                {{"C", 4}, {"H", 7}, {"W", 5}, {"K", 2}, {"offset_groups", 2}, {"mask", true}, {"pad", 1}},
                {{"C", 4}, {"H", 8}, {"W", 8}, {"K", 4}, {"groups", 2}, {"stride", 2}, {"R", 2}, {"S", 2}}}});
  e.push_back({"max_unpool",
               [](Params& p) {
                 const Shape s = p.shape("shape", {1, 64, 28, 28});
                 const int64_t kernel = p.dim("kernel", 2), stride = p.dim("stride", 2), grow = p.integer("grow", 0);
                 Shape out = s;
                 for (size_t d = 2; d < s.size(); ++d) out[d] = (s[d] - 1) * stride + kernel + grow;
                 const std::vector<int64_t> k(s.size() - 2, kernel), st(s.size() - 2, stride);
                 return one(max_unpool(input("x", s), te::placeholder("indices", s, ir::DType::Int64), k, st,
                                       std::vector<int64_t>(2 * k.size(), 0), out));
               },
               {{{"shape", {1, 2, 3, 4}}}, {{"shape", {2, 3, 5}}, {"kernel", 3}, {"stride", 2}, {"grow", 1}}}});
  e.push_back({"conv_nd",
               [](Params& p) {
                 const Shape s = p.shape("shape", {1, 16, 8, 28, 28});
                 const Shape kernel = p.shape("kernel", {3, 3, 3});
                 const size_t k = kernel.size();
                 ConvNdAttrs a{std::vector<int64_t>(k, p.dim("stride", 1)), std::vector<int64_t>(k, 1),
                               std::vector<int64_t>(2 * k, p.integer("pad", 1)), p.dim("groups", 1)};
                 Shape w{p.dim("K", 16), s.at(1) / a.groups};
                 w.insert(w.end(), kernel.begin(), kernel.end());
                 return one(conv_nd(input("data", s), weight("weight", w), a));
               },
               {{{"shape", {1, 2, 4, 5, 3}}, {"kernel", {2, 3, 2}}, {"K", 3}},
                {{"shape", {2, 4, 5, 4, 4}}, {"K", 4}, {"groups", 2}, {"stride", 2}}}});
  e.push_back({"conv2d_winograd_nchwc", [](Params& p) { return one(build_conv2d_winograd_nchwc(p)); },
               {{{"C", 8}, {"H", 7}, {"W", 9}, {"K", 8}, {"bi", 4}, {"bo", 4}},
                {{"N", 2}, {"C", 4}, {"H", 5}, {"W", 6}, {"K", 4}, {"bi", 4}, {"bo", 2}, {"pad", 0}, {"bias", true},
                 {"relu", true}},
                {{"C", 8}, {"H", 7}, {"W", 9}, {"K", 8}, {"bi", 4}, {"bo", 4}, {"m", 2}, {"relu", true}}}});
  return e;
}

const std::vector<OpEntry>& entries() {
  static const std::vector<OpEntry> table = make_entries();
  return table;
}

const OpEntry& find_entry(const std::string& name) {
  for (const auto& e : entries())
    if (e.name == name) return e;
  std::string known;
  for (const auto& e : entries()) known += (known.empty() ? "" : ", ") + e.name;
  user_fail("unknown op '", name, "' (known: ", known, ")");
}

}  // namespace

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const auto& e : entries()) out.push_back(e.name);
  return out;
}

te::ComputeDAG make_op_dag(const std::string& name, const nlohmann::json& params) {
  const OpEntry& e = find_entry(name);
  Params p(name, params.is_null() ? json::object() : params);
  std::vector<te::Tensor> outs = e.build(p);
  p.finish();
  return te::ComputeDAG(std::move(outs));
}

std::vector<nlohmann::json> test_configs(const std::string& name) { return find_entry(name).configs; }

}  // namespace tunectl::ops
