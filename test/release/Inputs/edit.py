"""Edits one file of a bundle in place: edit.py FILE MODE."""
import json
import sys

path, mode = sys.argv[1:3]
data = json.load(open(path))
if mode == "sealed-shape":
    # A hidden problem's evaluation shape changed after the release.
    p = next(p for p in data["problems"] if p["visibility"] == "hidden")
    p["shape"]["T" if "T" in p["shape"] else next(iter(p["shape"]))] += 1
elif mode == "card-shape":
    card = data["cards"][0]
    v = card["visible_problems"][0]
    k = next(iter(v["shape"]))
    v["shape"][k] += 1
elif mode == "card-unknown":
    data["cards"][0]["visible_problems"].append(
        {"id": "p9999", "phase": "decode", "shape": {"T": 1}})
elif mode == "weights-unknown":
    data["weights"]["p9999"] = 0.0
elif mode == "weights-sum":
    first = next(iter(sorted(data["weights"])))
    data["weights"][first] += 0.25
elif mode == "weights-sum-small":
    first = next(iter(sorted(data["weights"])))
    data["weights"][first] += 1.5e-6
elif mode == "weights-commitment":
    data["commitment"] = "sha256:" + "0" * 64
else:
    sys.exit("unknown mode " + mode)
json.dump(data, open(path, "w"), indent=2, sort_keys=True)
