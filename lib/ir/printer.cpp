#include "ir/printer.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "ir/error.h"

namespace tunectl::ir {

namespace {

// Binding strength of an expression's outermost operator; atoms (names,
// calls, loads, immediates) bind tightest.
enum Prec : int { kOr = 1, kAnd, kCompare, kAdditive, kMultiplicative, kUnary, kAtom };

struct BinaryInfo {
  const char* symbol;
  int prec;
};

BinaryInfo binary_info(ExprKind k) {
  switch (k) {
    case ExprKind::Add: return {"+", kAdditive};
    case ExprKind::Sub: return {"-", kAdditive};
    case ExprKind::Mul: return {"*", kMultiplicative};
    case ExprKind::Div: return {"/", kMultiplicative};
    case ExprKind::FloorDiv: return {"//", kMultiplicative};
    case ExprKind::FloorMod: return {"%", kMultiplicative};
    case ExprKind::EQ: return {"==", kCompare};
    case ExprKind::NE: return {"!=", kCompare};
    case ExprKind::LT: return {"<", kCompare};
    case ExprKind::LE: return {"<=", kCompare};
    case ExprKind::GT: return {">", kCompare};
    case ExprKind::GE: return {">=", kCompare};
    case ExprKind::And: return {"&&", kAnd};
    case ExprKind::Or: return {"||", kOr};
    default: return {nullptr, kAtom};
  }
}

std::string format_float(double v, DType t) {
  if (std::isnan(v)) return t == DType::Float32 ? "nanf" : "nan";
  if (std::isinf(v)) return std::string(v < 0 ? "-" : "") + (t == DType::Float32 ? "inff" : "inf");
  char buf[64];
  if (t == DType::Float16) {
    std::snprintf(buf, sizeof buf, "%.9gh", round_to_float(t, v));
    return buf;
  }
  if (t == DType::Float32) {
    std::snprintf(buf, sizeof buf, "%.9gf", static_cast<double>(static_cast<float>(v)));
    return buf;
  }
  // Float64 has no suffix; a '.' or exponent keeps it apart from an integer.
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

class ExprPrinter {
 public:
  explicit ExprPrinter(std::ostream& os) : os_(os) {}

  // Prints e, parenthesised when its operator binds looser than min_prec.
  void print(const Expr& e, int min_prec = 0) {
    internal_check(bool(e), "printing a null expression");
    int p = precedence(e);
    bool paren = p < min_prec;
    if (paren) os_ << '(';
    print_node(e);
    if (paren) os_ << ')';
  }

 private:
  static int precedence(const Expr& e) {
    if (e.kind() == ExprKind::Not) return kUnary;
    return binary_info(e.kind()).prec;
  }

  void print_list(const std::vector<Expr>& xs) {
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i) os_ << ", ";
      print(xs[i]);
    }
  }

  template <typename Node>
  void print_binary(const Node* op, ExprKind k) {
    BinaryInfo info = binary_info(k);
    // Left-associative: the right operand needs strictly tighter binding;
    // comparisons do not chain, so both of their operands do.
    print(op->a, info.prec == kCompare ? info.prec + 1 : info.prec);
    os_ << ' ' << info.symbol << ' ';
    print(op->b, info.prec + 1);
  }

  template <typename Node>
  void print_function(const char* name, const Node* op) {
    os_ << name << '(';
    print(op->a);
    os_ << ", ";
    print(op->b);
    os_ << ')';
  }

  void print_node(const Expr& e) {
    switch (e.kind()) {
      case ExprKind::IntImm: {
        int64_t v = e.as<IntImmNode>()->value;
        if (e.dtype() == DType::Bool) os_ << (v ? "true" : "false");
        else os_ << v;
        return;
      }
      case ExprKind::FloatImm:
        os_ << format_float(e.as<FloatImmNode>()->value, e.dtype());
        return;
      case ExprKind::Var:
        os_ << e.as<VarNode>()->name;
        return;
#define TUNECTL_PRINT_BINARY(name)                       \
  case ExprKind::name:                                   \
    print_binary(e.as<name##Node>(), ExprKind::name);    \
    return;
        TUNECTL_PRINT_BINARY(Add) TUNECTL_PRINT_BINARY(Sub) TUNECTL_PRINT_BINARY(Mul) TUNECTL_PRINT_BINARY(Div)
        TUNECTL_PRINT_BINARY(FloorDiv) TUNECTL_PRINT_BINARY(FloorMod) TUNECTL_PRINT_BINARY(EQ)
        TUNECTL_PRINT_BINARY(NE) TUNECTL_PRINT_BINARY(LT) TUNECTL_PRINT_BINARY(LE) TUNECTL_PRINT_BINARY(GT)
        TUNECTL_PRINT_BINARY(GE) TUNECTL_PRINT_BINARY(And) TUNECTL_PRINT_BINARY(Or)
#undef TUNECTL_PRINT_BINARY
      case ExprKind::Min:
        print_function("min", e.as<MinNode>());
        return;
      case ExprKind::Max:
        print_function("max", e.as<MaxNode>());
        return;
      case ExprKind::Not:
        os_ << '!';
        print(e.as<NotNode>()->a, kUnary);
        return;
      case ExprKind::Select: {
        const auto* op = e.as<SelectNode>();
        os_ << "select(";
        print_list({op->cond, op->true_value, op->false_value});
        os_ << ')';
        return;
      }
      case ExprKind::Cast:
        os_ << to_string(e.dtype()) << '(';
        print(e.as<CastNode>()->value);
        os_ << ')';
        return;
      case ExprKind::Call: {
        const auto* op = e.as<CallNode>();
        os_ << to_string(op->func) << '(';
        print_list(op->args);
        os_ << ')';
        return;
      }
      case ExprKind::Load: {
        const auto* op = e.as<LoadNode>();
        os_ << op->buffer->name << '[';
        print_list(op->indices);
        os_ << ']';
        return;
      }
      case ExprKind::Reduce: {
        const auto* op = e.as<ReduceNode>();
        std::string name = to_string(op->combiner);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        os_ << name << '(';
        print(op->source);
        os_ << ", axis=[";
        for (size_t i = 0; i < op->axes.size(); ++i) {
          if (i) os_ << ", ";
          os_ << op->axes[i].var.name() << ":0.." << op->axes[i].extent;
        }
        os_ << "])";
        return;
      }
    }
    internal_fail("bad expr kind");
  }

  std::ostream& os_;
};

class StmtPrinter {
 public:
  explicit StmtPrinter(std::ostream& os) : os_(os) {}

  void print(const Stmt& s) {
    internal_check(bool(s), "printing a null statement");
    switch (s.kind()) {
      case StmtKind::For: {
        const auto* op = s.as<ForNode>();
        line() << "for " << op->var.name() << " (" << op->min << ", " << op->extent << ")";
        if (op->for_kind == ForKind::ThreadBinding) os_ << " bind " << op->thread_tag;
        else if (op->for_kind != ForKind::Serial) os_ << ' ' << to_string(op->for_kind);
        os_ << " {\n";
        block(op->body);
        line() << "}\n";
        return;
      }
      case StmtKind::Store: {
        const auto* op = s.as<StoreNode>();
        line() << op->buffer->name << '[';
        for (size_t i = 0; i < op->indices.size(); ++i) os_ << (i ? ", " : "") << op->indices[i];
        os_ << "] = " << op->value << '\n';
        return;
      }
      case StmtKind::Allocate: {
        const auto* op = s.as<AllocateNode>();
        line() << "allocate " << to_string(op->buffer) << ' ' << to_string(op->buffer->scope) << " {\n";
        block(op->body);
        line() << "}\n";
        return;
      }
      case StmtKind::Seq:
        for (const auto& x : s.as<SeqNode>()->stmts) print(x);
        return;
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        line() << "if (" << op->cond << ") {\n";
        block(op->then_case);
        if (op->else_case) {
          line() << "} else {\n";
          block(op->else_case);
        }
        line() << "}\n";
        return;
      }
      case StmtKind::Barrier:
        line() << "barrier\n";
        return;
      case StmtKind::AllReduce: {
        const auto* op = s.as<AllReduceNode>();
        line() << "all_reduce " << to_string(op->combiner) << ' ' << op->buffer->name << '[';
        for (size_t i = 0; i < op->indices.size(); ++i) os_ << (i ? ", " : "") << op->indices[i];
        os_ << "]\n";
        return;
      }
    }
    internal_fail("bad stmt kind");
  }

 private:
  std::ostream& line() {
    for (int i = 0; i < indent_; ++i) os_ << "  ";
    return os_;
  }
  void block(const Stmt& s) {
    ++indent_;
    print(s);
    --indent_;
  }

  std::ostream& os_;
  int indent_ = 0;
};

}  // namespace

std::ostream& operator<<(std::ostream& os, const Expr& e) {
  ExprPrinter(os).print(e);
  return os;
}

std::ostream& operator<<(std::ostream& os, const Stmt& s) {
  StmtPrinter(os).print(s);
  return os;
}

std::string to_string(const Expr& e) {
  std::ostringstream os;
  os << e;
  return os.str();
}

std::shared_ptr<const std::string> shared_text(const Expr& e) {
  // Nodes are immutable, so a node's text never changes; an entry holds its
  // node, so the address is not reused while the entry lives.
  struct Entry {
    Expr node;
    std::shared_ptr<const std::string> text;
  };
  thread_local std::unordered_map<const ExprNode*, Entry> cache;
  if (auto it = cache.find(e.get()); it != cache.end()) return it->second.text;
  if (cache.size() >= 16384) cache.clear();
  auto text = std::make_shared<const std::string>(to_string(e));
  cache.emplace(e.get(), Entry{e, text});
  return text;
}

std::string to_string(const Stmt& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

std::string to_string(const Buffer& b) {
  std::string out = b->name + "[" + std::string(to_string(b->dtype));
  for (int64_t d : b->shape) out += " * " + std::to_string(d);
  return out + "]";
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

}  // namespace tunectl::ir
