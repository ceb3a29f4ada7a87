#!/usr/bin/env python3
"""The smallest server (src/bin/small.rs, built in the minimal profile) over its serial line under
QEMU: a legacy session serves its four tools and nothing else; malformed, over-long and fragmented
input is answered and the firmware serves on.

Usage: small_exchange.py FIRMWARE_ELF [--summary FILE]

Prints one line per check and `N passed, M failed` last; with --summary, writes the largest stack
peak the firmware reported (JSON, for footprint.py --stack-summary). Stdlib only.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemu import Firmware, require_qemu  # noqa: E402
from serial_exchange import META, Checks, finish, line  # noqa: E402

RX_BYTES = 512  # src/bin/small.rs
TOOLS = ["echo", "set_led", "get_led", "count"]


def call(i: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def texts(answer: dict) -> list:
    return [x.get("text") for x in answer.get("result", {}).get("content", [])]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("elf")
    ap.add_argument("--summary")
    args = ap.parse_args()
    require_qemu()
    c = Checks()

    print("== small: a legacy session", flush=True)
    with Firmware(args.elf) as fw:
        fw.wait_ready()
        init = fw.request({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "t", "version": "1"}}})
        result = init.get("result", {})
        c.equal("initialize: 2025-11-25", result.get("protocolVersion"), "2025-11-25")
        c.equal("initialize: only tools declared", result.get("capabilities"), {"tools": {}})
        c.equal("initialize: serverInfo", result.get("serverInfo"), {"name": "small", "version": "0.1.0"})
        fw.send(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))

        tools = fw.request({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).get("result", {})
        c.equal("tools/list: the table's four tools, in order", [t.get("name") for t in tools.get("tools", [])], TOOLS)
        c.check("tools/list: each has a description and an object input schema",
                all(t.get("description") and t.get("inputSchema", {}).get("type") == "object"
                    for t in tools.get("tools", [])), tools)
        c.check("tools/list: one page", "nextCursor" not in tools, tools)

        message = 'hé "quoted" \\ back\nslash \u2603'
        c.equal("echo: the message back, escapes and non-ASCII kept", texts(fw.request(call(3, "echo", {"message": message}))),
                [message])
        bad = fw.request(call(4, "echo", {}))
        c.check("echo without a message: a tool error (isError)", bad.get("result", {}).get("isError") is True, bad)
        c.equal("set_led(true)", texts(fw.request(call(5, "set_led", {"on": True}))), ["on"])
        c.equal("get_led after it", texts(fw.request(call(6, "get_led", {}))), ["on"])
        bad = fw.request(call(7, "set_led", {"on": "yes"}))
        c.check("set_led with a string: a tool error (isError)", bad.get("result", {}).get("isError") is True, bad)
        c.equal("count, twice", [texts(fw.request(call(i, "count", {}))) for i in (8, 9)], [["1"], ["2"]])
        fw.send(b'{"jsonrpc":"2.0","id":11,"method":"tools/call",'
                b'"params":{"name":"ech\\u006f","arguments":{"message":"by an escaped name"}}}\n')
        c.equal("a tool named with an escape (\"ech\\u006f\"): echo", texts(fw.recv()), ["by an escaped name"])
        unknown = fw.request(call(10, "no_such_tool", {}))
        c.equal("an unknown tool: -32602", unknown.get("error", {}).get("code"), -32602)

        for i, method in enumerate(["resources/list", "resources/read", "prompts/list", "prompts/get",
                                    "completion/complete", "logging/setLevel", "resources/subscribe"], start=20):
            answer = fw.request({"jsonrpc": "2.0", "id": i, "method": method, "params": {}})
            c.equal(f"{method}: -32601 (not in this build)", answer.get("error", {}).get("code"), -32601)
        discover = fw.request({"jsonrpc": "2.0", "id": 30, "method": "server/discover", "params": {"_meta": META}})
        c.equal("server/discover (2026-07-28): -32601, a legacy-only server does not know it",
                discover.get("error", {}).get("code"), -32601)

        fragmented = line(call(40, "echo", {"message": "in pieces"}))
        fw.send(fragmented, chunk=7, pause=0.01)
        c.equal("a request sent 7 bytes at a time", texts(fw.recv()), ["in pieces"])
        fw.send(b"{not json\n")
        a = fw.recv()
        c.check("malformed JSON: -32700 with id null", a.get("error", {}).get("code") == -32700 and a.get("id") is None, a)
        long = b'{"jsonrpc":"2.0","id":41,"method":"ping","params":{"pad":"' + b"x" * (2 * RX_BYTES) + b'"}}\n'
        fw.send(long + line({"jsonrpc": "2.0", "id": 42, "method": "ping"}))
        a, b = fw.recv(), fw.recv()
        c.check(f"over-long line ({len(long)} bytes): -32600, id null",
                a.get("error", {}).get("code") == -32600 and a.get("id") is None, a)
        c.equal("the request after it is answered", b, {"jsonrpc": "2.0", "id": 42, "result": {}})
        c.check("QEMU is still running", fw.proc.poll() is None)
        fw.no_more_output(0.3)  # the firmware logs a new peak once idle
        peak = fw.stack_peak()

    return finish(c, [] if peak is None else [peak], args.summary)


if __name__ == "__main__":
    sys.exit(main())
