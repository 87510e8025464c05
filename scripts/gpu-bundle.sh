#!/usr/bin/env bash
# Makes a self-contained tunectl for the lent GPU machine, which has the CUDA
# driver and toolkit but none of Debian's -dev packages: tunectl linked with
# LLVM's static component libraries (TUNECTL_LLVM_STATIC), the GPU tests, the
# shipped model, and every shared library they load that a newer Linux with
# glibc >= 2.36 and libstdc++ >= GCC 12 may lack. CUDA's own libraries are
# not in it: tunectl opens them there at run time.
#
#   scripts/gpu-bundle.sh [OUT_DIR]   (default build-bundle/)
#
# writes OUT_DIR/tunectl-bundle.tar.xz (at most 40 MiB, checked) and the
# folder it packs. There: tar xf tunectl-bundle.tar.xz; tunectl-bundle/tunectl
# --version; tunectl-bundle/test_gpu (the `gpu` tests). JOBS=N sets the build's
# parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build-bundle}")
jobs=${JOBS:-$(nproc)}
max_bytes=$((40 << 20))

mkdir -p "$out"
echo "gpu-bundle: building tunectl with static LLVM in $out/build ($jobs jobs)"
cmake -S . -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTUNECTL_LLVM_STATIC=ON \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed" >"$out/configure.log" 2>&1 || {
  cat "$out/configure.log" >&2
  exit 1
}
cmake --build "$out/build" -j "$jobs" --target tunectl test_gpu >"$out/build.log" 2>&1 || {
  tail -50 "$out/build.log" >&2
  exit 1
}

bundle=$out/tunectl-bundle
rm -rf "$bundle" && mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/models"
for exe in cmd/tunectl test/test_gpu; do
  strip -o "$bundle/bin/$(basename "$exe")" "$out/build/$exe"
done
cp models/small_cnn.onnx "$bundle/models/"

# The shared libraries the executables load, but not the C library and the
# C++ runtime, which the target system has in newer versions (bundling an
# older libstdc++ would break the CUDA libraries loaded beside it).
system_lib='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.'
for exe in "$bundle"/bin/*; do
  ldd "$exe" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  name=$(basename "$lib")
  [[ $name =~ $system_lib ]] && continue
  cp -L "$lib" "$bundle/lib/$name"
  strip --strip-unneeded "$bundle/lib/$name" 2>/dev/null || true
done

for exe in tunectl test_gpu; do
  cat >"$bundle/$exe" <<WRAPPER
#!/bin/sh
# Runs bin/$exe with the bundle's libraries.
here=\$(dirname "\$(readlink -f "\$0")")
LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/bin/$exe" "\$@"
WRAPPER
  chmod +x "$bundle/$exe"
done

# -9: a 64 MiB window, so the LLVM code both executables hold is stored once.
XZ_OPT=-9 tar -C "$out" -cJf "$out/tunectl-bundle.tar.xz" tunectl-bundle
size=$(stat -c %s "$out/tunectl-bundle.tar.xz")
echo "gpu-bundle: $out/tunectl-bundle.tar.xz, $((size >> 20)) MiB" \
  "($(du -sm "$bundle" | cut -f1) MiB unpacked, $(ls "$bundle/lib" | wc -l) libraries)"
if [ "$size" -gt "$max_bytes" ]; then
  echo "gpu-bundle: larger than 40 MiB" >&2
  exit 1
fi
"$bundle/tunectl" --version
