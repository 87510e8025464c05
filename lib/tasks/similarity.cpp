// similarity_key: the canonical text of a DAG with its numbers masked, hashed.
#include "tasks/similarity.h"

#include <cctype>

namespace tunectl::tasks {
namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

// Replaces each numeric token (one starting with a digit where no identifier
// is going on) by '#'. A shape token "AxBxC" keeps its separators so rank
// still tells tasks apart; any other numeric token ("3", "0.5f", "1e-05f")
// becomes a single '#', so a constant's spelling cannot split a group.
std::string mask_numbers(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    bool token_start = i == 0 || !is_ident_char(text[i - 1]);
    if (!(token_start && is_digit(c))) {
      out += c;
      ++i;
      continue;
    }
    size_t end = i;
    bool shape_like = true;  // only digits and 'x'
    while (end < text.size()) {
      char d = text[end];
      bool exponent_sign = (d == '+' || d == '-') && end > i && (text[end - 1] == 'e' || text[end - 1] == 'E');
      if (!is_ident_char(d) && d != '.' && !exponent_sign) break;
      if (!is_digit(d) && d != 'x') shape_like = false;
      ++end;
    }
    if (shape_like) {
      for (size_t k = i; k < end; ++k) {
        if (text[k] == 'x') out += 'x';
        else if (k == i || text[k - 1] == 'x') out += '#';
      }
    } else {
      out += '#';
    }
    i = end;
  }
  return out;
}

}  // namespace

std::string similarity_key(const te::ComputeDAG& dag) {
  return te::stable_hash_hex(mask_numbers(dag.canonical_text()));
}

}  // namespace tunectl::tasks
