#!/usr/bin/env bash
# Run here before a short GPU call: builds the GPU binaries on this machine (the same nvcc,
# -arch=sm_90, Release; the CUDA runtime is linked statically, so they need nothing on the
# GPU machine) and packs them xz-compressed into build-var/ (git-ignored), which the call
# carries (carry: ["build-var", ".debs"]; .debs/ is fetched too when absent, and the
# build's own libraries installed on a fresh machine). bench/gpu_run.sh unpacks them into
# build-gpu/ instead of building there, which saves the ~280 s of a build on the device.
#
#   tools/device-pack.sh [TARGET...]    default: g16_cli test_cuda_arith test_cuda_msm
#                                       bench_gpu_msm
#   PACK_EXTRA="/path/bench_gpu_msm_base ..."  other binaries packed beside them under
#                                       their own names (e.g. a build of an earlier commit
#                                       for bench/gpu_run.sh's ab step)
#
# The binaries go into one archive, build-var/bins.tar.xz, compressed with a dictionary
# larger than the archive: each binary links the same kernels (~20 MB of the ~25 MB), so
# the second and later ones cost ~0.2-1 MB each packed (five binaries: ~9 MB, where
# separate files took ~8.5 MB each). The call's working tree (tracked files, ~35 MB) and
# the carried paths share a 64 MiB limit. Built in build-pack/ (git-ignored); the
# binaries record no commit of their own, so a results file names the tree they came from.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(g16_cli test_cuda_arith test_cuda_msm bench_gpu_msm)
# A fresh checkout's machine may lack the build's libraries (jansson): install-deps.sh
# installs only what is missing, so on a prepared machine this costs a few checks.
tools/install-deps.sh build >/dev/null
cmake -S . -B build-pack -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=ON -DG16_DAEMON=OFF >/dev/null
cmake --build build-pack -j "$(nproc)" --target "${targets[@]}"
rm -rf build-var
mkdir -p build-var
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for t in "${targets[@]}"; do
  bin=$t
  [ "$t" = g16_cli ] && bin=g16 # the CLI target's executable
  ln "build-pack/$bin" "$stage/$bin" 2>/dev/null || cp "build-pack/$bin" "$stage/$bin"
done
for extra in ${PACK_EXTRA:-}; do
  cp "$extra" "$stage/$(basename "$extra")"
done
tar cf - -C "$stage" . | xz -T1 -9 --lzma2=dict=256MiB -c >build-var/bins.tar.xz
git rev-parse --short HEAD >build-var/COMMIT
git diff --quiet || echo "(+uncommitted changes)" >>build-var/COMMIT
# The g16 CLI links libjansson, which the GPU machine lacks: its .deb files travel as .debs/
# (carry: ["build-var", ".debs"]).
ls .debs/*.deb >/dev/null 2>&1 || tools/device-prepare.sh >/dev/null
du -sh build-var
ls -l build-var
