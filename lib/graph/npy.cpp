#include "graph/npy.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "graph/onnx_util.h"
#include "ir/error.h"
#include "ir/printer.h"

namespace tunectl::graph {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

// NumPy's type string without its byte-order character, per dtype.
const std::pair<ir::DType, const char*> kTypeCodes[] = {
    {ir::DType::Bool, "b1"},   {ir::DType::Int8, "i1"},    {ir::DType::UInt8, "u1"},  {ir::DType::Int16, "i2"},
    {ir::DType::UInt16, "u2"}, {ir::DType::Int32, "i4"},   {ir::DType::UInt32, "u4"}, {ir::DType::Int64, "i8"},
    {ir::DType::UInt64, "u8"}, {ir::DType::Float16, "f2"}, {ir::DType::Float32, "f4"}, {ir::DType::Float64, "f8"},
};

std::string descr_of(ir::DType dtype) {
  for (const auto& [t, code] : kTypeCodes)
    if (t == dtype) return std::string(ir::dtype_bytes(t) == 1 ? "|" : "<") + code;
  internal_fail("npy: no type code for ", ir::to_string(dtype));
}

void npy_check(bool ok, const std::string& path, const std::string& what) {
  user_check(ok, "'", path, "' is not a valid .npy file: ", what);
}

// The header's Python dict literal, read as far as .npy files use it:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(std::string text, std::string path) : text_(std::move(text)), path_(std::move(path)) {}

  // The text just after "'key':" (spaces skipped).
  size_t value_of(const std::string& key) {
    for (const char quote : {'\'', '"'}) {
      const size_t at = text_.find(quote + key + quote);
      if (at == std::string::npos) continue;
      size_t pos = skip_spaces(at + key.size() + 2);
      check(pos < text_.size() && text_[pos] == ':', "no ':' after '" + key + "'");
      return skip_spaces(pos + 1);
    }
    check(false, "no '" + key + "' in the header");
    return 0;
  }

  std::string string_at(size_t pos) {
    check(pos < text_.size() && (text_[pos] == '\'' || text_[pos] == '"'), "'descr' is not a string");
    const size_t end = text_.find(text_[pos], pos + 1);
    check(end != std::string::npos, "unterminated string");
    return text_.substr(pos + 1, end - pos - 1);
  }

  bool bool_at(size_t pos) {
    if (text_.compare(pos, 4, "True") == 0) return true;
    check(text_.compare(pos, 5, "False") == 0, "'fortran_order' is neither True nor False");
    return false;
  }

  std::vector<int64_t> tuple_at(size_t pos) {
    check(pos < text_.size() && text_[pos] == '(', "'shape' is not a tuple");
    std::vector<int64_t> dims;
    for (pos = skip_spaces(pos + 1); pos < text_.size() && text_[pos] != ')';) {
      check(std::isdigit(static_cast<unsigned char>(text_[pos])), "'shape' holds something other than sizes");
      size_t used = 0;
      try {
        dims.push_back(std::stoll(text_.substr(pos), &used));
      } catch (const std::out_of_range&) {
        check(false, "'shape' holds a size past 64 bits");
      }
      pos = skip_spaces(pos + used);
      if (pos < text_.size() && text_[pos] == ',') pos = skip_spaces(pos + 1);
    }
    check(pos < text_.size(), "unterminated 'shape'");
    return dims;
  }

 private:
  void check(bool ok, const std::string& what) const { npy_check(ok, path_, what); }

  size_t skip_spaces(size_t pos) const {
    while (pos < text_.size() && text_[pos] == ' ') ++pos;
    return pos;
  }

  std::string text_, path_;
};

ir::DType dtype_of(const std::string& descr, const std::string& path) {
  user_check(descr.size() >= 2, "'", path, "': unknown NumPy dtype '", descr, "'");
  const char order = descr[0];
  const std::string code = descr.substr(1);
  for (const auto& [t, c] : kTypeCodes) {
    if (code != c) continue;
    // '=' is the writer's native order: little-endian on every machine tunectl runs on.
    user_check(order == '<' || order == '|' || order == '=' || ir::dtype_bytes(t) == 1, "'", path,
               "' holds big-endian data ('", descr, "'); tunectl reads little-endian .npy files (numpy: a.astype('",
               "<" + code, "'))");
    return t;
  }
  user_fail("'", path, "' holds NumPy dtype '", descr,
            "', which tunectl does not read (bool, int8..int64, uint8..uint64, float16, float32, float64)");
}

// Row-major element i's position in a column-major array of `shape`.
int64_t fortran_offset(int64_t i, const std::vector<int64_t>& shape) {
  int64_t offset = 0, stride = 1;
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = i % shape[d];
    i /= shape[d];
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    offset += index[d] * stride;
    stride *= shape[d];
  }
  return offset;
}

uint32_t read_le(const std::string& bytes, size_t at, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
  return v;
}

}  // namespace

runtime::NDArray read_npy(const std::string& path) {
  const std::string bytes = read_binary_file(path, ".npy file");
  npy_check(bytes.size() >= 10 && bytes.compare(0, kMagicSize, kMagic) == 0, path, "it does not start with \\x93NUMPY");
  const int major = static_cast<uint8_t>(bytes[6]);
  npy_check(major >= 1 && major <= 3, path, "format version " + std::to_string(major) + " (1, 2 and 3 are known)");
  const size_t len_width = major == 1 ? 2 : 4;
  npy_check(bytes.size() >= 8 + len_width, path, "it ends inside its header");
  const size_t header_len = read_le(bytes, 8, len_width);
  const size_t data_at = 8 + len_width + header_len;
  npy_check(bytes.size() >= data_at, path, "it ends inside its header");

  HeaderParser header(bytes.substr(8 + len_width, header_len), path);
  const std::string descr = header.string_at(header.value_of("descr"));
  const bool fortran = header.bool_at(header.value_of("fortran_order"));
  const std::vector<int64_t> shape = header.tuple_at(header.value_of("shape"));
  const ir::DType dtype = dtype_of(descr, path);

  const uint64_t need = static_cast<uint64_t>(runtime::checked_element_count(shape, "'" + path + "'")) * ir::dtype_bytes(dtype);
  user_check(bytes.size() - data_at == need, "'", path, "' holds ", bytes.size() - data_at, " bytes of data; a ",
             ir::to_string(dtype), " array of shape ", ir::shape_to_string(shape), " needs ", need);
  runtime::NDArray out(dtype, shape);
  const char* data = bytes.data() + data_at;
  auto* dst = static_cast<char*>(out.raw());
  const size_t width = static_cast<size_t>(ir::dtype_bytes(dtype));
  if (!fortran || shape.size() < 2) {
    std::memcpy(dst, data, out.num_bytes());
  } else {
    for (int64_t i = 0; i < out.num_elements(); ++i)
      std::memcpy(dst + i * width, data + fortran_offset(i, shape) * width, width);
  }
  if (dtype == ir::DType::Bool)
    for (int64_t i = 0; i < out.num_elements(); ++i) dst[i] = dst[i] != 0;
  return out;
}

void write_npy(const std::string& path, const runtime::NDArray& value) {
  std::string shape = "(";
  for (int64_t d : value.shape()) shape += std::to_string(d) + ", ";
  if (value.shape().size() == 1) shape.pop_back();  // (5,)
  else if (!value.shape().empty()) shape.resize(shape.size() - 2);
  shape += ")";
  std::string header = "{'descr': '" + descr_of(value.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Version 1.0 with the header padded so that the data starts at a
  // multiple of 64 bytes, as NumPy writes it.
  const size_t prefix = kMagicSize + 2 + 2;
  header.append(63 - (prefix + header.size()) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  system_check(file.good(), "cannot create a .npy file", "open", path);
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  file.write(static_cast<const char*>(value.raw()), static_cast<std::streamsize>(value.num_bytes()));
  file.close();
  system_check(file.good(), "cannot write a .npy file", "write", path);
}

}  // namespace tunectl::graph
