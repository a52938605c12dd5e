#!/usr/bin/env bash
# The daemon's API with a real process: tests/daemon/daemon_api.sh <g16>
# - proofs through the API: a native job (4096 constraints, 2 partitions) with `g16 submit
#   --wait --out`, a zkey job (multiplier key, 2 witnesses) with curl, both checked by
#   `g16 verify`; the job's status, the result endpoint, /metrics and /status; a zkey job
#   of 3 witnesses (through the key's pipeline) with its progress and 3 verified proofs;
# - the token: state-changing calls without it get 401, with a wrong one 403;
# - bad requests get a 4xx naming the problem and the daemon keeps serving: malformed JSON,
#   unknown key, unknown field, witness of the wrong size, truncated, of the wrong curve,
#   missing, path escapes through .. and through a symbolic link, an oversized body (413),
#   a full queue (429);
# - cancel; `g16 bench --daemon`; SIGTERM stops the daemon cleanly (exit 0).
source "$(dirname "$0")/lib.sh"

IN=$TMP/in
mkdir -p "$IN"
cp "$FIXTURES/multiplier/witness.wtns" "$IN/a.wtns"
cp "$FIXTURES/multiplier/witness.wtns" "$IN/b.wtns"
cp "$FIXTURES/poseidon/witness.wtns" "$IN/poseidon.wtns"
head -c 300 "$FIXTURES/multiplier/witness.wtns" > "$IN/truncated.wtns"
# The same witness claiming BN254's scalar field: the curve is refused, not misread.
python3 - "$FIXTURES/multiplier/witness.wtns" "$IN/bn254.wtns" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
r_bls = (0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001).to_bytes(32, 'little')
r_bn = (21888242871839275222246405745257275088548364400416034343698204186575808495617).to_bytes(32, 'little')
i = b.find(r_bls)
assert i > 0
b[i:i + 32] = r_bn
open(sys.argv[2], 'wb').write(b)
PY
mkdir -p "$TMP/outside"
cp "$FIXTURES/multiplier/witness.wtns" "$TMP/outside/secret.wtns"
ln -s "$TMP/outside/secret.wtns" "$IN/link.wtns"

start_daemon d1 --input-dir "$IN" --key mult="$FIXTURES/multiplier/circuit.zkey" \
  --max-body 64K --lease 5
alive

# --- proofs through the API ----------------------------------------------------------------
timeout 300 "$G16" submit --state-dir "$TMP/d1" --constraints 4096 --partitions 2 --seed 7 \
  --wait --out "$TMP/native" > "$TMP/submit.out" || fail "g16 submit --wait: exit $?"
id=$(head -1 "$TMP/submit.out")
[ "$id" = 1 ] || fail "the first job's id is '$id'"
for p in 0 1; do
  "$G16" verify "$TMP/native/verification_key.json" "$TMP/native/public_$p.json" \
    "$TMP/native/proof_$p.json" > /dev/null || fail "native partition $p does not verify"
done
# Another partition's public signals do not verify this proof (the proofs are distinct).
set +e; "$G16" verify "$TMP/native/verification_key.json" "$TMP/native/public_1.json" \
  "$TMP/native/proof_0.json" > /dev/null 2>&1; rc=$?; set -e
[ $rc = 1 ] || fail "partition 0's proof verified under partition 1's inputs (rc $rc)"
[ "$(job_field 1 partitions_done)" = 2 ] || fail "job 1: partitions_done != 2"
[ "$(job_field 1 key)" = synthetic-4096 ] || fail "job 1: key != synthetic-4096"

out=$(api POST /v1/jobs '{"key":"mult","witnesses":["a.wtns","'"$IN"'/b.wtns"],"priority":3}')
[ "$(tail -1 <<< "$out")" = 202 ] || fail "zkey submission: $out"
zid=$(head -1 <<< "$out" | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
wait_state "$zid" done 120
curl -sS "$URL/v1/jobs/$zid/result" > "$TMP/zres.json"
python3 - "$TMP/zres.json" "$TMP/zkey" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["kind"] == "zkey" and len(r["proofs"]) == 2 and len(r["public_signals"]) == 2, r.keys()
os.makedirs(sys.argv[2])
for i, (p, s) in enumerate(zip(r["proofs"], r["public_signals"])):
    assert p["protocol"] == "groth16" and p["curve"] == "bls12381"
    assert all(isinstance(x, str) and x.isdigit() for x in s), s
    json.dump(p, open(f"{sys.argv[2]}/proof_{i}.json", "w"))
    json.dump(s, open(f"{sys.argv[2]}/public_{i}.json", "w"))
PY
for p in 0 1; do
  "$G16" verify "$FIXTURES/multiplier/verification_key.json" "$TMP/zkey/public_$p.json" \
    "$TMP/zkey/proof_$p.json" > /dev/null || fail "zkey proof $p does not verify with the fixture's key"
done
cmp -s <(python3 -c "import json; print(json.load(open('$FIXTURES/multiplier/public.json')))") \
       <(python3 -c "import json; print(json.load(open('$TMP/zkey/public_0.json')))") ||
  fail "zkey public signals differ from snarkjs's public.json"

# Status, list, metrics.
"$G16" status --state-dir "$TMP/d1" "$zid" | grep -q '"state": "done"' || fail "g16 status ID"
"$G16" status --state-dir "$TMP/d1" | grep -q '"owner"' || fail "g16 status"
api GET '/v1/jobs?state=done&limit=10' | grep -q "\"id\":$zid" || fail "list lacks job $zid"
curl -sS "$URL/metrics" > "$TMP/metrics"
for want in 'g16_jobs{state="done"} 2' 'g16_proofs_total 4' 'g16_queue_depth 0' \
            'g16_partitions_in_flight 0' 'g16_jobs_finished_total{result="done"} 2' \
            '# TYPE g16_prover_busy_ratio gauge' 'g16_key_loaded_bytes'; do
  grep -qF "$want" "$TMP/metrics" || fail "/metrics lacks '$want'"
done
expect 405 "" GET /v1/jobs/1/cancel
expect 405 "takes POST" GET /v1/keys/mult/load
expect 405 "takes POST" PUT /v1/keys/mult/evict
expect 405 "takes GET" POST /v1/keys

# A zkey job of 3 witnesses runs through the key's pipeline: its progress reaches the
# store (partitions_done), and each proof verifies with the fixture's key.
cp "$FIXTURES/multiplier/witness.wtns" "$IN/c.wtns"
out=$(api POST /v1/jobs '{"key":"mult","witnesses":["a.wtns","b.wtns","c.wtns"]}')
[ "$(tail -1 <<< "$out")" = 202 ] || fail "zkey submission of 3 witnesses: $out"
z3=$(head -1 <<< "$out" | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
wait_state "$z3" done 120
[ "$(job_field "$z3" partitions)" = 3 ] || fail "job $z3: partitions != 3"
[ "$(job_field "$z3" partitions_done)" = 3 ] || fail "job $z3: partitions_done != 3"
curl -sS "$URL/v1/jobs/$z3/result" > "$TMP/z3res.json"
python3 - "$TMP/z3res.json" "$TMP/z3" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["kind"] == "zkey" and r["key"] == "mult", (r["kind"], r["key"])
assert len(r["proofs"]) == 3 and len(r["public_signals"]) == 3, r.keys()
os.makedirs(sys.argv[2])
for i, (p, s) in enumerate(zip(r["proofs"], r["public_signals"])):
    json.dump(p, open(f"{sys.argv[2]}/proof_{i}.json", "w"))
    json.dump(s, open(f"{sys.argv[2]}/public_{i}.json", "w"))
PY
for p in 0 1 2; do
  "$G16" verify "$FIXTURES/multiplier/verification_key.json" "$TMP/z3/public_$p.json" \
    "$TMP/z3/proof_$p.json" > /dev/null || fail "job $z3: proof $p does not verify"
done
grep -qF 'g16_proofs_total 7' <(curl -sS "$URL/metrics") || fail "/metrics: proofs_total != 7"

# --- the token ------------------------------------------------------------------------------
code=$(curl -sS -o "$TMP/ans" -w '%{http_code}' -X POST --data '{}' "$URL/v1/jobs")
[ "$code" = 401 ] && grep -q Bearer "$TMP/ans" || fail "no token: HTTP $code"
code=$(curl -sS -o "$TMP/ans" -w '%{http_code}' -X POST -H 'Authorization: Bearer not-the-token-at-all' \
       --data '{"circuit":"synthetic","constraints":4096,"partitions":1}' "$URL/v1/jobs")
[ "$code" = 403 ] || fail "wrong token: HTTP $code"
code=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$URL/v1/jobs/1/cancel")
[ "$code" = 401 ] || fail "cancel without a token: HTTP $code"
code=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$URL/v1/keys/mult/evict")
[ "$code" = 401 ] || fail "evict without a token: HTTP $code"
alive

# --- bad requests ------------------------------------------------------------------------------
expect 400 "malformed JSON" POST /v1/jobs '{"key": "mult", "witnesses": [}'
expect 400 "malformed JSON" POST /v1/jobs 'not json'
expect 400 "must be a JSON object" POST /v1/jobs '[1, 2]'
expect 400 "unknown field 'witness'" POST /v1/jobs '{"key":"mult","witness":["a.wtns"]}'
expect 422 "unknown key 'nosuch'" POST /v1/jobs '{"key":"nosuch","witnesses":["a.wtns"]}'
expect 422 "holds 520 values, key mult wants 11" POST /v1/jobs \
  '{"key":"mult","witnesses":["a.wtns","poseidon.wtns"]}'
expect 422 "truncated.wtns" POST /v1/jobs '{"key":"mult","witnesses":["truncated.wtns"]}'
expect 422 "BN254" POST /v1/jobs '{"key":"mult","witnesses":["bn254.wtns"]}'
expect 422 "No such file" POST /v1/jobs '{"key":"mult","witnesses":["missing.wtns"]}'
expect 403 "outside the input directories" POST /v1/jobs \
  '{"key":"mult","witnesses":["../outside/secret.wtns"]}'
expect 403 "outside the input directories" POST /v1/jobs \
  '{"key":"mult","witnesses":["'"$IN"'/../outside/secret.wtns"]}'
expect 403 "outside the input directories" POST /v1/jobs '{"key":"mult","witnesses":["link.wtns"]}'
expect 403 "outside the input directories" POST /v1/jobs '{"key":"mult","witnesses":["/etc/passwd"]}'
# Outside and missing: refused the same way, so answers never tell what exists outside.
expect 403 "outside the input directories" POST /v1/jobs \
  '{"key":"mult","witnesses":["../outside/no-such.wtns"]}'
expect 403 "outside the input directories" POST /v1/jobs '{"key":"mult","witnesses":["/no/such/file"]}'
expect 400 "'partitions' must be an integer from 1" POST /v1/jobs \
  '{"circuit":"synthetic","constraints":4096,"partitions":0}'
expect 400 "'constraints' must be an integer" POST /v1/jobs \
  '{"circuit":"synthetic","constraints":"big","partitions":1}'
expect 422 "unknown circuit" POST /v1/jobs '{"circuit":"sha","constraints":4096,"partitions":1}'
head -c 70000 /dev/zero | tr '\0' ' ' > "$TMP/big.json"
expect 413 "max_body" POST /v1/jobs @"$TMP/big.json"
expect 413 "max_body" POST /v1/jobs @"$TMP/big.json" -H 'Transfer-Encoding: chunked'
expect 404 "no job 999" GET /v1/jobs/999
expect 404 "no such endpoint" GET /v2/nothing
[ "$(job_field 1 state)" = done ] || fail "job 1 changed"
grep -q 'g16_submissions_total{result="rejected"} 1[0-9]' <(curl -sS "$URL/metrics") ||
  fail "/metrics does not count the rejected submissions"

# --- cancel -------------------------------------------------------------------------------------
out=$(api POST /v1/jobs '{"circuit":"synthetic","constraints":4096,"partitions":64,"priority":-5}')
cid=$(head -1 <<< "$out" | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
"$G16" cancel --state-dir "$TMP/d1" "$cid" | grep -q cancelled || fail "g16 cancel"
wait_state "$cid" cancelled 30
set +e; "$G16" wait --state-dir "$TMP/d1" "$cid" > /dev/null 2>&1; rc=$?; set -e
[ $rc = 1 ] || fail "g16 wait on a cancelled job: exit $rc, want 1"
expect 409 "cancelled" GET "/v1/jobs/$cid/result"
alive

# g16 bench --daemon: N jobs, J in flight, throughput and latency percentiles.
timeout 300 "$G16" bench --daemon "$URL" --state-dir "$TMP/d1" -c 3 -j 2 --constraints 4096 \
  --partitions 1 > "$TMP/bench.out" || fail "g16 bench --daemon: exit $?"
for want in "3 jobs in" "jobs/s" "p50" "p90" "p99" "3 done, 0 failed"; do
  grep -q "$want" "$TMP/bench.out" || fail "g16 bench --daemon output lacks '$want'"
done

stop_daemon "$PID" TERM || fail "SIGTERM: exit status $?"
grep -q "stopped" "$TMP/d1.log" || fail "no 'stopped' in the log"
[ ! -e "$TMP/d1/port" ] || fail "the port file outlived the daemon"

# --- a full queue ------------------------------------------------------------------------------
# One worker busy with a long job, max_queued 1: the second submission queues, a third is
# refused with 429 while the second still waits.
start_daemon d2 --max-queued 1 --shutdown-grace 0
api POST /v1/jobs '{"circuit":"synthetic","constraints":4096,"partitions":200}' > /dev/null
wait_state 1 running 60
expect 202 queued POST /v1/jobs '{"circuit":"synthetic","constraints":4096,"partitions":1}'
expect 429 "the queue is full: 1 jobs queued" POST /v1/jobs \
  '{"circuit":"synthetic","constraints":4096,"partitions":1}'
stop_daemon "$PID" TERM || fail "SIGTERM with a job in flight: exit status $?"
grep -q "back in the queue" "$TMP/d2.log" || fail "the job in flight was not put back in the queue"
echo "daemon_api: ok"
