#!/usr/bin/env bash
# Downloads the Debian packages a device machine (no package registry, no
# internet) needs to build runtime/ into the git-ignored .debs/, which travels
# with the checkout:
#   nlohmann-json3-dev  nlohmann/json.hpp (atrex::rt::Json's reader and writer)
#   libcli11-dev        CLI/CLI.hpp (the runtime tools' command lines)
#   libamdhip64-dev     HIP's NVIDIA-platform headers (HIP submissions; optional there)
# The device scripts extract them with scripts/extract-deb.sh where the system
# lacks them (bench/gate/run-h200-gatefast.sh, bench/sets/run-h200-s3.sh).
# Needs apt-get (Debian/Ubuntu with the bookworm package lists); idempotent.
#
#   scripts/fetch-device-debs.sh            # all three
#   scripts/fetch-device-debs.sh PKG...     # only these
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(nlohmann-json3-dev libcli11-dev libamdhip64-dev)
mkdir -p .debs
for p in "${pkgs[@]}"; do
  if ls .debs/"${p}"_*.deb >/dev/null 2>&1; then
    echo "atrex: .debs/ has $(basename "$(ls -1 .debs/"${p}"_*.deb | tail -1)")"
    continue
  fi
  (cd .debs && apt-get download "$p")
  echo "atrex: .debs/$(basename "$(ls -1 .debs/"${p}"_*.deb | tail -1)")"
done
