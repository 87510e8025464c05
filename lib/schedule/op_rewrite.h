// Internal to lib/schedule: building the new compute ops that cache_read,
// cache_write and rfactor put into a State. Ops are constructed as
// te::TensorNode values directly (not through te::compute) because these
// steps must choose the buffer: a cache_write copy keeps the original buffer
// so that outputs and readers still refer to it.
#pragma once

#include <string>
#include <vector>

#include "ir/var_map.h"
#include "te/tensor.h"

namespace tunectl::schedule::detail {

using VarMap = ir::VarMap<ir::Expr>;

// e with every Load of `from` reading `to` at the same indices.
ir::Expr redirect_loads(const ir::Expr& e, const ir::Buffer& from, const ir::Buffer& to);
// Whether e loads buffer b anywhere.
bool loads_buffer(const ir::Expr& e, const ir::Buffer& b);

// A compute op node from its parts; inputs are collected from the body's
// Loads (in first-read order) among `candidates`, by buffer identity.
te::Tensor make_compute_op(const std::string& name, ir::Buffer buffer, std::vector<ir::IterVar> axes, ir::Expr body,
                           const std::vector<te::Tensor>& candidates, const std::string& tag);

// op's axes and reduce axes with fresh variables of the same names and the
// body rewritten to use them; name, buffer, inputs and tag as given.
te::Tensor clone_with_fresh_vars(const te::Tensor& op, const std::string& name, ir::Buffer buffer,
                                 const std::string& tag);

// X[i...] = src[i...] over fresh axes shaped like src: the op of a cache copy.
te::Tensor make_copy_op(const std::string& name, ir::Buffer buffer, const te::Tensor& src, const std::string& tag);

}  // namespace tunectl::schedule::detail
