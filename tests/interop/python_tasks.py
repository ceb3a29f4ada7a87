#!/usr/bin/env python3
"""Interop test of 2025-11-25 tasks: the official Python SDK's tasks client follows the router's
tasks example (router/examples/tasks.rs) over stdio and over Streamable HTTP.

Usage: .cache/peers/venv-v1/bin/python tests/interop/python_tasks.py [--only stdio|http] [-- TASKS_COMMAND]
           (default: target/debug/examples/tasks)

The Python SDK's client for 2025-11-25's experimental tasks (`session.experimental`:
`call_tool_as_task`, `get_task`, `get_task_result`, `list_tasks`, `cancel_task`) is in its 1.x line
only; mcp 2.x removed it with the move of tasks into the 2026-07-28 extension. So this script runs
on .cache/peers/venv-v1 (mcp 1.30.0, tests/interop/requirements-v1.txt, installed by
scripts/install-peers), not on .cache/peers/venv.

The server's tools: `wait {ms}` (an optional task), `delete` (a required task that asks the user to
confirm), `forever` (an optional task that never ends). Each suite (stdio: the example started
through wiretap.py, which logs every line to .cache/interop/python-tasks.wire.jsonl; http: the
example with --http on a free loopback port) runs one client connection and checks, one per line:
  - initialize answered 2025-11-25, the server declaring task-augmented tools/call, tasks/list and
    tasks/cancel; tools/list names each tool's execution.taskSupport;
  - to completion: `wait` called as a task answers a CreateTaskResult at once (working, kept for
    the ttl the client asked for); tasks/get is polled (at the server's pollInterval) until
    completed; tasks/result gives the tool's result, its _meta naming the task (related-task);
  - an input round: `delete` as a task reads input_required; its question (elicitation/create
    naming the task in its related-task _meta) reaches the callback once, the answer reaches the
    tool, and tasks/result answers "deleted"; the task reads completed;
  - a cancellation: `forever` as a task, tasks/cancel answers cancelled and tasks/get reads
    cancelled from then on;
  - tasks/list lists the three tasks;
  - bad input: tasks/get of an unknown task id is an error (-32602); `delete` called without a
    task is refused (-32601: the tool requires one); `wait` called without a task is a plain call.
On stdio also on the wire: every client request answered exactly once, no server crash, the
question sent once, after the task read input_required (over stdio our server asks as soon as it
has told that status, as the TypeScript tasks client needs; over HTTP on the tasks/result stream).
Prints one line per check and `python-tasks interop: N passed, M failed` last (scripts/test
counts it with the interop checks); exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import socket
import subprocess
import sys
import time
import warnings
from datetime import timedelta
from typing import Any

import anyio

import mcp.types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from suite import Suite, summarize
from paths import HERE, ROOT, LOG_DIR

DEFAULT_SERVER = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"),
                              "debug", "examples", "tasks")
VERSION = "2025-11-25"
RELATED = "io.modelcontextprotocol/related-task"
REQUEST_TIMEOUT_S = 20
SUITE_TIMEOUT_S = 60
WAIT_MS = 300

# The SDK warns that this API goes away in 2.0; that is why it is pinned.
warnings.filterwarnings("ignore", category=DeprecationWarning)


def dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def error_of(e: BaseException) -> dict:
    if isinstance(e, McpError):
        return {"code": e.error.code, "message": e.error.message}
    return {"code": None, "message": f"{type(e).__name__}: {e}"}


async def run_checks(s: Suite, streams, asked: list[dict]) -> None:
    """The checks of one connection (`streams`: the transport's read and write streams)."""
    read, write = streams[0], streams[1]

    async def elicit(_ctx, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(dump(params))
        return types.ElicitResult(action="accept", content={"confirm": True})

    async with ClientSession(read, write, elicitation_callback=elicit,
                             read_timeout_seconds=timedelta(seconds=REQUEST_TIMEOUT_S)) as session:
        init = await session.initialize()
        s.equal("initialize: the negotiated protocol version", init.protocolVersion, VERSION)
        caps = dump(init.capabilities).get("tasks") or {}
        s.check("initialize: the server declares task-augmented tools/call, tasks/list, tasks/cancel",
                "call" in ((caps.get("requests") or {}).get("tools") or {}) and "list" in caps and "cancel" in caps,
                caps)
        tools = {t.name: dump(t) for t in (await session.list_tools()).tools}
        support = {name: (t.get("execution") or {}).get("taskSupport") for name, t in tools.items()}
        s.equal("tools/list: each tool's execution.taskSupport", support,
                {"wait": "optional", "delete": "required", "forever": "optional"})
        tasks = session.experimental

        # To completion.
        started = time.monotonic()  # before the call: the tool's timer starts after it
        created = await tasks.call_tool_as_task("wait", {"ms": WAIT_MS}, ttl=60_000)
        task = created.task
        s.check("wait as a task: CreateTaskResult at once, working, kept for the ttl asked (60000)",
                task.taskId and task.status == "working" and task.ttl == 60_000, dump(created))
        statuses = []
        async for status in tasks.poll_task(task.taskId):
            statuses.append(status.status)
        s.check("wait as a task: tasks/get polled until completed",
                statuses and statuses[-1] == "completed" and set(statuses) <= {"working", "completed"}, statuses)
        s.check(f"wait as a task: completed after its {WAIT_MS} ms", time.monotonic() - started >= WAIT_MS / 1000,
                f"{time.monotonic() - started:.3f}s")
        result = dump(await tasks.get_task_result(task.taskId, types.CallToolResult))
        s.equal("wait as a task: tasks/result gives the tool's result",
                [c.get("text") for c in result.get("content") or []], [f"waited {WAIT_MS} ms"])
        s.equal("wait as a task: the result's _meta names the task",
                ((result.get("_meta") or {}).get(RELATED) or {}).get("taskId"), task.taskId)

        # An input round.
        created = await tasks.call_tool_as_task("delete", {})
        delete = created.task.taskId
        status = created.task.status
        with anyio.fail_after(REQUEST_TIMEOUT_S):
            while status not in ("input_required", "completed", "failed", "cancelled"):
                await anyio.sleep((created.task.pollInterval or 100) / 1000)
                status = (await tasks.get_task(delete)).status
        s.equal("delete as a task: tasks/get reads input_required", status, "input_required")
        result = dump(await tasks.get_task_result(delete, types.CallToolResult))
        s.equal("delete as a task: the question asked once, through tasks/result", len(asked), 1)
        question = asked[0] if asked else {}
        s.check("delete as a task: the question is the tool's form (\"Delete everything?\", boolean confirm)",
                question.get("message") == "Delete everything?"
                and ((question.get("requestedSchema") or {}).get("properties") or {}).get("confirm", {}).get("type")
                == "boolean", question)
        s.equal("delete as a task: the question's _meta names the task",
                ((question.get("_meta") or {}).get(RELATED) or {}).get("taskId"), delete)
        s.equal("delete as a task: the answer reached the tool",
                [c.get("text") for c in result.get("content") or []], ["deleted"])
        s.equal("delete as a task: tasks/get reads completed", (await tasks.get_task(delete)).status, "completed")

        # A cancellation.
        forever = (await tasks.call_tool_as_task("forever", {})).task.taskId
        await anyio.sleep(0.1)
        cancelled = await tasks.cancel_task(forever)
        s.equal("forever as a task: tasks/cancel answers cancelled", cancelled.status, "cancelled")
        await anyio.sleep(0.2)
        s.equal("forever as a task: tasks/get reads cancelled", (await tasks.get_task(forever)).status, "cancelled")

        listed = {t.taskId: t.status for t in (await tasks.list_tasks()).tasks}
        s.equal("tasks/list lists the three tasks with their statuses",
                {k: listed.get(k) for k in (task.taskId, delete, forever)},
                {task.taskId: "completed", delete: "completed", forever: "cancelled"})

        # Bad input.
        try:
            got: Any = dump(await tasks.get_task("no-such-task"))
        except Exception as e:  # noqa: BLE001 - the error is the check
            got = error_of(e)
        s.equal("tasks/get of an unknown task id: error -32602", got.get("code"), -32602)
        try:
            got = dump(await session.call_tool("delete", {}))
        except Exception as e:  # noqa: BLE001
            got = error_of(e)
        s.equal("delete called without a task: refused with -32601", got.get("code"), -32601)
        got = dump(await session.call_tool("wait", {"ms": 10}))
        s.equal("wait called without a task: a plain call", [c.get("text") for c in got.get("content") or []],
                ["waited 10 ms"])


def check_wire(s: Suite, log: str) -> None:
    basics = s.wire_basics(log)
    if basics is None:
        return
    conns, _ = basics
    # Over stdio the question goes out once the task reads input_required: right after the
    # tasks/get that tells it (or on a tasks/result already waiting), never before.
    msgs = next(iter(conns.values()), [])
    asks = [i for i, (d, m) in enumerate(msgs) if d == "s2c" and isinstance(m, dict) and m.get("method") == "elicitation/create"]
    told = [i for i, (d, m) in enumerate(msgs) if d == "s2c" and isinstance(m, dict)
            and ((m.get("result") or {}).get("status") == "input_required"
                 or (m.get("params") or {}).get("status") == "input_required")]
    done = [i for i, (d, m) in enumerate(msgs) if d == "s2c" and isinstance(m, dict)
            and [c.get("text") for c in (m.get("result") or {}).get("content") or []] == ["deleted"]]
    s.wire("the question sent once, after the task read input_required, before its result",
           len(asks) == 1 and told and done and told[0] < asks[0] < done[0],
           {"questions": asks, "input_required": told, "result": done})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def run_suite(s: Suite, server: list[str]) -> None:
    asked: list[dict] = []
    started = time.monotonic()
    if s.name == "stdio":
        os.makedirs(LOG_DIR, exist_ok=True)
        log = os.path.join(LOG_DIR, "python-tasks.wire.jsonl")
        if os.path.exists(log):
            os.remove(log)
        params = StdioServerParameters(command=sys.executable,
                                       args=[os.path.join(HERE, "wiretap.py"), log, "--", *server])
        try:
            with anyio.fail_after(SUITE_TIMEOUT_S):
                async with stdio_client(params) as streams:
                    await run_checks(s, streams, asked)
        except BaseException as e:  # noqa: BLE001 - a crash is a failed check with its message
            if isinstance(e, KeyboardInterrupt):
                raise
            s.check("the client ran without a crash", False, f"{type(e).__name__}: {e}")
        check_wire(s, log)
    else:
        port = free_port()
        proc = subprocess.Popen([*server, "--http", f"127.0.0.1:{port}"], stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError(f"the server did not listen on {port}")
                    time.sleep(0.05)
            with anyio.fail_after(SUITE_TIMEOUT_S):
                async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                    await run_checks(s, streams, asked)
        except BaseException as e:  # noqa: BLE001
            if isinstance(e, KeyboardInterrupt):
                raise
            s.check("the client ran without a crash", False, f"{type(e).__name__}: {e}")
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        s.wire("the server ran until stopped", proc.returncode in (0, -15), proc.returncode)
    s.secs = time.monotonic() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["stdio", "http"])
    ap.add_argument("server", nargs="*", help="the tasks example's command (after --)")
    args = ap.parse_args()
    server = args.server or [DEFAULT_SERVER]
    print(f"python-tasks interop: mcp {md.version('mcp')} against {' '.join(server)}", flush=True)
    suites = [Suite(name, "python", VERSION) for name in ("stdio", "http") if args.only in (None, name)]
    for s in suites:
        print(f"\n---- {s.name} ----", flush=True)
        anyio.run(run_suite, s, server)
    return summarize("python-tasks", "python-tasks", suites)


if __name__ == "__main__":
    sys.exit(main())
