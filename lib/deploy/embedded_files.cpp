#include "deploy/embedded_files.h"

// Each file becomes bytes between two hidden symbols in .rodata (paths come
// from CMake, which rebuilds this file when one changes).
#define TUNECTL_EMBED(symbol, path)                                                                       \
  asm(".section .rodata\n.balign 64\n.global " #symbol "_begin\n.hidden " #symbol "_begin\n" #symbol        \
      "_begin:\n.incbin \"" path "\"\n.global " #symbol "_end\n.hidden " #symbol "_end\n" #symbol "_end:\n" \
      ".byte 0\n.previous\n");                                                                             \
  extern "C" const char symbol##_begin[], symbol##_end[];

TUNECTL_EMBED(tunectl_embedded_runtime, TUNECTL_DEPLOY_RUNTIME_ARCHIVE)
TUNECTL_EMBED(tunectl_embedded_header, TUNECTL_DEPLOY_HEADER)
TUNECTL_EMBED(tunectl_embedded_example, TUNECTL_DEPLOY_EXAMPLE)

namespace tunectl::deploy {

namespace {
std::string_view between(const char* begin, const char* end) {
  return {begin, static_cast<size_t>(end - begin)};
}
}  // namespace

std::string_view runtime_archive() { return between(tunectl_embedded_runtime_begin, tunectl_embedded_runtime_end); }
std::string_view model_header() { return between(tunectl_embedded_header_begin, tunectl_embedded_header_end); }
std::string_view example_source() { return between(tunectl_embedded_example_begin, tunectl_embedded_example_end); }

}  // namespace tunectl::deploy
