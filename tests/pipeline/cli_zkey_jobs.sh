#!/usr/bin/env bash
# g16 bench on jobs from a snarkjs key, end to end on the CPU backend:
#   tests/pipeline/cli_zkey_jobs.sh <g16>
# - `--zkey K --wtns W W -c 2 -j 2 --out D` (D made by bench): 2 jobs of 2 partitions (one per witness file),
#   every proof in D as snarkjs proof.json + public.json, each accepted by `g16 verify`
#   and by `snarkjs groth16 verify` (tools/snarkjs; that part is skipped without node or
#   the package, unless G16_REQUIRE_NOBLE=1), public signals equal to snarkjs's own;
#   verification_key.json equal to the key's snarkjs export;
# - the pipeline flags and --proofs work with it;
# - a damaged witness fails the run (exit 2) with a message naming the job, partition and
#   file; --partitions contradicting the witness count, native-circuit flags and --wtns
#   without --zkey are refused (exit 2).
set -euo pipefail
g16=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "cli_zkey_jobs: $*" >&2; exit 1; }
F=$root/tests/fixtures/poseidon
bench() { "$g16" bench --backend cpu --threads 1 "$@"; }

# --out's directory does not exist yet: bench makes it.
bench --zkey "$F/circuit.zkey" --wtns "$F/witness.wtns" "$F/witness.wtns" -c 2 -j 2 \
  --synth-threads 2 --lookahead 3 --provers 2 --out "$d/out" --proofs "$d/proofs.bin" > "$d/run" ||
  fail "bench failed: $(cat "$d/run")"
grep -q "every proof verified" "$d/run" || fail "not every proof verified"
grep -q "2 partitions (witness files)" "$d/run" || fail "P is not the number of witness files"
grep -q "2 synthesis threads, lookahead 3, 2 prover workers" "$d/run" || fail "pipeline flags"
test "$(stat -c %s "$d/proofs.bin")" -eq $((2 * 2 * 192)) || fail "not 4 proof records"
python3 -c "import json,sys; sys.exit(0 if json.load(open('$d/out/verification_key.json'))==json.load(open('$F/verification_key.json')) else 1)" ||
  fail "verification_key.json differs from the key's snarkjs export"

snarkjs_cli=$root/tools/snarkjs/node_modules/snarkjs/cli.js
use_snarkjs=0
if command -v node > /dev/null && [ -f "$snarkjs_cli" ]; then
  use_snarkjs=1
elif [ "${G16_REQUIRE_NOBLE:-0}" != 0 ]; then
  fail "node or tools/snarkjs/node_modules missing (run tools/install-deps.sh test)"
else
  echo "cli_zkey_jobs: snarkjs checks skipped: node or tools/snarkjs/node_modules missing"
fi
n=0
for k in 0 1; do
  for p in 0 1; do
    proof=$d/out/proof_${k}_$p.json public=$d/out/public_${k}_$p.json
    "$g16" verify "$d/out/verification_key.json" "$public" "$proof" > /dev/null ||
      fail "g16 verify rejects job $k partition $p"
    python3 -c "import json,sys; sys.exit(0 if json.load(open('$public'))==json.load(open('$F/public.json')) else 1)" ||
      fail "job $k partition $p: public signals differ from snarkjs's"
    if [ $use_snarkjs = 1 ]; then
      node "$snarkjs_cli" groth16 verify "$F/verification_key.json" "$public" "$proof" | grep -q "OK" ||
        fail "snarkjs rejects job $k partition $p"
    fi
    n=$((n + 1))
  done
done
test $n -eq 4 || fail "not 4 proofs"

# A damaged witness, and refused command lines.
head -c 1000 "$F/witness.wtns" > "$d/cut.wtns"
set +e
bench --zkey "$F/circuit.zkey" --wtns "$F/witness.wtns" "$d/cut.wtns" > /dev/null 2> "$d/e1"; rc1=$?
bench --zkey "$F/circuit.zkey" --wtns "$F/witness.wtns" --partitions 2 > /dev/null 2> "$d/e2"; rc2=$?
bench --zkey "$F/circuit.zkey" --wtns "$F/witness.wtns" --constraints 4096 > /dev/null 2> "$d/e3"; rc3=$?
bench --wtns "$F/witness.wtns" > /dev/null 2> "$d/e4"; rc4=$?
set -e
test $rc1 -eq 2 && grep -q "job 0, partition 1: $d/cut.wtns: .*runs past the end of the file" "$d/e1" ||
  fail "a truncated witness: rc $rc1, $(cat "$d/e1")"
test $rc2 -eq 2 && grep -q -- "--partitions 2, but 1 witness file" "$d/e2" ||
  fail "--partitions 2 with one witness: rc $rc2, $(cat "$d/e2")"
test $rc3 -eq 2 && grep -q -- "--constraints describes a native circuit" "$d/e3" ||
  fail "--constraints with --zkey: rc $rc3"
test $rc4 -eq 2 && grep -q -- "--wtns needs --zkey" "$d/e4" || fail "--wtns alone: rc $rc4"
echo "cli_zkey_jobs: ok ($n proofs verified by g16$([ $use_snarkjs = 1 ] && echo ' and snarkjs'))"
