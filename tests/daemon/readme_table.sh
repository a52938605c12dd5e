#!/usr/bin/env bash
# The README's daemon settings table is exactly what the code's table prints
# (`g16 daemon --config-table`): tests/daemon/readme_table.sh <g16> <README.md>
set -euo pipefail
want=$("$1" daemon --config-table)
# The README's table: from its header line to the first line that is not a table row.
got=$(awk -v head="$(head -1 <<< "$want")" '$0 == head {on = 1} on && !/^\|/ {exit} on {print}' "$2")
if [ "$want" != "$got" ]; then
  echo "README.md: the daemon settings table differs from g16 daemon --config-table:" >&2
  diff <(echo "$want") <(echo "$got") >&2 || true
  exit 1
fi
