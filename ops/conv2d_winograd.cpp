#include "ops/conv2d_winograd.h"

#include <vector>

#include "ir/error.h"
#include "ops/transform.h"

namespace tunectl::ops {

using ir::Expr;

namespace {

using Matrix = std::vector<std::vector<double>>;
using Values = std::vector<Expr>;

// G [alpha x 3] of F(m x m, 3x3), which transforms the weights once at load:
// Lavin and Gray's F(4x4, 3x3) with interpolation points 0, +-1, +-2 (as in
// wincnn); F(2x2, 3x3) with points 0, +-1.
const Matrix& weight_matrix(int64_t m) {
  static const Matrix f4{{1.0 / 4, 0, 0},
                         {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                         {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                         {1.0 / 24, 1.0 / 12, 1.0 / 6},
                         {1.0 / 24, -1.0 / 12, 1.0 / 6},
                         {0, 0, 1}};
  static const Matrix f2{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  user_check(winograd_tile_supported(m), "winograd: F(", m, "x", m, ", 3x3) is not supported (m is 2 or 4)");
  return m == 4 ? f4 : f2;
}

// B^T d of one column d (alpha values) of an input tile, written out with
// the sums its rows share, as oneDNN and NNPACK write it. F(4x4):
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
//          0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
// in 14 operations instead of 36 multiply-adds; F(2x2):
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
Values input_transform(const Values& d) {
  const ir::DType t = d[0].dtype();
  auto c = [&](double v) { return ir::make_const(t, v); };
  if (d.size() == 4) return {d[0] - d[2], d[1] + d[2], d[2] - d[1], d[1] - d[3]};
  const Expr d13 = d[1] - d[3], d42 = d[4] - d[2];
  return {c(4) * d[0] - c(5) * d[2] + d[4],
          d[3] + d[4] - c(4) * (d[1] + d[2]),
          d[4] - d[3] + c(4) * (d[1] - d[2]),
          d42 - c(2) * d13,
          d42 + c(2) * d13,
          c(4) * d[1] - c(5) * d[3] + d[5]};
}

// A^T x of one column x (alpha values) of a product tile: m values. F(4x4):
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
// in 10 operations instead of 24; F(2x2): A^T = [1 1 1 0; 0 1 -1 -1].
Values output_transform(const Values& x) {
  const ir::DType t = x[0].dtype();
  auto c = [&](double v) { return ir::make_const(t, v); };
  if (x.size() == 4) return {x[0] + x[1] + x[2], x[1] - x[2] - x[3]};
  const Expr a = x[1] + x[2], b = x[1] - x[2], s = x[3] + x[4], d = x[3] - x[4];
  return {x[0] + a + s, b + c(2) * d, a + c(4) * s, b + c(8) * d + x[5]};
}

// values[row]: a chain of selects on row, so that where the schedule
// unrolls row's loop the code generator emits only the value that copy
// picks, and the copies share their loads and common sums.
Expr pick(const Expr& row, const Values& values) {
  Expr out = values.back();
  for (size_t k = values.size() - 1; k-- > 0;)
    out = ir::make_select(ir::make_binary(ir::ExprKind::EQ, row, ir::make_int(static_cast<int64_t>(k), row.dtype())),
                          values[k], out);
  return out;
}

// f(column) picked by row, for column k the values of `at(k)`.
template <class ColumnValue>
Expr transformed(const Expr& row, int64_t alpha, Values (*f)(const Values&), ColumnValue at) {
  Values column;
  for (int64_t k = 0; k < alpha; ++k) column.push_back(at(k));
  return pick(row, f(column));
}

}  // namespace

te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& u, int64_t pad, const std::string& name) {
  user_check(data->shape().size() == 5 && u->shape().size() == 6, name,
             ": blocked data [N, C/b, H, W, b] and transformed weight [alpha, alpha, K/b, C/b, b, b] expected");
  const auto& ds = data->shape();
  const auto& us = u->shape();
  const int64_t alpha = us[0], m = alpha - 2;
  user_check(winograd_tile_supported(m) && us[1] == alpha, name, ": transformed weight [alpha, alpha, ...] with alpha ",
             winograd_alpha(2), " or ", winograd_alpha(4), " expected");
  const int64_t n = ds[0], c_blocks = ds[1], h = ds[2], w = ds[3], bi = ds[4];
  const int64_t k_blocks = us[2], bo = us[5];
  user_check(us[3] == c_blocks && us[4] == bi, name, ": transformed weight does not match the data's channel blocks");
  user_check(pad >= 0 && h + 2 * pad >= 3 && w + 2 * pad >= 3, name, ": image smaller than the kernel");
  const int64_t oh = h + 2 * pad - 2, ow = w + 2 * pad - 2;
  const int64_t th = (oh + m - 1) / m, tw = (ow + m - 1) / m, tiles = n * th * tw;
  // Zero-padded so that every tile's alpha x alpha inputs exist.
  const te::Tensor in = ops::pad(data, {0, 0, pad, pad, 0},
                                 {0, 0, th * m + 2 - h - pad, tw * m + 2 - w - pad, 0}, 0.0, name + "_pad");
  // T[e][r] = (B^T d)[e] of column r of the tile, per tile and channel.
  const te::Tensor t = te::compute(
      name + "_input_rows", {alpha, alpha, tiles, c_blocks, bi},
      [&](const std::vector<ir::Var>& i) {
        Expr p = i[2];
        Expr img = p / (th * tw), ty = (p / tw) % th, tx = p % tw;
        return transformed(i[0], alpha, input_transform,
                           [&](int64_t k) { return te::read(in, {img, i[3], ty * m + k, tx * m + i[1], i[4]}); });
      },
      "winograd", data->dtype());
  // V[e][u] = (T[e] B)[u]: [alpha, alpha, tiles, C/b, b].
  const te::Tensor v = te::compute(
      name + "_input_transform", {alpha, alpha, tiles, c_blocks, bi},
      [&](const std::vector<ir::Var>& i) {
        return transformed(i[1], alpha, input_transform,
                           [&](int64_t k) { return te::read(t, {i[0], k, i[2], i[3], i[4]}); });
      },
      "winograd", data->dtype());
  ir::IterVar rco = te::reduce_axis(c_blocks, "rco");
  ir::IterVar rci = te::reduce_axis(bi, "rci");
  // M[e][u] = sum over input channels of V[e][u] U[e][u]: [alpha, alpha, tiles, K/b, b].
  const te::Tensor products = te::compute(
      name + "_products", {alpha, alpha, tiles, k_blocks, bo},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(v, {i[0], i[1], i[2], rco.var, rci.var}) *
                           te::read(u, {i[0], i[1], i[3], rco.var, rci.var, i[4]}),
                       {rco, rci});
      },
      "conv2d", data->dtype());
  // O[i][u] = (A^T M)[i] of column u: [m, alpha, tiles, K/b, b].
  const te::Tensor o = te::compute(
      name + "_output_rows", {m, alpha, tiles, k_blocks, bo},
      [&](const std::vector<ir::Var>& i) {
        return transformed(i[0], alpha, output_transform,
                           [&](int64_t k) { return te::read(products, {k, i[1], i[2], i[3], i[4]}); });
      },
      "winograd", data->dtype());
  // Y[i][j] = (O[i] A)[j]: [m, m, tiles, K/b, b], whole tiles, shaped like
  // the input transform so that one sketch rule fits both.
  const te::Tensor y = te::compute(
      name + "_output_transform", {m, m, tiles, k_blocks, bo},
      [&](const std::vector<ir::Var>& i) {
        return transformed(i[1], alpha, output_transform,
                           [&](int64_t k) { return te::read(o, {i[0], k, i[2], i[3], i[4]}); });
      },
      "winograd", data->dtype());
  // The image: output (m ty + i, m tx + j) of tile (ty, tx).
  return te::compute(
      name, {n, k_blocks, oh, ow, bo},
      [&](const std::vector<ir::Var>& i) {
        Expr tile = (i[0] * th + i[2] / m) * tw + i[3] / m;
        return te::read(y, {i[2] % m, i[3] % m, tile, i[1], i[4]});
      },
      "injective", data->dtype());
}

bool winograd_tile_supported(int64_t m) { return m == 2 || m == 4; }

runtime::NDArray winograd_weights(const runtime::NDArray& weight, int64_t m) {
  const Matrix& g_mat = weight_matrix(m);
  const int64_t alpha = winograd_alpha(m);
  const auto& s = weight.shape();
  user_check(s.size() == 6 && s[2] == 3 && s[3] == 3 && weight.dtype() == ir::DType::Float32,
             "winograd: a blocked fp32 3x3 weight [K/b, C/b, 3, 3, bi, bo] expected");
  const int64_t kb = s[0], cb = s[1], block = s[4] * s[5];  // bi x bo pairs, innermost in both
  runtime::NDArray u(weight.dtype(), {alpha, alpha, kb, cb, s[4], s[5]});
  const float* g = static_cast<const float*>(weight.raw());
  float* out = static_cast<float*>(u.raw());
  for (int64_t kc = 0; kc < kb * cb; ++kc) {
    const float* gk = g + kc * 9 * block;
    for (int64_t a = 0; a < alpha; ++a)
      for (int64_t b = 0; b < alpha; ++b) {
        float* uk = out + ((a * alpha + b) * kb * cb + kc) * block;
        for (int64_t io = 0; io < block; ++io) {
          double sum = 0;
          for (int64_t y = 0; y < 3; ++y)
            for (int64_t x = 0; x < 3; ++x) sum += g_mat[a][y] * gk[(y * 3 + x) * block + io] * g_mat[b][x];
          uk[io] = static_cast<float>(sum);
        }
      }
  }
  return u;
}

}  // namespace tunectl::ops
