#!/usr/bin/env bash
# The newcomer's first command: installs every Debian and PyPI package atrex
# needs, builds both halves, and runs the main job on the bundled examples and
# the default suite:
#   1. atrex-lint on examples/lint (honest, fallback, no-kernel, evasive), with
#      the expected verdicts from examples/lint/EXPECTED checked;
#   2. atrex-roofline on the default suite's operators (their MLIR
#      definitions) for the H200: FLOPs, bytes, regime, T_roofline;
#   3. the operators the gate can run (atrex-ref, libtorch references).
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
PATH="$PWD/build/bin:$PATH" python3 test/lint/Inputs/check_verdicts.py examples/lint

echo
echo "== atrex-roofline: suites/atrex-serve operators on the H200"
build/bin/atrex-roofline --ops suites/atrex-serve/ops --hw hw/gpus.json --gpu H200

if [ -x build/runtime/bin/atrex-ref ]; then
  echo
  echo "== atrex-ref: operators with libtorch references (the gate's)"
  build/runtime/bin/atrex-ref --list
fi
