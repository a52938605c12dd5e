# Helpers for the daemon's tests (sourced): real `g16 daemon` processes on free ports, each
# with its own state directory, and curl. Every wait is bounded, so a hang fails the test
# instead of blocking CI.
#   G16     the g16 binary      TMP  the test's scratch directory (removed on exit)
set -euo pipefail
G16=$1
FIXTURES=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
command -v curl >/dev/null || { echo "curl is missing: skipped"; exit 77; }
"$G16" daemon --help >/dev/null 2>&1 || { echo "g16 built without the daemon: skipped"; exit 77; }
TMP=$(mktemp -d)
DAEMON_PIDS=()
cleanup() {
  for pid in "${DAEMON_PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "$(basename "$0"): FAILED: $*" >&2; for f in "$TMP"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done; exit 1; }

# start_daemon NAME [flags...]: starts a daemon on STATE=$TMP/NAME (port 0: the kernel picks a
# free port, which the daemon writes to STATE/port) and waits for it; sets PID and URL.
start_daemon() {
  local name=$1; shift
  local state=$TMP/$name
  rm -f "$state/port"
  "$G16" daemon --state-dir "$state" --port 0 --backend cpu --threads 2 "$@" \
    >> "$TMP/$name.log" 2>&1 &
  PID=$!
  DAEMON_PIDS+=("$PID")
  for _ in $(seq 1 300); do
    [ -s "$state/port" ] && break
    kill -0 "$PID" 2>/dev/null || fail "daemon $name exited at start: $(tail -3 "$TMP/$name.log")"
    sleep 0.1
  done
  [ -s "$state/port" ] || fail "daemon $name did not start within 30 s"
  URL=http://127.0.0.1:$(cat "$state/port")
  TOKEN=$(cat "$state/token")
}

# stop_daemon PID [SIGNAL]: signals it and waits (at most 120 s); returns its exit status.
stop_daemon() {
  local pid=$1 sig=${2:-TERM} limit=${3:-120}
  kill -"$sig" "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((limit * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && fail "daemon $pid still running $limit s after SIG$sig"
  local rc=0
  wait "$pid" || rc=$?
  return $rc
}

# api METHOD PATH [BODY] [curl args...]: prints the answer, then a last line with the HTTP
# status; with the token.
api() {
  local method=$1 path=$2; shift 2
  local body=${1-}; [ $# -gt 0 ] && shift
  if [ -n "$body" ]; then
    curl -sS --max-time 60 -X "$method" -H "Authorization: Bearer $TOKEN" -w '\n%{http_code}\n' \
      --data-binary "$body" "$@" "$URL$path"
  else
    curl -sS --max-time 60 -X "$method" -H "Authorization: Bearer $TOKEN" -w '\n%{http_code}\n' \
      "$@" "$URL$path"
  fi
}

# expect CODE WORDS METHOD PATH [BODY] [curl args...]: the call answers CODE with WORDS
# in its error, and the daemon still answers /status afterwards.
expect() {
  local code=$1 words=$2; shift 2
  local out; out=$(api "$@")
  local got; got=$(tail -1 <<< "$out")
  [ "$got" = "$code" ] || fail "$1 $2: HTTP $got, want $code: $out"
  grep -q -- "$words" <<< "$out" || fail "$1 $2: answer lacks '$words': $out"
  alive
}

alive() {
  curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "$URL/status" | grep -q 200 ||
    fail "the daemon stopped answering /status"
}

# job_field ID FIELD: a field of GET /v1/jobs/ID.
job_field() {
  curl -sS --max-time 30 "$URL/v1/jobs/$1" |
    python3 -c "import json,sys; v=json.load(sys.stdin).get('$2'); print('' if v is None else v)"
}

# wait_state ID STATE [SECONDS]: waits until job ID is in STATE.
wait_state() {
  local id=$1 want=$2 secs=${3:-120} s=""
  for _ in $(seq 1 $((secs * 10))); do
    s=$(job_field "$id" state)
    [ "$s" = "$want" ] && return 0
    case "$s" in done|failed|cancelled) [ "$s" != "$want" ] && fail "job $id is $s, want $want: $(job_field "$id" error)";; esac
    sleep 0.1
  done
  fail "job $id: still '$s' after $secs s, want $want"
}
