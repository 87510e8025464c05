#include "ops/einsum.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "ir/error.h"

namespace tunectl::ops {

namespace {

using ir::Expr;

// One operand's (or the output's) axes as letters; "..." becomes the
// letters '0', '1', ... of the broadcast axes (as many as `ellipsis_rank`).
std::vector<char> letters_of(const std::string& term, int64_t rank, const std::string& name, int64_t& ellipsis_rank) {
  std::vector<char> out;
  const size_t dots = term.find("...");
  const std::string before = dots == std::string::npos ? term : term.substr(0, dots);
  const std::string after = dots == std::string::npos ? "" : term.substr(dots + 3);
  for (const std::string& part : {before, after})
    for (char c : part)
      user_check(std::isalpha(static_cast<unsigned char>(c)), name, ": '", c, "' in term '", term, "' is not a letter");
  if (dots != std::string::npos) {
    const int64_t here = rank < 0 ? ellipsis_rank : rank - static_cast<int64_t>(before.size() + after.size());
    user_check(here >= 0, name, ": term '", term, "' has more letters than its operand's rank ", rank);
    ellipsis_rank = std::max(ellipsis_rank, here);
    out.assign(before.begin(), before.end());
    // Broadcast axes right-aligned, as numpy.
    for (int64_t k = ellipsis_rank - here; k < ellipsis_rank; ++k) out.push_back(static_cast<char>('0' + k));
    out.insert(out.end(), after.begin(), after.end());
  } else {
    out.assign(term.begin(), term.end());
  }
  user_check(rank < 0 || static_cast<int64_t>(out.size()) == rank, name, ": term '", term, "' has ", out.size(),
             " axes for an operand of rank ", rank);
  return out;
}

}  // namespace

te::Tensor einsum(const std::string& equation, const std::vector<te::Tensor>& operands, const std::string& name) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  user_check(terms.size() == operands.size(), name, ": the equation has ", terms.size(), " terms for ",
             operands.size(), " operands");
  const ir::DType dtype = operands.at(0)->dtype();
  int64_t ellipsis_rank = 0;
  std::vector<std::vector<char>> in_letters;
  std::map<char, int64_t> extent;
  std::map<char, int> uses;
  for (size_t k = 0; k < operands.size(); ++k) {
    user_check(operands[k]->dtype() == dtype, name, ": operands differ in type");
    const auto& s = operands[k]->shape();
    in_letters.push_back(letters_of(terms[k], static_cast<int64_t>(s.size()), name, ellipsis_rank));
  }
  // Broadcast ("...") axes: an extent of 1 stretches to the others'.
  for (size_t k = 0; k < operands.size(); ++k) {
    const auto& s = operands[k]->shape();
    for (size_t d = 0; d < s.size(); ++d) {
      const char c = in_letters[k][d];
      ++uses[c];
      auto [it, fresh] = extent.emplace(c, s[d]);
      if (fresh || it->second == s[d]) continue;
      const bool broadcast = std::isdigit(static_cast<unsigned char>(c));
      user_check(broadcast && (it->second == 1 || s[d] == 1), name, ": letter '", c, "' has extents ", it->second,
                 " and ", s[d]);
      it->second = std::max(it->second, s[d]);
    }
  }
  std::vector<char> out_letters;
  if (arrow != std::string::npos) {
    out_letters = letters_of(eq.substr(arrow + 2), -1, name, ellipsis_rank);
  } else {
    for (int64_t k = 0; k < ellipsis_rank; ++k) out_letters.push_back(static_cast<char>('0' + k));
    for (const auto& [c, n] : uses)
      if (n == 1 && std::isalpha(static_cast<unsigned char>(c))) out_letters.push_back(c);
  }
  std::vector<int64_t> shape;
  for (char c : out_letters) {
    user_check(extent.count(c), name, ": output letter '", c, "' is in no operand");
    user_check(std::count(out_letters.begin(), out_letters.end(), c) == 1, name, ": output letter '", c, "' repeats");
    shape.push_back(extent.at(c));
  }
  std::vector<char> summed;
  for (const auto& [c, n] : extent)
    if (std::find(out_letters.begin(), out_letters.end(), c) == out_letters.end()) summed.push_back(c);
  if (shape.empty()) shape = {1};
  return te::compute(
      name, shape,
      [&](const std::vector<ir::Var>& i) {
        std::map<char, Expr> at;
        for (size_t d = 0; d < out_letters.size(); ++d) at[out_letters[d]] = i[d];
        std::vector<ir::IterVar> axes;
        for (char c : summed) {
          axes.push_back(te::reduce_axis(extent.at(c), std::string("r") + c));
          at[c] = axes.back().var;
        }
        Expr product;
        for (size_t k = 0; k < operands.size(); ++k) {
          const auto& s = operands[k]->shape();
          std::vector<Expr> idx;
          for (size_t d = 0; d < s.size(); ++d) {
            const char c = in_letters[k][d];
            idx.push_back(s[d] == 1 && extent.at(c) > 1 ? Expr(int64_t{0}) : at.at(c));  // a broadcast axis
          }
          Expr v = te::read(operands[k], idx);
          product = product ? product * v : v;
        }
        return axes.empty() ? product : ir::make_reduce(ir::ReduceOp::Sum, product, axes);
      },
      summed.empty() ? "injective" : "reduce", dtype);
}

}  // namespace tunectl::ops
