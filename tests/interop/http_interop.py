#!/usr/bin/env python3
"""Interop over Streamable HTTP: the official Python SDK's `Client` and the TypeScript SDK clients
against `mcp-device --http`.

Usage: http_interop.py -- MCP_DEVICE [ARGS...]

Starts the server on an ephemeral loopback port (`--http 127.0.0.1:0`), reads the URL it prints,
and runs the Python SDK 2.x `Client(url)` in `mode="auto"` (must come out 2026-07-28: stateless
POSTs, multi-round-trip input) and `mode="legacy"` (an initialize session with `Mcp-Session-Id`,
server-to-client requests on the request's stream, log messages, list changes and subscriptions).
Then the TypeScript SDK clients (`ts_client.mjs`): v2 legacy, modern and auto over Streamable
HTTP, v1 legacy over Streamable HTTP and over the deprecated 2024-11-05 HTTP+SSE transport (`/sse`).
The same checks as the stdio suites (`python_client.py`, `ts_client.mjs`). Prints one line per check and
`interop: N passed, M failed` last (the line scripts/test counts); exits non-zero on a failure.
Run with the interpreter of .cache/peers/venv.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import anyio  # noqa: E402
from checks import SERVER_NAME, TOOL_NAMES, Checks  # noqa: E402
from mcp.client.client import Client  # noqa: E402
from python_client import REQUEST_TIMEOUT_S, RUN_TIMEOUT_S, Events, exercise, exercise_surface  # noqa: E402

import mcp_types as types  # noqa: E402
from paths import HERE, NODE


def start_server(command: list[str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([*command, "--http", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        sys.stderr.write(line)
        found = re.search(r"serving (http://\S+/mcp)", line)
        if found:
            # Keep draining stderr so the server never blocks on it.
            threading.Thread(target=lambda: [sys.stderr.write(l) for l in proc.stderr], daemon=True).start()
            return proc, found.group(1)
    raise RuntimeError(f"mcp-device --http printed no URL (exit {proc.wait()})")


async def legacy(c: Checks, url: str) -> None:
    events = Events()
    info = types.Implementation(name="interop-python-http-legacy", version="0.0.0")
    async with Client(url, client_info=info, read_timeout_seconds=REQUEST_TIMEOUT_S, mode="legacy",
                      **events.callbacks()) as client:
        c.equal("legacy over HTTP: negotiated 2025-11-25", client.protocol_version, "2025-11-25")
        c.equal("legacy over HTTP: serverInfo.name", client.server_info.name if client.server_info else None,
                SERVER_NAME)
        tools = (await client.list_tools()).tools
        c.equal("legacy over HTTP: tools/list names in order", [t.name for t in tools], TOOL_NAMES)
        r = await client.call_tool("echo", {"message": "over http"})
        c.equal("legacy over HTTP: echo", [b.text for b in r.content if isinstance(b, types.TextContent)],
                ["over http"])
        await exercise_surface(c, client, "legacy", events)


async def auto(c: Checks, url: str) -> None:
    events = Events()
    info = types.Implementation(name="interop-python-http-auto", version="0.0.0")
    async with Client(url, client_info=info, read_timeout_seconds=REQUEST_TIMEOUT_S, log_level="info",
                      **events.callbacks()) as client:
        await exercise(c, client, "auto")
        await exercise_surface(c, client, "auto", events)


TS_SUITES = [("v2", "legacy", "http", "/mcp"), ("v2", "modern", "http", "/mcp"), ("v2", "auto", "http", "/mcp"),
             ("v1", "legacy", "http", "/mcp"), ("v1", "legacy", "sse", "/sse")]


def ts_suite(url: str, sdk: str, era: str, transport: str, path: str) -> tuple[int, int]:
    """One TypeScript SDK suite against the running server: (passed, failed)."""
    base = url.removesuffix("/mcp")
    command = [NODE, os.path.join(HERE, "ts_client.mjs"), "--sdk", sdk, "--era", era, "--transport", transport,
               "--url", base + path]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    counts = re.findall(r"^(\d+) passed, (\d+) failed$", done.stdout, re.M)
    if not counts:
        return 0, 1
    passed, failed = (int(x) for x in counts[-1])
    return passed, failed + (1 if done.returncode != 0 and failed == 0 else 0)


async def run(command: list[str]) -> int:
    proc, url = start_server(command)
    print(f"== python SDK Client over Streamable HTTP at {url}", flush=True)
    totals = [0, 0]
    try:
        for name, suite in (("python-http-auto", auto), ("python-http-legacy", legacy)):
            c = Checks(name)
            try:
                with anyio.fail_after(RUN_TIMEOUT_S):
                    await suite(c, url)
            except Exception as e:  # noqa: BLE001 - any crash is a failure with a clear message
                c.crash("client run", e)
            c.finish()
            totals[0] += c.passed
            totals[1] += c.failed
        for sdk, era, transport, path in TS_SUITES:
            passed, failed = await anyio.to_thread.run_sync(ts_suite, url, sdk, era, transport, path)
            totals[0] += passed
            totals[1] += failed
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"interop: {totals[0]} passed, {totals[1]} failed")
    return 0 if totals[1] == 0 and totals[0] > 0 else 1


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    return anyio.run(run, argv)


if __name__ == "__main__":
    sys.exit(main())
