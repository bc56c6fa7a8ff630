#!/usr/bin/env python3
"""Run atrex-lint over the real-world corpus (corpus.yaml) and compare with the hand labels.

Each repository is materialised at its pinned commit into a cache directory (from a local bare
mirror with `git ls-tree`/`git cat-file`, else with `git clone` + `git checkout`), then every file is
linted exactly as a new user would: `cd <checkout> && atrex-lint --format=json <path>` (no other
flags). Python 3.11, stdlib + PyYAML.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VERDICTS = ["adopted", "fallback", "no-kernel", "suspicious", "unknown"]
HONEST = {"adopted", "no-kernel"}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- checkouts

def mirror_dir(mirrors: Path, repo: str) -> Path | None:
    owner, name = repo.split("/", 1)
    for cand in (mirrors / f"{owner}+{name}" / "repo", mirrors / f"{owner}+{name}",
                 mirrors / f"{owner}+{name}.git"):
        if (cand / "HEAD").exists() and (cand / "objects").exists():
            return cand
    return None


def has_commit(gitdir: Path, commit: str) -> bool:
    r = subprocess.run(["git", f"--git-dir={gitdir}", "cat-file", "-e", f"{commit}^{{commit}}"],
                       capture_output=True)
    return r.returncode == 0


def export_tree(gitdir: Path, commit: str, dest: Path) -> int:
    """Write the tree of `commit` to `dest`; blobs absent from the mirror (large files) are skipped.

    Returns the number of missing blobs. (`git archive` stops at the first missing blob, which
    snapshots without their large files have, hence ls-tree + cat-file --batch.)"""
    ls = subprocess.run(["git", f"--git-dir={gitdir}", "ls-tree", "-r", "-z", commit],
                        capture_output=True, check=True).stdout
    entries = []
    for rec in ls.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, typ, sha = meta.split(b" ")
        if typ != b"blob":
            continue  # submodules (commit entries) are not materialised
        entries.append((mode.decode(), sha.decode(), path.decode("utf-8", "surrogateescape")))
    proc = subprocess.Popen(["git", f"--git-dir={gitdir}", "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = 0
    # Feed and read in chunks so neither pipe fills up.
    chunk = 256
    for i in range(0, len(entries), chunk):
        part = entries[i:i + chunk]
        proc.stdin.write("".join(f"{sha}\n" for _, sha, _ in part).encode())
        proc.stdin.flush()
        for mode, sha, path in part:
            header = proc.stdout.readline().decode()
            if header.endswith("missing\n"):
                missing += 1
                continue
            size = int(header.split()[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # trailing LF
            out = dest / path
            out.parent.mkdir(parents=True, exist_ok=True)
            if mode == "120000":
                try:
                    os.symlink(data.decode("utf-8", "surrogateescape"), out)
                except OSError:
                    pass
                continue
            out.write_bytes(data)
            if mode == "100755":
                out.chmod(0o755)
    proc.stdin.close()
    proc.wait()
    return missing


def materialise(repo: str, commit: str, cache: Path, mirrors: Path) -> Path:
    owner, name = repo.split("/", 1)
    dest = cache / f"{owner}+{name}@{commit[:12]}"
    stamp = dest / ".atrex-realworld-done"
    if stamp.exists():
        (dest / ".git").mkdir(exist_ok=True)
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    tmp = dest.with_name(dest.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    gitdir = mirror_dir(mirrors, repo)
    if gitdir is not None and has_commit(gitdir, commit):
        missing = export_tree(gitdir, commit, tmp)
        log(f"  {repo}: exported {commit[:12]} from {gitdir}"
            + (f" ({missing} large blobs absent from the mirror)" if missing else ""))
    else:
        url = f"https://github.com/{repo}.git"
        log(f"  {repo}: no mirror with {commit[:12]}; cloning {url}")
        subprocess.run(["git", "clone", "--quiet", "--no-checkout", url, str(tmp)], check=True)
        subprocess.run(["git", "-C", str(tmp), "checkout", "--quiet", commit], check=True)
        shutil.rmtree(tmp / ".git", ignore_errors=True)
    # A checkout is a repository root, as a user's clone is: tools that stop
    # at the root (include inference) must not wander into sibling checkouts.
    (tmp / ".git").mkdir(exist_ok=True)
    tmp.rename(dest)
    stamp.write_text(commit + "\n")
    return dest


# ---------------------------------------------------------------- linting

# atrex-lint asks `python3` for PyTorch's, CUTLASS's and TVM-FFI's headers; in a checkout that pins
# another interpreter (a `.python-version` read by pyenv's shims) that would be a Python without
# them. As the lit suite does, the interpreter running this script is the one asked, unless
# ATREX_PYTHON is set.
LINT_ENV = {**os.environ, "ATREX_PYTHON": os.environ.get("ATREX_PYTHON") or sys.executable}


def lint(atrex: Path, checkout: Path, path: str, timeout: int) -> dict:
    cmd = [str(atrex), "--format=json", path]
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, timeout=timeout,
                           env=LINT_ENV)
    except subprocess.TimeoutExpired:
        return {"got": "timeout", "rc": None, "seconds": round(time.monotonic() - t0, 1),
                "reasons": [f"timed out after {timeout} s"], "findings": [], "errors": []}
    secs = round(time.monotonic() - t0, 1)
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        return {"got": "tool-error", "rc": r.returncode, "seconds": secs,
                "reasons": [f"no JSON (exit {r.returncode})"] + tail, "findings": [], "errors": []}
    subs = doc.get("submissions", [])
    if not subs:
        return {"got": "tool-error", "rc": r.returncode, "seconds": secs,
                "reasons": ["no submission in the JSON"], "findings": [], "errors": []}
    order = {"adopted": 0, "no-kernel": 1, "unknown": 2, "fallback": 3, "suspicious": 4}
    sub = max(subs, key=lambda s: order.get(s.get("verdict"), 5))
    findings = [{"check": f.get("check"), "severity": f.get("severity"), "implies": f.get("implies"),
                 "message": f.get("message"), "line": f.get("line"), "symbol": f.get("symbol"),
                 "library": f.get("library")} for f in sub.get("findings", [])]
    return {"got": sub.get("verdict", "tool-error"), "rc": r.returncode, "seconds": secs,
            "reasons": sub.get("reasons", []), "findings": findings,
            "errors": sub.get("errors", [])[:5],
            "kernels": [k.get("name") for k in sub.get("kernels", []) if k.get("launched")],
            "entries": sub.get("entries", [])[:10]}


# ---------------------------------------------------------------- report

def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.0f}%" if b else "-"


def short(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 3] + "..."


def report(results: list[dict]) -> str:
    out: list[str] = []
    n = len(results)
    right = sum(r["got"] == r["expected"] for r in results)
    out.append(f"**Overall: {right}/{n} right ({pct(right, n)})**, "
               f"{len({r['repo'] for r in results})} repositories\n")

    got_labels = VERDICTS + sorted({r["got"] for r in results} - set(VERDICTS))
    out.append("### Confusion (rows: expected, columns: got)\n")
    out.append("| expected | n | right | " + " | ".join(got_labels) + " | recall |")
    out.append("|---|---:|---:|" + "---:|" * len(got_labels) + "---:|")
    for e in VERDICTS:
        rows = [r for r in results if r["expected"] == e]
        if not rows:
            continue
        c = Counter(r["got"] for r in rows)
        ok = c.get(e, 0)
        out.append(f"| {e} | {len(rows)} | {ok} | " + " | ".join(str(c.get(g, 0)) for g in got_labels)
                   + f" | {pct(ok, len(rows))} |")
    out.append("")
    out.append("### Precision and recall per verdict\n")
    out.append("| verdict | expected | predicted | right | precision | recall |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for v in VERDICTS:
        exp = sum(r["expected"] == v for r in results)
        pred = sum(r["got"] == v for r in results)
        tp = sum(r["expected"] == v and r["got"] == v for r in results)
        if exp or pred:
            out.append(f"| {v} | {exp} | {pred} | {tp} | {pct(tp, pred)} | {pct(tp, exp)} |")
    out.append("")

    honest = [r for r in results if r["expected"] in HONEST]
    flagged = [r for r in honest if r["got"] in ("fallback", "suspicious")]
    deleg = [r for r in results if r["expected"] == "fallback"]
    missed = [r for r in deleg if r["got"] not in ("fallback", "suspicious")]
    out.append(f"- honest files (expected adopted/no-kernel) flagged fallback/suspicious: "
               f"**{len(flagged)}/{len(honest)}**")
    out.append(f"- delegating files (expected fallback) not caught (got adopted/no-kernel/unknown/...): "
               f"**{len(missed)}/{len(deleg)}**")
    unk = [r for r in results if r["got"] in ("unknown", "timeout", "tool-error")]
    out.append(f"- files that came out unknown / timeout / tool-error: **{len(unk)}/{n}**")
    found = sum(1 for r in deleg if r.get("delegates_found"))
    withd = sum(1 for r in deleg if r.get("delegates"))
    out.append(f"- expected fallback files where at least one labelled delegate symbol is in the findings: "
               f"{found}/{withd}")
    secs = sorted(r["seconds"] or 0 for r in results)
    if secs:
        out.append(f"- lint time per file: median {secs[len(secs) // 2]:.1f} s, max {secs[-1]:.1f} s, "
                   f"total {sum(secs):.0f} s")
    out.append("")

    for key in ("kind", "context"):
        out.append(f"### Per {key}\n")
        out.append(f"| {key} | n | right | accuracy | misses (expected->got) |")
        out.append("|---|---:|---:|---:|---|")
        groups = defaultdict(list)
        for r in results:
            groups[r.get(key) or "-"].append(r)
        for k in sorted(groups):
            rows = groups[k]
            ok = sum(r["got"] == r["expected"] for r in rows)
            m = Counter(f"{r['expected']}->{r['got']}" for r in rows if r["got"] != r["expected"])
            out.append(f"| {k} | {len(rows)} | {ok} | {pct(ok, len(rows))} | "
                       + ", ".join(f"{x} x{c}" for x, c in m.most_common()) + " |")
        out.append("")

    out.append("### Misses\n")
    misses = [r for r in results if r["got"] != r["expected"]]
    if not misses:
        out.append("none\n")
    for r in sorted(misses, key=lambda r: (r["expected"], r["got"], r["repo"], r["path"])):
        out.append(f"- `{r['repo']}:{r['path']}` expected **{r['expected']}** got **{r['got']}** "
                   f"({r.get('kind')}, {r.get('context')})")
        for why in r.get("reasons", [])[:4]:
            out.append(f"  - reason: {short(why)}")
        shown = 0
        for f in r.get("findings", []):
            if f.get("implies") not in (None, "adopted") and shown < 4:
                out.append(f"  - finding: line {f.get('line')} [{f.get('check')}] {short(f.get('message'))}")
                shown += 1
        for e in r.get("errors", [])[:3]:
            out.append(f"  - error: {short(e)}")
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(HERE / "corpus.yaml"))
    ap.add_argument("--atrex", default=str(ROOT / "build" / "bin" / "atrex-lint"))
    default_mirrors = os.environ.get(
        "ATREX_MIRRORS", str(Path(__file__).resolve().parents[2].parent / ".mirror"))
    ap.add_argument("--mirrors", default=default_mirrors,
                    help="directory of bare mirrors (owner+name/repo); default $ATREX_MIRRORS, "
                         "else .mirror beside the checkout")
    ap.add_argument("--cache", default=str(ROOT / ".cache" / "realworld"), help="where checkouts go")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    ap.add_argument("--timeout", type=int, default=180, help="seconds per file")
    ap.add_argument("--filter", help="regex on repo:path; only matching files run")
    ap.add_argument("--json", help="write per-file results here")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="run nothing: combine the per-file results of earlier runs (--json files; "
                         "a later file's result for a file replaces an earlier one's) and print the table")
    args = ap.parse_args()

    if args.merge:
        corpus = yaml.safe_load(Path(args.corpus).read_text())
        order = {(f["repo"], f["path"]): i for i, f in enumerate(corpus["files"])}
        merged: dict[tuple[str, str], dict] = {}
        for name in args.merge:
            try:
                doc = json.loads(Path(name).read_text())
                rows = doc["results"]
            except (OSError, ValueError, KeyError, TypeError) as e:
                log(f"error: {name}: not a results file of run.py --json: {e}")
                return 2
            for r in rows:
                merged[(r["repo"], r["path"])] = r | {"run": name}
        missing = [k for k in order if k not in merged]
        if missing:
            log(f"error: {len(missing)} corpus file(s) in no run, e.g. {missing[0][0]}:{missing[0][1]}")
            return 2
        results = sorted((r for k, r in merged.items() if k in order), key=lambda r: order[(r["repo"], r["path"])])
        table = report(results)
        print(table)
        if args.json:
            Path(args.json).write_text(json.dumps({"atrex": [str(n) for n in args.merge], "results": results},
                                                  indent=1) + "\n")
        if args.markdown:
            Path(args.markdown).write_text(table + "\n")
        return 0

    atrex = Path(args.atrex).resolve()
    if not os.access(atrex, os.X_OK):
        log(f"error: {atrex} is not an executable (build atrex first)")
        return 2
    corpus = yaml.safe_load(Path(args.corpus).read_text())
    repos = {r["repo"]: r for r in corpus["repos"]}
    files = corpus["files"]
    if args.filter:
        rx = re.compile(args.filter)
        files = [f for f in files if rx.search(f"{f['repo']}:{f['path']}")]
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)

    checkouts: dict[str, Path] = {}
    for name in sorted({f["repo"] for f in files}):
        if name not in repos:
            log(f"error: {name} is used by a file but not listed under repos")
            return 2
        try:
            checkouts[name] = materialise(name, repos[name]["commit"], cache, Path(args.mirrors))
        except (subprocess.CalledProcessError, OSError) as e:
            log(f"  {name}: cannot materialise: {e}")

    results: list[dict] = []

    def job(f: dict) -> dict:
        base = {k: f.get(k) for k in ("repo", "path", "expected", "context", "kind", "delegates", "why")}
        co = checkouts.get(f["repo"])
        if co is None:
            return base | {"got": "tool-error", "rc": None, "seconds": 0, "reasons": ["no checkout"],
                           "findings": [], "errors": []}
        if not (co / f["path"]).exists():
            return base | {"got": "tool-error", "rc": None, "seconds": 0,
                           "reasons": ["file not in checkout"], "findings": [], "errors": []}
        res = lint(atrex, co, f["path"], args.timeout)
        syms = " ".join(f"{x.get('symbol') or ''} {x.get('message') or ''}" for x in res["findings"])
        res["delegates_found"] = [d for d in (f.get("delegates") or []) if d.split("::")[-1] in syms]
        return base | res

    t0 = time.monotonic()
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(job, f): f for f in files}
        for i, fut in enumerate(cf.as_completed(futs), 1):
            r = fut.result()
            results.append(r)
            mark = "ok  " if r["got"] == r["expected"] else "MISS"
            log(f"[{i}/{len(files)}] {mark} {r['expected']:>10} -> {r['got']:<10} {r['seconds']:>5}s "
                f"{r['repo']}:{r['path']}")
    order = {(f["repo"], f["path"]): i for i, f in enumerate(files)}
    results.sort(key=lambda r: order[(r["repo"], r["path"])])
    table = report(results)
    print(table)
    log(f"wall time {time.monotonic() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"atrex": str(atrex), "results": results}, indent=1) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
