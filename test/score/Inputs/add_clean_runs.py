# Writes naive-1.jsonl with clean-run records on p0001 (not used) and p0003 (used).
import json, sys
out = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    pid = r["problem"]["id"]
    perf = r.get("performance")
    if pid == "p0001" and perf:
        perf["clean_run"] = {"used": False, "median_us": perf["median_us"] / 2,
                             "why": "the clean median is 0.5x the attributed one, outside 1 +- 0.1"}
    if pid == "p0003" and perf:
        perf["attributed"] = {"median_us": perf["median_us"] * 1.03}
        perf["clean_run"] = {"used": True, "median_us": perf["median_us"]}
    out.append(json.dumps(r))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
