#!/usr/bin/env bash
# Paths a command must not trust: tests/cli/cli_paths.sh <g16> <fixtures dir>
# - an output that is an input (the key, the witness, the .r1cs, a trace) or another output
#   is refused before anything is written, and the input is left byte for byte;
# - outputs are tried before the work: one that cannot be written leaves no other behind;
#   outputs that belong together (proof and public inputs, key and verifying key) are
#   replaced together or not at all;
# - a FIFO is refused as an input and, with no reader, as an output or a trace (never a
#   wait);
# - /dev/stdout appends to the file that stdout appends to;
# - a binary proof of the wrong length says so; a path of thousands of characters keeps
#   the reason at the end of its message.
# Every command runs under `timeout 20`: a wait is a failure (exit 124).
set -u
G16=$(realpath "$1")
FIX=$(realpath "$2")/multiplier
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
cp "$FIX/circuit.zkey" "$FIX/witness.wtns" "$FIX/circuit.r1cs" "$FIX/verification_key.json" \
   "$FIX/public.json" "$FIX/proof.json" "$TMP/"
cd "$TMP" || exit 2
cp circuit.zkey zkey.orig
cp witness.wtns wtns.orig
cp circuit.r1cs r1cs.orig
unchanged() { cmp -s circuit.zkey zkey.orig && cmp -s witness.wtns wtns.orig &&
              cmp -s circuit.r1cs r1cs.orig || fail "$1: an input changed"; }

# refused: exit 2, a message containing $2, inputs untouched, no stray files
refused() {
  local what=$1 want=$2
  shift 2
  timeout 20 "$G16" "$@" > out.txt 2> err.txt
  local rc=$?
  [ $rc = 2 ] || fail "$what: exit $rc, want 2 ($(head -1 err.txt))"
  grep -q -- "$want" err.txt || fail "$what: no '$want' in: $(head -1 err.txt)"
  unchanged "$what"
}

refused "proof onto the key" "would destroy" prove circuit.zkey witness.wtns circuit.zkey p.json
refused "public onto the witness" "would destroy" prove circuit.zkey witness.wtns p.json witness.wtns
ln -s circuit.zkey zlink
refused "proof onto a link to the key" "would destroy" prove circuit.zkey witness.wtns zlink p.json
refused "trace onto the key" "would destroy" prove circuit.zkey witness.wtns p.json q.json --trace circuit.zkey
refused "one file twice" "are one file" prove circuit.zkey witness.wtns same.json ./same.json
[ ! -e same.json ] || fail "one file twice: same.json written"
refused "setup onto its .r1cs" "would destroy" setup circuit.r1cs circuit.r1cs
refused "setup's vk onto the key" "are one file" setup circuit.r1cs k.zkey --vk k.zkey
refused "bench --proofs onto the key" "would destroy" bench --backend cpu --zkey circuit.zkey --wtns witness.wtns --proofs circuit.zkey
refused "bench --trace onto a witness" "would destroy" bench --backend cpu --zkey circuit.zkey --wtns witness.wtns --trace witness.wtns
timeout 20 "$G16" prove circuit.zkey witness.wtns p.json pub.json --trace run.trace 2> /dev/null ||
  fail "a proof with a trace"
cp run.trace trace.orig
refused "trace export onto its input" "would destroy" trace export --format chrome run.trace -o run.trace
cmp -s run.trace trace.orig || fail "trace export onto its input: the trace changed"
rm -f p.json pub.json

# Outputs tried before the work.
refused "public in a missing directory" "nodir/pub.json" prove circuit.zkey witness.wtns p.json nodir/pub.json
[ ! -e p.json ] || fail "public in a missing directory: p.json left behind"
refused "public onto a directory" "" prove circuit.zkey witness.wtns p.json .
[ ! -e p.json ] || fail "public onto a directory: p.json left behind"
refused "setup's vk in a missing directory" "nodir/vk.json" setup circuit.r1cs k.zkey --vk nodir/vk.json
[ ! -e k.zkey ] || fail "setup's vk in a missing directory: k.zkey written"
refused "setup's key in a missing directory" "nodir" setup circuit.r1cs nodir/k.zkey
ls ./*.tmp-* > /dev/null 2>&1 && fail "temporaries left: $(ls ./*.tmp-*)"

# FIFOs.
mkfifo fifo
refused "verify reading a FIFO" "not a regular file" verify verification_key.json public.json fifo
refused "verify reading a FIFO key" "not a regular file" verify fifo public.json proof.json
refused "trace report of a FIFO" "not a regular file" trace report fifo
refused "a proof into a FIFO nobody reads" "no process reads" prove circuit.zkey witness.wtns fifo pub.json
[ ! -e pub.json ] || fail "a proof into a FIFO nobody reads: pub.json left behind"
refused "a trace into a FIFO nobody reads" "no process reads" prove circuit.zkey witness.wtns p.json pub.json --trace fifo
[ ! -e p.json ] || fail "a trace into a FIFO nobody reads: p.json left behind"
# Outputs that belong together are replaced together: the second failing at its last
# write (a full disk) leaves the first as it was.
echo "old key" > k2.zkey
refused "setup's vk into a full disk" "No space left" setup circuit.r1cs k2.zkey --vk /dev/full
[ "$(cat k2.zkey)" = "old key" ] || fail "setup's vk into a full disk: the old key was replaced"
echo "old proof" > p.json
refused "public into a full disk" "No space left" prove circuit.zkey witness.wtns p.json /dev/full
[ "$(cat p.json)" = "old proof" ] || fail "public into a full disk: the old proof was replaced"
rm -f k2.zkey p.json
refused "bench --out and --proofs on one path" "are one file" bench --backend cpu --zkey circuit.zkey --wtns witness.wtns --out od --proofs od
[ ! -e od ] || fail "bench --out and --proofs on one path: od made"
echo "a file" > plain.txt
refused "bench --out onto a file" "not a directory" bench --backend cpu --zkey circuit.zkey --wtns witness.wtns --out plain.txt
mkdir od
refused "bench --proofs onto a directory" "is a directory" bench --backend cpu --zkey circuit.zkey --wtns witness.wtns --proofs od
[ -z "$(ls od)" ] || fail "bench --proofs onto a directory: od written into"
rm -rf od plain.txt
# With a reader, a FIFO is written (in place). The shell holds it open for reading (and
# writing, so that the open does not wait) before g16 opens it, then reads what came.
exec 3<> fifo
timeout 20 "$G16" prove circuit.zkey witness.wtns fifo pub.json 2> err.txt || fail "prove into a read FIFO: $(head -1 err.txt)"
got=
IFS= read -r -d '' -t 2 got <&3
exec 3<&-
[[ $got == *pi_a* ]] || fail "prove into a read FIFO: the reader got no proof"

# /dev/stdout appends where stdout appends.
echo "first line" > log.txt
timeout 20 "$G16" prove circuit.zkey witness.wtns /dev/stdout pub2.json >> log.txt 2> err.txt ||
  fail "prove to /dev/stdout: $(head -1 err.txt)"
[ "$(head -1 log.txt)" = "first line" ] && grep -q pi_a log.txt ||
  fail "prove to /dev/stdout >> log: $(head -c 200 log.txt)"
# Both outputs to stdout: two streams, not one file twice.
timeout 20 "$G16" prove circuit.zkey witness.wtns /dev/stdout /dev/stdout > both.txt 2> err.txt ||
  fail "prove to /dev/stdout twice: $(head -1 err.txt)"
first_public=$(sed -n 2p public.json | tr -d ' ,')
grep -q pi_a both.txt && grep -qF "$first_public" both.txt ||
  fail "prove to /dev/stdout twice: $(head -c 200 both.txt)"

# Messages.
# A first byte with the compression flag, as a binary proof's (random ones could start
# like JSON: '{' or any white space, \v and \f included).
{ printf '\200'; head -c 190 /dev/urandom; } > short.bin
refused "a 191-byte binary proof" "binary one of 192 bytes" verify verification_key.json public.json short.bin
long=$TMP/$(printf 'x%.0s' $(seq 250))
for _ in $(seq 17); do long=$long/$(printf 'y%.0s' $(seq 250)); done
refused "a path of 4,500 characters" "File name too long" verify "$long" public.json proof.json
# The same as a witness of a job: the reason survives the job's and the partition's
# prefixes and its fixed-size message buffers.
refused "a witness path of 4,500 characters" "File name too long" bench --backend cpu --zkey circuit.zkey --wtns "$long"
unchanged "the end"

[ $fails = 0 ] && echo "cli_paths: every check passed" || echo "cli_paths: $fails failed"
[ $fails = 0 ]
