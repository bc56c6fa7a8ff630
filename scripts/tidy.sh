#!/usr/bin/env bash
# clang-tidy-22 with .clang-tidy over the analysis side's own sources, using
# build/compile_commands.json (scripts/build.sh writes it).
#   scripts/tidy.sh [-j N] [FILE...]     default: every .cpp under lib/ and tools/
# Prints the findings and a count; exits 1 if there are any.
set -euo pipefail
jobs=$(nproc)
if [[ ${1:-} == -j ]]; then jobs=$2; shift 2; fi
args=(); for a in "$@"; do args+=("$(realpath "$a")"); done
cd "$(dirname "$0")/.."
CT=${CLANG_TIDY:-clang-tidy-22}
command -v "$CT" >/dev/null || { echo "tidy.sh: $CT not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
[[ -f build/compile_commands.json ]] || { echo "tidy.sh: build/compile_commands.json missing: run scripts/build.sh first" >&2; exit 2; }
if ((${#args[@]})); then files=("${args[@]}"); else
  mapfile -t files < <(git ls-files -- 'lib/*.cpp' 'tools/*.cpp')
fi
out=$(mktemp); trap 'rm -f "$out"' EXIT
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} "$CT" -p build --quiet {} >>"$out" 2>/dev/null || true
n=$(grep -cE ': (warning|error): ' "$out" || true)
cat "$out"
echo "tidy.sh: $n finding(s) in ${#files[@]} file(s)"
((n == 0))
