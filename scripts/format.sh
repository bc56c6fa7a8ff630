#!/usr/bin/env bash
# Formats the project's own C++ sources with clang-format-22 and .clang-format.
#   scripts/format.sh           rewrite the files in place
#   scripts/format.sh --check   list the files that are not formatted; exit 1 if any
#   scripts/format.sh [--check] FILE...   only these files
# Test inputs (test/lint, test/agent, test/plugin, test/downstream,
# runtime/test/inputs), examples/, suites/ and third_party/ are left alone:
# their line and column numbers are what the tests check. So is
# lib/Lint/Headers/ (the headers atrex-lint parses with: their include order
# is what makes them work, and sorting it broke the HIP prelude).
set -euo pipefail
check=0; [[ ${1:-} == --check ]] && { check=1; shift; }
args=(); for a in "$@"; do args+=("$(realpath "$a")"); done
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-clang-format-22}
command -v "$CF" >/dev/null || { echo "format.sh: $CF not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
STYLE="--style=file:$PWD/.clang-format"
if ((${#args[@]})); then files=("${args[@]}"); else
mapfile -t files < <(git ls-files -- 'include/*' 'lib/*' 'tools/*' 'fuzz/*.cpp' 'fuzz/*.h' \
  'runtime/include/*' 'runtime/lib/*' 'runtime/tools/*' 'runtime/test/unit/*' 'runtime/test/helpers/*' \
  'test/unittests/*' | grep -E '\.(cpp|h|hpp|cu|cuh)$' | grep -v '^lib/Lint/Headers/')
fi
if ((check)); then
  bad=0
  for f in "${files[@]}"; do
    if ! "$CF" "$STYLE" --dry-run -Werror "$f" >/dev/null 2>&1; then echo "$f"; bad=1; fi
  done
  exit $bad
fi
"$CF" "$STYLE" -i "${files[@]}"
echo "formatted ${#files[@]} files"
