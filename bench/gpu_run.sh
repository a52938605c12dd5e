#!/usr/bin/env bash
# One call on a GPU machine: build with CUDA for sm_90, run the GPU tests and the GPU
# benchmarks, print one table at the end. Steps run in the order given (default: build
# tests msm-quick ntt pipe20):
#   bench/gpu_run.sh [build] [tests] [msm] [msm-quick] [ntt] [pipe20] [part26] [part26s]
#                    [part26g2] [job26] [job26c] [part27] [pipe24] [windows] [cpu] [cpu-ifma]
#                    [cpu-windows]
#   build      the targets the other steps need (run first when absent and nothing was
#              carried; BUILD_TARGETS="..." builds those alone). Binaries packed here by
#              tools/device-pack.sh and carried as build-var/ are used instead of a build.
#   tests      every GPU test, each against the CPU, and a snarkjs proof on the GPU
#   msm        bench_gpu_msm up to 2^27 (issue 5's table); msm-quick: up to 2^24
#   ntt        bench_gpu_ntt
#   ntt-check  bench_gpu_ntt --check (H against the CPU, every element, 2^24 and 2^27:
#              NTT_CHECK_SIZES), the default kernels and G16_GPU_NTT_FUSE=0 (NTT_CHECK_ENV:
#              other settings, space-separated, VAR=VALUE,VAR=VALUE each)
#   pipe20     the pipeline: 2 jobs x 4 partitions at 2^20, trace report
#   part26     3 partitions at 2^26 (the setup on the GPU, the key kept in $KEYS/k26.key
#              for the steps below), trace report
#   part26s    the same with the key streamed from host memory (--gpu-key streamed)
#   part26g2   the same with the B2 MSM on the CPU (--g2-cpu)
#   job26      one 10-partition job at 2^26 (issue 7's figure), trace report
#   job26c     the same with 2 pre-synthesized witnesses copied (--synth-cache 2): the GPU
#              with synthesis out of the way
#   job26s     job26c with the key streamed from host memory (--gpu-key streamed)
#   job26c3    job26c with three workers on the GPU (--provers 3) and a 72G budget
#   tests-quick  test_fixed_base --device and test_cuda_pipeline only
#   part27     3 partitions at 2^27 (the last one alone on the GPU: a 2^27 partition's GPU time)
#   part27g2   the same with the B2 MSM on the CPU (--g2-cpu: the issue's option; the GPU
#              time without G2's MSM, and whether the host's G2 keeps up)
#   job27      one 10-partition job at 2^27 (issue 7's figure at 2^27), one witness
#              pre-synthesized, a 110G budget (key and cached witness included) on this
#              125 GiB host
#   job27r     job27 with the key's host pages dropped once resident (--release-key) and
#              a 64G budget (issue 7's <= 64 GiB)
#   job27c3    job27 with the streamed key's chunks of 3 GiB (G16_GPU_STREAM_CHUNK; 1.5 GiB
#              by default): 2^25 G1 points a chunk's MSM
#   job27g     job27 with H's streamed chunks by GLV, each chunk's table made beside it
#              (G16_GPU_STREAM_GLV=1: the default since session 38)
#   job27n     job27 without GLV per streamed chunk (G16_GPU_STREAM_GLV=0)
#   job27u     job27 with a, b and c uploaded before H's kernels (G16_GPU_H_FED=0: the way
#              before session 39, where each now goes up just ahead of its own transforms)
#   job27x3    job27's run with 3 jobs, two in flight (-c 3 -j 2: the next job queued
#              while one proves, as a daemon's with concurrency 2; one at a time, each
#              job's first partition waits ~0.45 s for its slot's copy, run 117): the
#              throughput with the next partition's a staged across the jobs' boundaries
#   job27ns    job27 without the next partition's a staged during the current one
#              (G16_GPU_STAGE_NEXT=0: the way before run 116)
#   job27s     job27 with the whole key streamed (--gpu-key streamed): on an 80 GB card,
#              the plan before session 38 kept no array of the key on the device
#   job27w1    job27 with one GPU worker (--provers 1): on an 80 GB card, where the key
#              streams, the plan before session 37 (its model of a streamed partition
#              left room for one), against job27's two
#   pipe24     4 jobs x 4 partitions at 2^24 on every visible GPU, and on GPU 0 alone
#   part24     2 partitions at 2^24 (H's MSM by GLV, 7 windows of 19 bits): proofs verified
#   test_cuda_msm  test_cuda_arith --device and test_cuda_msm only
#   ab         builds and settings side by side (AB_RUNS, AB_ARGS: see the step)
#   test_cuda_ntt  test_cuda_ntt only
#   ntt-fed    test_cuda_ntt --fed: H with a, b, c fed from host memory (cuda_h_poly_fed)
#              against the CPU, fused and not, both conventions, up to 2^24 (seconds)
#   test_cuda_pipeline  test_cuda_pipeline only (the pipeline's device plans and proofs)
#   upload     test_cuda_probe only: a resident array's upload from pageable memory, plain
#              and through pinned bounce buffers (G16_GPU_STAGED_UPLOAD), bytes and rates;
#              whether a copy queued on the copy stream holds the host or the kernels
#              queued after it; the pool after an allocation failed for memory
#   rates      bench_gpu_msm's arithmetic rates alone (products and point additions a second)
#   g2         bench_gpu_msm's G2 MSMs 2^24 and 2^26 and the arithmetic rates
#   affine     bench_gpu_msm up to 2^27 with the batch-affine accumulation, then with XYZZ
#   affine-tune  the batch-affine rounds' stop length and window widths at G1 dense 2^26
#   profile    Nsight Compute: the GPU time of every kernel of a G1 dense 2^26 MSM, summed
#              by kernel, and the pair kernels' occupancy and throughputs (PROFILE_CASE,
#              PROFILE_LOG2: another of bench_gpu_msm's cases and size; PROFILE_BIN: another
#              bench_gpu_msm build, PROFILE_TAG: a suffix for the logs' names)
#   sort-profile  Nsight Compute: the window sort's kernels alone, CUB's and our own
#              (G16_GPU_MSM_OWN_SORT=0, 1), in a G1 dense 2^26 MSM: time, DRAM bytes, L2
#              sectors (PROFILE_CASE, PROFILE_LOG2, SORT_PROFILE_COUNT launches)
#   blocks     the pair kernels' block size (G16_GPU_MSM_BLOCK) swept, dense MSMs 2^24-2^26
#   stalls     Nsight Compute's pipe, scheduler and warp-state sections for the pair
#              kernels (dense 2^26; STALL_CASES="G1 dense,G2 dense": the bench's cases
#              profiled, G1's alone by default): what bounds them (STALL_KERNELS: a
#              regex of kernel names, STALL_COUNT launches of them after STALL_SKIP;
#              STALL_ENV: variables
#              for the profiled run, e.g. G16_GPU_MSM_PREFETCH=0; STALL_BIN: another
#              bench_gpu_msm build)
#   ntt-stalls the same sections for the NTT's pass kernel (forward 2^27)
#   chain-stalls  the same for the register-resident chain of Fp products (the ceiling
#              the pair kernels are measured against)
#   sass       the SASS instruction mix of G1's pair kernels (cuobjdump)
#   ntt-sass   the SASS instruction count and mix of the NTT's pass kernels, both butterflies
#   prefetch   G1's MSMs 2^24-2^27 with and without the pair kernels' prefetch
#              (PREFETCH_VALUES="0": the variant without it alone)
#   windows    the MSM's window width forced (G16_GPU_MSM_WINDOW) for dense G1 at 2^20,
#              2^26, 2^27 and G2 at 2^26: the data for the default widths
#   cpu        the CPU benchmarks on the host's cores
#   cpu-ifma   the CPU's IFMA tests (against the scalar paths) and benchmarks, IFMA on/off
#   cpu-windows  the CPU MSM's window widths swept on the host's cores (the model's check)
set -uo pipefail
cd "$(dirname "$0")/.."
# Logs go to build-gpu/logs; with $OUT set (the device tool, which returns at most 8 files)
# each step's end bundles them there: summary.txt, logs.tar.gz (text logs), and at the end
# traces.tar.gz (the timelines), so that a call cut at its limit still returns what ran.
logs=build-gpu/logs
rm -rf "$logs"
mkdir -p "$logs"
jobs=$(nproc)
summary=()
row() { summary+=("$(printf '%-30s %s' "$1" "$2")"); }
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build tests msm-quick ntt pipe20)
g16=build-gpu/g16
keys=${KEYS:-/tmp/g16-keys} # keys made by one step and used by later ones (same call)
mkdir -p "$keys"
export G16_SOURCE_DIR=$PWD # the tests find their fixtures through it, as under ctest

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (+uncommitted changes)')"
  echo "steps: ${steps[*]}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1
  nvcc --version | tail -1
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(free -g | awk '/Mem:/ {print $2}') GiB"
} | tee "$logs/machine.txt"

# Libraries the machine lacks travel as .deb files (carried as .debs): unpacked into a
# private prefix, never into /. Returns 1 when there are none.
unpack_debs() {
  ls .debs/*.deb >/dev/null 2>&1 || return 1
  mkdir -p /tmp/g16-deps
  for f in .debs/*.deb; do dpkg -x "$f" /tmp/g16-deps; done
}

build() {
  local prefix_flags=()
  if unpack_debs; then
    prefix_flags=(-DCMAKE_PREFIX_PATH=/tmp/g16-deps/usr -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON)
  fi
  rm -f build-gpu/CMakeCache.txt
  local t0=$(date +%s)
  if cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DG16_CUDA=ON -DG16_DAEMON=OFF \
       "${prefix_flags[@]}" >"$logs/build.log" 2>&1 &&
     cmake --build build-gpu -j "$jobs" --target ${BUILD_TARGETS:-g16_cli test_cuda_arith \
       test_cuda_msm test_cuda_ntt test_cuda_probe test_cuda_pipeline test_fixed_base \
       bench_gpu_msm bench_gpu_ntt} >>"$logs/build.log" 2>&1; then
    row build "ok ($(( $(date +%s) - t0 )) s)"
  else
    tail -30 "$logs/build.log"
    row build FAILED
    printf '%s\n' "${summary[@]}"
    exit 1
  fi
}

# run NAME TIMEOUT CMD...: logs to $logs/NAME.txt, a summary row with the exit status.
run() {
  local name=$1 limit=$2
  shift 2
  local t0=$(date +%s)
  timeout "$limit" "$@" >"$logs/$name.txt" 2>&1
  local rc=$?
  row "$name" "exit $rc ($(( $(date +%s) - t0 )) s)"
  return $rc
}

# A g16 bench run with its timeline, and the lines that matter in the summary.
bench_job() {
  local name=$1 limit=$2
  shift 2
  run "$name" "$limit" $g16 bench --backend cuda --trace "$logs/$name.trace" "$@"
  grep -E 'setup|per job|per partition|utilisation|device memory|peak RSS|verified|FAIL|error' \
    "$logs/$name.txt" | head -14 | sed 's/^/    /'
  grep -E '^setup time:' "$logs/$name.txt" | head -20 | sed 's/^/    /'
  $g16 trace report "$logs/$name.trace" >"$logs/$name.report.txt" 2>&1
  grep -iE 'utili|steady|gap|wait|upload' "$logs/$name.report.txt" | head -14 | sed 's/^/    /'
}

# msm_sweep VAR "VALUES" NAME LIMIT ARGS...: bench_gpu_msm ARGS --reps 2 once per value of
# the environment variable VAR, each run's MSM rows in the output.
msm_sweep() {
  local var=$1 values=$2 name=$3 limit=$4 v
  shift 4
  for v in $values; do
    export "$var=$v"
    run "msm_$name$v" "$limit" build-gpu/bench_gpu_msm "$@" --reps 2
    unset "$var"
    grep -h '^| G' "$logs/msm_$name$v.txt" | sed "s/^/    $name $v: /"
  done
}

# ncu_sections NAME REGEX SKIP COUNT CMD...: Nsight Compute's pipe utilisation, scheduler,
# warp-state and instruction sections for COUNT launches of the kernels matching REGEX
# after SKIP of them, in CMD (run under env $STALL_ENV); the details page in the output.
ncu_sections() {
  local name=$1 regex=$2 skip=$3 count=$4 ncu_bin
  shift 4
  ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -z "$ncu_bin" ]; then
    row "$name" "skipped: no ncu"
    return 0
  fi
  run "$name" ${PROFILE_LIMIT:-200} env ${STALL_ENV:-} "$ncu_bin" --clock-control none \
    --page details --print-units base --log-file "$logs/$name.txt.log" \
    --kernel-name-base demangled -k regex:"$regex" --launch-skip "$skip" --launch-count "$count" \
    --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
    --section InstructionStats \
    --metrics 'regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$' "$@"
  grep -vE '^ *-+ *-+|^ *$' "$logs/$name.txt.log" | cut -c1-160 | head -150 | sed 's/^/    /'
}

bundle() {
  [ -n "${OUT:-}" ] || return 0
  printf '%s\n' "${summary[@]}" >"$OUT/summary.txt"
  (cd "$logs" && tar czf "$OUT/logs.tar.gz" --exclude='*.trace' .) 2>/dev/null
  if [ "${1:-}" = traces ] && ls "$logs"/*.trace >/dev/null 2>&1; then
    (cd "$logs" && tar czf "$OUT/traces.tar.gz" ./*.trace) 2>/dev/null
  fi
}

# Binaries built on the development machine (tools/device-pack.sh, carried as build-var/):
# unpacked into build-gpu/ in place of a build (the g16 CLI finds libjansson in the .debs'
# private prefix). The build step, if asked for, still builds and replaces them.
# Either one archive (bins.tar.xz, today's device-pack.sh) or one .xz a binary (before).
carried=0 carried_names=
if ls build-var/*.xz >/dev/null 2>&1; then
  mkdir -p build-gpu
  for f in build-var/*.xz; do
    case $f in
    *.tar.xz) # the archive's member names, as extracted (./NAME)
      carried_names+="$( (tar xJvf "$f" -C build-gpu 2>/dev/null ||
        python3 -c 'import sys, tarfile
t = tarfile.open(sys.argv[1], "r:xz"); t.extractall(sys.argv[2]); print("\n".join(t.getnames()))' \
          "$f" build-gpu) | grep -vE '^\.?/?$' | xargs -rn1 basename | tr '\n' ' ')"
      continue
      ;;
    esac
    o=build-gpu/$(basename "$f" .xz)
    xz -dc "$f" >"$o" 2>/dev/null ||
      python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$f" >"$o"
    chmod +x "$o"
    carried_names+="$(basename "$o") "
  done
  unpack_debs || true
  export LD_LIBRARY_PATH=/tmp/g16-deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  carried=1
  row carried "${carried_names}from $(cat build-var/COMMIT 2>/dev/null | tr '\n' ' ')"
fi
[ -x $g16 ] || [ $carried = 1 ] || [[ " ${steps[*]} " == *" build "* ]] || build
for step in "${steps[@]}"; do
  echo "=== $step ($(date -u +%T))"
  case $step in
  build) build ;;
  tests)
    run test_cuda_arith_device 120 build-gpu/test_cuda_arith --device
    run test_cuda_msm 300 build-gpu/test_cuda_msm
    run test_cuda_ntt ${NTT_TEST_LIMIT:-540} build-gpu/test_cuda_ntt
    run test_fixed_base_device 300 build-gpu/test_fixed_base --device
    run test_cuda_pipeline 300 build-gpu/test_cuda_pipeline
    run test_cuda_probe 60 build-gpu/test_cuda_probe
    grep -hE 'allocations|device peak|key streamed|cuda:|differ|FAIL|checks|: .*[a-z] .*:' \
      "$logs"/test_cuda_*.txt "$logs"/test_fixed_base_device.txt | grep -v '^  [a-z0-9]*: domain' |
      head -40 | sed 's/^/    /'
    run prove_sha256_cuda 120 $g16 prove --backend cuda tests/fixtures/sha256/circuit.zkey \
      tests/fixtures/sha256/witness.wtns "$logs/proof.json" "$logs/public.json"
    run verify_sha256 60 $g16 verify tests/fixtures/sha256/verification_key.json \
      "$logs/public.json" "$logs/proof.json"
    ;;
  msm) run bench_gpu_msm ${MSM_LIMIT:-420} build-gpu/bench_gpu_msm --max-log2 27 --reps 3; cat "$logs/bench_gpu_msm.txt" ;;
  test_cuda_msm)
    # test_cuda_arith when it was built or carried (a carried set may leave it out).
    if [ -x build-gpu/test_cuda_arith ]; then
      run test_cuda_arith_device 120 build-gpu/test_cuda_arith --device
    else
      row test_cuda_arith_device "skipped: not built or carried"
    fi
    run test_cuda_msm 300 build-gpu/test_cuda_msm
    # The verdicts first (checks, failures), then the paths the MSMs took.
    grep -hsE 'differ|FAIL|checks' "$logs"/test_cuda_arith_device.txt "$logs"/test_cuda_msm.txt |
      head -12 | sed 's/^/    /' || true
    grep -hs 'bucket accumulation' "$logs"/test_cuda_msm.txt | head -10 | sed 's/^/    /' || true
    ;;
  ab)
    # Builds side by side in one call: AB_RUNS lists BINARY[:VAR=VALUE,...] entries
    # (binaries in build-gpu/, e.g. a bench_gpu_msm_base.xz carried beside the tree's
    # build), each run with AB_ARGS (default: G1 dense 2^24 to 2^26, two reps).
    for entry in ${AB_RUNS:-bench_gpu_msm}; do
      bin=${entry%%:*}
      vars=$([ "$bin" = "$entry" ] || echo "${entry#*:}" | tr ',' ' ')
      name=ab_$(echo "$entry" | tr -c 'A-Za-z0-9_\n' '_')
      eval "args=(${AB_ARGS:---case \"G1 dense\" --min-log2 24 --max-log2 26 --reps 2})"
      run "$name" ${AB_LIMIT:-120} env $vars "build-gpu/$bin" "${args[@]}"
      grep -hE '^\| (G|forward|inverse|coset|H)|^2\^[0-9]+: (H .* the CPU|H check|round)' \
        "$logs/$name.txt" | sed "s/^/    $entry: /"
    done
    ;;
  upload)
    run test_cuda_probe 120 build-gpu/test_cuda_probe
    grep -hE 'upload|copy stream|pool|differ|FAIL|checks' "$logs"/test_cuda_probe.txt | head -20 | sed 's/^/    /'
    ;;
  test_cuda_pipeline)
    run test_cuda_pipeline 300 build-gpu/test_cuda_pipeline
    grep -hE 'allocations|device peak|key streamed|cuda:|differ|FAIL|checks' \
      "$logs"/test_cuda_pipeline.txt | head -20 | sed 's/^/    /'
    ;;
  test_cuda_ntt)
    # 16 modes (session 26) outgrew 300 s (run 93); 10 since session 28. NTT_TEST_LIMIT
    # overrides.
    run test_cuda_ntt ${NTT_TEST_LIMIT:-540} build-gpu/test_cuda_ntt
    grep -hE 'differ|FAIL|checks' "$logs"/test_cuda_ntt.txt | head -20 | sed 's/^/    /'
    ;;
  ntt-fed)
    run test_cuda_ntt_fed 120 build-gpu/test_cuda_ntt --fed
    grep -hE 'differ|FAIL|checks' "$logs"/test_cuda_ntt_fed.txt | head -20 | sed 's/^/    /'
    ;;
  rates)
    # The arithmetic ceilings alone (bench_gpu_msm with no MSM case): products and point
    # additions per second, then the product rates at 4 to 32 warps an SM.
    run rates 120 build-gpu/bench_gpu_msm --case none
    grep -hE '^\| ' "$logs/rates.txt" | sed 's/^/    /'
    ;;
  g2)
    # The G2 MSMs (2^24, 2^26) and the arithmetic rates (Fp2 product, G2 addition): what an
    # Fp2 change moves.
    run msm_g2 ${MSM_LIMIT:-120} build-gpu/bench_gpu_msm --case G2 --min-log2 24 --max-log2 26 --reps 2
    grep -hE '^\| (Fp|Fr|G1 add|G2)' "$logs/msm_g2.txt" | sed 's/^/    /'
    ;;
  affine)
    # The two bucket accumulations side by side: batch-affine rounds, then XYZZ
    # (AFFINE_PATHS="1" for the first alone).
    for a in ${AFFINE_PATHS:-1 0}; do
      G16_GPU_MSM_AFFINE=$a run msm_affine$a ${MSM_LIMIT:-240} build-gpu/bench_gpu_msm --max-log2 27 --reps 2
      grep -h '^| G' "$logs/msm_affine$a.txt" | sed 's/^/    /'
    done
    ;;
  affine-tune)
    # The batch-affine rounds' stop length (G16_GPU_MSM_TAIL) and window widths, G1 dense 2^26.
    for t in 1 4 8; do
      G16_GPU_MSM_AFFINE=1 G16_GPU_MSM_TAIL=$t run msm_tail$t 60 build-gpu/bench_gpu_msm \
        --case "G1 dense" --min-log2 26 --max-log2 26 --reps 2
    done
    for c in 16 18 19; do
      G16_GPU_MSM_AFFINE=1 G16_GPU_MSM_WINDOW=$c run msm_affine_w$c 60 build-gpu/bench_gpu_msm \
        --case "G1 dense" --min-log2 26 --max-log2 26 --reps 2
    done
    grep -h '^| G' "$logs"/msm_tail*.txt "$logs"/msm_affine_w*.txt | sed 's/^/    /'
    ;;
  profile)
    # Nsight Compute: every kernel's GPU time in one G1 dense 2^26 MSM (run twice by
    # bench_gpu_msm --reps 1: warm-up and run), summed by kernel (bench/ncu_summary.py, per
    # MSM); then the occupancy, DRAM and SM throughput of two launches each of the pair
    # kernels. Clocks are left alone (--clock-control none), as in the benchmarks.
    ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    if [ -z "$ncu_bin" ]; then
      row profile "skipped: no ncu"
    else
      pcase=${PROFILE_CASE:-G1 dense} plog=${PROFILE_LOG2:-26}
      pname=ncu_$(echo "$pcase" | tr -c 'A-Za-z0-9\n' _)_$plog${PROFILE_TAG:+_$PROFILE_TAG}
      run "$pname" ${PROFILE_LIMIT:-200} "$ncu_bin" --clock-control none --csv --page raw \
        --print-units base --log-file "$logs/$pname.csv" \
        --metrics gpu__time_duration.sum,launch__registers_per_thread \
        build-gpu/${PROFILE_BIN:-bench_gpu_msm} --case "$pcase" --min-log2 "$plog" --max-log2 "$plog" --reps 1
      python3 bench/ncu_summary.py "$logs/$pname.csv" 2 >"$logs/$pname.summary.txt" 2>&1
      head -30 "$logs/$pname.summary.txt" | sed 's/^/    /'
      # The pair kernels' occupancy and throughputs: G1 dense 2^26 (the default case only).
      if [ -z "${PROFILE_CASE:-}" ]; then
        run ncu_pairs ${PROFILE_LIMIT:-200} "$ncu_bin" --clock-control none --csv --page raw \
          --print-units base --log-file "$logs/ncu_pairs.csv" --kernel-name-base demangled \
          -k regex:'ba_add|ba_denominators' --launch-skip 40 --launch-count 4 \
          --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed \
          build-gpu/bench_gpu_msm --case "G1 dense" --min-log2 26 --max-log2 26 --reps 1
        python3 bench/ncu_summary.py "$logs/ncu_pairs.csv" >"$logs/ncu_pairs.summary.txt" 2>&1
        sed 's/^/    /' "$logs/ncu_pairs.summary.txt"
      fi
    fi
    ;;
  sort-profile)
    # The window sort's kernels alone, CUB's (G16_GPU_MSM_OWN_SORT=0) and our own (=1), in
    # a G1 dense 2^26 MSM (PROFILE_CASE, PROFILE_LOG2): each kernel's time, DRAM bytes and
    # L2 sectors (atomics with a result and reductions without apart), from the first
    # SORT_PROFILE_COUNT launches of them (default 14: the warm-up MSM's first two windows,
    # 7 kernels a window in either sort; the rounds' kernels run unprofiled).
    # bench/NOTES.md, session 33.
    ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    if [ -z "$ncu_bin" ]; then
      row sort-profile "skipped: no ncu"
    else
      pcase=${PROFILE_CASE:-G1 dense} plog=${PROFILE_LOG2:-26}
      for own in 0 1; do
        pname=ncu_sort_own${own}_$plog
        run "$pname" ${PROFILE_LIMIT:-200} env G16_GPU_MSM_OWN_SORT=$own "$ncu_bin" \
          --clock-control none --csv --page raw --print-units base --log-file "$logs/$pname.csv" \
          --kernel-name-base demangled -k regex:'k_bs_|ba_digits|ba_bounds|DeviceRadixSort' \
          --launch-count "${SORT_PROFILE_COUNT:-14}" \
          --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum \
          build-gpu/bench_gpu_msm --case "$pcase" --min-log2 "$plog" --max-log2 "$plog" --reps 1
        python3 bench/ncu_summary.py "$logs/$pname.csv" >"$logs/$pname.summary.txt" 2>&1
        echo "    OWN_SORT=$own"
        sed 's/^/    /' "$logs/$pname.summary.txt"
      done
    fi
    ;;
  stalls)
    # Why the pair kernels (dense 2^26, past the warm-up) run as they do: issue slots, the
    # FMA pipe's share, the stall reasons. STALL_CASES: bench_gpu_msm cases, comma-separated
    # (default "G1 dense"; "G1 dense,G2 dense" adds G2's). STALL_SKIP: the launches of the
    # kernels passed over first (default 40: past the pair kernels' first rounds; the
    # window sort's kernels launch a few times a window, so they need a smaller one).
    IFS=, read -ra stall_cases <<<"${STALL_CASES:-G1 dense}"
    for stall_case in "${stall_cases[@]}"; do
      ncu_sections "ncu_stalls${STALL_BIN:+_$STALL_BIN}_${stall_case// /_}" \
        "${STALL_KERNELS:-ba_add|ba_denominators}" "${STALL_SKIP:-40}" "${STALL_COUNT:-2}" \
        build-gpu/${STALL_BIN:-bench_gpu_msm} --case "$stall_case" --min-log2 26 --max-log2 26 --reps 1
    done ;;
  chain-stalls)
    # The same for the register-resident chain of Fp products (cuda_product_rate_at's
    # kernel, the timed launch at 32 warps an SM): what its ceiling is, since it reaches it
    # from 8 warps an SM (run 33) and ba_add runs at ~63% of it.
    ncu_sections ncu_chain_stalls 'k_mul_chain<mont<fp_params' 1 1 \
      build-gpu/bench_gpu_msm --case "G1 dense" --min-log2 20 --max-log2 20 --reps 1 ;;
  ntt-stalls)
    # The same for the NTT's pass kernel, forward 2^27.
    ncu_sections ncu_ntt_stalls k_ntt_pass 6 2 build-gpu/bench_gpu_ntt --sizes 27 --reps 1 ;;
  sass)
    # The SASS instruction mix of G1's pair kernels (cuobjdump on the MSM's object): how
    # many multiply-adds a pair really takes, wide or not.
    cuobj=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
    # The object from a build here, else the carried executable (its fatbin has the same SASS).
    obj=build-gpu/CMakeFiles/g16.dir/src/backend/cuda/cuda_msm.cu.o
    [ -f "$obj" ] || obj=build-gpu/bench_gpu_msm
    "$cuobj" -sass "$obj" >"$logs/msm.sass" 2>&1
    for k in ba_addI4montI9fp_paramsELb1 ba_denominatorsI4montI9fp_paramsELb1 \
             ba_finishI4montI9fp_params; do
      echo "    $k: $(awk -v k="$k" '/Function :/ { f = index($0, k) > 0; next } f' "$logs/msm.sass" |
        grep -oE '^ +/\*[0-9a-f]+\*/ +(@!?U?P[0-9T] +)?[A-Z][A-Z0-9_.]*' | awk '{ print $NF }' |
        sort | uniq -c | sort -rn | head -12 | awk '{ printf "%s %s, ", $2, $1 }')"
    done
    row sass "done" ;;
  ntt-sass)
    # The SASS of the NTT's pass kernels (the carried bench_gpu_ntt's fatbin): instructions
    # a kernel and the mix, for each variant (cuda_ntt.cu's LAZY, FULL, K, ILO), and the
    # first LDS lines of a shaped and the general kernel (their addressing).
    cuobj=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
    "$cuobj" -sass build-gpu/bench_gpu_ntt >"$logs/ntt.sass" 2>&1
    # <DIT, INV, LAZY, FULL, K, ILO, NEG>: forward DIT lazy of shape 9/0 and 9/2, FULL
    # reading its shape, general, reduced; the negacyclic DIT (H, snarkjs) of shape 9/0;
    # then the forward DIF (plain transforms) of shape 9/2 and the inverse DIF's FULL
    # (inverse transforms have no shaped kernels); last, H's fused pass <LAZY, FULL, K,
    # NEG> of 9 stages (H's default). (Itanium mangling: ILO -1 is Lin1E.)
    for k in k_ntt_passILb1ELb0ELb1ELb1ELj9ELi0ELb0E k_ntt_passILb1ELb0ELb1ELb1ELj9ELi2ELb0E \
             k_ntt_passILb1ELb0ELb1ELb1ELj0ELin1ELb0E k_ntt_passILb1ELb0ELb1ELb0ELj0ELin1ELb0E \
             k_ntt_passILb1ELb0ELb0ELb0ELj0ELin1ELb0E k_ntt_passILb1ELb0ELb1ELb1ELj9ELi0ELb1E \
             k_ntt_passILb0ELb0ELb1ELb1ELj9ELi2ELb0E k_ntt_passILb0ELb1ELb1ELb1ELj0ELin1ELb0E \
             k_ntt_fusedILb1ELb1ELj9ELb1E; do
      ops=$(awk -v k="$k" '/Function :/ { f = index($0, k) > 0; next } f' "$logs/ntt.sass" |
        grep -oE '^ +/\*[0-9a-f]+\*/ +(@!?U?P[0-9T] +)?[A-Z][A-Z0-9_.]*' | awk '{ print $NF }')
      echo "    $k: $(echo "$ops" | wc -l) instructions; $(echo "$ops" | sort | uniq -c |
        sort -rn | head -10 | awk '{ printf "%s %s, ", $2, $1 }')"
    done
    for k in k_ntt_passILb1ELb0ELb1ELb1ELj9ELi2ELb0E k_ntt_passILb1ELb0ELb1ELb0ELj0ELin1ELb0E; do
      echo "    $k: $(awk -v k="$k" '/Function :/ { f = index($0, k) > 0; next } f' "$logs/ntt.sass" |
        grep -oE 'LDS[^;]*' | head -8 | tr '\n' ' ')"
    done
    row ntt-sass "done" ;;
  prefetch)
    # G1's pair kernels without their prefetch (G16_GPU_MSM_PREFETCH=0: 126 registers and 16
    # warps an SM for ba_add instead of 168 and 12), against the default in the same call.
    msm_sweep G16_GPU_MSM_PREFETCH "${PREFETCH_VALUES:-1 0}" prefetch 150 --case G1 --min-log2 24 --max-log2 27 ;;
  blocks)
    # The pair kernels' block size (G16_GPU_MSM_BLOCK), dense MSMs 2^24 and 2^26.
    msm_sweep G16_GPU_MSM_BLOCK "64 256" block 90 --case dense --min-log2 24 --max-log2 26 ;;
  tests-quick)
    run test_fixed_base_device 300 build-gpu/test_fixed_base --device
    run test_cuda_pipeline 300 build-gpu/test_cuda_pipeline
    grep -hE 'FAIL|checks|release_key_host' "$logs"/test_fixed_base_device.txt "$logs"/test_cuda_pipeline.txt | sed 's/^/    /'
    ;;
  msm-quick) run bench_gpu_msm 300 build-gpu/bench_gpu_msm --quick; cat "$logs/bench_gpu_msm.txt" ;;
  ntt) run bench_gpu_ntt 300 build-gpu/bench_gpu_ntt; cat "$logs/bench_gpu_ntt.txt" ;;
  ntt-check)
    # H against the CPU at the sizes it is timed at (bench_gpu_ntt --check), the default
    # kernels and each setting in NTT_CHECK_ENV (default: H's middle passes unfused).
    for vars in "" ${NTT_CHECK_ENV:-G16_GPU_NTT_FUSE=0}; do
      name=ntt_check${vars:+_$(echo "$vars" | tr -c 'A-Za-z0-9_\n' '_')}
      run "$name" 300 env $(echo "$vars" | tr , " ") build-gpu/bench_gpu_ntt \
        --sizes "${NTT_CHECK_SIZES:-24,27}" --reps 1 --check
      grep -hE '^2\^[0-9]+: (H .* the CPU|H check|round)|^\| H' "$logs/$name.txt" |
        sed "s/^/    ${vars:-default}: /"
    done
    ;;
  pipe20) bench_job pipe20 300 --constraints 1048576 --partitions 4 -c 2 -j 2 --synth-threads 8 ;;
  part24) bench_job part24 200 --constraints 16777216 --partitions 2 --synth-threads 8 ;;
  part26) G16_SETUP_TIMES=1 bench_job part26 560 --constraints 67108864 --partitions 3 --synth-threads 6 \
    --mem-budget 56G --key "$keys/k26.key" ;;
  part26s) bench_job part26s 400 --constraints 67108864 --partitions 3 --synth-threads 6 --mem-budget 56G \
    --key "$keys/k26.key" --gpu-key streamed ;;
  part26g2) bench_job part26g2 400 --constraints 67108864 --partitions 3 --synth-threads 6 --mem-budget 56G \
    --key "$keys/k26.key" --g2-cpu ;;
  job26) bench_job job26 580 --constraints 67108864 --partitions 10 --synth-threads 10 --mem-budget 80G \
    --key "$keys/k26.key" ;;
  job26c) bench_job job26c 580 --constraints 67108864 --partitions 10 --synth-threads 6 \
    --mem-budget 64G --synth-cache 2 --key "$keys/k26.key" ;;
  job26c3) bench_job job26c3 580 --constraints 67108864 --partitions 10 --synth-threads 6 \
    --mem-budget 72G --synth-cache 2 --provers 3 ;;
  job26s) bench_job job26s 580 --constraints 67108864 --partitions 10 --synth-threads 6 \
    --mem-budget 64G --synth-cache 2 --key "$keys/k26.key" --gpu-key streamed ;;
  part27) G16_SETUP_TIMES=1 bench_job part27 580 --constraints 134217728 --partitions 3 --synth-threads 6 \
    --mem-budget 88G ;;
  part27g2) bench_job part27g2 580 --constraints 134217728 --partitions 3 --synth-threads 6 \
    --mem-budget 88G --g2-cpu ;;
  job27) bench_job job27 580 --constraints 134217728 --partitions 10 --synth-threads 8 \
    --mem-budget 110G --synth-cache 1 ;;
  job27r) bench_job job27r 580 --constraints 134217728 --partitions 10 --synth-threads 8 \
    --mem-budget 64G --synth-cache 1 --release-key ;;
  job27c3) G16_GPU_STREAM_CHUNK=3221225472 bench_job job27c3 580 --constraints 134217728 \
    --partitions 10 --synth-threads 8 --mem-budget 110G --synth-cache 1 ;;
  job27g) G16_GPU_STREAM_GLV=1 bench_job job27g 580 --constraints 134217728 \
    --partitions 10 --synth-threads 8 --mem-budget 110G --synth-cache 1 ;;
  job27s) bench_job job27s 580 --constraints 134217728 --partitions 10 --synth-threads 8 \
    --mem-budget 110G --synth-cache 1 --gpu-key streamed ;;
  job27n) G16_GPU_STREAM_GLV=0 bench_job job27n 580 --constraints 134217728 \
    --partitions 10 --synth-threads 8 --mem-budget 110G --synth-cache 1 ;;
  job27u) G16_GPU_H_FED=0 bench_job job27u 580 --constraints 134217728 \
    --partitions 10 --synth-threads 8 --mem-budget 110G --synth-cache 1 ;;
  job27x3) bench_job job27x3 580 --constraints 134217728 --partitions 10 --synth-threads 8 \
    --mem-budget 110G --synth-cache 1 -c 3 -j 2 ;;
  job27ns) G16_GPU_STAGE_NEXT=0 bench_job job27ns 580 --constraints 134217728 \
    --partitions 10 --synth-threads 8 --mem-budget 110G --synth-cache 1 ;;
  job27w1) bench_job job27w1 580 --constraints 134217728 --partitions 10 --synth-threads 8 \
    --mem-budget 110G --synth-cache 1 --provers 1 ;;
  pipe24)
    bench_job pipe24_all 280 --constraints 16777216 --partitions 4 -c 4 -j 2 --synth-threads 14 --mem-budget 64G
    CUDA_VISIBLE_DEVICES=0 bench_job pipe24_one 280 --constraints 16777216 --partitions 4 -c 4 -j 2 \
      --synth-threads 14 --mem-budget 64G
    ;;
  windows)
    for c in 12 13 14 16; do
      G16_GPU_MSM_WINDOW=$c run msm_w${c}_20 60 build-gpu/bench_gpu_msm --case "G1 dense" \
        --min-log2 20 --max-log2 20 --reps 5
    done
    for c in 16 18 20; do
      G16_GPU_MSM_WINDOW=$c run msm_w${c}_26 90 build-gpu/bench_gpu_msm --case "G1 dense" \
        --min-log2 26 --max-log2 26 --reps 2
    done
    for c in 16 20; do
      G16_GPU_MSM_WINDOW=$c run msm_w${c}_27 120 build-gpu/bench_gpu_msm --case "G1 dense" \
        --min-log2 27 --max-log2 27 --reps 2
    done
    G16_GPU_MSM_WINDOW=20 run msm_w20_g2_26 120 build-gpu/bench_gpu_msm --case "G2 dense" \
      --min-log2 26 --max-log2 26 --reps 2
    grep -h '^| G' "$logs"/msm_w*.txt | sed 's/^/    /'
    ;;
  cpu)
    cmake --build build-gpu -j "$jobs" --target bench_arith bench_msm bench_ntt >/dev/null 2>&1
    run bench_msm 300 build-gpu/bench_msm
    run bench_ntt 300 build-gpu/bench_ntt
    ;;
  cpu-ifma)
    # The CPU's 8-lane IFMA paths (Fp, Fr, MSM, NTT) against the scalar ones on this
    # host's cores (an Intel IFMA implementation, where the dev machine has AMD's), then
    # short benchmarks with the paths on and off.
    cmake --build build-gpu -j "$jobs" --target test_fp_x8 test_fr_x8 test_msm_ifma \
      test_ntt_ifma test_field bench_msm bench_ntt >/dev/null 2>&1
    for t in test_fp_x8 test_fr_x8 test_msm_ifma test_ntt_ifma test_field; do
      run "$t" 300 build-gpu/$t
      tail -1 "$logs/$t.txt" | sed 's/^/    /'
    done
    for ifma in 1 0; do
      run "bench_msm_ifma$ifma" 120 env G16_CPU_IFMA=$ifma build-gpu/bench_msm --max-log2 20 --reps 3 --only g1
      run "bench_ntt_ifma$ifma" 120 env G16_CPU_IFMA=$ifma build-gpu/bench_ntt --min-log 16 --max-log 22
      grep -E '2\^(17|20)|H \(snarkjs\)' "$logs/bench_msm_ifma$ifma.txt" "$logs/bench_ntt_ifma$ifma.txt" |
        head -8 | sed 's/^/    /'
    done
    ;;
  cpu-windows)
    # The CPU MSM's window model (msm_scalars.c, fitted on the 2-core AMD dev machine) on
    # this host's 16 Intel cores: every width around the model's choice, G1 2^16 .. 2^20
    # and G2 2^16, 2^18; "(auto)" marks the model's choice.
    cmake --build build-gpu -j "$jobs" --target bench_msm >/dev/null 2>&1
    run cpu_windows_g1 200 build-gpu/bench_msm --min-log2 16 --max-log2 20 --reps 3 --only g1 --sweep 12-18
    run cpu_windows_g2 200 build-gpu/bench_msm --max-log2 18 --reps 2 --only g2 --sweep 12-17
    for f in cpu_windows_g1 cpu_windows_g2; do
      awk '/^G[12] /{k=$2; ms=$4; if (!(k in best) || ms < best[k]) {best[k]=ms; bc[k]=$3}
                      if ($0 ~ /auto/) {auto[k]=$3 " " ms}}
           END {for (k in best) printf "    %s best %s %s ms, auto %s ms\n", k, bc[k], best[k], auto[k]}' \
        "$logs/$f.txt" | sort
    done
    ;;
  *) echo "unknown step $step"; exit 2 ;;
  esac
  bundle
done
bundle traces
echo
echo "=== summary ==="
printf '%s\n' "${summary[@]}"
