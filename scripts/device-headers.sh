#!/usr/bin/env bash
# For a build of runtime/ on a machine without a package registry: where the
# system lacks nlohmann/json.hpp (nlohmann-json3-dev) or CLI/CLI.hpp
# (libcli11-dev), extracts the .deb carried in .debs/ (scripts/fetch-device-debs.sh)
# into DIR and prints the CMake option that finds it:
#   -DATREX_RT_EXTRA_INCLUDE=DIR/usr/include
# (nothing when the system has both). A header that is neither installed nor
# carried is named on stderr; runtime/'s configure then fails naming the package.
# (ATREX_SYSTEM_INCLUDE=/nonexistent: as on a machine without them, to try it.)
#
#   cmake -S runtime -B /tmp/b $(scripts/device-headers.sh /tmp/b-debs) ...
set -uo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/device-headers.sh DIR" >&2; exit 2; }
cd "$(dirname "$0")/.."
dir=$1
need=0
for pair in nlohmann-json3-dev:nlohmann/json.hpp libcli11-dev:CLI/CLI.hpp; do
  pkg=${pair%%:*} header=${pair#*:}
  [ -f "${ATREX_SYSTEM_INCLUDE:-/usr/include}/$header" ] && continue
  if [ -f "$dir/usr/include/$header" ]; then
    need=1
    continue
  fi
  deb=$(ls -1 .debs/"${pkg}"_*.deb 2>/dev/null | tail -1)
  if [ -z "$deb" ]; then
    echo "device-headers: no $header on this machine and no .debs/${pkg}_*.deb (scripts/fetch-device-debs.sh)" >&2
    continue
  fi
  scripts/extract-deb.sh "$deb" "$dir" >&2 && need=1
done
[ $need -eq 1 ] && echo "-DATREX_RT_EXTRA_INCLUDE=$(cd "$dir" && pwd)/usr/include"
exit 0
