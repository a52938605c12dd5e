#!/usr/bin/env bash
# Installs what g16's build and tests need on a fresh Debian machine, and nothing that is
# already there: Debian packages through apt-get, the differential-test references
# (@noble/curves, ffjavascript) through npm with the committed lock files.
#   tools/install-deps.sh build   compilers, CMake and the libraries (for `make demo`)
#   tools/install-deps.sh test    also Node.js and the npm packages, Chromium, python3 and
#                                 the PostgreSQL server (for `make test`)
set -euo pipefail
mode=${1:-test}
root=$(cd "$(dirname "$0")/.." && pwd)

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v pkg-config >/dev/null || need+=(pkg-config)
# Libraries: a Debian -dev package is "installed" when pkg-config finds it.
pkg-config --exists jansson 2>/dev/null || need+=(libjansson-dev)
# The daemon (g16 daemon, submit, status, wait): HTTP server, job stores, HTTP client.
# Both modes: `make demo` builds the daemon when they are there (G16_DAEMON=AUTO), `make
# test` requires them (G16_DAEMON=ON). The core library builds without them (the GPU
# machine has none).
pkg-config --exists libmicrohttpd 2>/dev/null || need+=(libmicrohttpd-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists libpq 2>/dev/null || need+=(libpq-dev)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
if [ "$mode" = test ]; then
  command -v node >/dev/null || need+=(nodejs)
  command -v npm >/dev/null || need+=(npm)
  # The timeline pictures are rendered in headless Chromium and the screenshots checked
  # with a python3 script (tests/trace/).
  command -v chromium >/dev/null || need+=(chromium)
  command -v python3 >/dev/null || need+=(python3)
  # The store's tests start a throwaway PostgreSQL server (tests/daemon/pg_server.sh)
  # with the server's own initdb and pg_ctl.
  compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || need+=(postgresql)
  # make fuzz-smoke: clang with its libFuzzer and sanitizer runtimes; linking a one-line
  # fuzz target tells whether both are there.
  if ! command -v clang >/dev/null ||
     ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
       clang -x c -fsanitize=fuzzer,address,undefined -o /dev/null - >/dev/null 2>&1; then
    need+=(clang libclang-rt-14-dev)
  fi
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${need[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi

if [ "$mode" = test ]; then
  # The JavaScript references: @noble/curves (tools/noble), ffjavascript (tools/ffjs),
  # snarkjs with circom2 and circomlib (tools/snarkjs).
  for tool in noble ffjs snarkjs; do
    cd "$root/tools/$tool"
    # npm ci only when the installed tree is missing or older than the lock file.
    if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
      echo "install-deps: npm ci in tools/$tool"
      npm ci --no-audit --no-fund --silent
    fi
  done
fi
