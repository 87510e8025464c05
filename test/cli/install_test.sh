#!/usr/bin/env bash
# Install and packaging: `cmake --install` into a fresh prefix; the installed
# tunectl (alone, without the build tree) compiles the shipped model; a C++
# project finds the package with find_package(tunectl), links the compiled
# model with tunectl_import_model and prints the output `tunectl run` prints.
# Usage: install_test.sh TUNECTL REPO_DIR BUILD_DIR
set -u
tunectl=$1
repo=$2
build=$3
source "$(dirname "$0")/cli_lib.sh"

prefix=$work/prefix
model=$repo/models/small_cnn.onnx
check "cmake --install into a fresh prefix" cmake --install "$build" --prefix "$prefix"
for f in bin/tunectl include/tunectl/tunectl_model.h; do check "installed $f" test -s "$prefix/$f"; done
check "installed the runtime archive and the CMake package" \
  bash -c 'ls "$0"/lib*/tunectl/libtunectl_deploy_runtime.a "$0"/lib*/cmake/tunectl/tunectl-config.cmake' "$prefix"
# The installed binary in a folder of its own: nothing from the build tree.
cp "$prefix/bin/tunectl" "$work/tunectl-copy"
expect 0 "wrote $work/m/libsmall_cnn.so" -- "$work/tunectl-copy" compile "$model" --layout nchw -o "$work/m"
want=$("$tunectl" run "$model" --layout nchw --seed 3 --save-inputs "$work/in" --output-dir "$work/want" | grep '^output')
check "the consumer project configures" cmake -S "$repo/test/deploy/consumer" -B "$work/consumer" \
  -DCMAKE_PREFIX_PATH="$prefix" -DMODEL_DIR="$work/m"
check "the consumer project builds" cmake --build "$work/consumer"
expect 0 "$want" -- "$work/consumer/consumer" "$work/m" "$work/in/input.npy"
check "the consumer needs no LLVM, ONNX or protobuf" \
  bash -c '! ldd "$0" | grep -Eiq "llvm|onnx|protobuf"' "$work/consumer/consumer"

finish "install"
