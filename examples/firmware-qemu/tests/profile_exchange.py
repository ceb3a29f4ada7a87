#!/usr/bin/env python3
"""A firmware built in a reduced profile (the core's surface features) serves what the profile has
and answers the rest -32601, over its serial line under QEMU.

Usage: profile_exchange.py FIRMWARE_ELF --profile minimal|typical [--board BOARD] [--summary FILE]

- minimal (core features `legacy`): a legacy session serves tools only (the tool list in pages:
  the build's transmit buffer is 1 KiB); resources, prompts,
  completion, logging and subscriptions are -32601 and not declared; `server/discover` is -32601
  (a legacy server does not know it); a tool that asks the client for input fails with -32603.
- typical (`legacy`, `modern`, `resources`, `prompts`, `logging`): both eras; tools, resources,
  prompts and logging served; completion and subscriptions -32601; input -32603 as above.

Prints one line per check and `N passed, M failed` last; with --summary, writes the largest stack
peak the firmware reported (JSON). Stdlib only.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemu import BOARDS, DEFAULT_BOARD, Firmware, require_qemu, use_board  # noqa: E402
from serial_exchange import META, TOOLS, Checks, finish, line  # noqa: E402


def request(i: int, method: str, params: dict | None = None, modern: bool = False) -> dict:
    message: dict = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None or modern:
        message["params"] = {**(params or {}), **({"_meta": META} if modern else {})}
    return message


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("elf")
    ap.add_argument("--profile", choices=["minimal", "typical"], required=True)
    ap.add_argument("--summary")
    ap.add_argument("--board", choices=list(BOARDS), default=DEFAULT_BOARD)
    args = ap.parse_args()
    use_board(args.board)
    require_qemu()
    typical = args.profile == "typical"
    c = Checks()
    peaks: list[int] = []
    label = args.profile

    print(f"== {label}: a legacy session", flush=True)
    with Firmware(args.elf) as fw:
        fw.wait_ready()
        init = fw.request({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                                      "clientInfo": {"name": "t", "version": "1"}}})
        fw.send(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        capabilities = init.get("result", {}).get("capabilities", {})
        declared = sorted(k for k in ("tools", "resources", "prompts", "logging", "completions") if k in capabilities)
        want = ["logging", "prompts", "resources", "tools"] if typical else ["tools"]
        c.equal(f"{label}: capabilities declared", declared, want)
        c.check(f"{label}: no resource subscriptions declared",
                not capabilities.get("resources", {}).get("subscribe"), capabilities)
        # The whole list, page by page: the minimal build's 1 KiB transmit buffer holds a few
        # tools per page (typical's 4 KiB all of them).
        tools, pages, cursor = [], 0, None
        while pages < 20:
            page = fw.request(request(200 + pages, "tools/list", {"cursor": cursor} if cursor else None)).get("result", {})
            tools += page.get("tools", [])
            pages += 1
            cursor = page.get("nextCursor")
            if not cursor:
                break
        c.equal(f"{label}: tools/list names", [t.get("name") for t in tools], TOOLS)
        c.check(f"{label}: tools/list in {'pages' if not typical else 'one page'}", (pages > 1) != typical, pages)
        echo = fw.request(request(3, "tools/call", {"name": "echo", "arguments": {"message": "hé"}}))
        c.equal(f"{label}: echo", [x.get("text") for x in echo.get("result", {}).get("content", [])], ["hé"])
        led = fw.request(request(4, "tools/call", {"name": "set_led", "arguments": {"on": True}}))
        c.equal(f"{label}: set_led(true)", led.get("result", {}).get("structuredContent"), {"on": True})
        temperature = fw.request(request(6, "tools/call", {"name": "read_temperature", "arguments": {"sensor": "cpu"}}))
        reading = temperature.get("result", {}).get("structuredContent", {})
        c.check(f"{label}: read_temperature (structured, a number)",
                reading.get("sensor") == "cpu" and isinstance(reading.get("celsius"), (int, float)), temperature)
        reset = fw.request(request(5, "tools/call", {"name": "factory_reset", "arguments": {}}))
        c.equal(f"{label}: a tool asking for input fails (no input in this profile)",
                reset.get("error", {}).get("code"), -32603)

        served = {
            "resources/read": ({"uri": "device://status"}, typical),
            "resources/list": (None, typical),
            "prompts/get": ({"name": "diagnose", "arguments": {"symptom": "hot"}}, typical),
            "logging/setLevel": ({"level": "info"}, typical),
            "completion/complete": ({"ref": {"type": "ref/prompt", "name": "diagnose"},
                                     "argument": {"name": "symptom", "value": "h"}}, False),
            "resources/subscribe": ({"uri": "device://status"}, False),
            "server/discover": (None, False),
        }
        for i, (method, (params, on)) in enumerate(served.items(), start=10):
            answer = fw.request(request(i, method, params))
            if on:
                c.check(f"{label}: {method} served", "result" in answer, answer)
            else:
                c.equal(f"{label}: {method} is -32601", answer.get("error", {}).get("code"), -32601)
        c.equal(f"{label}: ping", fw.request({"jsonrpc": "2.0", "id": "last", "method": "ping"}).get("result"), {})
        fw.no_more_output(0.3)  # the firmware logs a new peak once idle
        peak = fw.stack_peak()
        if peak is not None:
            peaks.append(peak)

    print(f"== {label}: 2026-07-28", flush=True)
    with Firmware(args.elf) as fw:
        fw.wait_ready()
        discover = fw.request(request(1, "server/discover", modern=True))
        call = fw.request(request(2, "tools/call", {"name": "get_uptime", "arguments": {}}, modern=True))
        status = fw.request(request(3, "resources/read", {"uri": "device://status"}, modern=True))
        if typical:
            c.check(f"{label}: server/discover", "2026-07-28" in discover.get("result", {}).get("supportedVersions", []),
                    discover)
            c.check(f"{label}: get_uptime", isinstance(call.get("result", {}).get("structuredContent", {}).get("uptimeMs"), int),
                    call)
            c.check(f"{label}: device://status", "contents" in status.get("result", {}), status)
        else:
            # Without the modern era a modern request is a legacy one, and there is no session.
            c.equal(f"{label}: server/discover without a session is refused",
                    discover.get("error", {}).get("code"), -32602)
            c.equal(f"{label}: a call without a session is refused", call.get("error", {}).get("code"), -32602)
        c.check(f"{label}: QEMU is still running", fw.proc.poll() is None)
        fw.no_more_output(0.3)  # the firmware logs a new peak once idle
        peak = fw.stack_peak()
        if peak is not None:
            peaks.append(peak)

    return finish(c, peaks, args.summary, f"{label}: ")


if __name__ == "__main__":
    sys.exit(main())
