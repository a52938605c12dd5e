#!/usr/bin/env bash
# The CLI's help: every command that `g16 help` lists answers `g16 CMD --help` (anywhere
# among its arguments, or -h) and `g16 help CMD` with the same synopsis on stdout, exit 0,
# nothing on stderr; the commands print that synopsis on stderr with exit 2 when used
# wrongly; an unknown command is exit 2 in either form.
# Usage: cli_help.sh G16
set -u
g16=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$g16" help > "$tmp/list" || fail "g16 help exited $?"
commands=$(awk '/^  [a-z]/ {print $1}' "$tmp/list" | grep -v -x -e version -e help)
[ -n "$commands" ] || fail "g16 help lists no command"
for c in $commands; do
    if [ "$c" = daemon ] && "$g16" daemon --help 2>&1 | grep -q "built without"; then
        echo "daemon: skipped (this build has no daemon)"
        continue
    fi
    "$g16" help "$c" > "$tmp/a" 2> "$tmp/a.err"; rc_a=$?
    "$g16" "$c" --help > "$tmp/b" 2> "$tmp/b.err"; rc_b=$?
    "$g16" "$c" x -h > "$tmp/c" 2> "$tmp/c.err"; rc_c=$?
    [ $rc_a -eq 0 ] && [ $rc_b -eq 0 ] && [ $rc_c -eq 0 ] ||
        fail "$c: help exit statuses $rc_a, $rc_b, $rc_c (want 0)"
    [ -s "$tmp/a" ] && [ ! -s "$tmp/a.err" ] && [ ! -s "$tmp/b.err" ] ||
        fail "$c: help not on stdout alone"
    grep -q "^usage: g16 $c" "$tmp/a" || fail "$c: no 'usage: g16 $c' line in its help"
    cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/a" "$tmp/c" || fail "$c: help texts differ"
done

# Used wrongly: the same synopsis, on stderr, exit 2.
wrong() {
    local c=$1
    shift
    "$g16" "$c" "$@" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    "$g16" help "$c" > "$tmp/help"
    [ $rc -eq 2 ] || fail "g16 $c $*: exit $rc (want 2)"
    grep -q -F -f <(head -1 "$tmp/help") "$tmp/err" || fail "g16 $c $*: no synopsis on stderr"
}
wrong prove only-one-path
wrong setup
wrong verify a b
wrong info
wrong trace nosuch
wrong bench --nosuch-option
wrong submit
wrong wait
wrong wait 1 --nosuch
wrong status --nosuch
wrong cancel
wrong selftest extra
wrong devices extra
if "$g16" daemon --help 2>&1 | grep -q "built without"; then
    echo "daemon's bad usage: skipped (this build has no daemon)"
else
    wrong daemon --nosuch-setting
fi

"$g16" help nosuch > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "g16 help nosuch: exit $rc (want 2)"
"$g16" nosuch --help > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "g16 nosuch --help: exit $rc (want 2)"

n=$(echo "$commands" | wc -l)
echo "cli_help: $n commands, $fails failed"
[ $fails -eq 0 ]
