#!/usr/bin/env bash
# Extracts a .deb's files into DIR (dpkg-deb -x; without dpkg-deb, Python
# reads the ar archive and its data.tar.*), for the headers the device
# machines lack (.debs/, scripts/fetch-device-debs.sh). The headers are then
# under DIR/usr/include.
#
#   scripts/extract-deb.sh .debs/nlohmann-json3-dev_3.11.2-2_all.deb /tmp/debs
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/extract-deb.sh DEB DIR" >&2; exit 2; }
deb=$1 dir=$2
[ -f "$deb" ] || { echo "extract-deb: no file '$deb'" >&2; exit 2; }
mkdir -p "$dir"
if command -v dpkg-deb >/dev/null; then
  dpkg-deb -x "$deb" "$dir"
else
  python3 - "$deb" "$dir" <<'PY'
import io, sys, tarfile
d = open(sys.argv[1], "rb").read()
if not d.startswith(b"!<arch>\n"):
    sys.exit(f"extract-deb: {sys.argv[1]}: not a .deb (ar archive)")
p = 8
while p + 60 <= len(d):
    name = d[p:p + 16].decode().strip().rstrip("/")
    size = int(d[p + 48:p + 58].decode().strip())
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(d[p + 60:p + 60 + size])).extractall(sys.argv[2])
        break
    p += 60 + size + (size & 1)
else:
    sys.exit(f"extract-deb: {sys.argv[1]}: no data.tar member")
PY
fi
