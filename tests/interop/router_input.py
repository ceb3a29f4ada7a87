#!/usr/bin/env python3
"""Interop test of the router's input path: official SDK clients answer the questions of
router/examples/ask.rs (Context::elicit, Context::roots, Context::sample) in both eras.

Usage: .cache/peers/venv/bin/python tests/interop/router_input.py [--only SUITE[,SUITE...]] [--list]
           [-- SERVER_COMMAND [ARGS...]]     (default: target/release/examples/ask)

Build the server first: cargo build --release -p mcp-sansio-router --example ask. Run with the
interpreter of .cache/peers/venv (scripts/install-peers): it needs the Python SDK (`mcp`).

In a legacy session (2025-11-25) the server asks with its own requests (`elicitation/create`,
`roots/list`, `sampling/createMessage`) while the call is open and the function awaits the answer; in
2026-07-28 the call is answered `resultType: input_required` with `inputRequests` (and a sealed
`requestState` once there are earlier answers to carry), the client's SDK runs the same callbacks and
retries the call with `inputResponses`, and the function runs again.

Suites, one per client and era; each runs two client connections (one server process each, started
through wiretap.py, which logs every stdio line to .cache/interop/input-<suite>-<client>.wire.jsonl):
  python-2025-11-25    Python SDK `mcp.client.Client`, mode="legacy" (initialize)
  python-2026-07-28    Python SDK `mcp.client.Client`, mode="auto" (server/discover; must pick
                       2026-07-28); its input_required driver runs the callbacks and retries
  ts-v2-2025-11-25     TypeScript SDK v2 (router_input.mjs), versionNegotiation {mode: 'legacy'}
  ts-v2-2026-07-28     TypeScript SDK v2, versionNegotiation {mode: {pin: '2026-07-28'}}; its
                       inputRequired auto-fulfilment runs the same handlers and retries
(TypeScript SDK v1 is not run: the same legacy path as ts-v2-2025-11-25, and no 2026-07-28.)

The connections:
  full  elicitation, roots and sampling callbacks (capabilities declared): confirm four times (the
        form answered accept {confirm: true}, accept {confirm: false}, decline, cancel), roots,
        summarize, survey (roots, then a form {name});
  bare  a roots callback only, no elicitation or sampling declared: confirm, summarize, roots.
Checks on what the client showed (one per line):
  - the negotiated protocol version is the suite's; the client did not crash;
  - each call's result text and isError ("confirmed", "not confirmed", "declined", "cancelled", the
    roots' URIs, the model's text, both survey answers; for the bare client confirm and summarize a
    tool error with InputError::NotSupported's text, and roots still answered);
  - the callbacks ran the expected number of times during each call (each question once per call,
    none for the bare client's confirm and summarize), and got the tool's question (the form's
    message and schema, the sampled message).
Checks on the wire (wire: lines): stdout only JSON-RPC, every client request answered exactly once,
no crash; and
  - 2025-11-25: initialize offered and answered 2025-11-25, declaring the capabilities of the
    connection; during each call the server sent exactly the expected requests, in order, with the
    call still open (before its answer), each answered by the client; none outside a call; no
    `input_required` result;
  - 2026-07-28: server/discover answered with 2026-07-28; every tools/call carries the 2026-07-28
    _meta; no server-to-client request at all; each call takes one round per question plus one:
    each but the last answered `input_required` with one input request of the expected method, the
    next round carries `inputResponses` for exactly its keys and echoes the `requestState` byte for
    byte (none in the first round: nothing to carry yet, and the spec makes it optional), the last
    answered `complete`; the first `confirm` spelled out; survey's second round carries a
    `requestState` under a new key; the bare client's confirm is answered at once, complete, isError.

A check that fails because of a known bug of OUR server is listed in OUR_SERVER_BUGS: it still fails
and counts (its line says which bug); a note is printed once it passes, so the entry can go.
Prints one line per check, `interop input-<suite>: P client, W wire checks passed; F failed; ...` per
suite and `router-input interop: N passed, M failed` last (scripts/test counts it with the interop
checks); exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

import anyio

import mcp_types as types
from suite import Suite, summarize
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from paths import HERE, ROOT, NPM_BIN, NODE, LOG_DIR

DEFAULT_SERVER = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"),
                              "release", "examples", "ask")
REQUEST_TIMEOUT_S = 20
SUITE_TIMEOUT_S = 90

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ELICIT, ROOTS, SAMPLE = "elicitation/create", "roots/list", "sampling/createMessage"
KIND = {ELICIT: "elicit", ROOTS: "roots", SAMPLE: "sample"}
# InputError::NotSupported's Display (router/src/input.rs), naming the capability.
def NOT_SUPPORTED(capability: str) -> str:
    return f"the client did not declare the `{capability}` capability"

# What the clients answer (the same for both SDKs; router_input.mjs gets it as --answers).
CONFIRM_ANSWERS = [{"action": "accept", "content": {"confirm": True}}, {"action": "accept", "content": {"confirm": False}},
                   {"action": "decline"}, {"action": "cancel"}]
NAME_ANSWER = {"action": "accept", "content": {"name": "Ada"}}
ROOTS_ANSWER = [{"uri": "file:///work/a", "name": "a"}, {"uri": "file:///work/b", "name": "b"}]
SUMMARY = "A short summary."
SAMPLE_ANSWER = {"role": "assistant", "content": {"type": "text", "text": SUMMARY}, "model": "interop-model"}
ANSWERS = {"confirm": CONFIRM_ANSWERS, "name": NAME_ANSWER, "roots": ROOTS_ANSWER, "sample": SAMPLE_ANSWER}
TEXT = "The quick brown fox jumps over the lazy dog, again and again, all afternoon."
URIS = [r["uri"] for r in ROOTS_ANSWER]


@dataclass
class Call:
    label: str
    name: str
    arguments: dict
    text: str  # the result's one text block
    questions: list[str]  # the questions the call asks the client, in order (methods)
    is_error: bool = False


FULL = [
    Call("confirm (accept, confirm true)", "confirm", {}, "confirmed", [ELICIT]),
    Call("confirm (accept, confirm false)", "confirm", {}, "not confirmed", [ELICIT]),
    Call("confirm (decline)", "confirm", {}, "declined", [ELICIT]),
    Call("confirm (cancel)", "confirm", {}, "cancelled", [ELICIT]),
    Call("roots", "roots", {}, "\n".join(URIS), [ROOTS]),
    Call("summarize", "summarize", {"text": TEXT}, SUMMARY, [SAMPLE]),
    Call("survey", "survey", {}, f"roots: {', '.join(URIS)}; name: Ada", [ROOTS, ELICIT]),
]
BARE = [
    Call("bare: confirm (no elicitation declared)", "confirm", {}, NOT_SUPPORTED("elicitation"), [], is_error=True),
    Call("bare: summarize (no sampling declared)", "summarize", {"text": TEXT}, NOT_SUPPORTED("sampling"), [], is_error=True),
    Call("bare: roots (roots declared)", "roots", {}, "\n".join(URIS), [ROOTS]),
]
CONNECTIONS = {"full": (["elicit", "roots", "sample"], FULL), "bare": (["roots"], BARE)}

# Checks that fail because of a known bug of OUR server: (suite name regex, check name regex) -> the bug.
# They still fail and count; a note is printed when one passes.
OUR_SERVER_BUGS: dict[tuple[str, str], str] = {}


def suites() -> list[Suite]:
    return [Suite(f"{client}-{v}", client, v, bugs=OUR_SERVER_BUGS)
            for client in ("python", "ts-v2") for v in (LEGACY, MODERN)]


# --- the clients: each returns {"version", "calls": [{"label", "result"|"error", "asked", "seen"}], "crash"} ---

def dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def observe_python(s: Suite, handlers: list[str], calls: list[Call], server: list[str]) -> dict:
    observed: dict[str, Any] = {"version": None, "calls": [], "crash": None}
    asked: dict[str, int] = {}
    seen: list[dict] = []  # the questions' params, as the callbacks got them
    confirms = 0

    async def elicit(_ctx, params: types.ElicitRequestParams) -> types.ElicitResult:
        nonlocal confirms
        asked["elicit"] += 1
        p = dump(params)
        seen.append({"kind": "elicit", "params": p})
        if "confirm" in ((p.get("requestedSchema") or {}).get("properties") or {}):
            answer = CONFIRM_ANSWERS[confirms % len(CONFIRM_ANSWERS)]
            confirms += 1
        else:
            answer = NAME_ANSWER
        return types.ElicitResult.model_validate(answer)

    async def roots(_ctx) -> types.ListRootsResult:
        asked["roots"] += 1
        seen.append({"kind": "roots", "params": {}})
        return types.ListRootsResult.model_validate({"roots": ROOTS_ANSWER})

    async def sample(_ctx, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked["sample"] += 1
        seen.append({"kind": "sample", "params": dump(params)})
        return types.CreateMessageResult.model_validate(SAMPLE_ANSWER)

    params = StdioServerParameters(command=server[0], args=server[1:])
    info = types.Implementation(name=f"router-input-python-{s.version}", version="0.0.0")
    try:
        with anyio.fail_after(SUITE_TIMEOUT_S):
            async with Client(params, mode="auto" if s.version == MODERN else "legacy", client_info=info,
                              read_timeout_seconds=REQUEST_TIMEOUT_S,
                              elicitation_callback=elicit if "elicit" in handlers else None,
                              list_roots_callback=roots if "roots" in handlers else None,
                              sampling_callback=sample if "sample" in handlers else None) as client:
                observed["version"] = client.session.protocol_version
                for call in calls:
                    asked.update(elicit=0, roots=0, sample=0)
                    seen.clear()
                    got: dict[str, Any] = {"label": call.label}
                    try:
                        got["result"] = dump(await client.call_tool(call.name, call.arguments))
                    except MCPError as e:
                        got["error"] = {"code": e.code, "message": e.message, "name": "MCPError"}
                    except Exception as e:  # noqa: BLE001 - e.g. the input_required driver giving up
                        got["error"] = {"code": None, "message": str(e), "name": type(e).__name__}
                    got["asked"] = dict(asked)
                    got["seen"] = list(seen)
                    observed["calls"].append(got)
    except BaseException as e:  # noqa: BLE001 - a crash is a failure with a message
        if isinstance(e, KeyboardInterrupt):
            raise
        observed["crash"] = f"{type(e).__name__}: {e}"
    return observed


def observe_ts(s: Suite, handlers: list[str], calls: list[Call], server: list[str]) -> dict:
    wanted = json.dumps([{"label": c.label, "name": c.name, "arguments": c.arguments} for c in calls])
    era = "modern" if s.version == MODERN else "legacy"
    argv = [NODE, os.path.join(HERE, "router_input.mjs"), "--era", era, "--handlers", ",".join(handlers),
            "--answers", json.dumps(ANSWERS), "--calls", wanted, "--", *server]
    env = dict(os.environ)
    env["PATH"] = NPM_BIN + os.pathsep + env.get("PATH", "")
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=SUITE_TIMEOUT_S, env=env,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"crash": f"router_input.mjs did not finish within {SUITE_TIMEOUT_S}s"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("OBSERVED ")]
    if not lines:
        return {"crash": f"router_input.mjs printed no observation (exit {p.returncode}): "
                         f"{p.stdout[-400:]} {p.stderr[-400:]}"}
    observed = json.loads(lines[-1][len("OBSERVED "):])
    if observed.get("sdk"):
        print(f"  (client: {observed['sdk']} on node {observed.get('node')})", flush=True)
    return observed


# --- the checks on what the client showed -----------------------------------------------------------

def texts(result: dict) -> list[str]:
    return [c.get("text") for c in result.get("content") or [] if c.get("type") == "text"]


def check_observed(s: Suite, conn: str, calls: list[Call], observed: dict) -> None:
    p = f"{conn}: "
    s.check(f"{p}client run without a crash", not observed.get("crash"), observed.get("crash"))
    s.equal(f"{p}the client's negotiated protocol version", observed.get("version"), s.version)
    got_calls = {c.get("label"): c for c in observed.get("calls") or []}
    for call in calls:
        got = got_calls.get(call.label)
        if not s.check(f"{call.label}: answered with a result", got is not None and "result" in got,
                       got or "not called"):
            continue
        r = got["result"]
        s.equal(f"{call.label}: its text", texts(r), [call.text])
        s.equal(f"{call.label}: isError", bool(r.get("isError")), call.is_error)
        want = {"elicit": 0, "roots": 0, "sample": 0}
        for q in call.questions:
            want[KIND[q]] += 1
        asked = got.get("asked") or {}
        s.equal(f"{call.label}: callbacks run during the call (each question once)",
                {k: asked.get(k, 0) for k in want}, want)
        if "seen" not in got:
            continue
        kinds = [q["kind"] for q in got["seen"]]
        s.equal(f"{call.label}: the callbacks got the questions in order", kinds, [KIND[q] for q in call.questions])
        for q in got["seen"]:
            check_question(s, call, q)


def check_question(s: Suite, call: Call, seen: dict) -> None:
    """The params a callback got are the tool's question."""
    params = seen.get("params") or {}
    if seen["kind"] == "elicit":
        props = (params.get("requestedSchema") or {}).get("properties") or {}
        if call.name == "confirm":
            s.check(f"{call.label}: the form asks \"Go ahead?\" with a boolean `confirm`",
                    params.get("message") == "Go ahead?" and (props.get("confirm") or {}).get("type") == "boolean",
                    params)
        else:
            s.check(f"{call.label}: the form asks \"Your name?\" with a string `name`",
                    params.get("message") == "Your name?" and (props.get("name") or {}).get("type") == "string",
                    params)
    elif seen["kind"] == "sample":
        messages = params.get("messages") or [{}]
        content = messages[0].get("content") or {}
        s.check(f"{call.label}: the model is asked to summarize the text (maxTokens 100)",
                len(messages) == 1 and content.get("text") == f"Summarize in one sentence: {TEXT}"
                and params.get("maxTokens") == 100, params)


# --- the checks on the wire --------------------------------------------------------------------------

def server_requests(msgs: list) -> list[tuple[int, dict]]:
    """The server's requests to the client, with their index in `msgs`."""
    return [(i, m) for i, (d, m) in enumerate(msgs)
            if d == "s2c" and isinstance(m, dict) and "method" in m and "id" in m]


def index_of(msgs: list, direction: str, pred) -> int | None:
    for i, (d, m) in enumerate(msgs):
        if d == direction and isinstance(m, dict) and pred(m):
            return i
    return None


def check_wire(s: Suite, conn: str, handlers: list[str], calls: list[Call], log: str) -> None:
    p = f"{conn}: "
    basics = s.wire_basics(log, p)
    if basics is None:
        return
    conns, pairs = basics
    # The connection that made the calls (a client may probe on another process first).
    msgs = next((m for m in conns.values()
                 if any(d == "c2s" and isinstance(x, dict) and x.get("method") == "tools/call" for d, x in m)), [])
    if s.version == MODERN:
        check_wire_modern(s, p, msgs, pairs, calls)
    else:
        check_wire_legacy(s, p, msgs, pairs, handlers, calls)


def check_wire_legacy(s: Suite, p: str, msgs: list, pairs: list, handlers: list[str], calls: list[Call]) -> None:
    inits = [(q, r) for q, r in pairs if q.get("method") == "initialize"]
    s.wire(f"{p}initialize offered and answered with protocolVersion {s.version}",
           len(inits) == 1 and (inits[0][0].get("params") or {}).get("protocolVersion") == s.version
           and (inits[0][1].get("result") or {}).get("protocolVersion") == s.version,
           [(q.get("params", {}).get("protocolVersion"), r.get("result", r.get("error"))) for q, r in inits])
    if inits:
        caps = (inits[0][0].get("params") or {}).get("capabilities") or {}
        declared = sorted(k for k in ("elicitation", "roots", "sampling") if k in caps)
        want = sorted({"elicit": "elicitation", "roots": "roots", "sample": "sampling"}[h] for h in handlers)
        s.wire(f"{p}initialize declares the client's capabilities {want}", declared == want, caps)
    s.wire(f"{p}no input_required result (a legacy session)",
           not any((r.get("result") or {}).get("resultType") == "input_required" for _, r in pairs))
    asked = server_requests(msgs)
    # The client's answers to the server's requests, by id.
    answers = {json.dumps(m.get("id")): (i, m) for i, (d, m) in enumerate(msgs)
               if d == "c2s" and isinstance(m, dict) and "method" not in m and "id" in m}
    starts = [i for i, (d, m) in enumerate(msgs) if d == "c2s" and isinstance(m, dict) and m.get("method") == "tools/call"]
    during = 0
    for call, start in zip(calls, starts):
        request = msgs[start][1]
        if not s.wire(f"{call.label}: tools/call {call.name} sent", (request.get("params") or {}).get("name") == call.name,
                      request):
            continue
        end = index_of(msgs[start + 1:], "s2c", lambda m, rid=request.get("id"): m.get("id") == rid and "method" not in m)
        if not s.wire(f"{call.label}: the call answered", end is not None, "no answer"):
            continue
        end += start + 1
        inside = [(i, m) for i, m in asked if start < i < end]
        during += len(inside)
        methods = [m.get("method") for _, m in inside]
        s.wire(f"{call.label}: the server sent {call.questions or 'no request'} with the call open", methods == call.questions,
               methods)
        late = [m.get("method") for i, m in inside
                if json.dumps(m.get("id")) not in answers or answers[json.dumps(m.get("id"))][0] > end
                or "result" not in answers[json.dumps(m.get("id"))][1]]
        if inside:
            s.wire(f"{call.label}: the client answered each with a result before the call's answer", not late,
                   {"unanswered or late": late})
        answer = msgs[end][1]
        s.wire(f"{call.label}: the answer is a result, isError {call.is_error}",
               "result" in answer and bool(answer["result"].get("isError")) == call.is_error, answer)
    s.wire(f"{p}every tools/call of the run on the wire ({len(calls)})", len(starts) == len(calls), len(starts))
    s.wire(f"{p}no server request outside a call ({len(asked)} in all)", len(asked) == during,
           [m.get("method") for _, m in asked])


def check_wire_modern(s: Suite, p: str, msgs: list, pairs: list, calls: list[Call]) -> None:
    disc = [r for q, r in pairs if q.get("method") == "server/discover"]
    s.wire(f"{p}server/discover answered with 2026-07-28 in supportedVersions",
           disc and all(MODERN in ((r.get("result") or {}).get("supportedVersions") or []) for r in disc), disc)
    tool_calls = [(q, r) for q, r in pairs if q.get("method") == "tools/call"]
    s.wire(f"{p}every tools/call carries _meta protocolVersion 2026-07-28",
           tool_calls and all(((q.get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
                              == MODERN for q, _ in tool_calls), tool_calls[:1])
    asked = server_requests(msgs)
    s.wire(f"{p}no server-to-client request on the wire", not asked, [m for _, m in asked][:3])
    # Rounds of one call: a tools/call without inputResponses or requestState starts a call.
    order = [m for d, m in msgs if d == "c2s" and isinstance(m, dict) and m.get("method") == "tools/call"]
    answer_of = {json.dumps(q.get("id")): r for q, r in tool_calls}
    grouped: list[list[tuple[dict, dict | None]]] = []
    for q in order:
        params = q.get("params") or {}
        if "inputResponses" not in params and "requestState" not in params or not grouped:
            grouped.append([])
        grouped[-1].append((q, answer_of.get(json.dumps(q.get("id")))))
    s.wire(f"{p}every call of the run on the wire ({len(calls)})", len(grouped) == len(calls), len(grouped))
    first_confirm = True
    for call, rounds in zip(calls, grouped):
        if not s.wire(f"{call.label}: tools/call {call.name} sent",
                      (rounds[0][0].get("params") or {}).get("name") == call.name, rounds[0][0]):
            continue
        s.wire(f"{call.label}: {len(call.questions) + 1} round(s), one per question and the last",
               len(rounds) == len(call.questions) + 1, [(r or {}).get("result", r) for _, r in rounds])
        if call.name == "confirm" and call.questions and first_confirm:
            first_confirm = False
            check_first_confirm(s, call, rounds)
        keys: list[str] = []
        for n, ((q, r), method) in enumerate(zip(rounds, call.questions), start=1):
            result = (r or {}).get("result") or {}
            requests = result.get("inputRequests") or {}
            ok = (result.get("resultType") == "input_required" and len(requests) == 1
                  and next(iter(requests.values())).get("method") == method)
            s.wire(f"{call.label}: round {n} answered input_required asking {method}", ok, r)
            keys.append(next(iter(requests), None))
            if n >= len(rounds):
                continue
            retry = rounds[n][0].get("params") or {}
            s.wire(f"{call.label}: round {n + 1} carries inputResponses for exactly {sorted(requests)}",
                   sorted(retry.get("inputResponses") or {}) == sorted(requests), retry.get("inputResponses"))
            s.wire(f"{call.label}: round {n + 1} echoes the requestState byte for byte"
                   f"{'' if 'requestState' in result else ' (none sent)'}",
                   retry.get("requestState") == result.get("requestState"),
                   {"sent": result.get("requestState"), "echoed": retry.get("requestState")})
            s.wire(f"{call.label}: round {n + 1} has the call's name and arguments",
                   retry.get("name") == call.name and retry.get("arguments") == call.arguments, retry)
        if len(call.questions) > 1 and len(rounds) > 2:
            second = ((rounds[1][1] or {}).get("result") or {})
            s.wire(f"{call.label}: round 2's input_required carries a requestState (the first answer)",
                   isinstance(second.get("requestState"), str) and second["requestState"] != "", second)
            s.wire(f"{call.label}: each round asks under a new key", len(set(keys)) == len(keys), keys)
        last = rounds[-1][1] or {}
        result = last.get("result") or {}
        s.wire(f"{call.label}: the last round answered complete, isError {call.is_error}",
               result.get("resultType") == "complete" and bool(result.get("isError")) == call.is_error, last)


def check_first_confirm(s: Suite, call: Call, rounds: list) -> None:
    """The first confirm, spelled out: input_required with one elicitation/create form, then the retry."""
    first = (rounds[0][1] or {}).get("result") or {}
    requests = first.get("inputRequests") or {}
    s.wire("first confirm: the first answer has resultType input_required", first.get("resultType") == "input_required",
           first)
    s.wire("first confirm: ... with inputRequests holding one elicitation/create form for `confirm`",
           len(requests) == 1 and all(r.get("method") == ELICIT and (r.get("params") or {}).get("mode", "form") == "form"
                                      and "confirm" in ((r.get("params") or {}).get("requestedSchema") or {})
                                      .get("properties", {}) for r in requests.values()), requests)
    s.wire("first confirm: ... and no content (not a tool result yet)", "content" not in first, first)
    if len(rounds) > 1:
        retry = rounds[1][0].get("params") or {}
        key = next(iter(requests), None)
        s.wire("first confirm: the retry's inputResponses answer that key with an ElicitResult",
               isinstance((retry.get("inputResponses") or {}).get(key), dict)
               and "action" in retry["inputResponses"][key], retry.get("inputResponses"))
        s.wire("first confirm: the retry is a new request (a new id)", rounds[1][0].get("id") != rounds[0][0].get("id"),
               [rounds[0][0].get("id"), rounds[1][0].get("id")])


# --- running -----------------------------------------------------------------------------------------

def run_suite(s: Suite, server: list[str]) -> None:
    print(f"\n---- {s.name} " + "-" * max(0, 70 - len(s.name)), flush=True)
    t0 = time.monotonic()
    for conn, (handlers, calls) in CONNECTIONS.items():
        log = os.path.join(LOG_DIR, f"input-{s.name}-{conn}.wire.jsonl")
        if os.path.exists(log):
            os.remove(log)
        tapped = [sys.executable, os.path.join(HERE, "wiretap.py"), log, *server]
        if s.client == "python":
            observed = anyio.run(observe_python, s, handlers, calls, tapped)
        else:
            observed = observe_ts(s, handlers, calls, tapped)
        time.sleep(0.2)  # the tap logs the server's exit after the client closed its stdin
        check_observed(s, conn, calls, observed)
        check_wire(s, conn, handlers, calls, log)
    s.secs = time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated suite names")
    ap.add_argument("--list", action="store_true", help="list the suites and exit")
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
    if not os.access(server[0], os.X_OK):
        print(f"router-input: server not found or not executable: {server[0]} (cargo build --release -p "
              "mcp-sansio-router --example ask)", flush=True)
        print("router-input interop: 0 passed, 1 failed")
        return 1
    server[0] = os.path.abspath(server[0])
    if any(s.client != "python" for s in all_suites) and not os.path.exists(NODE):
        print(f"router-input: node not installed at {NODE}: run scripts/install-peers", flush=True)
        print("router-input interop: 0 passed, 1 failed")
        return 1
    os.makedirs(LOG_DIR, exist_ok=True)
    print(f"router-input: server {' '.join(server)}; mcp {md.version('mcp')}"
          f"; wire logs in {os.path.relpath(LOG_DIR, ROOT)}/input-*.wire.jsonl", flush=True)
    for s in all_suites:
        run_suite(s, server)

    return summarize("router-input", "input", all_suites)


if __name__ == "__main__":
    sys.exit(main())
