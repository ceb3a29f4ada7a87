#!/usr/bin/env python3
"""Many legacy sessions over replicas behind nginx (issue #25): SESSIONS (10,000) sessions opened
through nginx (`initialize`, `notifications/initialized`), then each used once more from a fresh
connection (`tools/call` echo naming the session): every one must be answered, whichever replica
gets it. Each replica keeps at most its `--max-sessions` (256) sessions in memory, ending the idlest
for a new one; Redis keeps them all, so a replica continues any of them from there.

Usage: replicas_scale.py [--sessions N] [--replicas N] [--server BIN]

Reports (not checked) Redis's memory per session (`INFO memory` used_memory before and after,
divided by the sessions) and each replica's resident memory before and after. Prints one line per
check and `replicas-scale interop: N passed, M failed` last; exits non-zero on a failure.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from checks import Checks  # noqa: E402
from replicas import Deployment  # noqa: E402
from paths import ROOT

WORKERS = 32
VERSION = "2025-11-25"


def post(port: int, body: dict, session: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One POST through nginx on a connection of its own."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": VERSION}
    if session:
        headers["Mcp-Session-Id"] = session
    try:
        connection.request("POST", "/mcp", json.dumps(body), headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def last_message(body: bytes) -> dict:
    """The last JSON-RPC message of an SSE or JSON body."""
    text = body.decode()
    datas = [line[6:] for line in text.splitlines() if line.startswith("data: ") and len(line) > 6]
    return json.loads(datas[-1] if datas else text)


def open_session(port: int, n: int) -> str | None:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": f"scale-{n}", "version": "1"}}}
    status, headers, body = post(port, init)
    session = headers.get("mcp-session-id")
    if status != 200 or not session or last_message(body).get("result", {}).get("protocolVersion") != VERSION:
        return None
    status, _, _ = post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    return session if status == 202 else None


def use_again(port: int, session: str) -> bool:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": session}}}
    status, _, body = post(port, call, session)
    if status != 200:
        return False
    content = last_message(body).get("result", {}).get("content", [])
    return bool(content) and content[0].get("text") == session


def redis_reply(port: int, command: bytes) -> str:
    """The reply to one inline command: an integer's digits, or a bulk string's text."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(command)
        stream = s.makefile("rb")
        head = stream.readline().decode().strip()
        if head.startswith("$"):
            return stream.read(int(head[1:]) + 2).decode()[:-2]
        return head.lstrip(":+")


def used_memory(port: int) -> int:
    info = redis_reply(port, b"INFO memory\r\n")
    return int(next(line.split(":")[1] for line in info.splitlines() if line.startswith("used_memory:")))


def dbsize(port: int) -> int:
    return int(redis_reply(port, b"DBSIZE\r\n"))


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith("VmRSS:")))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--server", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                                                     "release", "mcp-device"))
    args = ap.parse_args()
    c = Checks("replicas-scale")
    deployment = Deployment(args.replicas, args.server)
    try:
        c.equal("deploy/replicas start: exit status", deployment.start(), 0)
        nginx, redis = deployment.port, deployment.port + 1
        pids = deployment.pids()
        replicas = sorted(name for name in pids if name.startswith("replica"))
        memory_before = used_memory(redis)
        rss_before = {name: rss_kib(pids[name]) for name in replicas}
        started = time.monotonic()
        with ThreadPoolExecutor(WORKERS) as pool:
            sessions = list(pool.map(lambda n: open_session(nginx, n), range(args.sessions)))
        opened = [s for s in sessions if s]
        c.equal(f"{args.sessions} sessions opened through nginx", len(opened), args.sessions)
        c.equal("every session id distinct", len(set(opened)), len(opened))
        opened_s = time.monotonic() - started
        kept = dbsize(redis)
        c.check(f"Redis keeps every session ({kept} keys)", kept >= len(opened), kept)
        memory_after = used_memory(redis)
        started = time.monotonic()
        with ThreadPoolExecutor(WORKERS) as pool:
            answered = list(pool.map(lambda s: use_again(nginx, s), opened))
        used_s = time.monotonic() - started
        c.equal("each session used again from a fresh connection: answered, by any replica",
                sum(answered), len(opened))
        served = {addr: 0 for addr in deployment.addrs}
        for _, _, tried in deployment.requests_since(0):
            served[tried[-1]] = served.get(tried[-1], 0) + 1
        c.check("every replica served some", all(served[addr] > 0 for addr in deployment.addrs), served)
        per_session = (memory_after - memory_before) / max(len(opened), 1)
        print(f"  report: {len(opened)} sessions opened in {opened_s:.1f} s, used again in {used_s:.1f} s "
              f"({WORKERS} clients at a time)")
        print(f"  report: Redis used_memory {memory_before} -> {memory_after} B: {per_session:.0f} B per idle session")
        for name in replicas:
            after = rss_kib(pids[name])
            print(f"  report: {name} resident {rss_before[name]} -> {after} KiB "
                  f"(at most --max-sessions sessions held in memory; the rest continued from Redis)")
    finally:
        c.equal("deploy/replicas stop: exit status", deployment.stop(), 0)
    print(f"replicas-scale interop: {c.passed} passed, {c.failed} failed", flush=True)
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
