#!/usr/bin/env bash
# A job accepted is proven, never forgotten: tests/daemon/daemon_restart.sh <g16>
# 1. kill -9 mid-job: the daemon dies while proving a native job (some partitions proved);
#    a daemon restarted on the same state directory (SQLite store, same owner) puts the
#    job back in the queue at start, proves it (a second claim) and its proofs verify.
#    A job queued behind it survives too. A key's temporary left by the dead daemon is
#    removed at the restart.
# 2. SIGTERM mid-job with shutdown_grace 0: the daemon exits 0 at once and the job goes
#    back to the queue; the next daemon finishes it. With a grace long enough, SIGTERM lets
#    the job finish before the daemon exits.
source "$(dirname "$0")/lib.sh"

submit() { api POST /v1/jobs "$1" | head -1 | python3 -c "import json,sys; print(json.load(sys.stdin)['id'])"; }

# --- 1: kill -9 ------------------------------------------------------------------------------
start_daemon s --lease 2
# 48 partitions of 2^14 constraints: seconds of work after the first partition, and the
# daemon is frozen (SIGSTOP) the moment one is seen done, so the kill lands mid-job even
# on a loaded machine (with 2^12, and later with 24 partitions once the CPU prover got
# faster, it sometimes finished first). The poll is curl and grep alone: with a Python
# start-up per poll, a loaded machine polled only every ~0.7 s.
j1=$(submit '{"circuit":"synthetic","constraints":16384,"partitions":48,"seed":100}')
j2=$(submit '{"circuit":"synthetic","constraints":4096,"partitions":2,"seed":900}')
wait_state "$j1" running 120
stopped=0
for _ in $(seq 1 1200); do
  done_now=$(curl -sS --max-time 10 "$URL/v1/jobs/$j1" | grep -o '"partitions_done": *[0-9]*' |
             grep -o '[0-9]*$' || true)
  if [ "${done_now:-0}" -ge 1 ]; then
    kill -STOP "$PID"
    stopped=1
    break
  fi
  sleep 0.1
done
[ $stopped = 1 ] || fail "job $j1 proved no partition in 120 s"
kill -9 "$PID"
wait "$PID" 2>/dev/null || true
# What a daemon killed while writing a key leaves (util/atomic_file.h's temporaries).
mkdir -p "$TMP/s/keys" && echo half > "$TMP/s/keys/synthetic-16384.g16k.tmp-99999-0"

start_daemon s --lease 2
grep -q "1 job from this owner's last run back in the queue" "$TMP/s.log" ||
  fail "the restarted daemon did not take its job back"
[ ! -e "$TMP/s/keys/synthetic-16384.g16k.tmp-99999-0" ] && grep -q "removed .*tmp-99999-0" "$TMP/s.log" ||
  fail "the restarted daemon left a dead writer's temporary"
wait_state "$j1" done 300
wait_state "$j2" done 60
[ "$(job_field "$j1" attempts)" = 2 ] ||
  fail "job $j1: attempts $(job_field "$j1" attempts), want 2 (1: it finished before the kill)"
[ "$(job_field "$j1" partitions_done)" = 48 ] || fail "job $j1: not every partition done"
timeout 60 "$G16" wait --state-dir "$TMP/s" "$j1" --out "$TMP/p1" > /dev/null || fail "g16 wait $j1"
for p in 0 47; do
  "$G16" verify "$TMP/p1/verification_key.json" "$TMP/p1/public_$p.json" "$TMP/p1/proof_$p.json" \
    > /dev/null || fail "job $j1 partition $p does not verify after the restart"
done

# --- 2: SIGTERM -------------------------------------------------------------------------------
stop_daemon "$PID" TERM || fail "SIGTERM on an idle daemon: exit $?"
start_daemon s --lease 2 --shutdown-grace 0
j3=$(submit '{"circuit":"synthetic","constraints":4096,"partitions":200,"seed":300}')
wait_state "$j3" running 60
t0=$(date +%s)
stop_daemon "$PID" TERM || fail "SIGTERM mid-job: exit $?"
[ $(( $(date +%s) - t0 )) -le 30 ] || fail "SIGTERM with shutdown_grace 0 took more than 30 s"
grep -q "job $j3: stopped for shutdown, back to the queue" "$TMP/s.log" ||
  fail "the job in flight was not stopped for the shutdown"
start_daemon s --lease 2 --shutdown-grace 400
# The next daemon claims it again: it was queued, not lost (cancelled now: 200 partitions
# are not needed to show that).
wait_state "$j3" running 60
[ "$(job_field "$j3" attempts)" = 2 ] || fail "job $j3: attempts $(job_field "$j3" attempts), want 2"
api POST "/v1/jobs/$j3/cancel" > /dev/null
wait_state "$j3" cancelled 60

# Long enough (seconds) that the poll sees it running before it is done: 16 partitions
# once finished between two polls on a loaded CI machine; the grace lets 64 finish (they
# took more than 120 s once in the sanitizer build on a machine loaded by two test runs).
j4=$(submit '{"circuit":"synthetic","constraints":16384,"partitions":64,"seed":400}')
wait_state "$j4" running 60
stop_daemon "$PID" TERM 420 || fail "SIGTERM with a grace: exit $?"
grep -q "job $j4: done" "$TMP/s.log" || fail "SIGTERM with a grace did not let job $j4 finish"
echo "daemon_restart: ok"
