// Shape helpers shared by the operator definitions in ops/: axis
// normalisation and numpy broadcasting. Only ops/ uses them; they turn a
// user's shape mistake into a UserError that names the operator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::ops {

// axis in [-rank, rank) as a non-negative axis; UserError naming op otherwise.
int normalize_axis(int64_t axis, size_t rank, const std::string& op);

// An index read from data into an axis of n: negative ones count from the
// end, and the result is clamped into [0, n) so that no index, valid or
// not, reads outside the buffer.
ir::Expr axis_index(ir::Expr k, int64_t n);

// The numpy broadcast of two shapes (trailing dimensions aligned; each pair
// equal or one of them 1).
std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                     const std::string& op);

// Reads t at the point `out` of a broadcast result of rank out.size(): t's
// dimensions align with the trailing ones, and dimensions of extent 1 read 0.
ir::Expr read_broadcast(const te::Tensor& t, const std::vector<ir::Var>& out);

int64_t product(const std::vector<int64_t>& v);

}  // namespace tunectl::ops
