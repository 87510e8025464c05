#!/usr/bin/env bash
# Installs everything tunectl needs to build and test on Debian 12.
# Idempotent: packages already present are left alone.
set -euo pipefail

packages=(
  build-essential cmake ninja-build git
  binutils                         # objdump: the tests disassemble kernels
  llvm-19-dev                      # code generation (ORC JIT, object files)
  nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev catch2
  libonnx-dev libprotobuf-dev protobuf-compiler   # ONNX import
  libxgboost-dev                   # learned cost model
  libjemalloc-dev                  # the allocator of tunectl and the tests (search and lowering)
  libboost-context-dev             # the GPU emulator's threads of a block, as fibers
  libdnnl-dev                      # oneDNN, the vendor baseline in benchmarks
  ocl-icd-opencl-dev               # only recommended by libdnnl-dev, but its CMake package needs OpenCL
  chromium zlib1g-dev              # the report test renders tunectl report's page and decodes the PNG
  clang-19 libclang-rt-19-dev      # sanitizer build and libFuzzer (scripts/test.sh --sanitize, scripts/fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo_cmd apt-get update
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
