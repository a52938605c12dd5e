#!/usr/bin/env bash
# Run here before a GPU call: downloads the Debian packages that the build needs and the
# GPU machine lacks (it reaches no registry) into .debs/ (git-ignored), which the call
# carries; bench/gpu_run.sh unpacks them into a private prefix there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .debs
cd .debs
apt-get download libjansson-dev libjansson4 >/dev/null
ls -1
