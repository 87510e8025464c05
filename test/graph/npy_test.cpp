// NumPy .npy files: round trips for every dtype, the exact bytes NumPy
// writes, files as NumPy writes them (versions 1 and 2, Fortran order,
// bools), and bad files.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "graph/import_test_util.h"
#include "graph/npy.h"
#include "ir/error.h"

namespace tunectl::graph {
namespace {

// A .npy file as NumPy lays it out: magic, version, header length (2 bytes
// in version 1, 4 in version 2), the header padded with spaces to a multiple
// of 64 bytes with a final newline, then the data.
std::string npy_bytes(int version, std::string header, const std::string& data) {
  const size_t prefix = version == 1 ? 10 : 12;
  header.append(63 - (prefix + header.size()) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <typename T>
std::string data_of(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return s;
}

TEST_CASE("npy: round trip for every dtype, a vector and a scalar", "[unit]") {
  test::ScratchDir dir("npy_rt");
  std::mt19937_64 rng(11);
#define TUNECTL_ROUND_TRIP(dt, text, bytes)                                                              \
  for (std::vector<int64_t> shape : {std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{5}, std::vector<int64_t>{}}) { \
    INFO(text << " rank " << shape.size());                                                              \
    runtime::NDArray a(ir::DType::dt, shape);                                                            \
    a.fill_random(rng, -50, 50);                                                                         \
    write_npy(dir.file("t.npy"), a);                                                                     \
    runtime::NDArray back = read_npy(dir.file("t.npy"));                                                 \
    REQUIRE(back.dtype() == a.dtype());                                                                  \
    REQUIRE(back.shape() == a.shape());                                                                  \
    CHECK(std::memcmp(back.raw(), a.raw(), a.num_bytes()) == 0);                                         \
  }
  TUNECTL_DTYPES(TUNECTL_ROUND_TRIP)
#undef TUNECTL_ROUND_TRIP
}

TEST_CASE("npy: written as numpy.save writes it", "[unit]") {
  test::ScratchDir dir("npy_bytes");
  runtime::NDArray a(ir::DType::Float32, {2, 3});
  for (int i = 0; i < 6; ++i) a.set(i, i + 1);
  write_npy(dir.file("a.npy"), a);
  CHECK(test::read_bytes(dir.file("a.npy")) ==
        npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data_of<float>({1, 2, 3, 4, 5, 6})));
  runtime::NDArray v(ir::DType::UInt8, {4});
  write_npy(dir.file("v.npy"), v);
  CHECK(test::read_bytes(dir.file("v.npy")) ==
        npy_bytes(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", std::string(4, '\0')));
  runtime::NDArray s(ir::DType::Int64, {});
  s.set_int(0, -7);
  write_npy(dir.file("s.npy"), s);
  CHECK(test::read_bytes(dir.file("s.npy")) ==
        npy_bytes(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", data_of<int64_t>({-7})));
}

TEST_CASE("npy: files as NumPy writes them", "[unit]") {
  test::ScratchDir dir("npy_read");
  SECTION("version 2, int64") {
    test::write_bytes(dir.file("a.npy"), npy_bytes(2, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
                                                   data_of<int64_t>({-1, 0, INT64_MAX})));
    runtime::NDArray a = read_npy(dir.file("a.npy"));
    CHECK(a.dtype() == ir::DType::Int64);
    CHECK(a.get_int(0) == -1);
    CHECK(a.get_int(2) == INT64_MAX);
  }
  SECTION("Fortran order: column-major data read into row-major") {
    // numpy.save(np.asfortranarray([[1, 2, 3], [4, 5, 6]], dtype=np.float64))
    test::write_bytes(dir.file("f.npy"), npy_bytes(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                                                   data_of<double>({1, 4, 2, 5, 3, 6})));
    runtime::NDArray f = read_npy(dir.file("f.npy"));
    REQUIRE(f.shape() == std::vector<int64_t>{2, 3});
    for (int i = 0; i < 6; ++i) CHECK(f.get(i) == i + 1);
  }
  SECTION("bool and double quotes") {
    test::write_bytes(dir.file("b.npy"), npy_bytes(1, "{\"descr\": \"|b1\", \"fortran_order\": False, \"shape\": (2,)}",
                                                   std::string("\x00\x01", 2)));
    runtime::NDArray b = read_npy(dir.file("b.npy"));
    CHECK(b.dtype() == ir::DType::Bool);
    CHECK(b.get_int(0) == 0);
    CHECK(b.get_int(1) == 1);
  }
}

TEST_CASE("npy: bad files", "[error]") {
  test::ScratchDir dir("npy_bad");
  auto check_refused = [&](const std::string& bytes, const std::string& message) {
    INFO(message);
    test::write_bytes(dir.file("bad.npy"), bytes);
    CHECK_THROWS_WITH(read_npy(dir.file("bad.npy")), Catch::Contains(message));
  };
  const std::string f4_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  check_refused("hello, this is not an array", "does not start with \\x93NUMPY");
  check_refused(npy_bytes(1, f4_header, data_of<float>({1, 2})).substr(0, 40), "ends inside its header");
  check_refused(npy_bytes(1, f4_header, data_of<float>({1})), "holds 4 bytes of data; a float32 array of shape [2] needs 8");
  check_refused(npy_bytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data_of<float>({1, 2})),
                "big-endian");
  check_refused(npy_bytes(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data_of<float>({1, 2})),
                "NumPy dtype '<c8', which tunectl does not read");
  check_refused(npy_bytes(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')),
                "NumPy dtype '|O'");
  check_refused(npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, }", ""), "no 'shape' in the header");
  check_refused(npy_bytes(7, f4_header, data_of<float>({1, 2})), "format version 7");
  CHECK_THROWS_WITH(read_npy(dir.file("missing.npy")), Catch::Contains("cannot open .npy file"));
}

}  // namespace
}  // namespace tunectl::graph
