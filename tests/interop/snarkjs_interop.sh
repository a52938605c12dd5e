#!/usr/bin/env bash
# Interoperability with snarkjs, live, on every fixture in tests/fixtures/<name>/:
#   1. g16 proves with the snarkjs key          -> snarkjs verifies, g16 verifies
#   2. snarkjs's own proof (committed)          -> g16 verifies
#   3. altered proof / public signal / wrong vk -> g16 rejects (exit 1), snarkjs too
#   4. g16 setup on the r1cs                     -> its vk equals `snarkjs zkey export
#      verificationkey`; snarkjs proves with it -> both verify; g16 proves -> both verify
#   5. bad inputs to g16 prove                   -> exit 2 and a message naming the problem
# Usage: snarkjs_interop.sh <path to g16> [fixture names...]
# Exit 77 (skipped) when node or snarkjs is missing, unless G16_REQUIRE_NOBLE=1.
set -uo pipefail
G16=$(realpath "$1"); shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SNARKJS_CLI=$ROOT/tools/snarkjs/node_modules/snarkjs/cli.js
if ! command -v node >/dev/null || [ ! -f "$SNARKJS_CLI" ]; then
  if [ "${G16_REQUIRE_NOBLE:-0}" != 0 ]; then
    echo "FAIL: node or tools/snarkjs/node_modules missing (run tools/install-deps.sh test)"
    exit 1
  fi
  echo "SKIPPED: node or snarkjs missing: run tools/install-deps.sh test"
  exit 77
fi
snarkjs() { node "$SNARKJS_CLI" "$@"; }
WORK=$(mktemp -d /tmp/g16-interop.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0
ok() { echo "  ok   $*"; passed=$((passed + 1)); }
bad() { echo "  FAIL $*"; failed=$((failed + 1)); }
# expect <exit code> <description> <command...>
expect() {
  local want=$1 what=$2; shift 2
  "$@" >"$WORK/out" 2>&1
  local got=$?
  if [ "$got" = "$want" ]; then ok "$what"; else bad "$what (exit $got, wanted $want)"; sed 's/^/       /' "$WORK/out" | tail -5; fi
}
# expect_message <substring> <description> <command...>: exit 2 and the message
expect_message() {
  local needle=$1 what=$2; shift 2
  "$@" >"$WORK/out" 2>&1
  local got=$?
  if [ "$got" = 2 ] && grep -qi -- "$needle" "$WORK/out"; then ok "$what"
  else bad "$what (exit $got; wanted 2 and \"$needle\")"; sed 's/^/       /' "$WORK/out" | tail -3; fi
}
# Changes the first decimal digit string of a JSON file's given line range.
alter_json() { python3 - "$@" <<'PY'
import json, sys
path, key = sys.argv[1], sys.argv[2]
d = json.load(open(path))
if key == "public":
    d[0] = str((int(d[0]) + 1))
else:
    d[key][0] = str(int(d[key][0]) + 1)
json.dump(d, open(path, "w"))
PY
}

names=("$@")
if [ ${#names[@]} = 0 ]; then
  for d in "$ROOT"/tests/fixtures/*/; do [ -f "$d/witness.wtns" ] && names+=("$(basename "$d")"); done
fi
[ ${#names[@]} -gt 0 ] || { echo "FAIL: no fixtures in tests/fixtures"; exit 1; }

for name in "${names[@]}"; do
  F=$ROOT/tests/fixtures/$name
  zkey=$(ls "$F"/*.zkey | head -1); r1cs=$(ls "$F"/*.r1cs | head -1)
  W=$WORK/$name; mkdir -p "$W"
  echo "$name:"
  # 1. g16 proves with the snarkjs key.
  expect 0 "g16 prove (snarkjs key)" "$G16" prove "$zkey" "$F/witness.wtns" "$W/proof.json" "$W/public.json"
  expect 0 "snarkjs verifies g16's proof" snarkjs groth16 verify "$F/verification_key.json" "$W/public.json" "$W/proof.json"
  expect 0 "g16 verifies g16's proof" "$G16" verify "$F/verification_key.json" "$W/public.json" "$W/proof.json"
  if cmp -s "$W/public.json" "$F/public.json" || python3 -c "import json,sys; sys.exit(0 if json.load(open('$W/public.json'))==json.load(open('$F/public.json')) else 1)"; then
    ok "public signals equal snarkjs's"; else bad "public signals differ from snarkjs's"; fi
  # 2. snarkjs's proof.
  expect 0 "g16 verifies snarkjs's proof" "$G16" verify "$F/verification_key.json" "$F/public.json" "$F/proof.json"
  # 3. Altered inputs are rejected by both.
  cp "$F/proof.json" "$W/bad_proof.json"; alter_json "$W/bad_proof.json" pi_c 2>/dev/null
  expect 2 "g16 rejects a proof point moved off the curve (exit 2)" "$G16" verify "$F/verification_key.json" "$F/public.json" "$W/bad_proof.json"
  python3 - "$F/proof.json" "$W/proof.json" "$W/swap.json" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a["pi_c"] = b["pi_c"]          # a valid point from another proof
json.dump(a, open(sys.argv[3], "w"))
PY
  expect 1 "g16 rejects a proof with a foreign C" "$G16" verify "$F/verification_key.json" "$F/public.json" "$W/swap.json"
  expect 1 "snarkjs rejects it too" bash -c "node '$SNARKJS_CLI' groth16 verify '$F/verification_key.json' '$F/public.json' '$W/swap.json' | grep -q 'OK!' && exit 0 || exit 1"
  cp "$F/public.json" "$W/bad_public.json"; alter_json "$W/bad_public.json" public
  expect 1 "g16 rejects an altered public signal" "$G16" verify "$F/verification_key.json" "$W/bad_public.json" "$F/proof.json"
  # 4. g16 setup, then both provers and both verifiers.
  expect 0 "g16 setup" "$G16" setup "$r1cs" "$W/g16.zkey" --vk "$W/g16_vk.json"
  snarkjs zkey export verificationkey "$W/g16.zkey" "$W/g16_vk_snarkjs.json" >/dev/null 2>&1
  if python3 -c "import json,sys; sys.exit(0 if json.load(open('$W/g16_vk.json'))==json.load(open('$W/g16_vk_snarkjs.json')) else 1)"; then
    ok "g16's vk equals snarkjs's export of g16's zkey (vk_alphabeta_12 included)"
  else bad "g16's vk differs from snarkjs's export of g16's zkey"; fi
  expect 1 "g16 rejects snarkjs's proof under the other key" "$G16" verify "$W/g16_vk.json" "$F/public.json" "$F/proof.json"
  expect 0 "snarkjs proves with g16's zkey" snarkjs groth16 prove "$W/g16.zkey" "$F/witness.wtns" "$W/sj_proof.json" "$W/sj_public.json"
  expect 0 "snarkjs verifies that proof" snarkjs groth16 verify "$W/g16_vk.json" "$W/sj_public.json" "$W/sj_proof.json"
  expect 0 "g16 verifies that proof" "$G16" verify "$W/g16_vk.json" "$W/sj_public.json" "$W/sj_proof.json"
  expect 0 "g16 proves with g16's zkey" "$G16" prove "$W/g16.zkey" "$F/witness.wtns" "$W/gg_proof.json" "$W/gg_public.json"
  expect 0 "snarkjs verifies it" snarkjs groth16 verify "$W/g16_vk.json" "$W/gg_public.json" "$W/gg_proof.json"
  # 5. Bad inputs.
  head -c 1000 "$zkey" >"$W/trunc.zkey"
  expect_message "section" "truncated zkey: exit 2, names the section" "$G16" prove "$W/trunc.zkey" "$F/witness.wtns" "$W/x.json" "$W/y.json"
  expect_message "magic" "a witness given as key: exit 2, names the magic" "$G16" prove "$F/witness.wtns" "$F/witness.wtns" "$W/x.json" "$W/y.json"
done

# A witness of another circuit.
if [ ${#names[@]} -ge 2 ]; then
  a=${names[0]} b=${names[1]}
  expect_message "witness" "witness of another circuit: exit 2" "$G16" prove "$(ls "$ROOT/tests/fixtures/$a"/*.zkey | head -1)" "$ROOT/tests/fixtures/$b/witness.wtns" "$WORK/x.json" "$WORK/y.json"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
