#include "ops/transform.h"

#include <algorithm>

#include "ir/error.h"
#include "ops/op_util.h"

namespace tunectl::ops {

using ir::Expr;

te::Tensor transpose(const te::Tensor& x, const std::vector<int64_t>& perm, const std::string& name) {
  size_t rank = x->shape().size();
  user_check(perm.size() == rank, name, ": perm has ", perm.size(), " entries for rank ", rank);
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> shape(rank);
  std::vector<int> inverse(rank);
  for (size_t k = 0; k < rank; ++k) {
    int p = normalize_axis(perm[k], rank, name);
    user_check(!seen[p], name, ": perm repeats axis ", p);
    seen[p] = true;
    shape[k] = x->shape()[p];
    inverse[p] = static_cast<int>(k);
  }
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx;
        for (size_t d = 0; d < rank; ++d) idx.push_back(i[inverse[d]]);
        return te::read(x, idx);
      },
      "injective", x->dtype());
}

te::Tensor pad(const te::Tensor& x, const std::vector<int64_t>& begins, const std::vector<int64_t>& ends,
               double value, const std::string& name) {
  size_t rank = x->shape().size();
  user_check(begins.size() == rank && ends.size() == rank, name, ": needs ", rank, " begins and ends, got ",
             begins.size(), " and ", ends.size());
  std::vector<int64_t> shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    user_check(begins[d] >= 0 && ends[d] >= 0, name, ": negative padding on axis ", d);
    shape[d] = x->shape()[d] + begins[d] + ends[d];
  }
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx;
        Expr inside;
        for (size_t d = 0; d < rank; ++d) {
          if (begins[d] == 0 && ends[d] == 0) {
            idx.push_back(i[d]);
            continue;
          }
          Expr j = i[d] - begins[d];
          idx.push_back(j);
          Expr ok = ir::make_and(j >= 0, j < x->shape()[d]);
          inside = inside ? ir::make_and(inside, ok) : ok;
        }
        Expr v = te::read(x, idx);
        if (!inside) return v;
        return ir::make_select(inside, v, ir::make_const(x->dtype(), value));
      },
      "injective", x->dtype());
}

te::Tensor concat(const std::vector<te::Tensor>& inputs, int64_t axis, const std::string& name) {
  user_check(!inputs.empty(), name, ": needs at least one input");
  size_t rank = inputs[0]->shape().size();
  int ax = normalize_axis(axis, rank, name);
  std::vector<int64_t> shape = inputs[0]->shape();
  std::vector<int64_t> offsets{0};
  for (size_t n = 1; n < inputs.size(); ++n) {
    const auto& s = inputs[n]->shape();
    user_check(s.size() == rank && inputs[n]->dtype() == inputs[0]->dtype(), name, ": input ", n,
               " differs in rank or type from input 0");
    for (size_t d = 0; d < rank; ++d)
      user_check(static_cast<int>(d) == ax || s[d] == shape[d], name, ": input ", n, " has extent ", s[d],
                 " on axis ", d, ", input 0 has ", shape[d]);
  }
  for (size_t n = 0; n < inputs.size(); ++n) offsets.push_back(offsets.back() + inputs[n]->shape()[ax]);
  shape[ax] = offsets.back();
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        // Innermost choice is the last input; each earlier one wraps it.
        Expr v;
        for (size_t n = inputs.size(); n-- > 0;) {
          std::vector<Expr> idx(i.begin(), i.end());
          idx[ax] = i[ax] - offsets[n];
          Expr r = te::read(inputs[n], idx);
          v = v ? ir::make_select(i[ax] < offsets[n + 1], r, v) : r;
        }
        return v;
      },
      "injective", inputs[0]->dtype());
}

te::Tensor reshape(const te::Tensor& x, const std::vector<int64_t>& shape_in, const std::string& name) {
  std::vector<int64_t> shape = shape_in;
  int infer = -1;
  int64_t known = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) {
      user_check(d < x->shape().size(), name, ": 0 at axis ", d, " beyond the input's rank");
      shape[d] = x->shape()[d];
    }
    if (shape[d] == -1) {
      user_check(infer < 0, name, ": more than one -1 in the new shape");
      infer = static_cast<int>(d);
      continue;
    }
    user_check(shape[d] > 0, name, ": bad dimension ", shape[d]);
    known *= shape[d];
  }
  int64_t total = product(x->shape());
  if (infer >= 0) {
    user_check(total % known == 0, name, ": cannot infer -1 for ", total, " elements");
    shape[infer] = total / known;
  }
  user_check(product(shape) == total, name, ": new shape has ", product(shape), " elements, input has ", total);
  const auto& in = x->shape();
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        Expr flat = 0;
        for (size_t d = 0; d < shape.size(); ++d) flat = d == 0 ? Expr(i[d]) : flat * shape[d] + i[d];
        std::vector<Expr> idx(in.size());
        int64_t stride = 1;
        for (size_t d = in.size(); d-- > 0;) {
          Expr q = stride == 1 ? flat : flat / stride;
          idx[d] = d == 0 ? q : q % in[d];
          stride *= in[d];
        }
        return te::read(x, idx);
      },
      "injective", x->dtype());
}

te::Tensor flatten(const te::Tensor& x, int64_t axis, const std::string& name) {
  const auto& s = x->shape();
  int64_t r = static_cast<int64_t>(s.size());
  user_check(axis >= -r && axis <= r, name, ": axis ", axis, " out of range for rank ", r);
  size_t ax = static_cast<size_t>(axis < 0 ? axis + r : axis);
  int64_t outer = product({s.begin(), s.begin() + ax});
  int64_t inner = product({s.begin() + ax, s.end()});
  return reshape(x, {outer, inner}, name);
}

te::Tensor to_channel_blocks(const te::Tensor& x, int64_t block, const std::string& name) {
  const auto& s = x->shape();
  user_check(s.size() == 4 && block >= 1 && s[1] % block == 0, name, ": needs an NCHW tensor whose ", s.size() > 1 ? s[1] : 0,
             " channels are a multiple of the block ", block);
  return te::compute(
      name, {s[0], s[1] / block, s[2], s[3], block},
      [&](const std::vector<ir::Var>& i) { return te::read(x, {i[0], i[1] * block + i[4], i[2], i[3]}); }, "injective",
      x->dtype());
}

te::Tensor from_channel_blocks(const te::Tensor& x, int64_t channels, const std::string& name) {
  const auto& s = x->shape();
  user_check(s.size() == 5, name, ": needs a channel-blocked tensor [N, C/b, H, W, b]");
  int64_t block = s[4];
  user_check(channels > (s[1] - 1) * block && channels <= s[1] * block, name, ": ", channels,
             " channels do not end in the last of ", s[1], " blocks of ", block);
  return te::compute(
      name, {s[0], channels, s[2], s[3]},
      [&](const std::vector<ir::Var>& i) { return te::read(x, {i[0], i[1] / block, i[2], i[3], i[1] % block}); },
      "injective", x->dtype());
}

te::Tensor trilu(const te::Tensor& x, bool upper, int64_t k, const std::string& name) {
  const auto& s = x->shape();
  user_check(s.size() >= 2, name, ": needs at least 2 dimensions, has ", s.size());
  return te::compute(
      name, s,
      [&](const std::vector<ir::Var>& i) {
        Expr diagonal = Expr(i[s.size() - 1]) - Expr(i[s.size() - 2]);
        Expr keep = upper ? diagonal >= ir::make_int(k) : diagonal <= ir::make_int(k);
        return ir::make_select(keep, te::read(x, {i.begin(), i.end()}), ir::make_zero(x->dtype()));
      },
      "injective", x->dtype());
}

te::Tensor reverse_sequence(const te::Tensor& x, const te::Tensor& lens, int64_t batch_axis, int64_t time_axis,
                            const std::string& name) {
  const auto& s = x->shape();
  const auto rank = static_cast<int64_t>(s.size());
  user_check(rank >= 2 && batch_axis >= 0 && batch_axis < rank && time_axis >= 0 && time_axis < rank &&
                 batch_axis != time_axis,
             name, ": batch axis ", batch_axis, " and time axis ", time_axis, " must be two axes of rank ", rank);
  user_check(lens->shape() == std::vector<int64_t>{s[static_cast<size_t>(batch_axis)]} && ir::is_int(lens->dtype()),
             name, ": the lengths must be integers, one per batch entry");
  return te::compute(
      name, s,
      [&](const std::vector<ir::Var>& i) {
        const Expr t = i[static_cast<size_t>(time_axis)];
        const Expr len = ir::make_cast(ir::kIndexType, te::read(lens, {i[static_cast<size_t>(batch_axis)]}));
        std::vector<Expr> at(i.begin(), i.end());
        // Clamped to the axis: in bounds for any length, and a range that
        // bound inference can read off without knowing the lengths.
        const int64_t last = s[static_cast<size_t>(time_axis)] - 1;
        at[static_cast<size_t>(time_axis)] = ir::make_min(
            ir::make_max(ir::make_select(t < len, len - ir::make_int(1) - t, t), ir::make_int(0)), ir::make_int(last));
        return te::read(x, at);
      },
      "injective", x->dtype());
}

}  // namespace tunectl::ops
