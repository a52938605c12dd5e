#!/usr/bin/env bash
# g16 bench/prove --trace --timeline and g16 trace report|export|plot, end to end.
#   tests/trace/cli_trace.sh <g16> <source dir>
set -euo pipefail
g16=$1
src=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "cli_trace: $*" >&2; exit 1; }

# A CPU-backend job: the trace file, and the same events as TIMELINE lines on stderr.
"$g16" bench --backend cpu --constraints 4096 --partitions 2 --trace "$d/run.trace" --timeline \
  > "$d/out" 2> "$d/err"
grep -q "timeline: $d/run.trace" "$d/out" || fail "bench does not name its trace"
head -1 "$d/run.trace" | grep -q '"format":"g16-trace","version":1' || fail "no header"
events=$(grep -c '"kind":' "$d/run.trace")
test "$(grep -c '^TIMELINE,' "$d/err")" -eq "$events" || fail "TIMELINE lines != events"
grep -q '^TIMELINE,[0-9.]*,SYNTH,0,partition=1 device=cpu name=circuit ms=' "$d/err" ||
  fail "no SYNTH line for partition 1"
test "$(grep -c '^TIMING job=0 partition=' "$d/err")" -eq 2 || fail "not one TIMING line per partition"
for key in window_ms kernel_ms gap_ms synth_ms ntt_h_ms msm_a_ms msm_b1_ms msm_b2_ms msm_c_ms \
           msm_h_ms batch_add_ms upload_ms upload_bytes queue_wait_ms budget_wait_ms \
           lock_wait_ms event_wait_ms verify_ms gap_unexplained_ms; do
  grep '^TIMING job=0 partition=1 ' "$d/err" | grep -q " $key=[0-9.]*" || fail "TIMING lacks $key"
done

# The report: 80 columns, the figures the issue asks for.
"$g16" trace report "$d/run.trace" > "$d/report"
awk 'length($0) > 80 { print "line " NR " has " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
  "$d/report" || fail "report wider than 80 columns"
for want in "utilisation" "where the wall time went" "total (= wall)" "p50" "p90" \
            "stage MSM_A" "critical path, job 0" "waiting for synthesis"; do
  grep -q "$want" "$d/report" || fail "report lacks '$want'"
done
"$g16" trace report "$d/run.trace" --json > "$d/report.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["lanes"]=="cpu" and len(r["partitions"])==2' \
  "$d/report.json" || fail "bad JSON report"

# Chrome export: one "X" event per trace event.
"$g16" trace export --format chrome "$d/run.trace" -o "$d/chrome.json"
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
x = [e for e in t["traceEvents"] if e["ph"] == "X"]
assert len(x) == int(sys.argv[2]), (len(x), sys.argv[2])
' "$d/chrome.json" "$events" || fail "Chrome export"

# Pictures.
"$g16" trace plot "$d/run.trace" -o "$d/t.svg"
"$g16" trace plot "$d/run.trace" -o "$d/t.html"
head -2 "$d/t.svg" | grep -q '<svg xmlns' || fail "not an SVG"
head -1 "$d/t.html" | grep -q '<!DOCTYPE html>' || fail "not HTML"

# g16 prove on the SHA-256 fixture: synthesis is a = A.z, b = B.z from the key.
fx=$src/tests/fixtures/sha256
"$g16" prove --backend cpu "$fx/circuit.zkey" "$fx/witness.wtns" "$d/p.json" "$d/pub.json" -q \
  --trace "$d/prove.trace" --timeline 2> "$d/prove.err"
grep -q '^TIMELINE,[0-9.]*,SYNTH,0,partition=0 device=cpu name=witness' "$d/prove.err" ||
  fail "prove: no SYNTH line"
grep -q '^TIMING job=0 partition=0 ' "$d/prove.err" || fail "prove: no TIMING line"
"$g16" trace report "$d/prove.trace" | grep -q "stage MSM_H" || fail "prove: report"

# Refusals: exit 2 with a message.
set +e
"$g16" trace report "$d/nosuch.trace" 2> "$d/e1"; rc1=$?
"$g16" trace report "$d/out" 2> "$d/e2"; rc2=$?
"$g16" trace plot "$d/run.trace" -o "$d/t.png" 2> /dev/null; rc3=$?
"$g16" trace export --format other "$d/run.trace" -o "$d/x.json" 2> /dev/null; rc4=$?
"$g16" trace frobnicate 2> /dev/null; rc5=$?
set -e
test $rc1 -eq 2 && grep -q nosuch.trace "$d/e1" || fail "missing trace: rc $rc1"
test $rc2 -eq 2 && grep -q "not a g16 trace\|line 1" "$d/e2" || fail "not a trace: rc $rc2"
test $rc3 -eq 2 && test $rc4 -eq 2 && test $rc5 -eq 2 || fail "usage errors: $rc3 $rc4 $rc5"
echo "cli_trace: ok ($events events)"
