#!/usr/bin/env python3
"""A 2026-07-28 task on replicas behind nginx whose replica is killed (issues #25 and #27).

Usage: replicas_tasks.py [--server BIN] [--keep]     (target/debug/conformance-server)

Starts three replicas of the conformance server with `deploy/replicas start` (Redis between them,
nginx round robin in front; see replicas.py's Deployment), then:
- `tools/call slow_compute` (600 s) with the tasks extension, sent to replica 0 directly: a task,
  working, recorded in Redis (`mcp:task:<id>`) with its worker;
- `tasks/get` through nginx, whichever replica it reaches: working (the others ask replica 0);
- replica 0 killed (SIGKILL); `tasks/get` through nginx every half second: working until the
  replica asked finds replica 0 silent and its beat ended, then failed with a status message saying
  its replica stopped, within 15 s; never unknown;
- every replica asked afterwards: failed (the one that took it in answers for it).
Prints one line per check and `replicas-tasks interop: N passed, M failed` last; exits non-zero on
a failure. Run with the interpreter of .cache/peers/venv.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from checks import Checks  # noqa: E402
from replicas import ROOT, Deployment  # noqa: E402

TASKS = {"io.modelcontextprotocol/tasks": {}}


def request(id: int, method: str, params: dict) -> dict:
    """A 2026-07-28 request declaring the tasks extension."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": TASKS}}
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, "_meta": meta}}


def post(url: str, message: dict) -> dict:
    """POSTs `message` (its Mcp-Method and Mcp-Name headers from it); the JSON-RPC answer."""
    params = message["params"]
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": message["method"],
               "Mcp-Name": params.get("name") or params.get("taskId") or ""}
    req = urllib.request.Request(url, data=json.dumps(message).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=20) as response:
        body = response.read().decode()
    if body.lstrip().startswith("{"):
        return json.loads(body)
    data = [line[6:] for line in body.splitlines() if line.startswith("data: ") and line[6:].strip()]
    return json.loads(data[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    ap.add_argument("--server", default=os.path.join(target, "debug", "conformance-server"))
    ap.add_argument("--keep", action="store_true", help="keep the runtime directory")
    a = ap.parse_args()

    dep = Deployment(3, os.path.abspath(a.server))
    c = Checks("replicas-tasks")
    print(f"== deploy/replicas start --replicas 3 --port {dep.port} --dir {dep.dir} --server {a.server}", flush=True)
    try:
        if not c.equal("deploy/replicas start: exit status", dep.start(), 0):
            return finish(c, dep, a.keep)
        worker = f"http://{dep.addrs[0]}/mcp"
        call = request(1, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 600, "label": "lost"}})
        created = post(worker, call)
        task = (created.get("result") or {}).get("taskId")
        if not c.check("slow_compute on replica 0: a task", isinstance(task, str), created):
            return finish(c, dep, a.keep)
        c.equal("the task: working", created["result"].get("status"), "working")
        got = post(dep.url, request(2, "tasks/get", {"taskId": task}))
        c.equal("tasks/get through nginx before the kill: working", (got.get("result") or {}).get("status"),
                "working")

        dep.kill(0)
        started = time.monotonic()
        seen = []
        final: dict = {}
        while time.monotonic() - started < 15:
            got = post(dep.url, request(3 + len(seen), "tasks/get", {"taskId": task}))
            status = (got.get("result") or {}).get("status") or f"error {(got.get('error') or {}).get('code')}"
            seen.append(status)
            if status == "failed":
                final = got["result"]
                break
            time.sleep(0.5)
        took = time.monotonic() - started
        c.check(f"after the kill: failed within 15 s ({took:.1f} s, {len(seen)} polls)", bool(final), seen)
        c.check("after the kill: working until then, never unknown", set(seen) <= {"working", "failed"}, seen)
        c.check("the failure says its replica stopped", "stopped" in (final.get("statusMessage") or ""), final)
        for i, addr in enumerate(dep.living()):
            got = post(f"http://{addr}/mcp", request(100 + i, "tasks/get", {"taskId": task}))
            c.equal(f"tasks/get on {addr} afterwards: failed", (got.get("result") or {}).get("status"), "failed")
    except Exception as e:  # noqa: BLE001 - any crash is a failure with a clear message
        c.crash("replicas-tasks", e)
    return finish(c, dep, a.keep)


def finish(c: Checks, dep: Deployment, keep: bool) -> int:
    c.equal("deploy/replicas stop: exit status", dep.stop(), 0)
    c.finish()
    if c.failed == 0 and not keep:
        shutil.rmtree(dep.dir, ignore_errors=True)
    else:
        print(f"logs kept in {dep.dir}")
    print(f"replicas-tasks interop: {c.passed} passed, {c.failed} failed")
    return 0 if c.failed == 0 and c.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
