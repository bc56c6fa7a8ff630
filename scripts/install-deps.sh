#!/usr/bin/env bash
# Installs every Debian and PyPI package that atrex's build and tests need.
# Idempotent: packages already present are left alone. Run as root (or with sudo).
#
#   scripts/install-deps.sh            # everything (analysis side + libtorch + HIP headers)
#   ATREX_SKIP_TORCH=1 scripts/...     # skip PyPI torch (lint then parses torch sources without its headers)
#   ATREX_WITH_FLYDSL=1 scripts/...    # also FlyDSL's IR evidence: PyPI flydsl (a 77 MB wheel, 258 MB
#                                      # installed: its own MLIR) and Debian's lld-22 (docs/flydsl.md)
#   scripts/install-deps.sh --flydsl-only   # only that step (test/lint/flydsl/live.test runs it)
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
PY=${PYTHON:-python3}

# Debian 12's own python3 is "externally managed" (PEP 668): pip refuses to
# install into it without --break-system-packages (a virtual environment is the
# alternative: PYTHON=/path/to/venv/bin/python3 scripts/install-deps.sh).
pip_system_flag() {
  if $PY -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) and sys.prefix == sys.base_prefix else 1)'; then
    echo --break-system-packages
  fi
}

# FlyDSL (opt-in): atrex-lint's --flydsl-compile traces FlyDSL submissions
# with the wheel (COMPILE_ONLY, no GPU) and links their code objects with an
# lld of LLVM 22 (flydsl 0.4.2's final stage; Debian's lld 14 fails).
FLYDSL_VERSION=0.4.2
install_flydsl() {
  if [[ $(dpkg-query -W -f='${Status}' lld-22 2>/dev/null) != "install ok installed" ]]; then
    echo "atrex: installing Debian package lld-22 (FlyDSL's final link)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends lld-22
  fi
  if [ "$($PY -c 'import importlib.metadata as m; print(m.version("flydsl"))' 2>/dev/null)" != "$FLYDSL_VERSION" ] ||
     ! $PY -c 'import numpy' 2>/dev/null; then
    echo "atrex: installing PyPI flydsl==$FLYDSL_VERSION and numpy (torch comes from the step above)"
    # shellcheck disable=SC2046
    $PY -m pip install --quiet --disable-pip-version-check $(pip_system_flag) "flydsl==$FLYDSL_VERSION" numpy
  fi
  $PY -c 'import flydsl, flydsl.compiler, flydsl.expr' && echo "atrex: flydsl $FLYDSL_VERSION and lld-22 ready"
}
if [ "${1:-}" = "--flydsl-only" ]; then
  install_flydsl
  exit 0
fi

DEBS=(
  # LLVM / Clang / MLIR 22 (analysis side); lit, FileCheck, not, count in /usr/lib/llvm-22/bin
  llvm-22-dev llvm-22-tools libclang-22-dev clang-22 libclang-cpp22-dev
  libmlir-22-dev mlir-22-tools
  # libFuzzer and the sanitizer runtimes (fuzz/, scripts/fuzz.sh)
  libclang-rt-22-dev
  # the style of the own sources (.clang-format, scripts/format.sh, test/format.test) and clang-tidy (.clang-tidy, scripts/tidy.sh)
  clang-format-22 clang-tidy-22
  # build
  cmake ninja-build g++ make pkg-config python3-pip
  # atrex-trace reads Nsight Systems SQLite exports
  libsqlite3-dev
  # libraries the analysis side links
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libcurl4-openssl-dev
  # unit tests
  googletest libgtest-dev libgmock-dev
  # the runtime's JSON reader/writer and its tools' command lines (header-only;
  # a GPU machine without a package registry gets them from
  # scripts/fetch-device-debs.sh's .debs/)
  nlohmann-json3-dev libcli11-dev
  # headless browser for the HTML score report test (test/score)
  chromium
  # HIP headers (HIP submissions are parsed with them; runtime HIP backend compiles against them)
  libamdhip64-dev
  # rocPRIM headers (HIP kernels using block/warp primitives; headers only)
  librocprim-dev
  # tree-sitter runtime (0.20.7, grammar ABI 13-14) for atrex-lint's Python front end
  libtree-sitter-dev
  # a one-node Slurm (slurmctld, slurmd, clients) and munge for atrex fleet's test
  # (runtime/test/helpers/slurm-local.sh starts them itself, in a temporary directory)
  slurm-wlm munge
)

missing=()
for p in "${DEBS[@]}"; do
  if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) != "install ok installed" ]]; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "atrex: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "atrex: Debian packages already installed"
fi

pip_need=()
$PY -c 'import lit' 2>/dev/null || pip_need+=(lit)
$PY -c 'import yaml' 2>/dev/null || pip_need+=(pyyaml)
$PY -c 'import jsonschema' 2>/dev/null || pip_need+=(jsonschema)   # test/score/result-schema.test
if [ -z "${ATREX_SKIP_TORCH:-}" ]; then
  $PY -c 'import torch' 2>/dev/null || pip_need+=(torch)
fi
# CUTLASS/CuTe C++ headers (atrex-lint finds them in site-packages:
# cutlass_library/source/include). Installed without its Python
# dependencies: only the headers are used.
cutlass_need=""
$PY -c 'import importlib.util,sys; sys.exit(0 if importlib.util.find_spec("cutlass_library") else 1)' 2>/dev/null || cutlass_need=nvidia-cutlass
# TVM-FFI C++ headers (tvm/ffi/*.h and DLPack; atrex-lint finds them in
# site-packages: tvm_ffi/include) for FlashInfer-style TVM-FFI bindings.
# Pinned, without its Python dependencies: only the headers are used.
TVM_FFI_VERSION=0.1.15.post2
tvmffi_need=""
[ "$($PY -c 'import importlib.metadata as m; print(m.version("apache-tvm-ffi"))' 2>/dev/null)" = "$TVM_FFI_VERSION" ] ||
  tvmffi_need="apache-tvm-ffi==$TVM_FFI_VERSION"
if [ ${#pip_need[@]} -gt 0 ]; then
  echo "atrex: installing PyPI packages: ${pip_need[*]}"
  pip_flags=(--quiet --disable-pip-version-check)
  # Debian 12's own python3 is "externally managed" (PEP 668): pip refuses to
  # install into it without this flag (a virtual environment is the
  # alternative: PYTHON=/path/to/venv/bin/python3 scripts/install-deps.sh).
  if $PY -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) and sys.prefix == sys.base_prefix else 1)'; then
    pip_flags+=(--break-system-packages)
  fi
  $PY -m pip install "${pip_flags[@]}" "${pip_need[@]}"
else
  echo "atrex: PyPI packages already installed"
fi
if [ -n "$cutlass_need" ]; then
  echo "atrex: installing PyPI nvidia-cutlass (headers only, --no-deps)"
  cut_flags=(--quiet --disable-pip-version-check --no-deps)
  if $PY -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) and sys.prefix == sys.base_prefix else 1)'; then
    cut_flags+=(--break-system-packages)
  fi
  $PY -m pip install "${cut_flags[@]}" nvidia-cutlass
fi
if [ -n "$tvmffi_need" ]; then
  echo "atrex: installing PyPI $tvmffi_need (headers only, --no-deps)"
  tvm_flags=(--quiet --disable-pip-version-check --no-deps)
  if $PY -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) and sys.prefix == sys.base_prefix else 1)'; then
    tvm_flags+=(--break-system-packages)
  fi
  $PY -m pip install "${tvm_flags[@]}" "$tvmffi_need"
fi

# The tree-sitter Python grammar (generated parser.c + scanner.c, ABI 14) and
# the matching parser headers, from PyPI source distributions; never committed.
# tree-sitter-python's sdist lacks src/tree_sitter/*.h: they come from the
# py-tree-sitter sdist of the same generation. See docs/python-frontend.md.
TS_DIR=${ATREX_TREE_SITTER_PYTHON_DIR:-"$(cd "$(dirname "$0")/.." && pwd)/third_party/tree-sitter-python"}
TS_GRAMMAR=0.23.6
TS_HEADERS=0.23.2
if [ ! -f "$TS_DIR/src/parser.c" ] || [ ! -f "$TS_DIR/src/tree_sitter/parser.h" ] ||
   [ "$(cat "$TS_DIR/VERSION" 2>/dev/null)" != "$TS_GRAMMAR" ]; then
  echo "atrex: fetching tree-sitter-python $TS_GRAMMAR (sdist) into $TS_DIR"
  tmp=$(mktemp -d)
  $PY -m pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
    -d "$tmp" "tree-sitter-python==$TS_GRAMMAR" "tree-sitter==$TS_HEADERS"
  tar -xzf "$tmp/tree_sitter_python-$TS_GRAMMAR.tar.gz" -C "$tmp"
  tar -xzf "$tmp/tree-sitter-$TS_HEADERS.tar.gz" -C "$tmp"
  rm -rf "$TS_DIR"
  mkdir -p "$TS_DIR/src/tree_sitter"
  cp "$tmp/tree_sitter_python-$TS_GRAMMAR/src/parser.c" "$tmp/tree_sitter_python-$TS_GRAMMAR/src/scanner.c" \
     "$tmp/tree_sitter_python-$TS_GRAMMAR/LICENSE" "$TS_DIR/src/"
  for h in parser.h array.h alloc.h ts_assert.h; do
    cp "$tmp/tree-sitter-$TS_HEADERS/tree_sitter/core/lib/src/$h" "$TS_DIR/src/tree_sitter/"
  done
  echo "$TS_GRAMMAR" > "$TS_DIR/VERSION"
  rm -rf "$tmp"
else
  echo "atrex: tree-sitter-python $TS_GRAMMAR already in $TS_DIR"
fi
if [ -n "${ATREX_WITH_FLYDSL:-}" ] && [ "${ATREX_WITH_FLYDSL}" != 0 ]; then
  install_flydsl
else
  echo "atrex: FlyDSL not requested (ATREX_WITH_FLYDSL=1 installs flydsl and lld-22 for atrex-lint --flydsl-compile)"
fi
echo "atrex: dependencies ready"
