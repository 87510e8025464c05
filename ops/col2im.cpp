#include "ops/col2im.h"

#include "ir/error.h"

namespace tunectl::ops {

using ir::Expr;

te::Tensor col2im(const te::Tensor& x, const Col2ImAttrs& a, const std::string& name) {
  const size_t dims = a.image.size();
  user_check(dims > 0 && a.block.size() == dims && a.dilations.size() == dims && a.strides.size() == dims &&
                 a.pads.size() == 2 * dims,
             name, ": image_shape, block_shape, dilations, strides and pads (twice) need one value per spatial axis");
  user_check(x->shape().size() == 3, name, ": the input must be [N, C x prod(block_shape), L]");
  int64_t block_size = 1, positions = 1;
  std::vector<int64_t> out_extent(dims);  // block positions along each axis
  for (size_t d = 0; d < dims; ++d) {
    user_check(a.block[d] > 0 && a.dilations[d] > 0 && a.strides[d] > 0, name,
               ": block_shape, dilations and strides must be positive");
    const int64_t span = a.dilations[d] * (a.block[d] - 1) + 1;
    out_extent[d] = (a.image[d] + a.pads[d] + a.pads[d + dims] - span) / a.strides[d] + 1;
    user_check(out_extent[d] > 0, name, ": the block does not fit the padded image along axis ", d);
    block_size *= a.block[d];
    positions *= out_extent[d];
  }
  const int64_t n = x->shape()[0], rows = x->shape()[1];
  user_check(rows % block_size == 0, name, ": ", rows, " input rows are not channels of ", block_size, " block elements");
  user_check(x->shape()[2] == positions, name, ": the input has ", x->shape()[2], " columns, the image and block ",
             positions, " block positions");
  std::vector<ir::IterVar> k;
  for (size_t d = 0; d < dims; ++d) k.push_back(te::reduce_axis(a.block[d], "rb" + std::to_string(d)));
  std::vector<int64_t> shape = {n, rows / block_size};
  shape.insert(shape.end(), a.image.begin(), a.image.end());
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        Expr row = i[1], column = 0, valid = ir::make_bool(true);
        for (size_t d = 0; d < dims; ++d) {
          // Image pixel y is element k of the block at position (y + pad - k * dilation) / stride.
          const Expr t = i[2 + d] + a.pads[d] - k[d].var * a.dilations[d];
          valid = ir::make_and(valid, ir::make_and(t >= 0, t < out_extent[d] * a.strides[d]));
          if (a.strides[d] > 1) valid = ir::make_and(valid, ir::make_eq(t % a.strides[d], Expr(0)));
          // Clamped, so that the read stays inside x where `valid` is false.
          const Expr position = ir::make_min(ir::make_max(t / a.strides[d], Expr(0)), Expr(out_extent[d] - 1));
          row = row * a.block[d] + k[d].var;
          column = column * out_extent[d] + position;
        }
        return te::sum(ir::make_select(valid, te::read(x, {i[0], row, column}), ir::make_zero(x->dtype())), k);
      },
      "col2im", x->dtype());
}

}  // namespace tunectl::ops
