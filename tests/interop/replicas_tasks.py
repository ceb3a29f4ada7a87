#!/usr/bin/env python3
"""Tasks on replicas behind nginx, in both eras, and a task whose replica is killed (issues #25, #27).

Usage: replicas_tasks.py [--server BIN] [--mcp BIN] [--keep]   (target/debug/conformance-server, target/debug/mcp)

Starts three replicas of the conformance server with `deploy/replicas start` (Redis between them,
nginx round robin in front; see replicas.py's Deployment), then:
- `tools/call slow_compute` (600 s) with the tasks extension, sent to replica 0 directly: a task,
  working, recorded in Redis (`mcp:task:<id>`) with its worker;
- `tasks/get` through nginx, whichever replica it reaches: working (the others ask replica 0);
- replica 0 killed (SIGKILL); `tasks/get` through nginx every half second: working until the
  replica asked finds replica 0 silent and its beat ended, then failed with a status message saying
  its replica stopped, within 15 s; never unknown;
- every replica asked afterwards: failed (the one that took it in answers for it);
- before the kill, a 2-second task started through nginx and polled through nginx to completed.
The same in a 2025-11-25 session opened through nginx (its state shared through Redis): a task
(`params.task`) polled through nginx (each poll another replica) to completion and read with
`tasks/result`; `confirm_delete` as a task, whose question comes on the stream of a `tasks/result`
sent through nginx and whose answer, POSTed through nginx, reaches the replica running the task;
`mcp call --task` (our client) runs `confirm_delete` through nginx, answering its question; a task
started on replica 0 ends failed once replica 0 is killed.
Prints one line per check and `replicas-tasks interop: N passed, M failed` last; exits non-zero on
a failure. Run with the interpreter of .cache/peers/venv.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from checks import Checks  # noqa: E402
from replicas import ROOT, Deployment, RawHttp, RawSession  # noqa: E402

TASKS = {"io.modelcontextprotocol/tasks": {}}
# nginx's answer to a POST sent on its kept connection to the killed replica: not moved on to
# another replica, since the killed one may have run it (deploy/nginx.conf.template); asked again.
GONE = "http 502"


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


def legacy_session(c: Checks, addr: str) -> RawSession:
    """A 2025-11-25 session (taking elicitation) opened and initialized through `addr`."""
    s = RawSession()
    r, init = s.post(addr, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                                          "clientInfo": {"name": "interop-replicas-tasks", "version": "0.0.0"}})
    s.id = r.headers.get("mcp-session-id")
    tasks = (((init or {}).get("result") or {}).get("capabilities") or {}).get("tasks") or {}
    c.check("2025-11-25 session through nginx: task-augmented tools/call declared",
            bool(s.id) and "call" in ((tasks.get("requests") or {}).get("tools") or {}), (r.status, init))
    s.post(addr, "notifications/initialized", notify=True)
    return s


def legacy_task(s: RawSession, addr: str, name: str, arguments: dict) -> str | None:
    """`name` called as a 2025-11-25 task through `addr`: its id."""
    _, created = s.post(addr, "tools/call", {"name": name, "arguments": arguments, "task": {"ttl": 600_000}})
    task = ((created or {}).get("result") or {}).get("task") or {}
    return task.get("taskId")


def poll(s: RawSession, addr: str, task: str, until: set[str], seconds: float) -> list[str]:
    """`tasks/get` through `addr` every 0.3 s until a status in `until` (or `seconds` passed): the
    statuses read (an error as `error <code>`)."""
    seen: list[str] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s.next_id += 1
        asked = {"jsonrpc": "2.0", "id": s.next_id, "method": "tasks/get", "params": {"taskId": task}}
        r = RawHttp(addr, "POST", asked, s.headers())
        try:
            r.read(20)
        finally:
            r.close()
        if r.status == 502:
            seen.append(GONE)
            continue
        got = json.loads([d for _, d in r.events() if d][-1] if r.sse() else r.body)
        seen.append((got.get("result") or {}).get("status") or f"error {(got.get('error') or {}).get('code')}")
        if seen[-1] in until:
            break
        time.sleep(0.3)
    return seen


def legacy_tasks(c: Checks, dep: Deployment, mcp: str) -> tuple[RawSession, str | None]:
    """The 2025-11-25 checks before the kill: the session, and the id of its task on replica 0."""
    nginx = dep.url.split("//", 1)[1].split("/", 1)[0]
    s = legacy_session(c, nginx)
    task = legacy_task(s, nginx, "slow_compute", {"seconds": 2, "label": "legacy"})
    if c.check("2025-11-25: slow_compute as a task through nginx", isinstance(task, str), task):
        seen = poll(s, nginx, task, {"completed", "failed", "cancelled"}, 15)
        c.check(f"2025-11-25: polled through nginx to completed ({len(seen)} polls, each another replica)",
                seen[-1:] == ["completed"] and set(seen) <= {"working", "completed"} and len(seen) >= 3, seen)
        _, result = s.post(nginx, "tasks/result", {"taskId": task})
        text = (((result or {}).get("result") or {}).get("content") or [{}])[0].get("text", "")
        c.check("2025-11-25: tasks/result through nginx: the computation's result", "Result: 42" in text, result)

    task = legacy_task(s, nginx, "confirm_delete", {"filename": "notes.txt"})
    if c.check("2025-11-25: confirm_delete as a task through nginx", isinstance(task, str), task):
        seen = poll(s, nginx, task, {"input_required", "completed", "failed", "cancelled"}, 10)
        c.equal("2025-11-25: confirm_delete reads input_required", seen[-1:], ["input_required"])
        s.next_id += 1
        read = {"jsonrpc": "2.0", "id": s.next_id, "method": "tasks/result", "params": {"taskId": task}}
        stream = RawHttp(nginx, "POST", read, s.headers())
        try:
            events = [json.loads(d) for _, d in stream.wait_events(2, 10) if d]
            question = next((m for m in events if m.get("method") == "elicitation/create"), {})
            related = ((question.get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/related-task")
            c.check("2025-11-25: the question comes on the tasks/result stream, naming the task",
                    related == {"taskId": task}, events)
            answer = {"jsonrpc": "2.0", "id": question.get("id"),
                      "result": {"action": "accept", "content": {"confirm": True}}}
            posted = RawHttp(nginx, "POST", answer, s.headers())
            posted.close()
            c.equal("2025-11-25: the answer POSTed through nginx: 202", posted.status, 202)
            end = time.monotonic() + 10
            while not any(m.get("id") == s.next_id for m in events) and time.monotonic() < end:
                events += [json.loads(d) for _, d in stream.wait_events(1, 1) if d]
            done = next((m for m in events if m.get("id") == s.next_id), {})
            text = (((done.get("result") or {}).get("content")) or [{}])[0].get("text")
            c.equal("2025-11-25: tasks/result answers once the answer reached the task", text, "Deleted 'notes.txt'")
        finally:
            stream.close()

    _, listed = s.post(nginx, "tasks/list", {})
    ids = {t.get("taskId") for t in ((listed or {}).get("result") or {}).get("tasks", [])}
    c.check("2025-11-25: tasks/list through nginx lists both tasks, whichever replicas hold them",
            len(ids) == 2 and None not in ids, listed)

    # Our client, `mcp`, through nginx: a task with a question, followed to its end.
    done = subprocess.run([mcp, "--era", "legacy", "--elicit", 'accept:{"confirm":true}', "call", "--task",
                           dep.url, "confirm_delete", "filename=plan.txt"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    c.check("2025-11-25: `mcp call --task` through nginx answers the question, the task ends completed",
            done.returncode == 0 and "Deleted 'plan.txt'" in done.stdout and "input_required" in done.stderr
            and "completed" in done.stderr, (done.returncode, done.stdout, done.stderr))

    lost = legacy_task(s, dep.addrs[0], "slow_compute", {"seconds": 600, "label": "lost"})
    c.check("2025-11-25: slow_compute as a task on replica 0", isinstance(lost, str), lost)
    if lost:
        seen = poll(s, nginx, lost, {"working"}, 3)
        c.equal("2025-11-25: tasks/get through nginx before the kill: working", seen[-1:], ["working"])
    return s, lost


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    ap.add_argument("--server", default=os.path.join(target, "debug", "conformance-server"))
    ap.add_argument("--mcp", default=os.path.join(target, "debug", "mcp"), help="our command-line client")
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

        # A task started through nginx, polled to completion through nginx (each poll another replica).
        call = request(50, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 2, "label": "done"}})
        done = (post(dep.url, call).get("result") or {}).get("taskId")
        statuses: list[str] = []
        end = time.monotonic() + 15
        while done and time.monotonic() < end and statuses[-1:] != ["completed"]:
            time.sleep(0.3)
            got = post(dep.url, request(51 + len(statuses), "tasks/get", {"taskId": done}))
            statuses.append((got.get("result") or {}).get("status") or f"error {(got.get('error') or {}).get('code')}")
        c.check(f"a task through nginx polled to completed ({len(statuses)} polls, each another replica)",
                statuses[-1:] == ["completed"] and set(statuses) <= {"working", "completed"} and len(statuses) >= 3,
                statuses)
        if statuses[-1:] == ["completed"]:
            result = ((got.get("result") or {}).get("result") or {}).get("content") or [{}]
            c.check("its result, read through nginx: the computation's", "Result: 42" in result[0].get("text", ""),
                    got)

        session, lost = legacy_tasks(c, dep, os.path.abspath(a.mcp))

        dep.kill(0)
        started = time.monotonic()
        seen = []
        final: dict = {}
        while time.monotonic() - started < 15:
            try:
                got = post(dep.url, request(3 + len(seen), "tasks/get", {"taskId": task}))
            except urllib.error.HTTPError as e:
                if e.code != 502:
                    raise
                seen.append(GONE)
                continue
            status = (got.get("result") or {}).get("status") or f"error {(got.get('error') or {}).get('code')}"
            seen.append(status)
            if status == "failed":
                final = got["result"]
                break
            time.sleep(0.5)
        took = time.monotonic() - started
        c.check(f"after the kill: failed within 15 s ({took:.1f} s, {len(seen)} polls)", bool(final), seen)
        c.check("after the kill: working until then, never unknown", set(seen) <= {"working", "failed", GONE}, seen)
        c.check("the failure says its replica stopped", "stopped" in (final.get("statusMessage") or ""), final)
        for i, addr in enumerate(dep.living()):
            got = post(f"http://{addr}/mcp", request(100 + i, "tasks/get", {"taskId": task}))
            c.equal(f"tasks/get on {addr} afterwards: failed", (got.get("result") or {}).get("status"), "failed")
        if lost:
            # The 2025-11-25 task of replica 0: failed too, through nginx and on each living replica.
            nginx = dep.url.split("//", 1)[1].split("/", 1)[0]
            seen = poll(session, nginx, lost, {"failed"}, 15)
            c.check("2025-11-25 after the kill: failed, never unknown", seen[-1:] == ["failed"]
                    and set(seen) <= {"working", "failed", GONE}, seen)
            for addr in dep.living():
                _, got = session.post(addr, "tasks/get", {"taskId": lost})
                result = (got or {}).get("result") or {}
                c.check(f"2025-11-25: tasks/get on {addr} afterwards: failed, saying its replica stopped",
                        result.get("status") == "failed" and "stopped" in (result.get("statusMessage") or ""), got)
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
