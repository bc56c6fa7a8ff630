#!/usr/bin/env python3
"""A stub of the OpenAI chat-completions API for atrex agent's tests.

Replays recorded responses from a JSON Lines file, one per request, in
order; records every request to a log; runs a command against itself.

    openai_stub.py --responses R.jsonl --log L.jsonl [--dump DIR]
                   [--port-file F] [-- CMD ARG...]

A response line (every key optional):
    {"status": 200, "body": {...}}      a JSON body (default status 200)
    {"raw": "text"}                     a body sent as it is (malformed JSON)
    {"headers": {"Retry-After": "0"}}   extra headers
    {"delay": 3}                        seconds to wait before answering
    {"comment": "..."}                  ignored
When the lines are used up it answers 500 ("stub: no recorded response left").

The log has one line per request: its number, method, path, whether an
Authorization header was present and whether it was "Bearer <something>"
(never its value), the response line it got, and the request body (parsed
when it is JSON). --dump DIR also writes DIR/request-N.txt: each message's
role and content as plain text, for FileCheck.

The server listens on 127.0.0.1 on a free port (the kernel picks it), writes
the port to --port-file if given, and runs CMD with OPENAI_BASE_URL set to
http://127.0.0.1:PORT/v1 and "{port}" in its arguments replaced; it exits
with CMD's exit status. Without CMD it serves until interrupted.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--responses", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--dump")
    ap.add_argument("--port-file")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd

    responses = []
    with open(args.responses, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    responses.append(json.loads(line))
                except ValueError as e:
                    sys.exit(f"openai_stub: {args.responses}:{n}: {e}")
    lock = threading.Lock()
    state = {"next": 0, "requests": 0}
    log = open(args.log, "a", encoding="utf-8")
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):  # quiet
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            auth = self.headers.get("Authorization")
            with lock:
                state["requests"] += 1
                n = state["requests"]
                i = state["next"]
                resp = responses[i] if i < len(responses) else None
                state["next"] += 1
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw
            entry = {"request": n, "method": "POST", "path": self.path,
                     "authorization": auth is not None,
                     "bearer": bool(auth and auth.startswith("Bearer ") and len(auth) > 7),
                     "response": i + 1 if resp is not None else None,
                     "body": body}
            with lock:
                log.write(json.dumps(entry, sort_keys=True) + "\n")
                log.flush()
                if args.dump and isinstance(body, dict):
                    with open(os.path.join(args.dump, f"request-{n}.txt"), "w",
                              encoding="utf-8") as d:
                        for m in body.get("messages", []):
                            d.write(f"=== {m.get('role')} ===\n{m.get('content')}\n")
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self.answer(404, json.dumps({"error": {"message": f"stub: no route {self.path}"}}), {})
            if resp is None:
                return self.answer(500, json.dumps({"error": {"message": "stub: no recorded response left"}}), {})
            time.sleep(float(resp.get("delay", 0)))
            text = resp["raw"] if "raw" in resp else json.dumps(resp.get("body", {}))
            self.answer(int(resp.get("status", 200)), text, resp.get("headers", {}))

        def answer(self, status, text, headers):
            data = text.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, str(v))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file, "w") as f:
            f.write(f"{port}\n")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    if not cmd:
        try:
            thread.join()
        except KeyboardInterrupt:
            pass
        return 0
    env = dict(os.environ, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1")
    rc = subprocess.call([a.replace("{port}", str(port)) for a in cmd], env=env)
    server.shutdown()
    log.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
