#include "cmd/json_arg.h"

#include <fstream>
#include <sstream>

#include "ir/error.h"

namespace tunectl::cmd {

nlohmann::json parse_json_arg(const std::string& text, const std::string& what) {
  std::string content = text;
  if (!text.empty() && text[0] == '@') {
    std::ifstream in(text.substr(1));
    user_check(in.good(), what, ": cannot open '", text.substr(1), "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    content = ss.str();
  }
  try {
    return nlohmann::json::parse(content);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number past 64 bits
    user_fail(what, ": not valid JSON: ", e.what());
  }
}

}  // namespace tunectl::cmd
