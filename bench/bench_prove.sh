#!/usr/bin/env bash
# Prove time, g16 against snarkjs, side by side on the same machine, keys and witnesses.
# Circuits (bench/circuits): sha256_blocks (~90k constraints, mostly 0/1 witness) and
# mulchain (~66k dense constraints), both domain 2^17, compiled with circom2 for
# BLS12-381. The key comes from `g16 setup` (snarkjs proves with it as with its own:
# tests/interop checks that), which avoids a 2^18 powers-of-tau ceremony in JavaScript.
# Each prover runs RUNS times (default 3), the two alternating; the table shows the medians.
# Usage: bench/bench_prove.sh [circuit...]   (needs `make` and tools/install-deps.sh test)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
G16=$ROOT/build/g16
RUNS=${RUNS:-3}
WORK=$ROOT/build-bench
SJ=(node "$ROOT/tools/snarkjs/node_modules/snarkjs/cli.js")
CIRCOM=$ROOT/tools/snarkjs/node_modules/.bin/circom2
mkdir -p "$WORK"
circuits=("$@")
[ ${#circuits[@]} -gt 0 ] || circuits=(sha256_blocks mulchain)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_s() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; exit 1; }; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", b - a}'; }

rows=()
for c in "${circuits[@]}"; do
  W=$WORK/$c
  mkdir -p "$W"
  if [ ! -f "$W/$c.r1cs" ] || [ "$ROOT/bench/circuits/$c.circom" -nt "$W/$c.r1cs" ]; then
    echo "compiling $c ..."
    "$CIRCOM" "$ROOT/bench/circuits/$c.circom" --r1cs --wasm -p bls12381 -o "$W" >/dev/null
  fi
  if [ ! -f "$W/$c.zkey" ] || [ "$W/$c.r1cs" -nt "$W/$c.zkey" ]; then
    echo "g16 setup $c ..."
    "$G16" setup "$W/$c.r1cs" "$W/$c.zkey" --vk "$W/vk.json" 2>/dev/null
  fi
  python3 - "$c" "$W/input.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
if name.startswith("sha256"):
    json.dump({"msg": [(7 * i + 3) % 256 for i in range(183)]}, open(path, "w"))
else:
    json.dump({"x": 3, "y": 5}, open(path, "w"))
PY
  "${SJ[@]}" wtns calculate "$W/${c}_js/$c.wasm" "$W/input.json" "$W/witness.wtns" >/dev/null
  info=$("$G16" info "$W/$c.zkey" | grep -iE "domain|constraints" | head -2 | tr -s ' ' | tr '\n' ' ')
  echo "$c: $info"
  # Interleaved (snarkjs, g16, snarkjs, ...): a shared machine's speed drifts over
  # minutes, and the ratio should compare runs made under the same conditions.
  sj_t=() g_t=()
  for i in $(seq "$RUNS"); do
    sj_t+=("$(time_s "${SJ[@]}" groth16 prove "$W/$c.zkey" "$W/witness.wtns" "$W/sj_proof.json" "$W/sj_public.json")")
    g_t+=("$(time_s "$G16" prove "$W/$c.zkey" "$W/witness.wtns" "$W/g_proof.json" "$W/g_public.json")")
  done
  sj=$(printf '%s\n' "${sj_t[@]}" | median)
  g=$(printf '%s\n' "${g_t[@]}" | median)
  "${SJ[@]}" groth16 verify "$W/vk.json" "$W/g_public.json" "$W/g_proof.json" | grep -q OK || { echo "snarkjs rejects g16's proof"; exit 1; }
  "$G16" prove "$W/$c.zkey" "$W/witness.wtns" "$W/g_proof.json" "$W/g_public.json" 2>&1 | sed 's/^/  /'
  rows+=("$(printf '%-16s %12s %12s %9s' "$c" "$sj s" "$g s" "$(awk -v a="$sj" -v b="$g" 'BEGIN {printf "%.1fx", a / b}')")")
done
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%d)"
printf '%-16s %12s %12s %9s\n' circuit "snarkjs" "g16" "speed-up"
printf '%s\n' "${rows[@]}"
