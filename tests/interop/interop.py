#!/usr/bin/env python3
"""Runs every interop suite (real MCP clients we did not write) against one MCP stdio server.

Usage: python3 tests/interop/interop.py [--only SUITE[,SUITE...]] [--log-dir DIR] [--profile full|typical] [--list]
           -- SERVER_COMMAND [ARGS...]

Suites (each a separate script, runnable on its own; see its header):
  python-legacy, python-modern, python-auto   python_client.py  (official Python SDK, mcp 2.x)
  ts-v1-legacy                                ts_client.mjs     (@modelcontextprotocol/sdk 1.x)
  ts-v2-legacy, ts-v2-modern, ts-v2-auto      ts_client.mjs     (@modelcontextprotocol/client 2.x)
  inspector-legacy, inspector-modern          inspector_cli.py  (@modelcontextprotocol/inspector 2.x CLI)
The *-auto suites use the client's era auto-detection; against a dual-era server it must pick modern.
--profile typical (the SDK suites, not the Inspector's): the server is the example device built with
the firmware's typical profile; the clients and the wire checks expect completion and subscriptions
answered -32601 and the tools that ask the client for input -32603 (see python_client.py).

The server is started through wiretap.py, which logs every stdio line to
.cache/interop/<suite>.wire.jsonl (--log-dir: another directory, for runs side by side). After each suite the log is checked for what clients do not
show: the JSON-RPC error codes on the wire, resultType / ttlMs / cacheScope in modern results, one
response per request, a clean stdout, and no crashed server process. A check over "every" message of
a kind needs at least one such message: over none it fails, so a server that answers nothing passes
nothing. What the *client* sent (that it used the requested era) is checked too, but reported apart,
as `client` checks: they make a suite fail when the client did not test what it claims, and they are
not counted as checks of our server. Peers come from .cache/peers (scripts/install-peers). Stdlib only.
Prints a table and `interop: N passed, M failed` last (N: checks of the server, by the client and on
the wire; M: every failure, client checks included); exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from wiretap import pair_answers, read_log
from paths import HERE, ROOT, VENV_PY, NPM_BIN, NODE, LOG_DIR

SUITE_TIMEOUT_S = 300

MODERN = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
CACHEABLE = {"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list",
             "resources/read"}
MISSING_RESOURCE_CODE = {"legacy": -32002, "modern": -32602}
CRASH_SIGNALS = {signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE}


@dataclass
class Suite:
    name: str
    era: str  # the era expected on the wire
    argv: list[str]  # client command; the (tapped) server command is appended after `--`
    passed: int = 0
    failed: int = 0
    wire_passed: int = 0
    wire_failed: int = 0
    client_passed: int = 0  # checks of what the client sent, not of the server
    client_failed: int = 0
    rc: int | None = None
    secs: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.rc == 0 and self.failed == 0 and self.wire_failed == 0 and self.client_failed == 0
                and self.passed > 0 and self.wire_passed > 0)


def suites() -> list[Suite]:
    py, ts, insp = (os.path.join(HERE, f) for f in ("python_client.py", "ts_client.mjs", "inspector_cli.py"))
    return [
        Suite("python-legacy", "legacy", [VENV_PY, py, "--era", "legacy"]),
        Suite("python-modern", "modern", [VENV_PY, py, "--era", "modern"]),
        Suite("python-auto", "modern", [VENV_PY, py, "--era", "auto"]),
        Suite("ts-v1-legacy", "legacy", [NODE, ts, "--sdk", "v1", "--era", "legacy"]),
        Suite("ts-v2-legacy", "legacy", [NODE, ts, "--sdk", "v2", "--era", "legacy"]),
        Suite("ts-v2-modern", "modern", [NODE, ts, "--sdk", "v2", "--era", "modern"]),
        Suite("ts-v2-auto", "modern", [NODE, ts, "--sdk", "v2", "--era", "auto"]),
        Suite("inspector-legacy", "legacy", [sys.executable, insp, "--era", "legacy"]),
        Suite("inspector-modern", "modern", [sys.executable, insp, "--era", "modern"]),
    ]


def parse_counts(line: str) -> tuple[int, int] | None:
    parts = line.strip().split()
    if len(parts) == 4 and parts[1] == "passed," and parts[3] == "failed" and parts[0].isdigit() and parts[2].isdigit():
        return int(parts[0]), int(parts[2])
    return None


def run_suite(s: Suite, server: list[str], profile: str = "full") -> None:
    log = os.path.join(LOG_DIR, f"{s.name}.wire.jsonl")
    if os.path.exists(log):
        os.remove(log)
    argv = [*s.argv, *(["--profile", profile] if profile != "full" else []),
            "--", sys.executable, os.path.join(HERE, "wiretap.py"), log, *server]
    env = dict(os.environ)
    env["PATH"] = NPM_BIN + os.pathsep + env.get("PATH", "")  # Node 22 first
    env["PYTHONUNBUFFERED"] = "1"
    print(f"\n---- {s.name} " + "-" * max(0, 70 - len(s.name)), flush=True)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, start_new_session=True, text=True, errors="replace")
    counts = None
    timed_out = False
    deadline = t0 + SUITE_TIMEOUT_S

    def watchdog() -> None:
        nonlocal timed_out
        while proc.poll() is None:
            if time.monotonic() > deadline:
                timed_out = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                return
            time.sleep(0.5)

    threading.Thread(target=watchdog, daemon=True).start()
    assert proc.stdout is not None
    for line in proc.stdout:
        print(line, end="", flush=True)
        c = parse_counts(line)
        if c is not None:
            counts = c
    s.rc = proc.wait()
    s.secs = time.monotonic() - t0
    if timed_out:
        s.notes.append(f"killed after {SUITE_TIMEOUT_S}s")
        print(f"  FAIL {s.name}: did not finish within {SUITE_TIMEOUT_S}s", flush=True)
    if counts is None:
        s.failed += 1
        print(f"  FAIL {s.name}: the client printed no 'N passed, M failed' line (exit {s.rc})", flush=True)
    else:
        s.passed, s.failed = counts
    check_wire(s, log, profile)


# What a typical-profile build answers in place of what it leaves out (see --profile).
TYPICAL_ABSENT = {"completion/complete": -32601, "resources/subscribe": -32601, "resources/unsubscribe": -32601}
INPUT_TOOLS = ("factory_reset", "explain_status", "export_target")


def check_wire(s: Suite, log: str, profile: str = "full") -> None:
    def check(name: str, ok: bool, detail: object = "") -> None:
        """A check of the server's behaviour on the wire."""
        if ok:
            s.wire_passed += 1
            print(f"  ok   wire: {name}", flush=True)
        else:
            s.wire_failed += 1
            d = detail if isinstance(detail, str) else json.dumps(detail, default=str)
            print(f"  FAIL wire: {name}: {d[:600]}", flush=True)

    def client_check(name: str, ok: bool, detail: object = "") -> None:
        """A check of what the client sent: reported apart, never counted as a check of the server."""
        if ok:
            s.client_passed += 1
            print(f"  ok   client: {name}", flush=True)
        else:
            s.client_failed += 1
            d = detail if isinstance(detail, str) else json.dumps(detail, default=str)
            print(f"  FAIL client: {name}: {d[:600]}", flush=True)

    def all_of(name: str, items: list, bad: list) -> None:
        """`name` holds for every one of `items` (`bad`: those it fails for); over no items it fails."""
        check(f"{name} ({len(items)} checked)", bool(items) and not bad,
              bad[:3] if bad else "nothing to check: no such message on the wire")

    try:
        conns, exits, bad_lines = read_log(log)
    except FileNotFoundError:
        check("server was started through the wiretap", False, f"no log at {log}")
        return
    if not conns:
        check("server was started through the wiretap", False, "the log is empty")
        return

    n_s2c = sum(1 for m in conns.values() for d, _ in m if d == "s2c")
    check(f"server stdout is only JSON-RPC 2.0 lines ({n_s2c} lines, {len(conns)} server processes)",
          n_s2c > 0 and not bad_lines, bad_lines[:3] or "the server wrote nothing")

    requests, unanswered, duplicate, stray = pair_answers(conns)  # requests: (request, response)
    check(f"every request answered exactly once ({len(requests)} requests)",
          bool(requests) and not unanswered and not duplicate and not stray,
          {"unanswered": unanswered[:3], "duplicate": duplicate[:3], "no such request": stray[:3]})

    # Only meaningful once the server served: a server that never started also never crashed.
    crashed = {pid: rc for pid, rc in exits.items()
               if rc == 101 or (rc < 0 and -rc in {int(x) for x in CRASH_SIGNALS})}
    check(f"no server process crashed (panic exit 101, SIGABRT, SIGSEGV, ...; {len(exits)} exits)",
          bool(requests) and not crashed, crashed or "no request was answered")

    def method(req: dict) -> str:
        return req.get("method", "")

    firsts = [next((m for d, m in msgs if d == "c2s" and isinstance(m, dict)), None) for msgs in conns.values()]
    sent = [m for msgs in conns.values() for d, m in msgs if d == "c2s" and isinstance(m, dict) and "method" in m]
    if s.era == "legacy":
        client_check("legacy: every connection starts with initialize",
                     bool(sent) and all(isinstance(f, dict) and f.get("method") == "initialize" for f in firsts),
                     [f.get("method") if isinstance(f, dict) else f for f in firsts])
        client_check("legacy: no server/discover sent",
                     bool(sent) and not any(m.get("method") == "server/discover" for m in sent),
                     "nothing was sent" if not sent else "server/discover was sent")
        inits = [resp for req, resp in requests if method(req) == "initialize"]
        check("legacy: initialize answered with protocolVersion 2025-11-25",
              bool(inits) and all((r.get("result") or {}).get("protocolVersion") == "2025-11-25" for r in inits),
              [r.get("result", r.get("error")) for r in inits][:2])
    else:
        client_check("modern: no initialize sent",
                     bool(sent) and not any(m.get("method") == "initialize" for m in sent),
                     "nothing was sent" if not sent else "initialize was sent")
        sent_requests = [m for m in sent if "id" in m]
        no_meta = [r for r in sent_requests
                   if ((r.get("params") or {}).get("_meta") or {}).get(META_VERSION) != MODERN]
        client_check(f"modern: every request carries _meta {META_VERSION}={MODERN}",
                     bool(sent_requests) and not no_meta, no_meta[:2] or "no request was sent")
        discovers = [resp for req, resp in requests if method(req) == "server/discover"]
        check("modern: server/discover answered with supportedVersions containing 2026-07-28",
              bool(discovers) and all(MODERN in ((r.get("result") or {}).get("supportedVersions") or [])
                                      for r in discovers), [r.get("result", r.get("error")) for r in discovers][:2])
        results = [(method(q), r) for q, r in requests if "result" in r]
        # "input_required" only where the spec allows it (the factory reset's confirmation).
        no_type = [(m, r) for m, r in results if (r["result"] or {}).get("resultType") != "complete"
                   and not ((r["result"] or {}).get("resultType") == "input_required"
                            and m in ("tools/call", "prompts/get", "resources/read"))]
        all_of("modern: every result has resultType \"complete\" (or \"input_required\" where allowed)",
               results, no_type)
        cacheable = [(method(q), r["result"]) for q, r in requests
                     if method(q) in CACHEABLE and isinstance(r.get("result"), dict)]
        no_cache = []
        for m, res in cacheable:
            ttl = res.get("ttlMs")
            if not (isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0
                    and res.get("cacheScope") in ("public", "private")):
                no_cache.append((m, {k: res.get(k) for k in ("ttlMs", "cacheScope")}))
        all_of("modern: cacheable results carry ttlMs >= 0 and cacheScope", cacheable, no_cache)

    # Progress on the wire (the TypeScript SDKs drop progress that arrives with the answer): every
    # calibrate call with a progressToken gets 1..4 of 4 for that token, before its answer.
    calibrations, wrong = [], []
    for msgs in conns.values():
        watching: dict[str, tuple[str, list]] = {}  # request id -> (token, progress seen)
        for d, m in msgs:
            if not isinstance(m, dict):
                continue
            params = m.get("params") or {}
            if d == "c2s" and m.get("method") == "tools/call" and params.get("name") == "calibrate":
                token = (params.get("_meta") or {}).get("progressToken")
                if token is not None:
                    watching[json.dumps(m.get("id"))] = (json.dumps(token), [])
            elif d == "s2c" and m.get("method") == "notifications/progress":
                for token, seen in watching.values():
                    if json.dumps(params.get("progressToken")) == token:
                        seen.append((params.get("progress"), params.get("total")))
            elif d == "s2c" and "id" in m and "method" not in m and json.dumps(m.get("id")) in watching:
                token, seen = watching.pop(json.dumps(m.get("id")))
                calibrations.append(seen)
                if seen != [(1, 4), (2, 4), (3, 4), (4, 4)]:
                    wrong.append(seen)
    if not s.name.startswith("inspector"):  # the SDK suites call calibrate; the Inspector's do not
        all_of("calibrate: progress 1..4 of 4 for the request's token, before its answer", calibrations, wrong)

    if profile == "typical":
        absent = [(method(q), r) for q, r in requests if method(q) in TYPICAL_ABSENT]
        all_of("typical profile: completion and subscriptions answered -32601", absent,
               [(m, r.get("error", r.get("result"))) for m, r in absent
                if (r.get("error") or {}).get("code") != TYPICAL_ABSENT[m]])
        asking = [r for q, r in requests if method(q) == "tools/call"
                  and (q.get("params") or {}).get("name") in INPUT_TOOLS]
        all_of("typical profile: the tools that ask for input answered -32603", asking,
               [r.get("error", r.get("result")) for r in asking if (r.get("error") or {}).get("code") != -32603])
        asked = [m for msgs in conns.values() for d, m in msgs if d == "s2c" and isinstance(m, dict)
                 and m.get("method") in ("elicitation/create", "sampling/createMessage", "roots/list")]
        check("typical profile: no request to the client", not asked, asked[:2])

    missing = [r for q, r in requests if method(q) == "resources/read"
               and (q.get("params") or {}).get("uri") == "device://missing"]
    want = MISSING_RESOURCE_CODE[s.era]
    check(f"resources/read device://missing -> error {want}",
          bool(missing) and all((r.get("error") or {}).get("code") == want for r in missing),
          [r.get("error", r.get("result")) for r in missing][:2] or "no such request was sent")
    unknown = [r for q, r in requests if method(q) == "tools/call"
               and (q.get("params") or {}).get("name") == "no_such_tool"]
    if unknown:
        check("tools/call no_such_tool -> error -32602",
              all((r.get("error") or {}).get("code") == -32602 for r in unknown),
              [r.get("error", r.get("result")) for r in unknown][:2])
    else:
        print("  note wire: the client sent no tools/call for an unknown tool (it checks tools/list first)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated suite names")
    ap.add_argument("--list", action="store_true", help="list the suites and exit")
    ap.add_argument("--log-dir", help="where the wire logs go (default .cache/interop)")
    ap.add_argument("--profile", choices=["full", "typical"], default="full",
                    help="the example device's build profile the server has (SDK suites only)")
    ap.add_argument("command", nargs="*", help="server command (after --)")
    a = ap.parse_args()

    all_suites = suites()
    if a.list:
        print("\n".join(s.name for s in all_suites))
        return 0
    if not a.command:
        ap.error("missing server command")
    if a.only:
        wanted = set(a.only.split(","))
        unknown = wanted - {s.name for s in all_suites}
        if unknown:
            ap.error(f"unknown suite(s): {', '.join(sorted(unknown))}")
        all_suites = [s for s in all_suites if s.name in wanted]
    if a.profile != "full" and any(s.name.startswith("inspector") for s in all_suites):
        ap.error("--profile is for the SDK suites: pick them with --only")

    server = list(a.command)
    exe = shutil.which(server[0]) if os.sep not in server[0] else server[0]
    if not exe or not os.access(exe, os.X_OK):
        print(f"interop: server command not found or not executable: {server[0]}", flush=True)
        print("interop: 0 passed, 1 failed")
        return 1
    server[0] = os.path.abspath(exe)

    missing = [p for p in (VENV_PY, NODE, os.path.join(NPM_BIN, "mcp-inspector")) if not os.path.exists(p)]
    if missing:
        print(f"interop: peers not installed ({', '.join(missing)}): run scripts/install-peers", flush=True)
        print("interop: 0 passed, 1 failed")
        return 1

    if a.log_dir:
        global LOG_DIR
        LOG_DIR = os.path.abspath(a.log_dir)
    os.makedirs(LOG_DIR, exist_ok=True)
    print(f"interop: server {' '.join(server)}; wire logs in {os.path.relpath(LOG_DIR, ROOT)}/", flush=True)
    for s in all_suites:
        run_suite(s, server, a.profile)

    print("\n==== interop summary " + "=" * 58)
    print("(client: the client's own checks of our server; wire: our checks of the server on the wire;")
    print(" sent: checks of what the client sent, not counted as passed checks of the server)")
    print(f"{'suite':<18} {'era':<7} {'client':>9} {'wire':>7} {'sent':>6} {'time':>7}  result")
    for s in all_suites:
        print(f"{s.name:<18} {s.era:<7} {f'{s.passed}/{s.passed + s.failed}':>9} "
              f"{f'{s.wire_passed}/{s.wire_passed + s.wire_failed}':>7} "
              f"{f'{s.client_passed}/{s.client_passed + s.client_failed}':>6} {s.secs:>6.1f}s  "
              f"{'ok' if s.ok else 'FAILED' + (f' (exit {s.rc})' if s.rc else '')}{'; ' + '; '.join(s.notes) if s.notes else ''}")
    passed = sum(s.passed + s.wire_passed for s in all_suites)
    failed = sum(s.failed + s.wire_failed + s.client_failed + (0 if s.rc == 0 or s.failed else 1)
                 for s in all_suites)
    for s in all_suites:
        print(f"interop {s.name}: {s.passed} client, {s.wire_passed} wire checks passed; "
              f"{s.failed + s.wire_failed} failed; {s.client_passed}/{s.client_passed + s.client_failed} "
              "checks of what the client sent", flush=True)
    print(f"interop: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 and all(s.ok for s in all_suites) else 1


if __name__ == "__main__":
    sys.exit(main())
