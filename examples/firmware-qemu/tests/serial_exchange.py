#!/usr/bin/env python3
"""Hand-written MCP exchanges with the QEMU firmware over its serial line (`-serial stdio`).

Usage: serial_exchange.py FIRMWARE_ELF [--board BOARD] [--summary FILE]

Checks, each on a fresh QEMU: a legacy-era session (initialize, tools, resources, prompt), a
modern-era session (server/discover and per-request `_meta`), the same session sent one byte per
write and as one burst, CRLF line endings, and malformed, over-long and binary lines, each answered
per JSON-RPC with the firmware serving on afterwards. Prints one line per check and
`N passed, M failed` last; with --summary, writes the largest stack peak the firmware reported (JSON).
--board: the QEMU machine the ELF is for (tests/qemu.py's BOARDS; lm3s6965evb by default). Stdlib only.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemu import BOARDS, DEFAULT_BOARD, Firmware, require_qemu, use_board  # noqa: E402

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "serial-exchange", "version": "0"}}
TOOLS = ["echo", "read_temperature", "set_led", "get_uptime", "calibrate", "enable_blink", "factory_reset",
         "explain_status", "export_target"]
RX_BYTES = 768  # keep in sync with RX_BYTES in src/main.rs


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: object = "") -> bool:
        if ok:
            self.passed += 1
            print(f"  ok   {name}", flush=True)
        else:
            self.failed += 1
            text = detail if isinstance(detail, str) else json.dumps(detail)
            print(f"  FAIL {name}: {text[:500]}", flush=True)
        return ok

    def equal(self, name: str, got: object, want: object) -> bool:
        return self.check(name, got == want, f"expected {want!r}, got {got!r}")


def line(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def legacy_session(init_version: str = "2025-06-18") -> list[dict]:
    """A full legacy-era session; ids are 1.."""
    msgs: list[dict] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": init_version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "echo", "arguments": {"message": "héllo \u2713 \"q\" \\ back"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read_temperature", "arguments": {"sensor": "cpu"}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "set_led", "arguments": {"on": True}}},
        {"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "device://status"}},
        {"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "device://calibration"}},
        {"jsonrpc": "2.0", "id": 8, "method": "prompts/get", "params": {"name": "diagnose", "arguments": {"symptom": "LED dark"}}},
        {"jsonrpc": "2.0", "id": 9, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 10, "method": "prompts/list"},
        {"jsonrpc": "2.0", "id": 11, "method": "no/such/method"},
        {"jsonrpc": "2.0", "id": "last", "method": "ping"},
    ]
    return msgs


def check_legacy_answers(c: Checks, label: str, answers: list[dict], init_version: str = "2025-06-18") -> None:
    by_id = {json.dumps(a.get("id")): a for a in answers}
    c.equal(f"{label}: one answer per request, in order", [a.get("id") for a in answers],
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "last"])
    init = by_id.get("1", {}).get("result", {})
    c.equal(f"{label}: initialize protocolVersion", init.get("protocolVersion"), init_version)
    c.equal(f"{label}: serverInfo.name", init.get("serverInfo", {}).get("name"), "mcp-device")
    c.check(f"{label}: capabilities tools/resources/prompts",
            all(k in init.get("capabilities", {}) for k in ("tools", "resources", "prompts")), init)
    tools = by_id.get("2", {}).get("result", {}).get("tools", [])
    c.equal(f"{label}: tools/list names", [t.get("name") for t in tools], TOOLS)
    echo = by_id.get("3", {}).get("result", {})
    c.equal(f"{label}: echo text", [x.get("text") for x in echo.get("content", [])], ["héllo \u2713 \"q\" \\ back"])
    temp = by_id.get("4", {}).get("result", {}).get("structuredContent", {})
    c.check(f"{label}: read_temperature(cpu) structured", temp.get("sensor") == "cpu"
            and isinstance(temp.get("celsius"), (int, float)), temp)
    c.equal(f"{label}: set_led(true)", by_id.get("5", {}).get("result", {}).get("structuredContent"), {"on": True})
    status = by_id.get("6", {}).get("result", {}).get("contents", [{}])[0]
    try:
        doc = json.loads(status.get("text", ""))
    except ValueError:
        doc = None
    c.check(f"{label}: device://status JSON with led=true", isinstance(doc, dict) and doc.get("led") is True, status)
    blob = by_id.get("7", {}).get("result", {}).get("contents", [{}])[0]
    c.equal(f"{label}: device://calibration blob", base64.b64decode(blob.get("blob", "")),
            bytes([0x4d, 0x43, 0x50, 0x01, 0x00, 0x10, 0xff, 0x7f, 0x02, 0x9a]))
    msgs = by_id.get("8", {}).get("result", {}).get("messages", [])
    c.check(f"{label}: prompts/get diagnose mentions the symptom",
            bool(msgs) and "LED dark" in msgs[0].get("content", {}).get("text", ""), msgs)
    res = by_id.get("9", {}).get("result", {}).get("resources", [])
    c.equal(f"{label}: resources/list", sorted(r.get("uri") for r in res), ["device://calibration", "device://status"])
    prompts = by_id.get("10", {}).get("result", {}).get("prompts", [])
    c.equal(f"{label}: prompts/list", [p.get("name") for p in prompts], ["diagnose"])
    c.equal(f"{label}: unknown method is -32601", by_id.get("11", {}).get("error", {}).get("code"), -32601)
    c.equal(f"{label}: ping", by_id.get('"last"', {}).get("result"), {})


def exchange(elf: str, data: bytes, expected: int, chunk: int | None = None, pause: float = 0.0) -> tuple[list[dict], Firmware]:
    fw = Firmware(elf)
    fw.wait_ready()
    fw.send(data, chunk=chunk, pause=pause)
    answers = [fw.recv(timeout=20) for _ in range(expected)]
    return answers, fw


def finish(c: Checks, peaks: list[int], summary: str | None, label: str = "") -> int:
    """The end of an exchange script: checks that the firmware reported a stack peak (the largest of
    `peaks`; written as JSON to `summary`, if given, for footprint.py --stack-summary), prints
    `N passed, M failed` and returns the exit status."""
    peak = max(peaks) if peaks else None
    c.check(f"{label}the firmware reported its stack peak ({peak} B)", peak is not None and 0 < peak < 16384, peaks)
    if summary:
        with open(summary, "w") as f:
            json.dump({"stack_peak_bytes": peak}, f)
    print(f"{c.passed} passed, {c.failed} failed", flush=True)
    return 0 if c.failed == 0 and c.passed > 0 else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("elf")
    ap.add_argument("--summary")
    ap.add_argument("--board", choices=list(BOARDS), default=DEFAULT_BOARD)
    args = ap.parse_args()
    use_board(args.board)
    require_qemu()
    c = Checks()
    peaks: list[int] = []

    def done(fw: Firmware) -> None:
        peak = fw.stack_peak()
        if peak is not None:
            peaks.append(peak)
        fw.close()

    session = legacy_session()
    data = b"".join(line(m) for m in session)
    requests = sum(1 for m in session if "id" in m)

    # 0. A client that writes at once, before the firmware has even set up its UART (SDK clients
    #    do): nothing of it may be lost (the UART set-up must not discard what it holds). QEMU starts
    #    with the CPU stopped, the request is written, then the CPU boots.
    print("== a request that arrives before the firmware boots", flush=True)
    fw = Firmware(args.elf, paused=True)
    fw.send(line(session[0]))
    time.sleep(0.3)
    fw.resume()
    first = fw.recv()
    c.check("the first request, sent before boot, is answered whole", first.get("id") == 1 and "result" in first, first)
    done(fw)

    # 1. One request at a time, waiting for each answer (the way SDK clients talk).
    print("== legacy era, request by request", flush=True)
    with Firmware(args.elf) as fw:
        fw.wait_ready()
        answers = []
        for m in session:
            fw.send(line(m))
            if "id" in m:
                answers.append(fw.recv())
        check_legacy_answers(c, "legacy", answers)
        c.check("legacy: nothing but answers and notifications on the serial line", fw.no_more_output(),
                fw.stdout_bytes[-200:])
        logs = [n for n in fw.notifications if n.get("method") == "notifications/message"]
        c.check("legacy: the sensor read was logged to the client (notifications/message, level info)",
                len(logs) >= 1 and all(n["params"]["level"] == "info" and n["params"]["logger"] == "sensors"
                                       for n in logs), fw.notifications)
        c.check("legacy: the firmware logged the session on stderr",
                any("session started: 2025-06-18" in l for l in fw.stderr_lines), fw.stderr_lines)
        done(fw)

    print("== legacy era 2025-11-25, one byte per write", flush=True)
    session_1125 = legacy_session("2025-11-25")
    data_1125 = b"".join(line(m) for m in session_1125)
    answers, fw = exchange(args.elf, data_1125, requests, chunk=1)
    check_legacy_answers(c, "byte-at-a-time", answers, "2025-11-25")
    done(fw)

    print("== legacy era, the whole session ten times in one burst", flush=True)
    burst = data + b"".join(line({**m, "id": f"b{i}-{m['id']}"} if "id" in m else m)
                            for i in range(9) for m in session[2:])
    burst_requests = requests + 9 * (requests - 1)
    t0 = time.monotonic()
    answers, fw = exchange(args.elf, burst, burst_requests)
    c.check(f"burst: {burst_requests} answers in order ({len(burst)} bytes in, {time.monotonic() - t0:.2f}s)",
            [a.get("id") for a in answers[:12]] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "last"]
            and [a.get("id") for a in answers[12:14]] == ["b0-2", "b0-3"], [a.get("id") for a in answers[:16]])
    check_legacy_answers(c, "burst", answers[:12])
    c.check("burst: every answer is a result or the expected -32601",
            all("result" in a or a.get("error", {}).get("code") == -32601 for a in answers), answers[-3:])
    done(fw)

    print("== modern era (2026-07-28), CRLF line endings", flush=True)
    with Firmware(args.elf) as fw:
        fw.wait_ready()
        def modern(i: int, method: str, params: dict | None = None) -> dict:
            return {"jsonrpc": "2.0", "id": i, "method": method, "params": {**(params or {}), "_meta": META}}
        msgs = [modern(1, "server/discover"), modern(2, "tools/list"),
                modern(3, "tools/call", {"name": "get_uptime", "arguments": {}}),
                modern(4, "resources/read", {"uri": "device://status"}),
                modern(5, "prompts/get", {"name": "diagnose", "arguments": {"symptom": "hot"}}),
                modern(6, "resources/read", {"uri": "device://missing"})]
        fw.send(b"".join(line(m)[:-1] + b"\r\n" for m in msgs))
        answers = [fw.recv() for _ in msgs]
        by_id = {a.get("id"): a for a in answers}
        disc = by_id.get(1, {}).get("result", {})
        c.check("modern: server/discover supports 2026-07-28", MODERN in disc.get("supportedVersions", []), disc)
        c.equal("modern: serverInfo in _meta", disc.get("_meta", {}).get("io.modelcontextprotocol/serverInfo", {}).get("name"),
                "mcp-device")
        tl = by_id.get(2, {}).get("result", {})
        c.equal("modern: tools/list names", [t.get("name") for t in tl.get("tools", [])], TOOLS)
        c.equal("modern: tools/list resultType and cache hints", (tl.get("resultType"), tl.get("ttlMs"), tl.get("cacheScope")),
                ("complete", 60000, "public"))
        c.check("modern: get_uptime integer", isinstance(by_id.get(3, {}).get("result", {}).get("structuredContent", {}).get("uptimeMs"), int),
                by_id.get(3))
        c.check("modern: device://status", "contents" in by_id.get(4, {}).get("result", {}), by_id.get(4))
        c.check("modern: prompt mentions the symptom", "hot" in json.dumps(by_id.get(5, {}).get("result", {})), by_id.get(5))
        c.equal("modern: missing resource is -32602", by_id.get(6, {}).get("error", {}).get("code"), -32602)
        done(fw)

    print("== malformed, over-long and binary input; the firmware serves on", flush=True)
    with Firmware(args.elf) as fw:
        fw.wait_ready()
        ping = lambda i: line({"jsonrpc": "2.0", "id": i, "method": "ping"})  # noqa: E731
        fw.send(b"{not json\n")
        a = fw.recv()
        c.check("malformed JSON: -32700 with id null", a.get("error", {}).get("code") == -32700 and a.get("id") is None, a)
        fw.send(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}} trailing\n')
        a = fw.recv()
        c.check("trailing garbage: -32700", a.get("error", {}).get("code") == -32700, a)
        long = b'{"jsonrpc":"2.0","id":8,"method":"ping","params":{"pad":"' + b"x" * (3 * RX_BYTES) + b'"}}\n'
        fw.send(long + ping(9))
        a, b = fw.recv(), fw.recv()
        c.check(f"over-long line ({len(long)} bytes): -32600, id null", a.get("error", {}).get("code") == -32600
                and a.get("id") is None, a)
        c.equal("the request after the over-long line is answered", b, {"jsonrpc": "2.0", "id": 9, "result": {}})
        fw.send(bytes(range(256)).replace(b"\n", b"") + b"\n" + ping(10))
        a, b = fw.recv(), fw.recv()
        c.check("binary garbage: -32700", a.get("error", {}).get("code") == -32700, a)
        c.equal("the request after the garbage is answered", b, {"jsonrpc": "2.0", "id": 10, "result": {}})
        fw.send(b'[{"jsonrpc":"2.0","id":11,"method":"ping"}]\n' + b"\n   \n" + b'{"jsonrpc":"2.0","id":12}\n' + ping(13))
        answers = [fw.recv(), fw.recv(), fw.recv()]
        c.check("batch, blank lines and an envelope without method: answered, serving on",
                answers[-1] == {"jsonrpc": "2.0", "id": 13, "result": {}}
                and all("error" in x or "result" in x for x in answers), answers)
        fw.send(b'{"jsonrpc":"2.0","id":"cut-off","method":"ping"')  # no newline: not answered
        c.check("a line without its newline is not answered yet", fw.no_more_output(0.5))
        fw.send(b"}\n")
        c.equal("...and is answered once the rest and the newline arrive", fw.recv(), {"jsonrpc": "2.0", "id": "cut-off", "result": {}})
        c.check("the firmware reported the rejected lines on stderr",
                sum("rejected" in l or "frame dropped" in l for l in fw.stderr_lines) >= 3, fw.stderr_lines)
        c.check("QEMU is still running", fw.proc.poll() is None)
        done(fw)

    return finish(c, peaks, args.summary)


if __name__ == "__main__":
    sys.exit(main())
