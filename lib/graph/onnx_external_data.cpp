#include "graph/onnx_external_data.h"

#include <algorithm>
#include <fstream>
#include <string>

#include "ir/error.h"

namespace tunectl::graph {

namespace fs = std::filesystem;

namespace {

// True when path lies strictly inside dir; both are canonical, so this is a
// component-wise prefix test (a plain string prefix would accept
// "/models2/x" for dir "/models").
bool is_inside(const fs::path& path, const fs::path& dir) {
  auto [dir_end, path_it] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return dir_end == dir.end() && path_it != path.end();
}

int64_t parse_size(const std::string& text, const std::string& what, const std::string& key) {
  size_t used = 0;
  int64_t v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  user_check(used == text.size() && v >= 0, what, ": external data ", key, " '", text,
             "' is not a non-negative integer");
  return v;
}

void load_tensor(onnx::TensorProto& tensor, const fs::path& model_dir, const std::string& what) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const auto& entry : tensor.external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset") offset = parse_size(entry.value(), what, "offset");
    if (entry.key() == "length") length = parse_size(entry.value(), what, "length");
  }
  user_check(!location.empty(), what, ": external data has no location");
  fs::path relative(location);
  user_check(relative.is_relative() && !relative.has_root_name() && !relative.has_root_directory(), what,
             ": external data location '", location, "' is absolute; it must be a path inside the model's folder");
  // weakly_canonical resolves ".." and symlinks of the existing part, so a
  // link pointing out of the folder is caught like a literal "../".
  fs::path file = fs::weakly_canonical(model_dir / relative);
  user_check(is_inside(file, model_dir), what, ": external data location '", location,
             "' leaves the model's folder ", model_dir.string(), "; refused");
  std::ifstream in(file, std::ios::binary);
  user_check(in.good(), what, ": cannot open external data file '", file.string(), "'");
  in.seekg(0, std::ios::end);
  auto size = static_cast<int64_t>(in.tellg());
  if (length < 0) length = size - offset;
  user_check(offset <= size && length >= 0 && length <= size - offset, what, ": external data range [", offset,
             ", ", offset + length, ") lies outside '", file.string(), "' (", size, " bytes)");
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  user_check(in.good() || length == 0, what, ": cannot read external data file '", file.string(), "'");
  tensor.set_raw_data(std::move(bytes));
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
}

void load_if_external(onnx::TensorProto& tensor, const fs::path& model_dir, const std::string& what) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) load_tensor(tensor, model_dir, what);
}

}  // namespace

void load_external_data(onnx::ModelProto& model, const fs::path& model_dir) {
  fs::path dir = fs::weakly_canonical(model_dir);
  onnx::GraphProto* graph = model.mutable_graph();
  for (auto& init : *graph->mutable_initializer()) load_if_external(init, dir, "initializer '" + init.name() + "'");
  for (auto& node : *graph->mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      std::string what = "attribute '" + attr.name() + "' of node '" + node.name() + "' (" + node.op_type() + ")";
      if (attr.has_t()) load_if_external(*attr.mutable_t(), dir, what);
      for (auto& t : *attr.mutable_tensors()) load_if_external(t, dir, what);
    }
  }
}

}  // namespace tunectl::graph
