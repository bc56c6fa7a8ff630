#!/usr/bin/env python3
"""check_json.py FILE PATH=VALUE...: asserts values of a JSON document.

PATH is dot-separated (list indices are numbers, `#` is a list's length);
VALUE is JSON. Numbers compare with a relative tolerance of 1e-6 (absolute
1e-12). Prints each check; exits 1 on the first mismatch.
"""
import json
import sys


def get(doc, path):
    cur = doc
    for part in path.split("."):
        if part == "#":
            cur = len(cur)
        elif isinstance(cur, list):
            cur = cur[int(part)]
        else:
            cur = cur[part]
    return cur


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= max(1e-12, 1e-6 * abs(b))
    return a == b


doc = json.load(open(sys.argv[1]))
for spec in sys.argv[2:]:
    path, want = spec.split("=", 1)
    want = json.loads(want)
    try:
        got = get(doc, path)
    except (KeyError, IndexError, TypeError) as e:
        print("FAIL: %s: no such path (%s)" % (path, e))
        sys.exit(1)
    if not same(got, want):
        print("FAIL: %s = %r, expected %r" % (path, got, want))
        sys.exit(1)
    print("ok: %s = %r" % (path, got))
