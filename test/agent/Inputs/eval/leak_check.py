"""Fails when anything only the sealed bundle knows reached an agent.

usage: leak_check.py SEALED_DIR FILE...

The files are what the agents were handed (their logs of the environment and
of every file in their turn directories) and every file under the agents'
turn directories. Sealed-only facts: the ids of hidden problems, the bundle's
salt and seeds, provenance strings, and the sealed bundle's path.
"""
import json
import os
import re
import sys

sealed_dir = sys.argv[1]
sealed = json.load(open(os.path.join(sealed_dir, "sealed.json")))
secrets = set()
for p in sealed["problems"]:
    if p["visibility"] == "hidden":
        secrets.add(p["id"])
    prov = p.get("provenance") or {}
    for src in [prov] + list(prov.get("sources") or []):
        for k in ("application", "model", "upstream_kernel"):
            if isinstance(src.get(k), str) and len(src[k]) >= 4:
                secrets.add(src[k])
if sealed.get("salt"):
    secrets.add(str(sealed["salt"]))
for v in (sealed.get("seeds") or {}).values():
    if len(str(v)) >= 6:
        secrets.add(str(v))
secrets.add(os.path.abspath(sealed_dir))
checked = 0
leaks = []
for f in sys.argv[2:]:
    text = open(f, errors="replace").read()
    checked += 1
    for s in secrets:
        if re.search(r"(?<![0-9A-Za-z])" + re.escape(s) + r"(?![0-9A-Za-z])", text):
            leaks.append(f"{f}: {s}")
if leaks:
    print("LEAK:\n" + "\n".join(sorted(leaks)[:20]))
    sys.exit(1)
print(f"no sealed fact in {checked} files ({len(secrets)} secrets checked)")
