#!/usr/bin/env bash
# Run here before a short GPU call: builds the GPU binaries on this machine (the same nvcc,
# -arch=sm_90, Release; the CUDA runtime is linked statically, so they need nothing on the
# GPU machine) and packs them xz-compressed into build-var/ (git-ignored), which the call
# carries (carry: ["build-var"]). bench/gpu_run.sh unpacks them into build-gpu/ instead
# of building there, which saves the ~280 s of a build on the device.
#
#   tools/device-pack.sh [TARGET...]    default: g16_cli test_cuda_arith test_cuda_msm
#                                       bench_gpu_msm (~24 MB packed)
#
# The call's working tree (tracked files, ~34 MB) and the carried paths share a 64 MiB
# limit: about five packed binaries fit. Built in build-pack/ (git-ignored); the
# binaries record no commit of their own, so a results file names the tree they came from.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(g16_cli test_cuda_arith test_cuda_msm bench_gpu_msm)
cmake -S . -B build-pack -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=ON -DG16_DAEMON=OFF >/dev/null
cmake --build build-pack -j "$(nproc)" --target "${targets[@]}"
rm -rf build-var
mkdir -p build-var
for t in "${targets[@]}"; do
  bin=$t
  [ "$t" = g16_cli ] && bin=g16 # the CLI target's executable
  xz -T0 -6 -c "build-pack/$bin" >"build-var/$bin.xz"
done
git rev-parse --short HEAD >build-var/COMMIT
git diff --quiet || echo "(+uncommitted changes)" >>build-var/COMMIT
du -sh build-var
ls -l build-var
