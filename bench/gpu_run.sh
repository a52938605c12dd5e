#!/usr/bin/env bash
# One call on a GPU machine: build with CUDA for sm_90, run every test (the GPU ones run
# for real there; CPU ones too), run the benchmarks, print one table at the end.
# Logs go to $OUT when it is set (the device tool), else to build-gpu/logs.
#   bench/gpu_run.sh            tests, GPU benchmarks, a native job on both backends
#   bench/gpu_run.sh --quick    the same with the small benchmark sizes
#   bench/gpu_run.sh --cpu      adds the CPU benchmarks on the host's cores
set -uo pipefail
cd "$(dirname "$0")/.."
quick=${1:-}
logs=${OUT:-build-gpu/logs}
mkdir -p "$logs"
jobs=$(nproc)
summary=()
row() { summary+=("$(printf '%-34s %s' "$1" "$2")"); }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (+uncommitted changes)')"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1
  nvcc --version | tail -1
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} | tee "$logs/machine.txt"

# Libraries the machine lacks travel as .deb files (tools/device-prepare.sh, carried as
# .debs): unpack them into a private prefix, never into /.
prefix_flags=()
if ls .debs/*.deb >/dev/null 2>&1; then
  for f in .debs/*.deb; do dpkg -x "$f" /tmp/g16-deps; done
  ls /tmp/g16-deps/usr/include/jansson.h
  # Only the unpacked prefix: a half-installed system copy must not win.
  prefix_flags=(-DCMAKE_PREFIX_PATH=/tmp/g16-deps/usr -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON)
fi

rm -f build-gpu/CMakeCache.txt  # settings come from this script, not from a cache
t0=$(date +%s)
if cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=ON "${prefix_flags[@]}" >"$logs/build.log" 2>&1 &&
   cmake --build build-gpu -j "$jobs" >>"$logs/build.log" 2>&1; then
  row build "ok ($(( $(date +%s) - t0 )) s)"
else
  tail -30 "$logs/build.log"
  row build FAILED
  printf '%s\n' "${summary[@]}"
  exit 1
fi

# node is absent on the GPU machine: the differential tests against noble skip there
# (they run in CI); every GPU test compares with the CPU, which needs no node.
(cd build-gpu && ctest --output-on-failure -j 4 --timeout 600) >"$logs/ctest.log" 2>&1
rc=$?
row "ctest" "$(grep -E 'tests passed|tests failed' "$logs/ctest.log" | tail -1) (rc=$rc)"
for t in test_cuda_arith_device test_cuda_msm test_cuda_ntt test_cuda_probe; do
  row "  $t" "$(grep -E "^ *[0-9]+/[0-9]+ Test +#[0-9]+: $t " "$logs/ctest.log" | grep -oE 'Passed|\*\*\*Failed|Skipped|Not Run|Timeout' | head -1)"
done
grep -E '^device:|^backend:|GPU partition|differs|SKIPPED' "$logs/ctest.log" | sed 's/^[0-9]*: //' | sort -u | head -30

build-gpu/g16 devices | tee "$logs/devices.txt"
row "devices" "$(head -2 "$logs/devices.txt" | tr '\n' ' ')"

# GPU benchmarks: each prints a markdown table.
for b in bench_gpu_ntt bench_gpu_msm; do
  if [ -x "build-gpu/$b" ]; then
    args=()
    [ "$quick" = --quick ] && [ $b = bench_gpu_msm ] && args=(--quick)
    timeout 420 "build-gpu/$b" "${args[@]}" | tee "$logs/$b.txt"
    row "$b" "exit ${PIPESTATUS[0]}"
  fi
done

# A native job end to end on the GPU backend, and the same on the CPU for comparison.
for be in cuda cpu; do
  build-gpu/g16 bench --circuit synthetic --constraints 1048576 --partitions 2 --backend $be \
    | tee "$logs/bench_synthetic_$be.txt"
  row "g16 bench 2^20 ($be)" "$(grep -o '[0-9.]* s per partition' "$logs/bench_synthetic_$be.txt")"
done
build-gpu/g16 prove --backend cuda tests/fixtures/sha256/circuit.zkey tests/fixtures/sha256/witness.wtns \
  "$logs/proof.json" "$logs/public.json" 2>&1 | tee "$logs/prove_sha256.txt"
row "g16 prove sha256 (cuda)" "exit ${PIPESTATUS[0]}"

if [ "${1:-}" = --cpu ]; then
  build-gpu/bench_arith | tee "$logs/bench_arith.txt"
  build-gpu/bench_msm | tee "$logs/bench_msm.txt"
  build-gpu/bench_ntt | tee "$logs/bench_ntt.txt"
fi
echo
echo "=== summary ==="
printf '%s\n' "${summary[@]}"
exit $rc
