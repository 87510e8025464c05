// Reading JSON given on the command line: inline text, or @path for a file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tunectl::cmd {

// Parses text as JSON, or the file it names when it starts with '@'.
// `what` names the flag in error messages.
nlohmann::json parse_json_arg(const std::string& text, const std::string& what);

}  // namespace tunectl::cmd
