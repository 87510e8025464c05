// ComputeDAG: the whole compute definition of one task, as the tuner sees it.
// Built from output tensors; holds every tensor reachable from them in a
// topological order (inputs before their readers, ties in first-visit order
// from the outputs, so the order is deterministic). Its canonical text names
// variables by position, so two DAGs built separately with equal structure and
// shapes print the same and share a workload key.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace tunectl::te {

class ComputeDAG {
 public:
  explicit ComputeDAG(std::vector<Tensor> outputs);

  // All tensors, placeholders included, topologically ordered.
  const std::vector<Tensor>& ops() const { return ops_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }
  // Placeholders in ops() order: the kernel's input arguments.
  std::vector<Tensor> placeholders() const;
  // Index of t in ops(), or -1.
  int index_of(const Tensor& t) const;
  // Tensors that read ops()[i].
  std::vector<int> consumers(int i) const;
  bool is_output(int i) const;

  // Floating point operations of one evaluation (multiply-add = 2; math calls
  // count 1; loads, stores and index arithmetic are free).
  double flop_count() const;
  // A deterministic text form of every op with positional names.
  std::string canonical_text() const;
  // A stable key: 16 hex digits of a 64-bit FNV-1a hash of canonical_text().
  std::string workload_key() const;

 private:
  std::vector<Tensor> outputs_;
  std::vector<Tensor> ops_;
};

// 16 hex digits of a 64-bit FNV-1a hash of text: stable across runs and
// machines (workload and similarity keys).
std::string stable_hash_hex(const std::string& text);

}  // namespace tunectl::te
