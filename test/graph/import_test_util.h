// Helpers for the importer's tests: where the shared ONNX test data lives, a
// scratch folder, and small ModelProto builders for models the tests write
// themselves (unknown ops, symbolic dims, external data).
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace tunectl::graph::test {

// ../shared/onnx beside the repository; a missing folder fails the test.
inline std::filesystem::path onnx_data_dir() {
  std::filesystem::path dir = std::filesystem::path(TUNECTL_SOURCE_DIR) / ".." / "shared" / "onnx";
  INFO("ONNX test data expected at " << dir.string() << " (../shared/onnx relative to the repository)");
  REQUIRE(std::filesystem::is_directory(dir));
  return dir;
}

// A fresh, empty folder under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    path_ = std::filesystem::temp_directory_path() /
            ("tunectl_" + tag + "_" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// dims: a positive number is a fixed size, a string-like symbolic dim is
// written as -1 and named "N".
inline void set_tensor_type(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims,
                            int elem_type = onnx::TensorProto::FLOAT) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) {
    auto* dim = shape->add_dim();
    if (d > 0) dim->set_dim_value(d);
    else dim->set_dim_param("N");
  }
}

// A model with graph input "x" (shape x_dims), nodes added by the caller,
// output "y" (shape y_dims), default-domain opset `opset`.
inline onnx::ModelProto make_model(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& y_dims,
                                   int opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.set_producer_name("tunectl-test");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("test");
  set_tensor_type(g->add_input(), "x", x_dims);
  set_tensor_type(g->add_output(), "y", y_dims);
  return m;
}

inline onnx::NodeProto* add_node(onnx::ModelProto& m, const std::string& op_type, std::vector<std::string> inputs,
                                 std::vector<std::string> outputs, const std::string& name = "") {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op_type);
  n->set_name(name);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return n;
}

inline void save_model(const onnx::ModelProto& m, const std::string& path) {
  std::string bytes;
  REQUIRE(m.SerializeToString(&bytes));
  write_bytes(path, bytes);
}

}  // namespace tunectl::graph::test
