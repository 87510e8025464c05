#include "ops/conv2d_winograd.h"

#include <array>

#include "ir/error.h"
#include "ops/transform.h"

namespace tunectl::ops {

using ir::Expr;

namespace {

constexpr int64_t kM = kWinogradTile, kA = kWinogradAlpha;

// The F(4x4, 3x3) matrices of Lavin and Gray with interpolation points
// 0, +-1, +-2 (as in wincnn): B^T [6x6], A^T [4x6], G [6x3].
constexpr std::array<std::array<double, 6>, 6> kBt = {{{4, 0, -5, 0, 1, 0},
                                                       {0, -4, -4, 1, 1, 0},
                                                       {0, 4, -4, -1, 1, 0},
                                                       {0, -2, -1, 2, 1, 0},
                                                       {0, 2, -1, -2, 1, 0},
                                                       {0, 4, 0, -5, 0, 1}}};
constexpr std::array<std::array<double, 6>, 4> kAt = {{{1, 1, 1, 1, 1, 0},
                                                       {0, 1, -1, 2, -2, 0},
                                                       {0, 1, 1, 4, 4, 0},
                                                       {0, 1, -1, 8, -8, 1}}};
constexpr std::array<std::array<double, 3>, 6> kG = {{{1.0 / 4, 0, 0},
                                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                                      {0, 0, 1}}};

}  // namespace

te::Tensor conv2d_winograd_nchwc(const te::Tensor& data, const te::Tensor& u, const te::Tensor& bt, const te::Tensor& at,
                                 int64_t pad, const std::string& name) {
  user_check(data->shape().size() == 5 && u->shape().size() == 6, name,
             ": blocked data [N, C/b, H, W, b] and transformed weight [6, 6, K/b, C/b, b, b] expected");
  user_check(bt->shape() == std::vector<int64_t>{kA, kA} && at->shape() == std::vector<int64_t>{kM, kA}, name,
             ": B^T must be [6, 6] and A^T [4, 6]");
  const auto& ds = data->shape();
  const auto& us = u->shape();
  const int64_t n = ds[0], c_blocks = ds[1], h = ds[2], w = ds[3], bi = ds[4];
  const int64_t k_blocks = us[2], bo = us[5];
  user_check(us[0] == kA && us[1] == kA && us[3] == c_blocks && us[4] == bi, name,
             ": transformed weight does not match the data's channel blocks");
  user_check(pad >= 0 && h + 2 * pad >= 3 && w + 2 * pad >= 3, name, ": image smaller than the kernel");
  const int64_t oh = h + 2 * pad - 2, ow = w + 2 * pad - 2;
  const int64_t th = (oh + kM - 1) / kM, tw = (ow + kM - 1) / kM, tiles = n * th * tw;
  // Zero-padded so that every tile's 6x6 inputs exist.
  const te::Tensor in = ops::pad(data, {0, 0, pad, pad, 0},
                                 {0, 0, th * kM + 2 - h - pad, tw * kM + 2 - w - pad, 0}, 0.0, name + "_pad");
  ir::IterVar r1 = te::reduce_axis(kA, "r1");
  // T[e][r2] = sum over r1 of B^T[e][r1] d[r1][r2], per tile and channel.
  const te::Tensor t = te::compute(
      name + "_input_rows", {kA, kA, tiles, c_blocks, bi},
      [&](const std::vector<ir::Var>& i) {
        Expr p = i[2];
        Expr img = p / (th * tw), ty = (p / tw) % th, tx = p % tw;
        return te::sum(te::read(bt, {i[0], r1.var}) * te::read(in, {img, i[3], ty * kM + r1.var, tx * kM + i[1], i[4]}),
                       {r1});
      },
      "winograd", data->dtype());
  ir::IterVar r2 = te::reduce_axis(kA, "r2");
  // V[e][u] = sum over r2 of T[e][r2] B^T[u][r2]: [6, 6, tiles, C/b, b].
  const te::Tensor v = te::compute(
      name + "_input_transform", {kA, kA, tiles, c_blocks, bi},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(t, {i[0], r2.var, i[2], i[3], i[4]}) * te::read(bt, {i[1], r2.var}), {r2});
      },
      "winograd", data->dtype());
  ir::IterVar rco = te::reduce_axis(c_blocks, "rco");
  ir::IterVar rci = te::reduce_axis(bi, "rci");
  // M[e][u] = sum over input channels of V[e][u] U[e][u]: [6, 6, tiles, K/b, b].
  const te::Tensor m = te::compute(
      name + "_products", {kA, kA, tiles, k_blocks, bo},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(v, {i[0], i[1], i[2], rco.var, rci.var}) *
                           te::read(u, {i[0], i[1], i[3], rco.var, rci.var, i[4]}),
                       {rco, rci});
      },
      "conv2d", data->dtype());
  ir::IterVar e = te::reduce_axis(kA, "e");
  // O[i][u] = sum over e of A^T[i][e] M[e][u]: [4, 6, tiles, K/b, b].
  const te::Tensor o = te::compute(
      name + "_output_rows", {kM, kA, tiles, k_blocks, bo},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(at, {i[0], e.var}) * te::read(m, {e.var, i[1], i[2], i[3], i[4]}), {e});
      },
      "winograd", data->dtype());
  ir::IterVar f = te::reduce_axis(kA, "f");
  // Y[i][j] = sum over f of O[i][f] A^T[j][f]: [4, 4, tiles, K/b, b], whole
  // tiles, shaped like the input transform so that one sketch rule fits both.
  const te::Tensor y = te::compute(
      name + "_output_transform", {kM, kM, tiles, k_blocks, bo},
      [&](const std::vector<ir::Var>& i) {
        return te::sum(te::read(o, {i[0], f.var, i[2], i[3], i[4]}) * te::read(at, {i[1], f.var}), {f});
      },
      "winograd", data->dtype());
  // The image: output (4 ty + i, 4 tx + j) of tile (ty, tx).
  return te::compute(
      name, {n, k_blocks, oh, ow, bo},
      [&](const std::vector<ir::Var>& i) {
        Expr tile = (i[0] * th + i[2] / kM) * tw + i[3] / kM;
        return te::read(y, {i[2] % kM, i[3] % kM, tile, i[1], i[4]});
      },
      "injective", data->dtype());
}

runtime::NDArray winograd_weights(const runtime::NDArray& weight) {
  const auto& s = weight.shape();
  user_check(s.size() == 6 && s[2] == 3 && s[3] == 3 && weight.dtype() == ir::DType::Float32,
             "winograd: a blocked fp32 3x3 weight [K/b, C/b, 3, 3, bi, bo] expected");
  const int64_t kb = s[0], cb = s[1], block = s[4] * s[5];  // bi x bo pairs, innermost in both
  runtime::NDArray u(weight.dtype(), {kA, kA, kb, cb, s[4], s[5]});
  const float* g = static_cast<const float*>(weight.raw());
  float* out = static_cast<float*>(u.raw());
  for (int64_t kc = 0; kc < kb * cb; ++kc) {
    const float* gk = g + kc * 9 * block;
    for (int64_t a = 0; a < kA; ++a)
      for (int64_t b = 0; b < kA; ++b) {
        float* uk = out + ((a * kA + b) * kb * cb + kc) * block;
        for (int64_t io = 0; io < block; ++io) {
          double sum = 0;
          for (int64_t y = 0; y < 3; ++y)
            for (int64_t x = 0; x < 3; ++x) sum += kG[a][y] * gk[(y * 3 + x) * block + io] * kG[b][x];
          uk[io] = static_cast<float>(sum);
        }
      }
  }
  return u;
}

namespace {
template <size_t R>
runtime::NDArray matrix(const std::array<std::array<double, kA>, R>& table) {
  runtime::NDArray a(ir::DType::Float32, {static_cast<int64_t>(R), kA});
  for (size_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < kA; ++j) a.set(static_cast<int64_t>(i) * kA + j, table[i][j]);
  return a;
}
}  // namespace

runtime::NDArray winograd_input_matrix() { return matrix(kBt); }
runtime::NDArray winograd_output_matrix() { return matrix(kAt); }

}  // namespace tunectl::ops
