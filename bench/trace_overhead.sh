#!/usr/bin/env bash
# The timeline's overhead: g16 bench with and without --trace (and --timeline), in
# interleaved pairs so that drifts in machine load hit both alike; prints each pair and
# the median of the per-pair ratios of the average partition time.
#   bench/trace_overhead.sh [g16] [pairs] [constraints] [partitions] [threads]
set -euo pipefail
g16=${1:-build/g16}
pairs=${2:-10}
n=${3:-16384}
p=${4:-4}
threads=${5:-1}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
key="$d/key.g16k"
"$g16" bench --constraints "$n" --partitions 1 --threads "$threads" --key "$key" > /dev/null
avg() { awk '/^  average/ { print $7 }' "$1"; }
for i in $(seq "$pairs"); do
  "$g16" bench --constraints "$n" --partitions "$p" --threads "$threads" --key "$key" > "$d/off"
  "$g16" bench --constraints "$n" --partitions "$p" --threads "$threads" --key "$key" \
    --trace "$d/t.trace" --timeline > "$d/on" 2> /dev/null
  off=$(avg "$d/off") on=$(avg "$d/on") events=$(grep -c '"kind":' "$d/t.trace")
  echo "pair $i: off $off ms, on $on ms per partition; $events events" >&2
  awk -v a="$off" -v b="$on" 'BEGIN { printf "%.6f\n", b / a }'
done | sort -n | awk '{ r[NR] = $1 } END {
  m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2;
  printf "median of %d pairs: on/off = %.4f (%+.2f%%)\n", NR, m, 100 * (m - 1) }'
