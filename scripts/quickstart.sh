#!/usr/bin/env bash
# The newcomer's first command: installs every Debian and PyPI package atrex
# needs, builds both halves, and runs the main job on the bundled examples and
# the default suite:
#   1. atrex-lint on examples/lint (honest, fallback, no-kernel, evasive), with
#      the expected verdicts from examples/lint/EXPECTED checked;
#   2. atrex-roofline on the default suite's operators for the H200.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh

echo
echo "== atrex-lint on examples/lint"
set +e
build/bin/atrex-lint examples/lint/*.cu examples/lint/*.hip
rc=$?
set -e
echo "(atrex-lint exit status $rc: the worst verdict decides; 0 only if all are adopted)"
python3 test/lint/Inputs/check_verdicts.py examples/lint

if [ -x build/bin/atrex-roofline ]; then
  echo
  echo "== atrex-roofline: default suite on the H200"
  build/bin/atrex-roofline --suite suites/atrex-serve --gpu h200 || true
fi
