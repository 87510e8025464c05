// Converters of the ONNX data-movement operators (reshape, transpose,
// slicing, gathering, padding, ...) and of the shape operators whose values
// are known at compile time (Shape, Constant, ConstantOfShape, Range).
// Shapes, axes, starts, pads and split sizes must be graph constants.
#include <algorithm>
#include <cmath>

#include "graph/convert_util.h"
#include "ops/index.h"
#include "ops/op_util.h"
#include "ops/transform.h"

namespace tunectl::graph {

namespace {

int64_t norm_axis(const NodeContext& c, int64_t axis, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  c.check(axis >= -r && axis < r, "axis ", axis, " is out of range for rank ", r);
  return axis < 0 ? axis + r : axis;
}

// x with ONNX shape `shape` (a view: same elements, row-major).
te::Tensor reshaped(const NodeContext& c, const te::Tensor& x, const std::vector<int64_t>& shape) {
  for (int64_t d : shape) c.check(d >= 0, "negative dimension ", d, " in the result");
  return ops::reshape(x, te_shape(shape), c.out_name());
}

std::vector<te::Tensor> convert_copy(const NodeContext& c) { return {ops::copy(c.in(0), c.out_name())}; }

std::vector<te::Tensor> convert_dropout(const NodeContext& c) {
  // Inference, or training with a ratio of 0: the identity and a mask of
  // ones. A seeded training Dropout became a multiply by its mask before
  // conversion (draw_dropout_masks); one without a seed would need a mask
  // drawn anew on every run.
  if (c.opset() >= 12 && c.node.inputs.size() > 2 && !c.node.inputs[2].empty() &&
      c.const_scalar(2, "training_mode") != 0) {
    const double ratio = c.has(1) ? c.const_scalar(1, "ratio") : 0.5;
    c.check(ratio == 0, "input 2 (training_mode) is true with a ratio of ", ratio,
            " and no 'seed' attribute; tunectl draws a dropout mask once, when it compiles the model, so it "
            "needs the seed (or inference, or a ratio of 0)");
  }
  std::vector<te::Tensor> outs{ops::copy(c.in(0), c.out_name())};
  if (c.node.outputs.size() > 1 && !c.node.outputs[1].empty())
    outs.push_back(ops::full(c.in(0)->shape(), ir::DType::Bool, 1, c.out_name(1)));
  return outs;
}

std::vector<te::Tensor> convert_flatten(const NodeContext& c) {
  std::vector<int64_t> s = c.shape(0);
  int64_t r = static_cast<int64_t>(s.size());
  int64_t axis = c.attr_int("axis", 1);
  c.check(axis >= -r && axis <= r, "attribute 'axis' = ", axis, " is out of range for rank ", r);
  if (axis < 0) axis += r;
  int64_t outer = ops::product({s.begin(), s.begin() + axis});
  return {reshaped(c, c.in(0), {outer, ops::product(s) / outer})};
}

std::vector<te::Tensor> convert_reshape(const NodeContext& c) {
  std::vector<int64_t> in = c.shape(0);
  std::vector<int64_t> shape = c.const_ints(1, "the new shape");
  bool allowzero = c.attr_int("allowzero", 0) != 0;
  int infer = -1;
  int64_t known = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && !allowzero) {
      c.check(d < in.size(), "0 at axis ", d, " of the new shape is beyond the input's rank ", in.size());
      shape[d] = in[d];
    }
    if (shape[d] == -1) {
      c.check(infer < 0, "more than one -1 in the new shape");
      infer = static_cast<int>(d);
      continue;
    }
    c.check(shape[d] >= 0, "bad dimension ", shape[d], " in the new shape");
    known *= shape[d];
  }
  int64_t total = ops::product(in);
  if (infer >= 0) {
    c.check(known > 0 && total % known == 0, "cannot infer the -1 dimension for ", total, " elements");
    shape[infer] = total / known;
  }
  c.check(ops::product(shape) == total, "the new shape has ", ops::product(shape), " elements, the input has ",
          total);
  return {reshaped(c, c.in(0), shape)};
}

std::vector<te::Tensor> convert_transpose(const NodeContext& c) {
  size_t rank = c.shape(0).size();
  std::vector<int64_t> def;
  for (size_t d = rank; d-- > 0;) def.push_back(static_cast<int64_t>(d));
  if (rank == 0) return {ops::copy(c.in(0), c.out_name())};
  return {ops::transpose(c.in(0), c.attr_ints("perm", def), c.out_name())};
}

std::vector<te::Tensor> convert_concat(const NodeContext& c) {
  c.check(c.has_attr("axis"), "attribute 'axis' is missing");
  std::vector<te::Tensor> ins;
  // Empty inputs add nothing, and a kernel must not read them.
  for (size_t i = 0; i < c.num_inputs(); ++i)
    if (ops::product(c.in(i)->shape()) != 0 || (ins.empty() && i + 1 == c.num_inputs())) ins.push_back(c.in(i));
  return {ops::concat(ins, c.attr_int("axis", 0), c.out_name())};
}

std::vector<te::Tensor> convert_split(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  std::vector<int64_t> s = c.shape(0);
  int64_t axis = norm_axis(c, c.attr_int("axis", 0), s.size());
  int64_t n = s[axis];
  size_t parts = c.node.outputs.size();
  std::vector<int64_t> sizes;
  if (c.opset() < 13) {
    sizes = c.attr_ints("split", {});
  } else if (c.node.inputs.size() > 1 && !c.node.inputs[1].empty()) {
    sizes = c.const_ints(1, "the split sizes");
  }
  if (sizes.empty()) {
    // Equal parts; from opset 18 num_outputs may leave a smaller last part.
    if (c.has_attr("num_outputs")) {
      const int64_t num_outputs = c.attr_int("num_outputs", 1);
      c.check(num_outputs == static_cast<int64_t>(parts), "attribute 'num_outputs' = ", num_outputs, ", but the node has ",
              parts, " outputs");
    }
    c.check(parts > 0, "has no outputs");
    int64_t p = static_cast<int64_t>(parts);
    int64_t each = c.opset() >= 18 ? (n + p - 1) / p : n / p;
    c.check(c.opset() >= 18 || n % p == 0, "axis extent ", n, " does not split into ", p, " equal parts");
    for (int64_t k = 0; k < p; ++k) sizes.push_back(std::min(each, n - k * each));
  }
  c.check(sizes.size() == parts, sizes.size(), " split sizes for ", parts, " outputs");
  int64_t total = 0;
  for (int64_t v : sizes) total += v;
  c.check(total == n, "split sizes add up to ", total, ", the axis has ", n);
  std::vector<te::Tensor> outs;
  int64_t begin = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    std::vector<int64_t> begins(s.size(), 0), steps(s.size(), 1), extents = s;
    begins[axis] = begin;
    extents[axis] = sizes[k];
    outs.push_back(ops::strided_slice(x, begins, steps, extents, c.out_name(k)));
    begin += sizes[k];
  }
  return outs;
}

std::vector<te::Tensor> convert_slice(const NodeContext& c) {
  std::vector<int64_t> s = c.shape(0);
  std::vector<int64_t> starts, ends, axes, steps;
  auto given = [&](size_t i) { return c.node.inputs.size() > i && !c.node.inputs[i].empty(); };
  if (c.opset() < 10) {
    starts = c.attr_ints("starts", {});
    ends = c.attr_ints("ends", {});
    axes = c.attr_ints("axes", {});
  } else {
    starts = c.const_ints(1, "starts");
    ends = c.const_ints(2, "ends");
    if (given(3)) axes = c.const_ints(3, "axes");
    if (given(4)) steps = c.const_ints(4, "steps");
  }
  if (axes.empty())
    for (size_t d = 0; d < starts.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  if (steps.empty()) steps.assign(starts.size(), 1);
  c.check(ends.size() == starts.size() && axes.size() == starts.size() && steps.size() == starts.size(),
          "starts, ends, axes and steps differ in length");
  size_t rank = s.size();
  std::vector<int64_t> begins(rank, 0), strides(rank, 1), extents = s;
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t ax = norm_axis(c, axes[k], rank), n = s[ax], step = steps[k];
    c.check(step != 0, "step 0 on axis ", ax);
    int64_t b = starts[k], e = ends[k];
    if (b < 0) b += n;
    if (e < 0) e = e < -n ? -1 - n : e + n;  // stays below every valid index
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
    } else {
      b = std::clamp<int64_t>(b, 0, n - 1);
      e = std::clamp<int64_t>(e, -1, n - 1);
    }
    int64_t span = step > 0 ? e - b : b - e;
    int64_t mag = step > 0 ? step : -step;
    int64_t count = span <= 0 ? 0 : (span + mag - 1) / mag;
    begins[ax] = b;
    strides[ax] = step;
    extents[ax] = count;
  }
  return {ops::strided_slice(c.in(0), begins, strides, extents, c.out_name())};
}

std::vector<te::Tensor> convert_gather(const NodeContext& c) {
  return {ops::gather(c.in(0), c.in(1), c.attr_int("axis", 0), c.is_scalar(1), c.out_name())};
}

std::vector<te::Tensor> convert_unsqueeze(const NodeContext& c) {
  std::vector<int64_t> s = c.shape(0);
  std::vector<int64_t> axes = c.opset() < 13 ? c.attr_ints("axes", {}) : c.const_ints(1, "the axes");
  c.check(!axes.empty(), "no axes to insert");
  size_t rank = s.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    int64_t ax = norm_axis(c, a, rank);
    c.check(!inserted[ax], "axis ", a, " listed twice");
    inserted[ax] = true;
  }
  std::vector<int64_t> shape;
  for (size_t d = 0, j = 0; d < rank; ++d) shape.push_back(inserted[d] ? 1 : s[j++]);
  return {reshaped(c, c.in(0), shape)};
}

std::vector<te::Tensor> convert_squeeze(const NodeContext& c) {
  std::vector<int64_t> s = c.shape(0);
  std::vector<int64_t> axes;
  if (c.opset() < 13) {
    axes = c.attr_ints("axes", {});
  } else if (c.node.inputs.size() > 1 && !c.node.inputs[1].empty()) {
    axes = c.const_ints(1, "the axes");
  }
  std::vector<bool> drop(s.size(), axes.empty());
  if (axes.empty()) {
    for (size_t d = 0; d < s.size(); ++d) drop[d] = s[d] == 1;
  }
  for (int64_t a : axes) {
    int64_t ax = norm_axis(c, a, s.size());
    c.check(s[ax] == 1, "axis ", a, " has extent ", s[ax], ", not 1");
    drop[ax] = true;
  }
  std::vector<int64_t> shape;
  for (size_t d = 0; d < s.size(); ++d)
    if (!drop[d]) shape.push_back(s[d]);
  return {reshaped(c, c.in(0), shape)};
}

std::vector<te::Tensor> convert_pad(const NodeContext& c) {
  size_t rank = c.shape(0).size();
  std::string mode = c.attr_string("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0.0;
  std::vector<int64_t> axes;
  if (c.opset() < 11) {
    c.check(c.has_attr("pads"), "attribute 'pads' is missing");
    pads = c.attr_ints("pads", {});
    value = c.attr_float("value", 0.0);
  } else {
    pads = c.const_ints(1, "the pads");
    if (c.node.inputs.size() > 2 && !c.node.inputs[2].empty()) value = c.const_scalar(2, "the constant value");
    if (c.node.inputs.size() > 3 && !c.node.inputs[3].empty()) axes = c.const_ints(3, "the padded axes");
  }
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  c.check(pads.size() == 2 * axes.size(), "pads has ", pads.size(), " values for ", axes.size(), " axes");
  std::vector<int64_t> begins(rank, 0), ends(rank, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t ax = norm_axis(c, axes[k], rank);
    begins[ax] = pads[k];
    ends[ax] = pads[k + axes.size()];
    c.check(begins[ax] >= 0 && ends[ax] >= 0, "negative pads (cropping) are not supported");
  }
  if (mode == "constant") return {ops::pad(c.in(0), begins, ends, value, c.out_name())};
  c.check(mode == "edge" || mode == "reflect" || (mode == "wrap" && c.opset() >= 19), "attribute 'mode' = '", mode,
          "' is not supported (constant, edge, reflect, and from opset 19 wrap)");
  const ops::BorderMode border =
      mode == "edge" ? ops::BorderMode::Edge : mode == "reflect" ? ops::BorderMode::Reflect : ops::BorderMode::Wrap;
  return {ops::pad_border(c.in(0), begins, ends, border, c.out_name())};
}

// CenterCropPad: each listed axis cropped or zero-padded to its target
// extent around the center (the extra element of an odd difference at the
// end), as a slice followed by a pad.
std::vector<te::Tensor> convert_center_crop_pad(const NodeContext& c) {
  const std::vector<int64_t> s = c.shape(0);
  const size_t rank = s.size();
  const std::vector<int64_t> target = c.const_ints(1, "the target shape");
  std::vector<int64_t> axes = c.attr_ints("axes", {});
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  c.check(target.size() == axes.size(), "the target shape has ", target.size(), " values for ", axes.size(), " axes");
  std::vector<int64_t> begins(rank, 0), steps(rank, 1), extents = s, pad_before(rank, 0), pad_after(rank, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const size_t ax = static_cast<size_t>(norm_axis(c, axes[k], rank));
    c.check(target[k] >= 0, "target extent ", target[k], " is negative");
    if (target[k] < s[ax]) {
      begins[ax] = (s[ax] - target[k]) / 2;
      extents[ax] = target[k];
    } else {
      pad_before[ax] = (target[k] - s[ax]) / 2;
      pad_after[ax] = target[k] - s[ax] - pad_before[ax];
    }
  }
  te::Tensor cropped = ops::strided_slice(c.in(0), begins, steps, extents, c.out_name() + "_crop");
  return {ops::pad(cropped, pad_before, pad_after, 0.0, c.out_name())};
}

std::vector<te::Tensor> convert_expand(const NodeContext& c) {
  return {ops::broadcast_to(c.in(0), c.const_ints(1, "the target shape"), c.out_name())};
}

// DepthToSpace (DCR: depth as [block, block, C']; CRD: [C', block, block])
// and SpaceToDepth, as a reshape to 6-D, a transpose and a reshape back.
std::vector<te::Tensor> convert_depth_to_space(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  c.check(x->shape().size() == 4, "input must be 4-D (NCHW)");
  int64_t b = c.attr_int("blocksize", 0);
  const auto& s = x->shape();
  c.check(b >= 1 && s[1] % (b * b) == 0, "attribute 'blocksize' = ", b, " must be positive and its square divide the ",
          s[1], " channels");
  std::string mode = c.attr_string("mode", "DCR");
  c.check(mode == "DCR" || mode == "CRD", "attribute 'mode' = '", mode, "' is not DCR or CRD");
  int64_t n = s[0], ch = s[1] / (b * b), h = s[2], w = s[3];
  bool dcr = mode == "DCR";
  te::Tensor split = ops::reshape(x, dcr ? std::vector<int64_t>{n, b, b, ch, h, w} : std::vector<int64_t>{n, ch, b, b, h, w},
                                  c.out_name() + "_split");
  std::vector<int64_t> perm = dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2} : std::vector<int64_t>{0, 1, 4, 2, 5, 3};
  te::Tensor moved = ops::transpose(split, perm, c.out_name() + "_moved");
  return {ops::reshape(moved, {n, ch, h * b, w * b}, c.out_name())};
}

std::vector<te::Tensor> convert_space_to_depth(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  c.check(x->shape().size() == 4, "input must be 4-D (NCHW)");
  int64_t b = c.attr_int("blocksize", 0);
  const auto& s = x->shape();
  c.check(b >= 1 && s[2] % b == 0 && s[3] % b == 0, "attribute 'blocksize' = ", b,
          " must be positive and divide the height ", s[2], " and width ", s[3]);
  int64_t n = s[0], ch = s[1], h = s[2] / b, w = s[3] / b;
  te::Tensor split = ops::reshape(x, {n, ch, h, b, w, b}, c.out_name() + "_split");
  te::Tensor moved = ops::transpose(split, {0, 3, 5, 1, 2, 4}, c.out_name() + "_moved");
  return {ops::reshape(moved, {n, ch * b * b, h, w}, c.out_name())};
}

// Tile: output dimension d repeats the input's repeats[d] times.
std::vector<te::Tensor> convert_tile(const NodeContext& c) {
  const te::Tensor& x = c.in(0);
  std::vector<int64_t> repeats = c.const_ints(1, "the repeats");
  const auto& s = x->shape();
  c.check(repeats.size() == c.shape(0).size(), "repeats has ", repeats.size(), " values for an input of rank ",
          c.shape(0).size());
  std::vector<int64_t> out(s.size());
  for (size_t d = 0; d < s.size(); ++d) {
    int64_t r = d < repeats.size() ? repeats[d] : 1;  // a scalar is held as [1] and repeats nothing
    c.check(r >= 1, "repeats must be positive, got ", r);
    out[d] = s[d] * r;
  }
  return {te::compute(
      c.out_name(), out,
      [&](const std::vector<ir::Var>& i) {
        std::vector<ir::Expr> idx;
        for (size_t d = 0; d < s.size(); ++d) idx.push_back(s[d] == out[d] ? ir::Expr(i[d]) : i[d] % s[d]);
        return te::read(x, idx);
      },
      "injective", x->dtype())};
}

// A tensor of known values: a small value table.
te::Tensor known_values(const NodeContext& c, const runtime::NDArray& values) {
  c.check(values.num_elements() <= ops::kMaxTableElements, "a value of ", values.num_elements(),
          " elements must be a graph constant (at most ", ops::kMaxTableElements, " can be built as an op)");
  return ops::value_table(values, c.out_name());
}

std::vector<te::Tensor> convert_shape(const NodeContext& c) {
  std::vector<int64_t> s = c.shape(0);
  int64_t r = static_cast<int64_t>(s.size());
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  runtime::NDArray values(ir::DType::Int64, {std::max<int64_t>(end - start, 0)});
  for (int64_t d = start; d < end; ++d) values.data<int64_t>()[d - start] = s[d];
  return {known_values(c, values)};
}

using ir::Expr;

std::vector<te::Tensor> convert_one_hot(const NodeContext& c) {
  const int64_t rank = static_cast<int64_t>(c.shape(0).size()), axis = c.attr_int("axis", -1);
  c.check(axis >= -rank - 1 && axis <= rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank + 1);
  const double depth = c.const_scalar(1, "depth");
  return {ops::one_hot(c.in(0), static_cast<int64_t>(depth), c.in(2), axis, c.out_name())};
}

// EyeLike: ones on diagonal k of a matrix shaped as the input; reads only
// the input's shape, so it folds to a constant.
std::vector<te::Tensor> convert_eye_like(const NodeContext& c) {
  const std::vector<int64_t> s = c.shape(0);
  c.check(s.size() == 2, "input must be 2-D, it has rank ", s.size());
  const ir::DType t = c.has_attr("dtype") ? dtype_from_onnx(c.attr_int("dtype", 1), c) : c.in(0)->dtype();
  const int64_t k = c.attr_int("k", 0);
  return {te::compute(
      c.out_name(), s,
      [&](const std::vector<ir::Var>& i) {
        return ir::make_select(ir::make_eq(Expr(i[1]) - i[0], Expr(k)), ir::make_const(t, 1), ir::make_zero(t));
      },
      "injective", t)};
}

// Hann, Hamming and Blackman windows of `size` points: a0 - a1 cos(2 pi n / N)
// + a2 cos(4 pi n / N), N = size (periodic) or size - 1 (symmetric).
Converter window(double a0, double a1, double a2) {
  return [=](const NodeContext& c) {
    const int64_t size = static_cast<int64_t>(c.const_scalar(0, "size"));
    c.check(size >= 0, "size ", size, " is negative");
    const ir::DType t = dtype_from_onnx(c.attr_int("output_datatype", 1), c);
    const double n = c.attr_int("periodic", 1) != 0 ? static_cast<double>(size) : static_cast<double>(size - 1);
    return std::vector<te::Tensor>{te::compute(
        c.out_name(), {size},
        [&](const std::vector<ir::Var>& i) {
          const ir::DType f = ir::DType::Float64;
          Expr x = ir::make_cast(f, i[0]) * ir::make_const(f, 2 * M_PI / n);
          Expr w = ir::make_const(f, a0) - ir::make_const(f, a1) * ir::make_call(ir::MathFunc::cos, {x}) +
                   ir::make_const(f, a2) * ir::make_call(ir::MathFunc::cos, {x * ir::make_const(f, 2.0)});
          return ir::make_cast(t, w);
        },
        "injective", t)};
  };
}

std::vector<te::Tensor> convert_size(const NodeContext& c) {
  runtime::NDArray count(ir::DType::Int64, {});
  count.set_int(0, ops::product(c.shape(0)));
  return {known_values(c, count)};
}

std::vector<te::Tensor> convert_constant(const NodeContext& c) {
  if (c.has_attr("value")) return {known_values(c, c.node.attrs.get_tensor(c.node, "value"))};
  auto one = [&](ir::DType t, std::vector<double> v, bool scalar) {
    runtime::NDArray a(t, scalar ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) a.set(static_cast<int64_t>(i), v[i]);
    return std::vector<te::Tensor>{known_values(c, a)};
  };
  if (c.has_attr("value_float")) return one(ir::DType::Float32, {c.attr_float("value_float", 0)}, true);
  if (c.has_attr("value_int"))
    return one(ir::DType::Int64, {static_cast<double>(c.attr_int("value_int", 0))}, true);
  if (c.has_attr("value_ints")) {
    std::vector<double> v;
    for (int64_t x : c.attr_ints("value_ints", {})) v.push_back(static_cast<double>(x));
    return one(ir::DType::Int64, v, false);
  }
  if (c.has_attr("value_floats")) {
    const auto& vals = c.node.attrs.values.at("value_floats");
    c.check(std::holds_alternative<std::vector<double>>(vals), "attribute 'value_floats' must be floats");
    return one(ir::DType::Float32, std::get<std::vector<double>>(vals), false);
  }
  c.fail("no supported value attribute (value, value_float, value_int, value_floats, value_ints)");
}

std::vector<te::Tensor> convert_constant_of_shape(const NodeContext& c) {
  std::vector<int64_t> shape = c.const_ints(0, "the output shape");
  for (int64_t d : shape) c.check(d >= 0, "negative dimension ", d, " in the output shape");
  ir::DType t = ir::DType::Float32;
  double v = 0.0;
  if (c.has_attr("value")) {
    const runtime::NDArray& a = c.node.attrs.get_tensor(c.node, "value");
    c.check(a.num_elements() == 1, "attribute 'value' must hold one element");
    t = a.dtype();
    v = a.get(0);
  }
  return {ops::full(shape, t, v, c.out_name())};
}

std::vector<te::Tensor> convert_range(const NodeContext& c) {
  double start = c.const_scalar(0, "start"), limit = c.const_scalar(1, "limit");
  double delta = c.const_scalar(2, "delta");
  c.check(delta != 0, "delta is 0");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
  return {ops::arange(start, delta, n, c.constant(0, "start").dtype(), c.out_name())};
}

}  // namespace

void add_shape_converters(ConverterTable& t) {
  t["Trilu"] = [](const NodeContext& c) {
    int64_t k = 0;
    if (c.node.inputs.size() > 1 && !c.node.inputs[1].empty()) {
      const std::vector<int64_t> ks = c.const_ints(1, "the diagonal offset k");
      c.check(ks.size() == 1, "input 1 (k) must hold one value, it has ", ks.size());
      k = ks[0];
    }
    c.check(c.shape(0).size() >= 2, "needs an input of rank 2 or more");
    return std::vector<te::Tensor>{ops::trilu(c.in(0), c.attr_int("upper", 1) != 0, k, c.out_name())};
  };
  t["ReverseSequence"] = [](const NodeContext& c) {
    const auto rank = static_cast<int64_t>(c.shape(0).size());
    auto axis = [&](const char* name, int64_t fallback) {
      const int64_t a = c.attr_int(name, fallback);
      c.check(a >= -rank && a < rank, "attribute '", name, "' = ", a, " is out of range for rank ", rank);
      return a < 0 ? a + rank : a;
    };
    return std::vector<te::Tensor>{
        ops::reverse_sequence(c.in(0), c.in(1), axis("batch_axis", 1), axis("time_axis", 0), c.out_name())};
  };
  t["Identity"] = convert_copy;
  t["KernelBoundary"] = convert_copy;
  t["Dropout"] = convert_dropout;
  t["Flatten"] = convert_flatten;
  t["Reshape"] = convert_reshape;
  t["Transpose"] = convert_transpose;
  t["Concat"] = convert_concat;
  t["Split"] = convert_split;
  t["Slice"] = convert_slice;
  t["Gather"] = convert_gather;
  t["GatherElements"] = [](const NodeContext& c) {
    const int64_t rank = static_cast<int64_t>(c.shape(0).size()), axis = c.attr_int("axis", 0);
    c.check(axis >= -rank && axis < rank, "attribute 'axis' = ", axis, " is out of range for rank ", rank);
    c.check(c.shape(1).size() == c.shape(0).size(), "indices of rank ", c.shape(1).size(), " for data of rank ", rank);
    return std::vector<te::Tensor>{ops::gather_elements(c.in(0), c.in(1), axis, c.out_name())};
  };
  t["Unsqueeze"] = convert_unsqueeze;
  t["Squeeze"] = convert_squeeze;
  t["Pad"] = convert_pad;
  t["Expand"] = convert_expand;
  t["DepthToSpace"] = convert_depth_to_space;
  t["SpaceToDepth"] = convert_space_to_depth;
  t["Tile"] = convert_tile;
  t["Shape"] = convert_shape;
  t["Size"] = convert_size;
  t["OneHot"] = convert_one_hot;
  t["CenterCropPad"] = convert_center_crop_pad;
  t["EyeLike"] = convert_eye_like;
  t["HannWindow"] = window(0.5, 0.5, 0.0);
  t["HammingWindow"] = window(25.0 / 46.0, 21.0 / 46.0, 0.0);
  t["BlackmanWindow"] = window(0.42, 0.5, 0.08);
  t["Constant"] = convert_constant;
  t["ConstantOfShape"] = convert_constant_of_shape;
  t["Range"] = convert_range;
  // Operators on sequences and optionals: simplify_graph resolves them into
  // operators on tensors (pass_composites.cpp) before anything converts.
  for (const char* op : {"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceLength", "SequenceInsert",
                         "SequenceErase", "SplitToSequence", "ConcatFromSequence", "Optional", "OptionalHasElement",
                         "OptionalGetElement"}) {
    t[op] = [](const NodeContext& c) -> std::vector<te::Tensor> {
      c.fail("works on sequences or optionals, which resolve_composites turns into tensors before conversion");
    };
  }
}

}  // namespace tunectl::graph
