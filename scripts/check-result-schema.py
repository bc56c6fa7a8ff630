#!/usr/bin/env python3
"""Checks gate result files against docs/formats/gate-result.schema.json, and
the schema's enums against the gate's protocol header.

    python3 scripts/check-result-schema.py [--root DIR] [--enums] [FILE.jsonl ...]

--enums: the schema's status, stage and verdict enums must be the values of
kStatuses, kStages and kVerdicts in runtime/include/atrex-rt/Protocol.h, in
order (the header defines them; the schema repeats them for other readers).
Every line of each FILE must validate; the first errors are printed as
FILE:LINE: message. Exit 1 on any mismatch.
"""
import argparse
import json
import os
import re
import sys

import jsonschema

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap.add_argument("--enums", action="store_true")
ap.add_argument("files", nargs="*")
a = ap.parse_args()
schema_path = os.path.join(a.root, "docs", "formats", "gate-result.schema.json")
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = 0

if a.enums:
    header = open(os.path.join(a.root, "runtime", "include", "atrex-rt", "Protocol.h")).read()
    consts = dict(re.findall(r'inline constexpr const char \*(k\w+) = "([^"]*)";', header))
    for field, array in [("status", "kStatuses"), ("stage", "kStages"), ("verdict", "kVerdicts")]:
        m = re.search(r"inline constexpr const char \*" + array + r"\[\] = \{([^}]*)\};", header)
        values = [consts[n.strip()] for n in m.group(1).split(",") if n.strip()]
        if schema["properties"][field]["enum"] != values:
            bad += 1
            print(f"{schema_path}: {field} enum {schema['properties'][field]['enum']} != Protocol.h {array} {values}")
    print(f"check-result-schema: enums {'differ' if bad else 'match Protocol.h'}")

lines = 0
for path in a.files:
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            lines += 1
            try:
                r = json.loads(line)
            except ValueError as e:
                bad += 1
                print(f"{path}:{n}: not JSON: {e}")
                continue
            errs = sorted(validator.iter_errors(r), key=lambda e: list(e.path))
            for e in errs[:3]:
                where = "/".join(str(x) for x in e.path) or "(line)"
                print(f"{path}:{n}: {where}: {e.message[:200]}")
            bad += bool(errs)
if a.files:
    print(f"check-result-schema: {lines} result lines in {len(a.files)} files, {bad} invalid")
sys.exit(1 if bad else 0)
