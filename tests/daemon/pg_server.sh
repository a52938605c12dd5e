#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL server:
#   tests/daemon/pg_server.sh COMMAND [ARGS...]
# starts a server of its own (initdb in a new temporary directory, a unix socket there
# and a random port, no TCP listener, trust authentication for one user), exports its URL
# as G16_PG_URL (and the server's bin directory as G16_PG_BINDIR), runs the command, and stops the server and removes the directory when
# the command ends, whatever way it ends. The exit status is the command's.
#
# The server binaries come from Debian's postgresql package (/usr/lib/postgresql/*/bin;
# tools/install-deps.sh test installs it). Without them: exit 77 (ctest: skipped), or 1
# when G16_REQUIRE_POSTGRES=1 (`make test` sets it). PostgreSQL refuses to run as root, so
# under root (CI) the server runs as the postgres user (or nobody) through runuser.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }

# G16_PG_BINDIR names another directory of server binaries (or, set to a missing one, shows
# what happens without a server).
bin=${G16_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)}
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
  if [ "${G16_REQUIRE_POSTGRES:-0}" = 1 ]; then
    echo "pg_server: FAILED: no PostgreSQL server (initdb, pg_ctl in /usr/lib/postgresql/*/bin)" \
         "and G16_REQUIRE_POSTGRES=1; install it: apt-get install postgresql" \
         "(tools/install-deps.sh test)" >&2
    exit 1
  fi
  echo "pg_server: SKIPPED: no PostgreSQL server in /usr/lib/postgresql/*/bin" \
       "(apt-get install postgresql)"
  exit 77
fi

as_user=()
if [ "$(id -u)" = 0 ]; then
  user=postgres
  id -u "$user" >/dev/null 2>&1 || user=nobody
  as_user=(runuser -u "$user" --)
fi
# /tmp, not $TMPDIR: a unix socket's path must stay under ~100 bytes.
dir=$(mktemp -d /tmp/g16-pg-XXXXXX)
[ ${#as_user[@]} -eq 0 ] || chown "$user" "$dir"
port=$((20000 + RANDOM % 30000))

# The server's commands run from inside its directory: the server user may not be allowed
# into the caller's working directory.
server() { (cd "$dir" && "${as_user[@]}" "$@"); }
stop() {
  server "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
# If this script is killed outright (SIGKILL: a ctest timeout), a watcher in its own session
# stops the server once the script is gone.
setsid bash -c "while kill -0 $$ 2>/dev/null; do sleep 2; done;
                cd '$dir' 2>/dev/null && ${as_user[*]} '$bin/pg_ctl' -D '$dir/data' -m immediate stop;
                rm -rf '$dir'" >/dev/null 2>&1 < /dev/null &

if ! server "$bin/initdb" -D "$dir/data" -U g16 --auth=trust -E UTF8 --no-sync \
     > "$dir/initdb.log" 2>&1; then
  echo "pg_server: initdb failed:" >&2; cat "$dir/initdb.log" >&2; exit 1
fi
# fsync off: the server is thrown away; the store's durability is its commits, which the
# tests check by closing and reopening, not by crashing the machine.
if ! server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
     -o "-k $dir -p $port -c listen_addresses= -c fsync=off" start > /dev/null; then
  echo "pg_server: the server did not start:" >&2; cat "$dir/server.log" >&2; exit 1
fi
export G16_PG_URL="postgresql:///postgres?host=$dir&port=$port&user=g16"
export G16_PG_BINDIR=$bin   # psql for the command's own queries
echo "pg_server: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') at $G16_PG_URL"
set +e
"$@"
rc=$?
set -e
if [ $rc -ne 0 ] && [ -f "$dir/server.log" ]; then
  echo "pg_server: the command exited with $rc; the server's log ends with:" >&2
  tail -n 20 "$dir/server.log" >&2
fi
exit $rc
