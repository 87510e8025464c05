// TensorProto files: round trips for every dtype and scalars, the typed data
// fields other writers use, the ONNX test data, raw files and bad files.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "graph/import_test_util.h"
#include "graph/tensor_proto.h"
#include "ir/error.h"

namespace tunectl::graph {
namespace {

using test::onnx_data_dir;

void check_same(const runtime::NDArray& a, const runtime::NDArray& b) {
  REQUIRE(a.dtype() == b.dtype());
  REQUIRE(a.shape() == b.shape());
  REQUIRE(a.num_bytes() == b.num_bytes());
  CHECK(std::memcmp(a.raw(), b.raw(), a.num_bytes()) == 0);
}

TEST_CASE("tensor_proto: round trip for every dtype and a scalar", "[unit]") {
  test::ScratchDir dir("tensor_rt");
  std::mt19937_64 rng(7);
#define TUNECTL_ROUND_TRIP(dt, text, bytes)                                     \
  for (std::vector<int64_t> shape : {std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{}}) { \
    INFO(text << " rank " << shape.size());                                     \
    runtime::NDArray a(ir::DType::dt, shape);                                   \
    a.fill_random(rng, -50, 50);                                                \
    write_tensor_pb(dir.file("t.pb"), "t_" text, a);                            \
    NamedTensor back = read_tensor_pb(dir.file("t.pb"));                        \
    CHECK(back.name == "t_" text);                                              \
    check_same(back.value, a);                                                  \
  }
  TUNECTL_DTYPES(TUNECTL_ROUND_TRIP)
#undef TUNECTL_ROUND_TRIP
}

TEST_CASE("tensor_proto: typed data fields", "[unit]") {
  test::ScratchDir dir("tensor_typed");
  auto write = [&](const onnx::TensorProto& t) {
    std::string bytes;
    REQUIRE(t.SerializeToString(&bytes));
    test::write_bytes(dir.file("t.pb"), bytes);
    return read_tensor_pb(dir.file("t.pb")).value;
  };
  onnx::TensorProto t;
  t.add_dims(2);
  SECTION("float_data") {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_float_data(1.5f);
    t.add_float_data(-3.0f);
    auto a = write(t);
    CHECK(a.dtype() == ir::DType::Float32);
    CHECK(a.get(0) == 1.5);
    CHECK(a.get(1) == -3.0);
  }
  SECTION("int64_data keeps values beyond double precision") {
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_int64_data(INT64_MAX);
    t.add_int64_data(-5);
    auto a = write(t);
    CHECK(a.data<int64_t>()[0] == INT64_MAX);
    CHECK(a.data<int64_t>()[1] == -5);
  }
  SECTION("int32_data") {
    t.set_data_type(onnx::TensorProto::INT32);
    t.add_int32_data(-7);
    t.add_int32_data(8);
    auto a = write(t);
    CHECK(a.data<int32_t>()[0] == -7);
    CHECK(a.data<int32_t>()[1] == 8);
  }
  SECTION("double_data") {
    t.set_data_type(onnx::TensorProto::DOUBLE);
    t.add_double_data(0.1);
    t.add_double_data(1e300);
    auto a = write(t);
    CHECK(a.data<double>()[0] == 0.1);
    CHECK(a.data<double>()[1] == 1e300);
  }
  SECTION("bool in int32_data") {
    t.set_data_type(onnx::TensorProto::BOOL);
    t.add_int32_data(1);
    t.add_int32_data(0);
    auto a = write(t);
    CHECK(a.dtype() == ir::DType::Bool);
    CHECK(a.get(0) == 1);
    CHECK(a.get(1) == 0);
  }
  SECTION("a count that does not match the dims") {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_float_data(1.0f);
    CHECK_THROWS_WITH(write(t), Catch::Contains("needs 2 elements") && Catch::Contains("has 1"));
  }
  SECTION("float16 bits in int32_data, rounding on set") {
    t.set_data_type(onnx::TensorProto::FLOAT16);
    t.add_int32_data(0x3C00);  // 1.0
    t.add_int32_data(0x3555);  // 0.333251953125, float16's nearest to 1/3
    auto a = write(t);
    CHECK(a.dtype() == ir::DType::Float16);
    CHECK(a.num_bytes() == 4);
    CHECK(a.get(0) == 1.0);
    CHECK(a.get(1) == 0.333251953125);
    a.set(0, 0.1);
    CHECK(a.get(0) == 0.0999755859375);
  }
  SECTION("an unsupported element type") {
    t.set_data_type(onnx::TensorProto::BFLOAT16);
    t.set_raw_data(std::string(4, '\1'));
    CHECK_THROWS_WITH(write(t), Catch::Contains("element type BFLOAT16"));
  }
  SECTION("small integers from raw data and from int32_data, uint64 from uint64_data") {
    t.set_data_type(onnx::TensorProto::UINT8);
    t.set_raw_data(std::string("\xff\x07", 2));
    runtime::NDArray u8 = write(t);
    CHECK(u8.get_int(0) == 255);
    CHECK(u8.get_int(1) == 7);
    t.clear_raw_data();
    t.set_data_type(onnx::TensorProto::INT8);
    t.add_int32_data(-128);
    t.add_int32_data(127);
    runtime::NDArray i8 = write(t);
    CHECK(i8.get_int(0) == -128);
    CHECK(i8.get_int(1) == 127);
    t.clear_int32_data();
    t.set_data_type(onnx::TensorProto::UINT64);
    t.add_uint64_data(~uint64_t{0});
    t.add_uint64_data(5);
    runtime::NDArray u64 = write(t);
    CHECK(static_cast<uint64_t>(u64.get_int(0)) == ~uint64_t{0});
    CHECK(u64.get(1) == 5.0);
  }
}

TEST_CASE("tensor_proto: ONNX test data", "[unit]") {
  auto data = onnx_data_dir();
  NamedTensor in = read_tensor_pb((data / "light/light_resnet50_input_0.pb").string());
  CHECK(in.value.dtype() == ir::DType::Float32);
  CHECK(in.value.shape() == std::vector<int64_t>{1, 3, 224, 224});
  NamedTensor out = read_tensor_pb((data / "light/light_resnet50_output_0.pb").string());
  CHECK(out.value.shape() == std::vector<int64_t>{1, 1000});
  double sum = 0;
  for (int64_t i = 0; i < out.value.num_elements(); ++i) sum += out.value.get(i);
  CHECK(sum == Approx(1.0).epsilon(1e-3));  // a softmax output

  auto node = data / "node";
  NamedTensor conv_x = read_tensor_pb((node / "test_conv_with_strides_padding/test_data_set_0/input_0.pb").string());
  CHECK(conv_x.name == "x");
  CHECK(conv_x.value.shape() == std::vector<int64_t>{1, 1, 7, 5});
  for (int64_t i = 0; i < conv_x.value.num_elements(); ++i) CHECK(conv_x.value.get(i) == static_cast<double>(i));
  NamedTensor where_c = read_tensor_pb((node / "test_where_example/test_data_set_0/input_0.pb").string());
  CHECK(where_c.value.dtype() == ir::DType::Bool);
  NamedTensor argmax = read_tensor_pb((node / "test_argmax_default_axis_example/test_data_set_0/output_0.pb").string());
  CHECK(argmax.value.dtype() == ir::DType::Int64);
}

TEST_CASE("tensor_proto: raw files", "[unit][error]") {
  test::ScratchDir dir("tensor_raw");
  const float v[3] = {1.0f, -2.0f, 0.5f};
  test::write_bytes(dir.file("v.bin"), std::string(reinterpret_cast<const char*>(v), sizeof(v)));
  auto a = read_raw_tensor(dir.file("v.bin"), ir::DType::Float32, {3});
  CHECK(a.get(1) == -2.0);
  auto s = read_raw_tensor(dir.file("v.bin"), ir::DType::Int32, {1, 3});
  CHECK(s.shape() == std::vector<int64_t>{1, 3});
  CHECK_THROWS_WITH(read_raw_tensor(dir.file("v.bin"), ir::DType::Float32, {4}),
                    Catch::Contains("has 12 bytes") && Catch::Contains("needs 16"));
  CHECK_THROWS_WITH(read_raw_tensor(dir.file("none.bin"), ir::DType::Float32, {3}), Catch::Contains("cannot open"));
}

TEST_CASE("tensor_proto: bad files", "[error]") {
  test::ScratchDir dir("tensor_bad");
  CHECK_THROWS_WITH(read_tensor_pb(dir.file("missing.pb")), Catch::Contains("cannot open tensor file"));
  std::string good;
  {
    runtime::NDArray a(ir::DType::Float32, {16});
    write_tensor_pb(dir.file("good.pb"), "x", a);
    good = test::read_bytes(dir.file("good.pb"));
  }
  test::write_bytes(dir.file("half.pb"), good.substr(0, good.size() / 2));
  CHECK_THROWS_AS(read_tensor_pb(dir.file("half.pb")), UserError);
  test::write_bytes(dir.file("text.pb"), "hello, this is not a tensor");
  CHECK_THROWS_AS(read_tensor_pb(dir.file("text.pb")), UserError);
}

}  // namespace
}  // namespace tunectl::graph
