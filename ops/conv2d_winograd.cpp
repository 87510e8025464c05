#include "ops/conv2d_winograd.h"

#include <vector>

#include "ir/error.h"
#include "ops/transform.h"

namespace tunectl::ops {

using ir::Expr;

namespace {

using Matrix = std::vector<std::vector<double>>;

// B^T [alpha x alpha], A^T [m x alpha] and G [alpha x 3] of F(m x m, 3x3).
struct WinogradMatrices {
  Matrix bt, at, g;
};

// F(4x4, 3x3): Lavin and Gray's matrices with interpolation points 0, +-1,
// +-2 (as in wincnn). F(2x2, 3x3): points 0, +-1.
const WinogradMatrices& matrices(int64_t m) {
  static const WinogradMatrices f4{{{4, 0, -5, 0, 1, 0},
                                    {0, -4, -4, 1, 1, 0},
                                    {0, 4, -4, -1, 1, 0},
                                    {0, -2, -1, 2, 1, 0},
                                    {0, 2, -1, -2, 1, 0},
                                    {0, 4, 0, -5, 0, 1}},
                                   {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}},
                                   {{1.0 / 4, 0, 0},
                                    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                    {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                    {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                    {0, 0, 1}}};
  static const WinogradMatrices f2{{{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
                                   {{1, 1, 1, 0}, {0, 1, -1, -1}},
                                   {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}};
  user_check(winograd_tile_supported(m), "winograd: F(", m, "x", m, ", 3x3) is not supported (m is 2 or 4)");
  return m == 4 ? f4 : f2;
}

runtime::NDArray to_ndarray(const Matrix& table) {
  const int64_t rows = static_cast<int64_t>(table.size()), cols = static_cast<int64_t>(table[0].size());
  runtime::NDArray a(ir::DType::Float32, {rows, cols});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) a.set(i * cols + j, table[i][j]);
  return a;
}

}  // namespace

te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& u, const te::Tensor& bt, const te::Tensor& at,
                                 int64_t pad, const std::string& name) {
  user_check(data->shape().size() == 5 && u->shape().size() == 6, name,
             ": blocked data [N, C/b, H, W, b] and transformed weight [alpha, alpha, K/b, C/b, b, b] expected");
  user_check(at->shape().size() == 2 && winograd_tile_supported(at->shape()[0]), name,
             ": A^T must be [m, m + 2] with m 2 or 4");
  const int64_t m = at->shape()[0], alpha = winograd_alpha(m);
  user_check(bt->shape() == std::vector<int64_t>{alpha, alpha} && at->shape()[1] == alpha, name, ": B^T must be [",
             alpha, ", ", alpha, "] and A^T [", m, ", ", alpha, "]");
  const auto& ds = data->shape();
  const auto& us = u->shape();
  const int64_t n = ds[0], c_blocks = ds[1], h = ds[2], w = ds[3], bi = ds[4];
  const int64_t k_blocks = us[2], bo = us[5];
  user_check(us[0] == alpha && us[1] == alpha && us[3] == c_blocks && us[4] == bi, name,
             ": transformed weight does not match the data's channel blocks");
  user_check(pad >= 0 && h + 2 * pad >= 3 && w + 2 * pad >= 3, name, ": image smaller than the kernel");
  const int64_t oh = h + 2 * pad - 2, ow = w + 2 * pad - 2;
  const int64_t th = (oh + m - 1) / m, tw = (ow + m - 1) / m, tiles = n * th * tw;
  // Zero-padded so that every tile's alpha x alpha inputs exist.
  const te::Tensor in = ops::pad(data, {0, 0, pad, pad, 0},
                                 {0, 0, th * m + 2 - h - pad, tw * m + 2 - w - pad, 0}, 0.0, name + "_pad");
  ir::IterVar r1 = te::reduce_axis(alpha, "r1");
  // T[e][r2] = sum over r1 of B^T[e][r1] d[r1][r2], per tile and channel.
  const te::Tensor t = te::compute(
      name + "_input_rows", {alpha, alpha, tiles, c_blocks, bi},
      [&](const std::vector<ir::Var>& i) {
        Expr p = i[2];
        Expr img = p / (th * tw), ty = (p / tw) % th, tx = p % tw;
        return te::sum(te::read(bt, {i[0], r1.var}) * te::read(in, {img, i[3], ty * m + r1.var, tx * m + i[1], i[4]}),
                       {r1});
      },
      "winograd", data->dtype());
  ir::IterVar r2 = te::reduce_axis(alpha, "r2");
  // V[e][u] = sum over r2 of T[e][r2] B^T[u][r2]: [alpha, alpha, tiles, C/b, b].
  const te::Tensor v = te::compute(
      name + "_input_transform", {alpha, alpha, tiles, c_blocks, bi},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(t, {i[0], r2.var, i[2], i[3], i[4]}) * te::read(bt, {i[1], r2.var}), {r2});
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
  ir::IterVar e = te::reduce_axis(alpha, "e");
  // O[i][u] = sum over e of A^T[i][e] M[e][u]: [m, alpha, tiles, K/b, b].
  const te::Tensor o = te::compute(
      name + "_output_rows", {m, alpha, tiles, k_blocks, bo},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(at, {i[0], e.var}) * te::read(products, {e.var, i[1], i[2], i[3], i[4]}), {e});
      },
      "winograd", data->dtype());
  ir::IterVar f = te::reduce_axis(alpha, "f");
  // Y[i][j] = sum over f of O[i][f] A^T[j][f]: [m, m, tiles, K/b, b], whole
  // tiles, shaped like the input transform so that one sketch rule fits both.
  const te::Tensor y = te::compute(
      name + "_output_transform", {m, m, tiles, k_blocks, bo},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(o, {i[0], f.var, i[2], i[3], i[4]}) * te::read(at, {i[1], f.var}), {f});
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
  const Matrix& g_mat = matrices(m).g;
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

runtime::NDArray winograd_input_matrix(int64_t m) { return to_ndarray(matrices(m).bt); }
runtime::NDArray winograd_output_matrix(int64_t m) { return to_ndarray(matrices(m).at); }

}  // namespace tunectl::ops
