// How many random cases a property test tries: its full count, or the share
// of it that TUNECTL_PROPERTY_SHARE (0 < share <= 1) asks for, at least one.
// CI runs a share to fit its hour on 2 cores (.ci/steps.sh, README "Tests");
// the cases kept are the first ones of the same seeded sequence, so a share
// checks a subset of what the full run checks, every operator and sketch
// still among them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace tunectl::testing {

inline double property_share() {
  const char* text = std::getenv("TUNECTL_PROPERTY_SHARE");
  if (!text || !*text) return 1.0;
  char* end = nullptr;
  const double share = std::strtod(text, &end);
  if (*end != '\0' || !(share > 0.0 && share <= 1.0))
    throw std::invalid_argument("TUNECTL_PROPERTY_SHARE must be a number in (0, 1], not '" + std::string(text) + "'");
  return share;
}

inline int property_cases(int full) {
  return std::max(1, static_cast<int>(std::ceil(full * property_share())));
}

// The share of a fixed list of cases (say, the GPU archs every program is
// compiled for): all of them in a full run, else property_cases(size) of
// them; either way starting at rotation (modulo the size), so that the
// successive calls of a test still cover the whole list between them.
template <typename T>
std::vector<T> property_subset(const std::vector<T>& all, size_t rotation) {
  const size_t n = all.size(), kept = std::min(n, static_cast<size_t>(property_cases(static_cast<int>(n))));
  std::vector<T> subset;
  for (size_t i = 0; i < kept; ++i) subset.push_back(all[(rotation + i) % n]);
  return subset;
}

}  // namespace tunectl::testing
