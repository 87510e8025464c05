// Sequences and optionals resolved at compile time (pass_composites.cpp): a
// graph using every container operator runs with compiled kernels and gives
// numpy's answers; inputs expand from their values; what cannot be known
// when compiling is an error naming the node; the .pb files of containers
// round-trip and a tensor file is not read as one.
#include <catch2/catch.hpp>

#include "graph/executor.h"
#include "graph/passes.h"
#include "graph/passes_graph_builder.h"
#include "graph/specialize.h"
#include "graph/tensor_proto.h"
#include "import_test_util.h"
#include "ir/error.h"

using namespace tunectl;
using namespace tunectl::graph;
using hand::Builder;

namespace {

void set_kind(Builder& b, const std::string& value, ValueKind kind) {
  b.g.values[value].kind = kind;
  b.g.values[value].shape_known = false;
}

void require_equal(const runtime::NDArray& actual, const runtime::NDArray& expected) {
  REQUIRE(actual.shape() == expected.shape());
  for (int64_t i = 0; i < expected.num_elements(); ++i) CHECK(actual.get(i) == expected.get(i));
}

// a, b [2, 3]: s = [a, b]; s2 = insert(s, a, 0) = [a, a, b]; s3 = erase(s2, -1)
// = [a, a]; t = s3[1]; n = len(s2); c = stack(s2); u = split(c)[2];
// o = optional(s3), has = o is present, back = the sequence in o.
Builder every_container_op() {
  Builder b;
  b.input("a", {2, 3});
  b.input("b", {2, 3});
  b.constant("zero", hand::int_scalar(0));
  b.constant("one", hand::int_scalar(1));
  b.constant("two", hand::int_scalar(2));
  b.constant("minus_one", hand::int_scalar(-1));
  b.node("SequenceConstruct", {"a", "b"}, {"s"});
  b.node("SequenceInsert", {"s", "a", "zero"}, {"s2"});
  b.node("SequenceErase", {"s2", "minus_one"}, {"s3"});
  b.node("SequenceAt", {"s3", "one"}, {"t"}, {{2, 3}});
  b.node("SequenceLength", {"s2"}, {"n"}, {{}}, {}, {ir::DType::Int64});
  b.node("ConcatFromSequence", {"s2"}, {"c"}, {{3, 2, 3}}, {{"axis", int64_t{0}}, {"new_axis", int64_t{1}}});
  b.node("SplitToSequence", {"c"}, {"parts"}, {}, {{"axis", int64_t{0}}, {"keepdims", int64_t{0}}});
  b.node("SequenceAt", {"parts", "two"}, {"u"}, {{2, 3}});
  b.node("Optional", {"s3"}, {"o"});
  b.node("OptionalHasElement", {"o"}, {"has"}, {{}}, {}, {ir::DType::Bool});
  b.node("OptionalGetElement", {"o"}, {"back"});
  for (const char* s : {"s", "s2", "s3", "parts", "back"}) set_kind(b, s, ValueKind::Sequence);
  set_kind(b, "o", ValueKind::OptionalSequence);
  for (const char* out : {"t", "n", "c", "u", "has", "back"}) b.output(out);
  b.g.declared_outputs = b.g.outputs;
  return b;
}

}  // namespace

TEST_CASE("containers: every sequence and optional operator, resolved and compiled", "[unit][composites]") {
  Builder b = every_container_op();
  const Graph g = simplify_graph(b.g);
  for (const auto& [name, info] : g.values) CHECK(info.kind == ValueKind::Tensor);
  REQUIRE(g.composite_outputs.count("back"));
  const Composite& back = g.composite_outputs.at("back");
  CHECK(back.kind == ValueKind::Sequence);
  REQUIRE(back.elements.size() == 2);
  CHECK(g.model_outputs() == std::vector<std::string>{"t", "n", "c", "u", "has", "back"});

  const runtime::NDArray a = hand::random({2, 3}, 1), bv = hand::random({2, 3}, 2);
  Executor executor(g, partition(g));
  const auto out = executor.run({{"a", a}, {"b", bv}});
  require_equal(out.at("t"), a);
  require_equal(out.at("u"), bv);
  CHECK(out.at("n").get_int(0) == 3);
  CHECK(out.at("has").get_int(0) == 1);
  const runtime::NDArray& c = out.at("c");
  REQUIRE(c.shape() == std::vector<int64_t>{3, 2, 3});
  for (int64_t i = 0; i < 6; ++i) {
    CHECK(c.get(i) == a.get(i));
    CHECK(c.get(6 + i) == a.get(i));
    CHECK(c.get(12 + i) == bv.get(i));
  }
  const CompositeValue back_value = composite_value(back, out);
  REQUIRE(back_value.elements.size() == 2);
  require_equal(back_value.elements[0], a);
  require_equal(back_value.elements[1], a);
}

TEST_CASE("containers: inputs take their tensors' number and shapes from their values", "[unit][composites]") {
  Builder b;
  b.input("seq", {});
  set_kind(b, "seq", ValueKind::Sequence);
  b.input("opt", {});
  set_kind(b, "opt", ValueKind::OptionalSequence);
  b.node("SequenceLength", {"seq"}, {"n"}, {{}}, {}, {ir::DType::Int64});
  b.node("OptionalHasElement", {"opt"}, {"has"}, {{}}, {}, {ir::DType::Bool});
  b.node("Identity", {"seq"}, {"same"});
  set_kind(b, "same", ValueKind::Sequence);
  for (const char* out : {"n", "has", "same"}) b.output(out);
  b.g.declared_outputs = b.g.outputs;

  SECTION("given") {
    CompositeValue seq{ValueKind::Sequence, ir::DType::Float32, true, {hand::random({4}, 1), hand::random({2, 2}, 2)}};
    CompositeValue empty{ValueKind::OptionalSequence, ir::DType::Float32, false, {}};
    std::map<std::string, runtime::NDArray> feed;
    const Graph expanded = expand_composite_inputs(b.g, {{"seq", seq}, {"opt", empty}}, feed);
    CHECK(expanded.inputs == std::vector<std::string>{"seq[0]", "seq[1]"});
    CHECK(expanded.info("seq[1]").shape == std::vector<int64_t>{2, 2});
    const Graph g = simplify_graph(expanded);
    Executor executor(g, partition(g));
    const auto out = executor.run(feed);
    CHECK(out.at("n").get_int(0) == 2);
    CHECK(out.at("has").get_int(0) == 0);
    const CompositeValue same = composite_value(g.composite_outputs.at("same"), out);
    REQUIRE(same.elements.size() == 2);
    require_equal(same.elements[1], seq.elements[1]);
    CHECK(compare_composites(same, seq, 0, 0).ok);
    CHECK_FALSE(compare_composites(same, CompositeValue{ValueKind::Sequence, ir::DType::Float32, true, {seq.elements[0]}}, 0, 0).ok);
  }
  SECTION("a value of another kind or element type is refused") {
    std::map<std::string, runtime::NDArray> feed;
    CompositeValue tensor_opt{ValueKind::OptionalTensor, ir::DType::Float32, true, {hand::random({1}, 1)}};
    REQUIRE_THROWS_WITH(expand_composite_inputs(b.g, {{"opt", tensor_opt}}, feed),
                        Catch::Contains("input 'opt' is an optional sequence of tensors; the value given for it is an optional tensor"));
    CompositeValue ints{ValueKind::Sequence, ir::DType::Int64, true, {hand::ints({1})}};
    REQUIRE_THROWS_WITH(expand_composite_inputs(b.g, {{"seq", ints}}, feed),
                        Catch::Contains("input 'seq' holds float32 tensors; tensor 0 of the value given is int64"));
  }
  SECTION("without a value it names the input and how to give it") {
    REQUIRE_THROWS_WITH(simplify_graph(b.g), Catch::Contains("input 'seq' is a sequence of tensors of float32") &&
                                                 Catch::Contains("--input seq=FILE.pb"));
  }
}

TEST_CASE("containers: what cannot be known when compiling names the node", "[error][composites]") {
  Builder b;
  b.input("a", {2});
  b.input("pos", {}, ir::DType::Int64);
  b.constant("five", hand::int_scalar(5));
  b.node("SequenceConstruct", {"a", "a"}, {"s"});
  set_kind(b, "s", ValueKind::Sequence);
  b.output("y");
  b.g.declared_outputs = b.g.outputs;

  SECTION("a position out of range") {
    b.node("SequenceAt", {"s", "five"}, {"y"}, {{2}});
    REQUIRE_THROWS_WITH(simplify_graph(b.g), Catch::Contains("node 'SequenceAt_1' (SequenceAt): position 5 is outside a sequence of 2 tensors"));
  }
  SECTION("a position the inputs decide: bound by specialize when known") {
    b.node("SequenceAt", {"s", "pos"}, {"y"}, {{2}});
    REQUIRE_THROWS_AS(simplify_graph(b.g), ShapeInputError);
    REQUIRE_THROWS_WITH(simplify_graph(b.g), Catch::Contains("--bind pos="));
    const Graph g = specialize(b.g, {{"pos", hand::int_scalar(-1)}});
    CHECK(g.inputs == std::vector<std::string>{"a"});
  }
  SECTION("an operator that takes tensors reading a sequence") {
    b.node("Relu", {"s"}, {"y"}, {{2}});
    REQUIRE_THROWS_WITH(simplify_graph(b.g), Catch::Contains("node 'Relu_1' (Relu): reads 's', a sequence of tensors") &&
                                                 Catch::Contains("Relu takes tensors"));
  }
  SECTION("an empty optional read") {
    b.node("Optional", {}, {"o"});
    set_kind(b, "o", ValueKind::OptionalTensor);
    b.node("OptionalGetElement", {"o"}, {"y"}, {{2}});
    REQUIRE_THROWS_WITH(simplify_graph(b.g), Catch::Contains("(OptionalGetElement): the optional 'o' is empty"));
  }
}

TEST_CASE("containers: SequenceProto and OptionalProto files round-trip", "[unit][composites]") {
  test::ScratchDir dir("composites");
  const runtime::NDArray x = hand::random({2, 3}, 1), y = hand::ints({4, 5});
  for (const CompositeValue& v :
       {CompositeValue{ValueKind::Sequence, ir::DType::Float32, true, {x, x}},
        CompositeValue{ValueKind::Sequence, ir::DType::Float32, true, {}},
        CompositeValue{ValueKind::OptionalTensor, ir::DType::Int64, true, {y}},
        CompositeValue{ValueKind::OptionalTensor, ir::DType::Float32, false, {}},
        CompositeValue{ValueKind::OptionalSequence, ir::DType::Float32, true, {x}},
        CompositeValue{ValueKind::OptionalSequence, ir::DType::Float32, false, {}}}) {
    INFO(describe(v.kind) << (v.present ? ", present" : ", empty") << ", " << v.elements.size() << " tensors");
    write_composite_pb(dir.file("v.pb"), "v", v);
    const NamedComposite back = read_composite_pb(dir.file("v.pb"), v.kind);
    CHECK(back.name == "v");
    CHECK(compare_composites(back.value, v, 0, 0).ok);
    CHECK(composite_pb_name(dir.file("v.pb"), v.kind) == "v");
  }
  write_tensor_pb(dir.file("t.pb"), "t", x);
  REQUIRE_THROWS_WITH(read_composite_pb(dir.file("t.pb"), ValueKind::Sequence),
                      Catch::Contains("is not a valid ONNX SequenceProto file"));
  CHECK(composite_pb_name(dir.file("t.pb"), ValueKind::OptionalTensor).empty());
  write_composite_pb(dir.file("o.pb"), "o", CompositeValue{ValueKind::OptionalSequence, ir::DType::Float32, true, {x}});
  REQUIRE_THROWS_WITH(read_composite_pb(dir.file("o.pb"), ValueKind::OptionalTensor),
                      Catch::Contains("does not hold an optional tensor"));
}
