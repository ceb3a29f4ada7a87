#!/usr/bin/env python3
"""Interop test of the typed tools: official SDK clients against router/examples/structured_output.rs
(and, from scripts/test-firmware, the same tools with the core's no_std layer on the QEMU firmware
through mcp-serial: examples/firmware-qemu/src/bin/typed.rs).

Usage: .cache/peers/venv/bin/python tests/interop/typed_tools.py [--only SUITE[,SUITE...]] [--list]
           [--log-dir DIR] [-- SERVER_COMMAND [ARGS...]]     (default: target/release/examples/structured_output)

Build the server first: cargo build --release -p mcp-sansio-router --example structured_output.
Run with the interpreter of .cache/peers/venv (scripts/install-peers): it needs the Python SDK and
`jsonschema` (pinned in requirements.txt).

Suites, one per client and protocol version (the server is one process per suite, started through
wiretap.py, which logs every stdio line to .cache/interop/typed-<suite>.wire.jsonl, or DIR):
  python-2024-11-05, python-2025-03-26, python-2025-06-18
                       Python SDK `ClientSession`, its `initialize` request sent by hand with the older
                       protocolVersion (`ClientSession.initialize()` always offers 2025-11-25), then
                       `adopt()` and `notifications/initialized`, as `initialize()` does
  python-2025-11-25    Python SDK `ClientSession.initialize()`
  python-2026-07-28    Python SDK `ClientSession.discover()` (stateless era)
  ts-v1-2025-11-25     TypeScript SDK v1 (typed_tools.mjs --sdk v1; legacy only)
  ts-v2-2025-11-25     TypeScript SDK v2, versionNegotiation {mode: 'legacy'}
  ts-v2-2026-07-28     TypeScript SDK v2, versionNegotiation {mode: {pin: '2026-07-28'}}

Every suite makes the same calls (CALLS) and gets the same checks, on what the client showed:
  - the protocol version negotiated on the wire is the suite's;
  - tools/list lists get_weather, calculate, get_info; every inputSchema (and outputSchema, from
    2025-06-18 on; none before, the field did not exist) passes `check_schema` of the dialect of the
    version: JSON Schema 2020-12 from 2025-06-18 on (2025-11-25 made it the default dialect), draft-07
    before; and of the dialect the schema declares in `$schema`; in a 2020-12 session a declared
    `$schema` is 2020-12; in a draft-07 session the schema uses no keyword whose meaning differs
    between the drafts, and declares draft-07 or no `$schema` (a draft-07 validator, Ajv's default
    class for one, refuses to compile a schema whose `$schema` is 2020-12);
  - the arguments of each call validate against the tool's inputSchema, the invalid ones do not;
  - get_weather (3 calls) and calculate average: structuredContent (from 2025-06-18 on) validates
    against the outputSchema and holds the expected values, a text block carries the same JSON
    (the only output before 2025-06-18); calculate with an unknown operation and with no numbers:
    isError with the tool's message; get_info: its text;
  - arguments that do not match the schema: from 2025-11-25 on (and in 2026-07-28) a tool result with
    isError: true whose text is `Invalid arguments: <path>: ...` naming the field; before 2025-11-25 a
    JSON-RPC error -32602 with that message;
and on the wire (wire: lines): stdout only JSON-RPC, every request answered once, no crash, and the
answer to each invalid call in the form its version prescribes.

A check that fails because of a known bug of OUR server is listed in OUR_SERVER_BUGS: it still fails
and counts (its line says which bug); a note is printed once it passes, so the entry can go.
Prints one line per check, `interop typed-<suite>: P client, W wire checks passed; F failed; ...` per
suite and `typed-tools interop: N passed, M failed` last (scripts/test counts it with the interop
checks); exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

import anyio
import jsonschema
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.validators import validator_for

import mcp_types as types
from suite import Suite, summarize
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from paths import HERE, ROOT, NPM_BIN, NODE, LOG_DIR

DEFAULT_SERVER = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"),
                              "release", "examples", "structured_output")
REQUEST_TIMEOUT_S = 20
SUITE_TIMEOUT_S = 90

MODERN = "2026-07-28"
VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN]
TOOL_NAMES = ["get_weather", "calculate", "get_info"]
STRUCTURED = {"get_weather", "calculate"}  # tools with an outputSchema (from 2025-06-18 on)
DRAFT7_URIS = {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"}
DRAFT2020_URI = "https://json-schema.org/draft/2020-12/schema"
# Keywords whose meaning differs between draft-07 and 2020-12 (or that exist in only one of them).
DIALECT_SENSITIVE = {"$defs", "definitions", "prefixItems", "dependentRequired", "dependentSchemas", "dependencies",
                     "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$dynamicAnchor",
                     "$recursiveRef", "$recursiveAnchor", "$anchor", "additionalItems", "$vocabulary"}


def structured_era(v: str) -> bool:  # outputSchema / structuredContent exist (2025-06-18)
    return v >= "2025-06-18"


def draft2020(v: str) -> bool:  # the schema dialect of the version: 2020-12 from 2025-11-25 (SEP-1613)
    return v >= "2025-11-25"


def tool_error_for_arguments(v: str) -> bool:  # invalid arguments are a tool execution error (2025-11-25)
    return v >= "2025-11-25"


@dataclass
class Call:
    label: str
    name: str
    arguments: dict
    valid: bool  # whether the arguments match the input schema
    field: str = ""  # invalid: the path the answer must name ("numbers", "numbers[1]", ...)
    missing: bool = False  # invalid: the field is missing (serde: missing field `city`)


CALLS = [
    Call("get_weather Paris", "get_weather", {"city": "Paris"}, True),
    Call("get_weather Boston fahrenheit", "get_weather", {"city": "Boston", "units": "fahrenheit"}, True),
    Call("get_weather Oslo units null", "get_weather", {"city": "Oslo", "units": None}, True),
    Call("calculate average", "calculate", {"numbers": [1, 2, 3, 4], "operation": "average"}, True),
    Call("calculate unknown operation", "calculate", {"numbers": [1, 2], "operation": "modulo"}, True),
    Call("calculate no numbers", "calculate", {"numbers": [], "operation": "sum"}, True),
    Call("get_info", "get_info", {}, True),
    Call("invalid: calculate numbers \"1,2\"", "calculate", {"numbers": "1,2", "operation": "sum"}, False, "numbers"),
    Call("invalid: calculate numbers [1, \"x\"]", "calculate", {"numbers": [1, "x"], "operation": "sum"}, False,
         "numbers[1]"),
    Call("invalid: get_weather without city", "get_weather", {}, False, "city", missing=True),
    Call("invalid: get_weather units 5", "get_weather", {"city": "Rome", "units": 5}, False, "units"),
]

# Checks that fail because of a known bug of OUR server: (suite name regex, check name regex) -> the bug.
# They still fail and count; a note is printed when one passes.
# (Empty: the one it held, a 2020-12 `$schema` declared to clients of versions before 2025-11-25, is
# fixed: the router sends no `$schema`.)
OUR_SERVER_BUGS: dict[tuple[str, str], str] = {}


def suites() -> list[Suite]:
    out = [Suite(f"python-{v}", "python", v) for v in VERSIONS]
    out += [Suite("ts-v1-2025-11-25", "ts-v1", "2025-11-25"), Suite("ts-v2-2025-11-25", "ts-v2", "2025-11-25"),
            Suite(f"ts-v2-{MODERN}", "ts-v2", MODERN)]
    for s in out:
        s.bugs = OUR_SERVER_BUGS
    return out


# --- the clients: each returns {"tools": [...], "calls": {label: {"result"|"error": ...}}, "crash": ...} ---

def dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def observe_python(s: Suite, server: list[str]) -> dict:
    observed: dict[str, Any] = {"tools": None, "calls": {}, "crash": None, "version": None}
    params = StdioServerParameters(command=server[0], args=server[1:])
    info = types.Implementation(name=f"typed-tools-python-{s.version}", version="0.0.0")
    try:
        with anyio.fail_after(SUITE_TIMEOUT_S):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT_S,
                                         client_info=info) as session:
                    if s.version == MODERN:
                        await session.discover()
                    elif s.version == "2025-11-25":
                        await session.initialize()
                    else:
                        # What ClientSession.initialize() does, with an older protocolVersion.
                        result = await session.send_request(
                            types.InitializeRequest(params=types.InitializeRequestParams(
                                protocol_version=s.version, capabilities=types.ClientCapabilities(),
                                client_info=info)),
                            types.InitializeResult)
                        session.adopt(result)
                        await session.send_notification(types.InitializedNotification())
                    observed["version"] = session.protocol_version
                    observed["tools"] = [dump(t) for t in (await session.list_tools()).tools]
                    for call in CALLS:
                        try:
                            r = await session.call_tool(call.name, call.arguments)
                            observed["calls"][call.label] = {"result": dump(r)}
                        except MCPError as e:
                            observed["calls"][call.label] = {"error": {"code": e.code, "message": e.message,
                                                                       "name": "MCPError"}}
                        except Exception as e:  # noqa: BLE001 - e.g. the SDK's output schema validation
                            observed["calls"][call.label] = {"error": {"code": None, "message": str(e),
                                                                       "name": type(e).__name__}}
    except BaseException as e:  # noqa: BLE001 - a crash is a failure with a message
        if isinstance(e, KeyboardInterrupt):
            raise
        observed["crash"] = f"{type(e).__name__}: {e}"
    return observed


def observe_ts(s: Suite, server: list[str]) -> dict:
    calls = json.dumps([{"label": c.label, "name": c.name, "arguments": c.arguments} for c in CALLS])
    era = "modern" if s.version == MODERN else "legacy"
    argv = [NODE, os.path.join(HERE, "typed_tools.mjs"), "--sdk", s.client.removeprefix("ts-"), "--era", era,
            "--calls", calls, "--", *server]
    env = dict(os.environ)
    env["PATH"] = NPM_BIN + os.pathsep + env.get("PATH", "")
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=SUITE_TIMEOUT_S, env=env,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"crash": f"typed_tools.mjs did not finish within {SUITE_TIMEOUT_S}s"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("OBSERVED ")]
    if not lines:
        return {"crash": f"typed_tools.mjs printed no observation (exit {p.returncode}): "
                         f"{p.stdout[-400:]} {p.stderr[-400:]}"}
    observed = json.loads(lines[-1][len("OBSERVED "):])
    if observed.get("sdk"):
        print(f"  (client: {observed['sdk']} on node {observed.get('node')})", flush=True)
    return observed


# --- the checks -----------------------------------------------------------------------------------

def texts(result: dict) -> list[str]:
    return [c.get("text") for c in result.get("content") or [] if c.get("type") == "text"]


def check_schema(s: Suite, where: str, schema: Any) -> None:
    """`schema` is a JSON Schema of the version's dialect and of the one it declares."""
    if not s.check(f"{where}: is an object schema (type \"object\")",
                   isinstance(schema, dict) and schema.get("type") == "object", schema):
        return
    dialect = Draft202012Validator if draft2020(s.version) else Draft7Validator
    dname = "2020-12" if draft2020(s.version) else "draft-07"
    try:
        dialect.check_schema(schema)
        s.check(f"{where}: valid JSON Schema {dname} ({dialect.__name__}.check_schema)", True)
    except jsonschema.SchemaError as e:
        s.check(f"{where}: valid JSON Schema {dname} ({dialect.__name__}.check_schema)", False, str(e))
    declared = schema.get("$schema")
    declared_cls = validator_for(schema, default=None)
    if declared is not None:
        if s.check(f"{where}: declares a $schema the jsonschema package knows ({declared})",
                   declared_cls is not None, declared) and declared_cls is not dialect:
            try:
                declared_cls.check_schema(schema)
                s.check(f"{where}: valid JSON Schema of its declared $schema ({declared_cls.__name__})", True)
            except jsonschema.SchemaError as e:
                s.check(f"{where}: valid JSON Schema of its declared $schema ({declared_cls.__name__})", False,
                        str(e))
    if draft2020(s.version):
        s.check(f"{where}: declares 2020-12 or no $schema", declared in (None, DRAFT2020_URI), declared)
    else:
        used = sorted(k for k in _keywords(schema) if k in DIALECT_SENSITIVE)
        s.check(f"{where}: no keyword whose meaning differs between draft-07 and 2020-12", not used, used)
        s.check(f"{where}: declares draft-07 or no $schema", declared is None or declared in DRAFT7_URIS,
                {"$schema": declared})


def _keywords(schema: Any) -> set[str]:
    """Every key used in a schema, at any depth, except the names under `properties`."""
    out: set[str] = set()
    if isinstance(schema, dict):
        for k, v in schema.items():
            out.add(k)
            if k == "properties" and isinstance(v, dict):
                for sub in v.values():
                    out |= _keywords(sub)
            else:
                out |= _keywords(v)
    elif isinstance(schema, list):
        for v in schema:
            out |= _keywords(v)
    return out


def validator(s: Suite, schema: dict):
    cls = Draft202012Validator if draft2020(s.version) else Draft7Validator
    return cls(schema)


def check_observed(s: Suite, observed: dict) -> None:
    if observed.get("crash"):
        s.check("client run", False, observed["crash"])
    if observed.get("version") is not None:
        s.equal("the client's negotiated protocol version", observed["version"], s.version)
    tools = observed.get("tools")
    if not s.check("tools/list answered", isinstance(tools, list), observed.get("crash") or tools):
        return
    by_name = {t.get("name"): t for t in tools}
    s.equal("tools/list: the three tools, in order", [t.get("name") for t in tools], TOOL_NAMES)
    schemas = {}
    for name in TOOL_NAMES:
        t = by_name.get(name)
        if t is None:
            continue
        check_schema(s, f"{name}.inputSchema", t.get("inputSchema"))
        if structured_era(s.version) and name in STRUCTURED:
            if s.check(f"{name}: has an outputSchema", isinstance(t.get("outputSchema"), dict), t):
                check_schema(s, f"{name}.outputSchema", t["outputSchema"])
        else:
            why = "the field is from 2025-06-18" if name in STRUCTURED else "a text tool"
            s.check(f"{name}: no outputSchema ({why})", "outputSchema" not in t, t.get("outputSchema"))
        schemas[name] = t
    declared = sorted({str(sch.get("$schema")) for t in schemas.values()
                       for sch in (t.get("inputSchema"), t.get("outputSchema")) if isinstance(sch, dict)})
    print(f"  note the schemas declare $schema: {', '.join(declared)} (protocol {s.version})", flush=True)

    calls = observed.get("calls") or {}
    for call in CALLS:
        t = schemas.get(call.name)
        if t is not None and isinstance(t.get("inputSchema"), dict):
            errors = list(validator(s, t["inputSchema"]).iter_errors(call.arguments))
            if call.valid:
                s.check(f"{call.label}: the arguments validate against the inputSchema", not errors,
                        [e.message for e in errors])
            else:
                s.check(f"{call.label}: the arguments do not validate against the inputSchema", bool(errors),
                        f"the schema accepts {call.arguments}")
        got = calls.get(call.label)
        if got is None:
            s.check(f"{call.label}: called", False, "no answer observed")
            continue
        if not call.valid:
            check_invalid(s, call, got)
            continue
        if not s.check(f"{call.label}: a result", "result" in got, got):
            continue
        check_result(s, call, got["result"], t)


def check_invalid(s: Suite, call: Call, got: dict) -> None:
    # "numbers" must be named as the path the message starts with, e.g. `numbers: invalid type` or
    # `numbers[1]: invalid type`; a missing field is named as serde says it: missing field `city`.
    pattern = (rf"^Invalid arguments: missing field `{re.escape(call.field)}`"
               if call.missing
               else rf"^Invalid arguments: {re.escape(call.field)}: ")
    if tool_error_for_arguments(s.version):
        r = got.get("result")
        if s.check(f"{call.label}: a tool result with isError true ({s.version})",
                   isinstance(r, dict) and r.get("isError") is True, got):
            tx = texts(r)
            s.check(f"{call.label}: the text names `{call.field}` ({pattern})",
                    len(tx) == 1 and re.search(pattern, tx[0] or "") is not None, tx)
            s.check(f"{call.label}: no structuredContent", "structuredContent" not in r, r)
    else:
        e = got.get("error")
        if s.check(f"{call.label}: JSON-RPC error -32602 ({s.version})",
                   isinstance(e, dict) and e.get("code") == -32602, got):
            s.check(f"{call.label}: the message names `{call.field}` ({pattern})",
                    re.search(pattern, e.get("message") or "") is not None, e.get("message"))


def check_result(s: Suite, call: Call, r: dict, tool: dict | None) -> None:
    tx = texts(r)
    if call.name == "get_info":
        s.check("get_info: not isError", not r.get("isError"), r)
        s.equal("get_info: its text", tx, ["Structured Output Example Server v1.0"])
        s.check("get_info: no structuredContent", "structuredContent" not in r, r)
        return
    if call.label in ("calculate unknown operation", "calculate no numbers"):
        want = "Unknown operation: modulo" if "unknown" in call.label else "No numbers provided"
        s.check(f"{call.label}: isError true", r.get("isError") is True, r)
        s.equal(f"{call.label}: its text", tx, [want])
        s.check(f"{call.label}: no structuredContent", "structuredContent" not in r, r)
        return
    if call.name == "get_weather":
        city = call.arguments["city"]
        want = {"temperature": 72.5 if call.arguments.get("units") == "fahrenheit" else 22.5,
                "description": f"Partly cloudy in {city}", "humidity": 65, "wind_speed": 12.5}
    else:
        want = {"result": 2.5, "operation": "average", "input_count": 4}
    s.check(f"{call.label}: not isError", not r.get("isError"), r)
    try:
        from_text = json.loads(tx[0]) if len(tx) == 1 else None
    except ValueError:
        from_text = None
    s.equal(f"{call.label}: one text block with the result as JSON", from_text, want)
    sc = r.get("structuredContent")
    if not structured_era(s.version):
        s.check(f"{call.label}: no structuredContent (the field is from 2025-06-18)", sc is None, r)
        return
    s.equal(f"{call.label}: structuredContent", sc, want)
    schema = (tool or {}).get("outputSchema")
    if isinstance(schema, dict) and sc is not None:
        errors = list(validator(s, schema).iter_errors(sc))
        s.check(f"{call.label}: structuredContent validates against the outputSchema", not errors,
                [e.message for e in errors])


def check_wire(s: Suite, log: str) -> None:
    """What the clients hide: the answers on the wire."""
    basics = s.wire_basics(log)
    if basics is None:
        return
    conns, pairs = basics

    if s.version == MODERN:
        disc = [r for q, r in pairs if q.get("method") == "server/discover"]
        s.wire("server/discover answered with 2026-07-28 in supportedVersions",
               disc and all(MODERN in ((r.get("result") or {}).get("supportedVersions") or []) for r in disc), disc)
        calls = [q for q, _ in pairs if q.get("method") == "tools/call"]
        s.wire("every tools/call carries _meta protocolVersion 2026-07-28 (the client used the era)",
               calls and all(((q.get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
                             == MODERN for q in calls), calls[:1])
    else:
        inits = [(q, r) for q, r in pairs if q.get("method") == "initialize"]
        s.wire(f"initialize offered and answered with protocolVersion {s.version}",
               len(inits) == 1 and (inits[0][0].get("params") or {}).get("protocolVersion") == s.version
               and (inits[0][1].get("result") or {}).get("protocolVersion") == s.version,
               [(q.get("params", {}).get("protocolVersion"), r.get("result", r.get("error"))) for q, r in inits])
    for call in CALLS:
        if call.valid:
            continue
        answers = [r for q, r in pairs if q.get("method") == "tools/call"
                   and (q.get("params") or {}).get("name") == call.name
                   and (q.get("params") or {}).get("arguments") == call.arguments]
        if tool_error_for_arguments(s.version):
            s.wire(f"{call.label}: a result with isError true, no JSON-RPC error",
                   len(answers) == 1 and (answers[0].get("result") or {}).get("isError") is True,
                   answers or "the client did not send it")
        else:
            s.wire(f"{call.label}: JSON-RPC error -32602, no result",
                   len(answers) == 1 and (answers[0].get("error") or {}).get("code") == -32602
                   and "result" not in answers[0], answers or "the client did not send it")


def run_suite(s: Suite, server: list[str]) -> None:
    log = os.path.join(LOG_DIR, f"typed-{s.name}.wire.jsonl")
    if os.path.exists(log):
        os.remove(log)
    tapped = [sys.executable, os.path.join(HERE, "wiretap.py"), log, *server]
    print(f"\n---- {s.name} " + "-" * max(0, 70 - len(s.name)), flush=True)
    t0 = time.monotonic()
    if s.client == "python":
        observed = anyio.run(observe_python, s, tapped)
    else:
        observed = observe_ts(s, tapped)
    time.sleep(0.2)  # the tap logs the server's exit after the client closed its stdin
    check_observed(s, observed)
    check_wire(s, log)
    s.secs = time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated suite names")
    ap.add_argument("--list", action="store_true", help="list the suites and exit")
    ap.add_argument("--log-dir", help="where the wire logs go (default .cache/interop)")
    ap.add_argument("command", nargs="*", help="server command (after --)")
    a = ap.parse_args()
    all_suites = suites()
    if a.list:
        print("\n".join(s.name for s in all_suites))
        return 0
    if a.only:
        wanted = set(a.only.split(","))
        unknown = wanted - {s.name for s in all_suites}
        if unknown:
            ap.error(f"unknown suite(s): {', '.join(sorted(unknown))}")
        all_suites = [s for s in all_suites if s.name in wanted]
    server = list(a.command) or [DEFAULT_SERVER]
    exe = shutil.which(server[0]) if os.sep not in server[0] else server[0]
    if not exe or not os.access(exe, os.X_OK):
        print(f"typed-tools: server not found or not executable: {server[0]} (cargo build --release -p "
              "mcp-sansio-router --example structured_output)", flush=True)
        print("typed-tools interop: 0 passed, 1 failed")
        return 1
    server[0] = os.path.abspath(exe)
    if any(s.client != "python" for s in all_suites) and not os.path.exists(NODE):
        print(f"typed-tools: node not installed at {NODE}: run scripts/install-peers", flush=True)
        print("typed-tools interop: 0 passed, 1 failed")
        return 1
    if a.log_dir:
        global LOG_DIR
        LOG_DIR = os.path.abspath(a.log_dir)
    os.makedirs(LOG_DIR, exist_ok=True)
    print(f"typed-tools: server {' '.join(server)}; mcp {md.version('mcp')}, jsonschema {md.version('jsonschema')}"
          f"; wire logs in {os.path.relpath(LOG_DIR, ROOT)}/typed-*.wire.jsonl", flush=True)
    for s in all_suites:
        run_suite(s, server)

    return summarize("typed-tools", "typed", all_suites)


if __name__ == "__main__":
    sys.exit(main())
