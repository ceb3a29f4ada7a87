#!/usr/bin/env python3
"""Interop test: the MCP Inspector CLI (@modelcontextprotocol/inspector 2.x) against an MCP stdio server.

Usage: inspector_cli.py --era legacy|modern [--inspector PATH] [--jobs N] -- SERVER_COMMAND [ARGS...]

Each check is one `mcp-inspector --cli --protocol-era ERA --method M ... --format json -- SERVER...`
run (so each starts its own server process). The Inspector reports only a result or a one-line
error envelope, not the JSON-RPC error code, so the error paths run the server through wiretap.py
and check the server's answer on the wire (the code), not the Inspector's wording. The Inspector
refuses a tool it did not see in tools/list without asking the server; that is reported as a check
of the client, not of the server.
Stdlib only. The default Inspector is .cache/peers/npm/node_modules/.bin/mcp-inspector, run with
the Node 22 found next to it. Prints one line per check and `N passed, M failed` last.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from paths import NPM_BIN  # noqa: E402
from checks import (  # noqa: E402
    ECHO_MESSAGE,
    MISSING_RESOURCE_CODE,
    RESOURCES,
    SERVER_NAME,
    SYMPTOM,
    TOOL_NAMES,
    Checks,
    b64_decode,
    is_int,
    is_number,
)

CALL_TIMEOUT_S = 60
EXIT_TOOL_ERROR = 5  # Inspector CLI: tool returned isError, or tool not found


@dataclass
class Run:
    argv: list[str]
    rc: int
    out: Any  # parsed stdout JSON, or None
    stdout: str
    stderr: str
    secs: float

    def describe(self) -> str:
        return f"rc={self.rc} stdout={self.stdout.strip()[:300]!r} stderr={self.stderr.strip()[-300:]!r}"

    def result(self) -> Any:
        return self.out.get("result") if isinstance(self.out, dict) else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--era", choices=["legacy", "modern"], required=True)
    ap.add_argument("--inspector", default=os.path.join(NPM_BIN, "mcp-inspector"))
    ap.add_argument("--jobs", type=int, default=2, help="Inspector runs at once (default 2)")
    ap.add_argument("command", nargs="+", help="server command (after --)")
    a = ap.parse_args()

    c = Checks(f"inspector-cli {a.era}")
    inspector = os.path.abspath(a.inspector)
    if not os.path.exists(inspector):
        c.check("inspector installed", False, f"{inspector} not found: run scripts/install-peers")
        return c.finish()

    state = tempfile.mkdtemp(prefix="mcp-inspector-")
    env = dict(os.environ)
    # Node 22 next to the Inspector first on PATH; keep the Inspector's files out of $HOME.
    env["PATH"] = os.path.dirname(inspector) + os.pathsep + env.get("PATH", "")
    env["MCP_CATALOG_PATH"] = os.path.join(state, "mcp.json")
    env["MCP_CLIENT_CONFIG_PATH"] = os.path.join(state, "client.json")
    env.setdefault("NO_COLOR", "1")

    version = subprocess.run([inspector, "--cli", "--version"], env=env, capture_output=True, text=True,
                             timeout=CALL_TIMEOUT_S).stdout.strip()
    print(f"== Inspector CLI {version or '?'}, --protocol-era {a.era}, server: {' '.join(a.command)}", flush=True)

    taps: dict[str, str] = {}  # call name -> wire log of its server

    def inspect(method: str, *extra: str, tap: str | None = None) -> Run:
        server = list(a.command)
        if tap is not None:
            taps[tap] = os.path.join(state, f"{tap.replace(' ', '_')}.wire.jsonl")
            server = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "wiretap.py"),
                      taps[tap], *server]
        argv = [inspector, "--cli", "--protocol-era", a.era, "--method", method, *extra, "--format", "json",
                "--", *server]
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=CALL_TIMEOUT_S,
                               stdin=subprocess.DEVNULL)
            rc, so, se = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, so, se = -1, "", f"timed out after {CALL_TIMEOUT_S}s"
        try:
            out = json.loads(so) if so.strip() else None
        except ValueError:
            out = None
        return Run(argv, rc, out, so, se, time.monotonic() - t0)

    calls: dict[str, tuple] = {
        "initialize": ("initialize",),
        "tools/list": ("tools/list",),
        "echo": ("tools/call", "--tool-name", "echo", "--tool-args-json", json.dumps({"message": ECHO_MESSAGE})),
        "read_temperature": ("tools/call", "--tool-name", "read_temperature"),
        "read_temperature(cpu)": ("tools/call", "--tool-name", "read_temperature", "--tool-arg", "sensor=cpu"),
        "set_led(true)": ("tools/call", "--tool-name", "set_led", "--tool-arg", "on=true"),
        "set_led(false)": ("tools/call", "--tool-name", "set_led", "--tool-args-json", '{"on": false}'),
        "get_uptime": ("tools/call", "--tool-name", "get_uptime"),
        "unknown tool": ("tools/call", "--tool-name", "no_such_tool"),
        "echo without message": ("tools/call", "--tool-name", "echo", "--tool-args-json", "{}"),
        "resources/list": ("resources/list",),
        "read status": ("resources/read", "--uri", "device://status"),
        "read calibration": ("resources/read", "--uri", "device://calibration"),
        "read missing": ("resources/read", "--uri", "device://missing"),
        "prompts/list": ("prompts/list",),
        "prompts/get": ("prompts/get", "--prompt-name", "diagnose", "--prompt-args", f"symptom={SYMPTOM}"),
    }
    tapped = {"unknown tool", "read missing"}
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {k: pool.submit(inspect, *v, tap=k if k in tapped else None) for k, v in calls.items()}
        runs = {k: f.result() for k, f in futures.items()}

    def wire_answers(call: str, method: str) -> tuple[list[dict], list[dict]]:
        """The requests for `method` the Inspector sent in `call`'s run, and the server's answers to them."""
        sent, answers = {}, {}
        try:
            with open(taps[call], encoding="utf-8") as f:
                for raw in f:
                    rec = json.loads(raw)
                    try:
                        msg = json.loads(rec.get("line", ""))
                    except ValueError:
                        continue
                    if not isinstance(msg, dict) or "id" not in msg:
                        continue
                    key = (rec["pid"], json.dumps(msg["id"]))
                    if rec["dir"] == "c2s" and msg.get("method") == method:
                        sent[key] = msg
                    elif rec["dir"] == "s2c" and "method" not in msg and key in sent:
                        answers[key] = msg
        except FileNotFoundError:
            pass
        return list(sent.values()), list(answers.values())

    def ok_result(name: str) -> Any:
        r = runs[name]
        c.check(f"{name}: exit 0 with a JSON result", r.rc == 0 and r.result() is not None, r.describe())
        return r.result() or {}

    res = ok_result("initialize")
    c.equal("initialize: serverInfo.name", (res.get("serverInfo") or {}).get("name"), SERVER_NAME)
    c.equal("initialize: protocolVersion", res.get("protocolVersion"),
            "2026-07-28" if a.era == "modern" else "2025-11-25")

    tools = ok_result("tools/list").get("tools") or []
    c.equal("tools/list: names in order", [t.get("name") for t in tools], TOOL_NAMES)
    c.check("tools/list: every inputSchema has type object",
            bool(tools) and all((t.get("inputSchema") or {}).get("type") == "object" for t in tools), tools)

    res = ok_result("echo")
    c.equal("echo: one text content equal to the message", res.get("content"), [{"type": "text", "text": ECHO_MESSAGE}])

    for name, sensor in (("read_temperature", "board"), ("read_temperature(cpu)", "cpu")):
        res = ok_result(name)
        sc = res.get("structuredContent")
        c.check(f"{name}: has text content", any(x.get("type") == "text" for x in res.get("content") or []), res)
        c.check(f"{name}: structuredContent {{sensor: {sensor}, celsius: number}}",
                isinstance(sc, dict) and sc.get("sensor") == sensor and is_number(sc.get("celsius")), sc)

    for name, on in (("set_led(true)", True), ("set_led(false)", False)):
        c.equal(f"{name}: structuredContent", ok_result(name).get("structuredContent"), {"on": on})

    sc = ok_result("get_uptime").get("structuredContent")
    c.check("get_uptime: structuredContent {uptimeMs: integer >= 0}",
            isinstance(sc, dict) and list(sc) == ["uptimeMs"] and is_int(sc["uptimeMs"]) and sc["uptimeMs"] >= 0, sc)

    r = runs["unknown tool"]
    sent, answers = wire_answers("unknown tool", "tools/call")
    if sent:
        codes = [(x.get("error") or {}).get("code") for x in answers]
        c.check("unknown tool: the server answers tools/call no_such_tool with -32602 (wire)",
                len(answers) == len(sent) and all(code == -32602 for code in codes), codes or "no answer")
    else:
        c.client_check("unknown tool: the Inspector refuses it itself (exit 5), nothing sent to the server",
                       r.rc == EXIT_TOOL_ERROR, r.describe())
    r = runs["echo without message"]
    c.check("echo without message: exit 5 and isError true",
            r.rc == EXIT_TOOL_ERROR and (r.result() or {}).get("isError") is True, r.describe())

    resources = {x.get("uri"): x for x in ok_result("resources/list").get("resources") or []}
    for uri, mime in RESOURCES.items():
        c.equal(f"resources/list: {uri} mimeType", (resources.get(uri) or {}).get("mimeType"), mime)

    contents = ok_result("read status").get("contents") or [{}]
    st = contents[0]
    c.equal("read device://status: mimeType", st.get("mimeType"), "application/json")
    try:
        doc = json.loads(st.get("text") or "")
    except ValueError:
        doc = None
    c.check("read device://status: text is JSON {led: bool, uptimeMs: int}",
            isinstance(doc, dict) and isinstance(doc.get("led"), bool) and is_int(doc.get("uptimeMs")), st)

    cal = (ok_result("read calibration").get("contents") or [{}])[0]
    c.equal("read device://calibration: mimeType", cal.get("mimeType"), "application/octet-stream")
    c.check("read device://calibration: valid non-empty base64 blob",
            isinstance(cal.get("blob"), str) and bool(b64_decode(cal["blob"])), cal)

    r = runs["read missing"]
    want = MISSING_RESOURCE_CODE[a.era]
    sent, answers = wire_answers("read missing", "resources/read")
    codes = [(x.get("error") or {}).get("code") for x in answers]
    c.check(f"read device://missing: the server answers with error {want} (wire)",
            bool(sent) and len(answers) == len(sent) and all(code == want for code in codes),
            f"sent {len(sent)}, answers {answers[:2]}")
    c.check("read device://missing: the Inspector fails without a result",
            bool(answers) and r.rc not in (0, -1) and r.result() is None, r.describe())

    prompts = ok_result("prompts/list").get("prompts") or []
    diag = next((p for p in prompts if p.get("name") == "diagnose"), None)
    c.check("prompts/list: diagnose with required argument symptom",
            diag is not None and any(x.get("name") == "symptom" and x.get("required") is True
                                     for x in diag.get("arguments") or []), prompts)

    msgs = ok_result("prompts/get").get("messages") or [{}]
    m0 = msgs[0]
    content = m0.get("content") or {}
    c.check("prompts/get diagnose: messages[0] is a user text message containing the symptom",
            m0.get("role") == "user" and content.get("type") == "text" and SYMPTOM in (content.get("text") or ""), m0)

    slowest = max(runs.items(), key=lambda kv: kv[1].secs)
    print(f"  ({len(runs)} Inspector runs, {sum(r.secs for r in runs.values()):.1f}s in total, "
          f"slowest {slowest[0]} {slowest[1].secs:.1f}s)", flush=True)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
