#!/usr/bin/env python3
"""Streamable HTTP on several replicas behind nginx, without session affinity (issue #25): the
official SDK clients against `deploy/replicas`, and raw HTTP where it matters which replica serves.

Usage: replicas.py [--replicas N] [--server BIN] [--keep]     (3, at least 3; target/release/mcp-device)

Starts `deploy/replicas start --replicas N --port P --dir D` (P: N+2 free loopback ports in a row; D:
a new temporary directory, removed after a clean run unless --keep) and, whatever happens, `deploy/replicas stop`
at the end. Through nginx's URL, round robin over the replicas:
- 2026-07-28: the Python SDK `Client` (mode="auto"), the checks of http_interop.py's auto run
  (tools, resources, prompts, progress, the multi-round-trip questions);
- legacy sessions (2025-11-25): the Python SDK `ClientSession` (`initialize()`, what `Client(mode=
  "legacy")` does) with python_client.py's checks, then `logging/setLevel` (the level must hold on
  every replica: a tool call on each logs at `info` and not after `error`) and `ping`; the TypeScript
  SDK v2 and v1 clients the same way (a small driver run with node, observations checked here). This
  needs the replicas' `--redis`: without it a session is known to one replica only and these fail;
- in those three legacy sessions, the tools that ask the client during the call: factory_reset
  (elicitation/create, answered accept), explain_status (sampling/createMessage), export_target
  (roots/list), each with the result its answer leads to (the Python SDK: python_client.py's
  `exercise_surface` and `Events`; the TypeScript driver answers what `Events` answers). The answer
  is a POST of its own, which round robin gives to the next replica, not to the one whose tool call
  waits for it: that replica relays it through Redis (pub/sub) to the waiting one. The replicas run
  with `--log mcp_sansio_http=debug`; their logs must show, for each such session, relayed answers
  ("answer relayed to the other replicas" on one replica, "relayed answer taken" with
  `received=Ok(Response)` on another: at least one, each taken once), each relaying replica having
  answered a 202 POST through nginx for it;
- resumable streams, in raw HTTP (the last replica, A, is killed): a legacy session opened on A, its
  standalone GET stream open on A (the priming event), list changes on it (enable_blink toggled on A:
  its engine sends notifications/tools/list_changed to the session's standalone stream there), read;
  the GET closed, more list changes on A (kept on A and in Redis, unread), then A killed (SIGKILL).
  Through nginx: the session's next requests (tools/list, echo) succeed on the others, and a GET
  with `Last-Event-ID: <A's stream>-<k>` (the last event read) answers 200 and replays exactly the
  events missed, in order, none from before k, none twice; every sequence number A's copy of the
  session used (one counter over all its streams: POST answers and the standalone stream) seen once,
  none missing. The replica that resumed it (its log: "another replica's stream resumed", with the
  count replayed; nginx's `upstream=` once the GET ended) goes on with it as its own standalone
  stream: a list change made directly on that replica arrives on it, once;
- with a legacy session held, another replica is killed (SIGKILL): the session's next requests must
  succeed, nginx moving the refused connections on to the others; then `stop` must end every process.
Each phase must have reached every (living) replica: counted from nginx's access log, whose
`upstream=` names the replica that answered. The simulated board (LED, the blink setting) is in
Redis, one board for every replica, and mcp-device announces each change (the tool list, the status
resource) to every replica, each telling the sessions it holds, as far as each subscribed; the
board's uptime counts from the first replica's start, kept in Redis. Then the TypeScript SDK's own
suites (tests/interop/ts_client.mjs: v2 legacy, modern and auto, v1 legacy) run whole through nginx,
as http_interop.py runs them against one server. Prints one line per check and `replicas interop: N
passed, M failed` last; exits non-zero on a failure. Run with the interpreter of .cache/peers/venv.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from datetime import datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import anyio  # noqa: E402
from checks import ECHO_MESSAGE, SERVER_NAME, SYMPTOM, TOOL_NAMES, Checks  # noqa: E402
from mcp.client.client import Client  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from http_interop import TS_SUITES, ts_suite  # noqa: E402
from python_client import REQUEST_TIMEOUT_S, Events, exercise, exercise_surface, text_blocks  # noqa: E402

import mcp_types as types  # noqa: E402
from paths import ROOT, NODE_MODULES, NODE

DEPLOY = os.path.join(ROOT, "deploy", "replicas")
SUITE_TIMEOUT_S = 60
# The replicas' log filter: the HTTP adapter's debug events say which replica relayed a client's
# answer and which took it.
REPLICA_LOG = "mcp_sansio_http=debug"
# The tools that ask the client during the call in a legacy session, one request each.
ASKING_TOOLS = ["factory_reset", "explain_status", "export_target"]

# Checks of what each replica would have its own of: none. The board (LED, blink setting, when it
# started: its uptime) is in Redis (mcp-device --redis), the same for every replica.
PER_BOARD: set[str] = set()


class ReplicaChecks(Checks):
    def check(self, name: str, ok: bool, detail: object = "") -> bool:
        if name in PER_BOARD:
            print(f"  note {name}: {'holds' if ok else 'does not hold'} (not checked: each replica has its own clock)",
                  flush=True)
            return ok
        return super().check(name, ok, detail)


class Deployment:
    """deploy/replicas in a temporary directory, and nginx's access log."""

    def __init__(self, replicas: int, server: str) -> None:
        self.replicas = replicas
        self.server = server
        self.dir = tempfile.mkdtemp(prefix="mcp-replicas-")
        self.port = free_ports(replicas + 2)
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.addrs = [f"127.0.0.1:{self.port + 2 + i}" for i in range(replicas)]
        self.output = ""
        self.dead: set[int] = set()  # the replicas killed so far

    def living(self) -> list[str]:
        return [a for i, a in enumerate(self.addrs) if i not in self.dead]

    def kill(self, replica: int) -> None:
        """SIGKILL to `replica` (its pid file)."""
        pid = self.pids()[f"replica-{replica}"]
        os.kill(pid, signal.SIGKILL)
        self.dead.add(replica)
        print(f"  killed replica-{replica} ({self.addrs[replica]}, pid {pid}) with SIGKILL", flush=True)

    def start(self) -> int:
        done = subprocess.run([DEPLOY, "start", "--replicas", str(self.replicas), "--port", str(self.port),
                               "--dir", self.dir, "--server", self.server, "--", "--log", REPLICA_LOG],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
        self.output = done.stdout + done.stderr
        sys.stdout.write(self.output)
        return done.returncode

    def stop(self) -> int:
        done = subprocess.run([DEPLOY, "stop", "--dir", self.dir], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60)
        sys.stdout.write(done.stdout + done.stderr)
        return done.returncode

    def pids(self) -> dict[str, int]:
        folder = os.path.join(self.dir, "pids")
        return {name: int(open(os.path.join(folder, name)).read().split()[0]) for name in os.listdir(folder)}

    def log_size(self) -> int:
        try:
            return os.path.getsize(os.path.join(self.dir, "nginx-access.log"))
        except FileNotFoundError:
            return 0

    def replica_log_sizes(self) -> list[int]:
        return [os.path.getsize(os.path.join(self.dir, f"replica-{i}.log")) for i in range(self.replicas)]

    def replica_lines_since(self, offsets: list[int]) -> list[list[str]]:
        """What each replica logged after its offset."""
        out = []
        for i, offset in enumerate(offsets):
            with open(os.path.join(self.dir, f"replica-{i}.log"), "rb") as log:
                log.seek(offset)
                out.append(log.read().decode(errors="replace").splitlines())
        return out

    def requests_since(self, offset: int) -> list[tuple[str, int, list[str]]]:
        """(method, status, replicas tried in order) of each request logged after `offset`."""
        with open(os.path.join(self.dir, "nginx-access.log"), "rb") as log:
            log.seek(offset)
            lines = log.read().decode(errors="replace").splitlines()
        out = []
        for line in lines:
            m = re.search(r'"(\S+) \S+ [^"]*" (\d+) .*upstream=(.*) upstream_status=', line)
            if m:
                out.append((m.group(1), int(m.group(2)), [a.strip() for a in m.group(3).split(",")]))
        return out


def free_ports(count: int) -> int:
    """The first of `count` free loopback ports in a row."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + count > 65535:
            continue
        try:
            held = []
            for p in range(base, base + count):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise RuntimeError(f"no {count} free loopback ports in a row")


def check_spread(c: Checks, dep: Deployment, offset: int, what: str, replicas: list[str], session: bool) -> None:
    """Every replica in `replicas` answered some POST logged since `offset`, each POST succeeded, and
    a legacy `session` was ended by one DELETE."""
    logged = dep.requests_since(offset)
    posts = [r for r in logged if r[0] == "POST"]
    per = {a: sum(1 for r in posts if r[2][-1] == a) for a in dep.addrs}
    c.check(f"{what}: POSTs answered by every replica ({', '.join(f'{a} {n}' for a, n in per.items())})",
            all(per[a] > 0 for a in replicas) and sum(per.values()) == len(posts), posts)
    c.check(f"{what}: every POST through nginx answered 2xx ({len(posts)})",
            bool(posts) and all(200 <= r[1] < 300 for r in posts), [r for r in posts if not 200 <= r[1] < 300])
    if session:
        deletes = [r for r in logged if r[0] == "DELETE"]
        c.check(f"{what}: the session ended by one DELETE answered 2xx", len(deletes) == 1
                and 200 <= deletes[0][1] < 300, deletes)


# The HTTP adapter's debug events of an answer relayed between replicas (adapters/http/src/service/shared.rs).
RELAY_EVENT = re.compile(r"^(\S+) DEBUG .*?(answer relayed to the other replicas|relayed answer taken) "
                         r"session=(\S+)(?: received=(\S+))?")


def check_relays(c: Checks, dep: Deployment, offset: int, log_offsets: list[int], what: str, asked: int) -> None:
    """The client's answers to the server's `asked` requests in the suite since the offsets: those
    POSTed to another replica than the one whose tool call waited were relayed by that replica and
    taken by another, each once; at least one was (the proof that answers crossed replicas)."""
    relayed: list[tuple[datetime, int]] = []
    taken: list[tuple[datetime, int, str | None]] = []
    for i, lines in enumerate(dep.replica_lines_since(log_offsets)):
        for line in lines:
            m = RELAY_EVENT.search(line)
            if m and m.group(2) == "relayed answer taken":
                taken.append((datetime.fromisoformat(m.group(1)), i, m.group(4)))
            elif m:
                relayed.append((datetime.fromisoformat(m.group(1)), i))
    relayed.sort()
    taken.sort()
    # The tool calls that ask run one after the other: the n-th relayed answer is the n-th taken.
    pairs = [f"replica-{r[1]} -> replica-{t[1]}" for r, t in zip(relayed, taken)]
    c.check(f"{what}: answers POSTed to another replica than the tool call's, relayed and taken there "
            f"({len(taken)} of {asked}: {', '.join(pairs) or 'none'})", len(taken) > 0,
            f"relayed {len(relayed)}, taken {len(taken)}: see the replicas' logs ({REPLICA_LOG})")
    c.check(f"{what}: each relayed answer taken once, by another replica, as a response",
            len(relayed) == len(taken) <= asked and all(r[1] != t[1] for r, t in zip(relayed, taken))
            and all(t[2] == "Ok(Response)" for t in taken),
            {"relayed": [(str(r[0]), r[1]) for r in relayed], "taken": [(str(t[0]), t[1], t[2]) for t in taken]})
    accepted = {a: sum(1 for r in dep.requests_since(offset) if r[0] == "POST" and r[1] == 202 and r[2][-1] == a)
                for a in dep.addrs}
    per = {dep.addrs[i]: sum(1 for r in relayed if r[1] == i) for i in range(dep.replicas)}
    c.check(f"{what}: nginx: each relaying replica answered a 202 POST for each answer it relayed "
            f"({', '.join(f'{a} {n} of {accepted[a]}' for a, n in per.items() if n)})",
            all(per[a] <= accepted[a] for a in dep.addrs), {"relayed": per, "202 POSTs": accepted})


async def modern(c: Checks, dep: Deployment) -> None:
    events = Events()
    info = types.Implementation(name="interop-replicas-auto", version="0.0.0")
    async with Client(dep.url, client_info=info, read_timeout_seconds=REQUEST_TIMEOUT_S, log_level="info",
                      **events.callbacks()) as client:
        await exercise(c, client, "auto")
        await exercise_surface(c, client, "auto", events)


def set_level(session: ClientSession, level: str):
    with warnings.catch_warnings():  # deprecated in 2026-07-28, current in the legacy era
        warnings.simplefilter("ignore")
        return session.set_logging_level(level)


async def logging_everywhere(c: Checks, session: ClientSession, events: Events, replicas: int) -> None:
    """The session's log level holds on every replica: twice as many calls as replicas in a row,
    which round robin spreads over them all."""
    await set_level(session, "info")
    counts = []
    for _ in range(2 * replicas):
        before = len(events.logs)
        await session.call_tool("read_temperature", {})
        counts.append(len(events.logs) - before)
    c.equal(f"logging/setLevel info: read_temperature logs once on each of {2 * replicas} calls", counts,
            [1] * (2 * replicas))
    await set_level(session, "error")
    before = len(events.logs)
    for _ in range(2 * replicas):
        await session.call_tool("read_temperature", {})
    c.equal(f"logging/setLevel error: no log on {2 * replicas} calls", len(events.logs) - before, 0)
    c.check("ping", isinstance(await session.send_ping(), types.EmptyResult))


async def legacy(c: Checks, dep: Deployment, kill: int | None = None) -> None:
    """A legacy session; with `kill`, that replica is killed while the session is held."""
    events = Events()
    info = types.Implementation(name="interop-replicas-legacy", version="0.0.0")
    async with streamable_http_client(dep.url) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT_S, client_info=info,
                                 **events.callbacks()) as session:
            if kill is None:
                await exercise(c, session, "legacy")
                # exercise_surface's legacy run, each request on whichever replica nginx picks:
                # templates, completion, logging/setLevel, progress, factory_reset, explain_status
                # and export_target (the server's requests answered by `events`, relayed to the
                # waiting replica), the tool list changing (enable_blink on one replica: the board
                # is in Redis, the change announced to every replica, the notification heard on the
                # session's GET stream wherever it is) and the status subscription (set_led).
                await exercise_surface(c, session, "legacy", events)
                await logging_everywhere(c, session, events, dep.replicas)
                return
            init = await session.initialize()
            c.equal("initialize: protocolVersion", init.protocol_version, "2025-11-25")
            r = await session.call_tool("echo", {"message": "before"})
            c.equal("echo before the kill", text_blocks(r), ["before"])
            dep.kill(kill)
            await anyio.sleep(0.2)
            for i in range(2 * dep.replicas):
                r = await session.call_tool("echo", {"message": f"after {i}"})
                c.equal(f"echo {i + 1} after the kill", text_blocks(r), [f"after {i}"])
            c.equal("tools/list after the kill", [t.name for t in (await session.list_tools()).tools], TOOL_NAMES)
            gp = await session.get_prompt("diagnose", {"symptom": SYMPTOM})
            c.check("prompts/get after the kill", SYMPTOM in str(gp.messages[0].content), gp)
            rr = await session.read_resource("device://status")
            c.check("read device://status after the kill", isinstance(rr.contents[0], types.TextResourceContents), rr)
            await logging_everywhere(c, session, events, len(dep.living()))


# The TypeScript SDK half: a legacy session through nginx; prints `OBSERVED <json>`, checks nothing.
# The server's requests are answered with `answers` (what python_client.Events answers).
TS_DRIVER = r"""
import { createRequire } from 'node:module';
import { join } from 'node:path';
const [nodeModules, sdk, url, replicas, answersJson, askingTools] = process.argv.slice(1);
const answers = JSON.parse(answersJson);
const requirePeer = createRequire(join(nodeModules, 'noop.js'));
const peer = sdk === 'v1'
    ? { ...requirePeer('@modelcontextprotocol/sdk/client/index.js'), ...requirePeer('@modelcontextprotocol/sdk/client/streamableHttp.js') }
    : requirePeer('@modelcontextprotocol/client');
const ro = { timeout: 20000 };
const client = new peer.Client({ name: `interop-replicas-ts-${sdk}`, version: '0.0.0' }, {
    capabilities: { elicitation: {}, sampling: {}, roots: {} },
    ...(sdk === 'v2' ? { versionNegotiation: { mode: 'legacy' } } : {}),
});
const logs = [];
const asked = { elicitations: 0, samples: [], roots: 0 };
const onLog = (n) => { logs.push(n.params); };
const elicit = async () => { asked.elicitations++; return answers.elicit; };
const sample = async (request) => { asked.samples.push(request.params); return answers.sample; };
const roots = async () => { asked.roots++; return answers.roots; };
if (sdk === 'v1') {
    const t = requirePeer('@modelcontextprotocol/sdk/types.js');
    client.setNotificationHandler(t.LoggingMessageNotificationSchema, onLog);
    client.setRequestHandler(t.ElicitRequestSchema, elicit);
    client.setRequestHandler(t.CreateMessageRequestSchema, sample);
    client.setRequestHandler(t.ListRootsRequestSchema, roots);
} else {
    client.setNotificationHandler('notifications/message', onLog);
    client.setRequestHandler('elicitation/create', elicit);
    client.setRequestHandler('sampling/createMessage', sample);
    client.setRequestHandler('roots/list', roots);
}
const callTool = (params) => (sdk === 'v1' ? client.callTool(params, undefined, ro) : client.callTool(params, ro));
const observed = {};
const step = async (name, fn) => {
    try { observed[name] = { result: await fn() }; return true; }
    catch (e) { observed[name] = { error: { code: e?.code ?? null, message: String(e?.message ?? e) } }; return false; }
};
const transport = new peer.StreamableHTTPClientTransport(new URL(url));
if (await step('connect', async () => {
    await client.connect(transport, ro);
    return { name: client.getServerVersion()?.name, version: sdk === 'v2' ? client.getNegotiatedProtocolVersion() : transport.protocolVersion };
})) {
    await step('tools/list', async () => (await client.listTools({}, ro)).tools.map((t) => t.name));
    await step('echo', async () => await callTool({ name: 'echo', arguments: { message: 'over nginx' } }));
    await step('read_temperature cpu', async () => await callTool({ name: 'read_temperature', arguments: { sensor: 'cpu' } }));
    await step('set_led true', async () => await callTool({ name: 'set_led', arguments: { on: true } }));
    await step('prompts/get diagnose', async () => await client.getPrompt({ name: 'diagnose', arguments: { symptom: 'LED blinks red twice' } }, ro));
    await step('read device://status', async () => await client.readResource({ uri: 'device://status' }, ro));
    // The server asks the client during these calls; the answers go out as POSTs of their own.
    for (const name of askingTools.split(',')) await step(name, async () => await callTool({ name, arguments: {} }));
    observed.asked = { result: asked };
    for (const level of ['info', 'error']) {
        await step(`setLevel ${level}`, async () => await client.setLoggingLevel(level, ro));
        await step(`logs after setLevel ${level}`, async () => {
            const counts = [];
            for (let i = 0; i < 2 * Number(replicas); i++) {
                const before = logs.length;
                await callTool({ name: 'read_temperature', arguments: {} });
                counts.push(logs.length - before);
            }
            return counts;
        });
    }
    await step('ping', async () => await client.ping(ro));
    await step('close', async () => { await transport.terminateSession?.(); await client.close(); return true; });
}
console.log(`OBSERVED ${JSON.stringify(observed)}`);
"""


def client_answers() -> dict:
    """What python_client.Events answers the server's elicitation, sampling and roots requests with
    (accept with confirm, the model's text, one root), as JSON: the TypeScript driver answers the same."""
    events = Events()

    async def answers() -> dict:
        return {"elicit": await events.on_elicit(None, None), "sample": await events.on_sample(None, None),
                "roots": await events.on_roots(None)}

    return {k: v.model_dump(mode="json", by_alias=True, exclude_none=True) for k, v in anyio.run(answers).items()}


def ts_legacy(c: Checks, dep: Deployment, sdk: str) -> None:
    answers = client_answers()
    done = subprocess.run([NODE, "--input-type=module", "-e", TS_DRIVER, NODE_MODULES, sdk, dep.url,
                           str(dep.replicas), json.dumps(answers), ",".join(ASKING_TOOLS)], capture_output=True,
                          text=True, timeout=SUITE_TIMEOUT_S)
    sys.stderr.write(done.stderr)
    found = re.search(r"^OBSERVED (.*)$", done.stdout, re.M)
    if not c.check(f"ts-{sdk}: the driver reported (exit {done.returncode})", bool(found), done.stdout[-600:]):
        return
    seen = json.loads(found.group(1))

    def ok(name: str) -> object:
        step = seen.get(name, {"error": {"message": "not run"}})
        c.check(f"ts-{sdk}: {name} succeeded", "result" in step, step.get("error"))
        return step.get("result")

    conn = ok("connect")
    if conn is None:
        return
    c.equal(f"ts-{sdk}: initialize: protocolVersion, serverInfo.name", [conn.get("version"), conn.get("name")],
            ["2025-11-25", SERVER_NAME])
    c.equal(f"ts-{sdk}: tools/list names in order", ok("tools/list"), TOOL_NAMES)
    texts = lambda r: [b.get("text") for b in (r or {}).get("content", []) if b.get("type") == "text"]  # noqa: E731
    c.equal(f"ts-{sdk}: echo", texts(ok("echo")), ["over nginx"])
    sc = (ok("read_temperature cpu") or {}).get("structuredContent") or {}
    c.check(f"ts-{sdk}: read_temperature(cpu) structuredContent", sc.get("sensor") == "cpu", sc)
    c.equal(f"ts-{sdk}: set_led(true) structuredContent", (ok("set_led true") or {}).get("structuredContent"),
            {"on": True})
    messages = (ok("prompts/get diagnose") or {}).get("messages") or [{}]
    c.check(f"ts-{sdk}: prompts/get diagnose names the symptom", SYMPTOM in json.dumps(messages[0]), messages)
    contents = (ok("read device://status") or {}).get("contents") or [{}]
    c.equal(f"ts-{sdk}: read device://status: uri, mimeType", [contents[0].get("uri"), contents[0].get("mimeType")],
            ["device://status", "application/json"])
    # What python_client.py checks of these tools in its legacy run, the answers being the same.
    want = {"factory_reset": ["factory settings restored"],
            "explain_status": [f"the model says: {answers['sample']['content']['text']}"],
            "export_target": [f"the calibration would be exported under {answers['roots']['roots'][0]['uri']}"]}
    for tool in ASKING_TOOLS:
        c.equal(f"ts-{sdk}: {tool}: done after the client's answer", texts(ok(tool)), want[tool])
    asked = seen.get("asked", {}).get("result") or {}
    samples = asked.get("samples") or []
    c.equal(f"ts-{sdk}: the user, the model and the roots were each asked once",
            [asked.get("elicitations"), len(samples), asked.get("roots")], [1, 1, 1])
    prompt = ((samples[0].get("messages") or [{}])[0].get("content") or {}) if samples else {}
    c.check(f"ts-{sdk}: explain_status: the sampling request carries the live status", "LED" in str(prompt.get("text")),
            samples)
    ok("setLevel info")
    calls = 2 * dep.replicas
    c.equal(f"ts-{sdk}: after setLevel info, read_temperature logs once on each of {calls} calls",
            ok("logs after setLevel info"), [1] * calls)
    ok("setLevel error")
    c.equal(f"ts-{sdk}: after setLevel error, no log on {calls} calls", ok("logs after setLevel error"), [0] * calls)
    ok("ping")
    ok("close")


# A legacy session in raw HTTP, its standalone GET stream resumed on another replica after the one
# that wrote it was killed (issue #25: resumable streams).
LEGACY_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                  "MCP-Protocol-Version": "2025-11-25"}
# A stream id's top 8 bits are its replica's number (`--replica i`); replica i's standalone GET
# stream is `(i << 24) | 1`. SSE event ids are `<stream>-<sequence>`.
REPLICA_SHIFT = 24
LIST_CHANGED = "notifications/tools/list_changed"
# The enable_blink calls on the killed replica while its GET stream is read, then while it is not.
BLINKS_READ, BLINKS_MISSED = 3, 3
# How long an SSE event may take to arrive, and how long to wait for one that must not.
EVENT_WAIT_S, QUIET_S = 5.0, 1.0


def standalone_stream(replica: int) -> int:
    return (replica << REPLICA_SHIFT) | 1


def event_id(raw: str | None) -> tuple[int, int] | None:
    """(stream, sequence) of an SSE id `<stream>-<sequence>`."""
    m = re.fullmatch(r"(\d+)-(\d+)", raw or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


class RawHttp:
    """One HTTP/1.1 exchange on a connection of its own, its body (chunked or not) read as it comes,
    never blocking past the time given."""

    def __init__(self, addr: str, method: str, body: object = None, headers: dict[str, str] | None = None) -> None:
        host, port = addr.rsplit(":", 1)
        self.what = f"{method} {addr}"
        self.sock = socket.create_connection((host, int(port)), timeout=5)
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} /mcp HTTP/1.1", f"Host: {addr}", f"Content-Length: {len(data)}"]
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        self.raw = b""  # received, not decoded yet
        self.body = b""  # the body decoded so far, less the SSE events taken
        self.done = self.eof = False
        end = time.monotonic() + REQUEST_TIMEOUT_S
        while b"\r\n\r\n" not in self.raw:
            if not self._recv(end - time.monotonic()):
                raise ConnectionError(f"{self.what}: no complete answer head: {self.raw!r}")
        head_bytes, self.raw = self.raw.split(b"\r\n\r\n", 1)
        lines = head_bytes.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        self.chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"
        self.length = int(self.headers["content-length"]) if "content-length" in self.headers else None
        self._decode()

    def _recv(self, timeout: float) -> bool:
        if self.eof:
            return False
        ready, _, _ = select.select([self.sock], [], [], max(timeout, 0))
        if not ready:
            return False
        data = self.sock.recv(65536)
        if not data:
            self.eof = True
            return False
        self.raw += data
        return True

    def _decode(self) -> None:
        if not self.chunked:
            self.body, self.raw = self.body + self.raw, b""
            self.done = self.length is not None and len(self.body) >= self.length
            return
        while not self.done:
            m = re.match(rb"([0-9a-fA-F]+)[^\r\n]*\r\n", self.raw)
            if not m:
                return
            size = int(m.group(1), 16)
            if len(self.raw) < m.end() + size + 2:
                return
            self.body += self.raw[m.end():m.end() + size]
            self.raw = self.raw[m.end() + size + 2:]
            self.done = size == 0

    def read(self, timeout: float) -> None:
        """Takes what arrives within `timeout` s, until the body ends."""
        end = time.monotonic() + timeout
        while not self.done and self._recv(end - time.monotonic()):
            self._decode()
        if self.eof and not self.chunked and self.length is None:
            self.done = True

    def sse(self) -> bool:
        return self.headers.get("content-type", "").startswith("text/event-stream")

    def events(self) -> list[tuple[str | None, str]]:
        """The complete SSE events received so far, taken: (id, data); comments left out."""
        text = self.body.replace(b"\r\n", b"\n")
        out = []
        while b"\n\n" in text:
            block, text = text.split(b"\n\n", 1)
            fields: dict[str, list[str]] = {}
            for line in block.decode().split("\n"):
                name, _, value = line.partition(":")
                if name:
                    fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
            if "id" in fields or "data" in fields:
                out.append((fields.get("id", [None])[-1], "\n".join(fields.get("data", []))))
        self.body = text
        return out

    def wait_events(self, count: int, timeout: float) -> list[tuple[str | None, str]]:
        """Events until `count` came (or the body ended, or `timeout` s passed)."""
        out = self.events()
        end = time.monotonic() + timeout
        while len(out) < count and not self.done and time.monotonic() < end:
            self.read(min(0.1, end - time.monotonic()))
            out += self.events()
        return out

    def close(self) -> None:
        self.sock.close()


class RawSession:
    """A legacy session's requests in raw HTTP, each on a connection of its own to the address given;
    the ids of every SSE event the answers carried are kept."""

    def __init__(self) -> None:
        self.id: str | None = None
        self.next_id = 0
        self.seen: list[tuple[str, tuple[int, int] | None, str]] = []  # (where, (stream, sequence), data)

    def headers(self, more: dict[str, str] | None = None) -> dict[str, str]:
        return {**LEGACY_HEADERS, **({"Mcp-Session-Id": self.id} if self.id else {}), **(more or {})}

    def post(self, addr: str, method: str, params: dict | None = None,
             notify: bool = False) -> tuple[RawHttp, dict | None]:
        """The exchange and the JSON-RPC answer to it (None for a notification, or none found)."""
        body: dict = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}
        if not notify:
            self.next_id += 1
            body["id"] = self.next_id
        r = RawHttp(addr, "POST", body, self.headers())
        try:
            r.read(REQUEST_TIMEOUT_S)
            if r.sse():
                events = r.events()
                self.seen += [(f"POST {method} {addr}", event_id(i), d) for i, d in events]
                messages = [json.loads(d) for _, d in events if d]
            else:
                messages = [json.loads(r.body)] if r.body.strip() else []
        finally:
            r.close()
        answer = next((m for m in messages if isinstance(m, dict) and m.get("id") == body.get("id")), None)
        return r, answer

    def get(self, addr: str, last_event_id: str | None = None) -> RawHttp:
        more = {"Accept": "text/event-stream"}
        if last_event_id:
            more["Last-Event-ID"] = last_event_id
        headers = {n: v for n, v in self.headers(more).items() if n != "Content-Type"}
        return RawHttp(addr, "GET", None, headers)

    def tool(self, addr: str, name: str, arguments: dict) -> tuple[RawHttp, dict | None]:
        return self.post(addr, "tools/call", {"name": name, "arguments": arguments})


def answer_text(answer: dict | None) -> list[str]:
    result = (answer or {}).get("result") or {}
    return [b.get("text") for b in result.get("content", []) if b.get("type") == "text"]


def tool_names(answer: dict | None) -> list[str]:
    return [t.get("name") for t in ((answer or {}).get("result") or {}).get("tools", [])]


def method_of(data: str) -> object:
    try:
        return json.loads(data).get("method")
    except (ValueError, AttributeError):
        return None


def blink_text(enabled: bool) -> list[str]:
    return ["blink_led is offered" if enabled else "blink_led is withdrawn"]


def resume_after_kill(c: Checks, dep: Deployment, kill: int) -> None:
    """Issue #25's resumable streams: a legacy session whose standalone GET stream is open on replica
    `kill` (A) with list changes on it; the stream closed, more list changes, A killed (SIGKILL);
    then the session's requests through nginx, and its GET with the Last-Event-ID last read through
    nginx (a living replica, B): exactly the events missed, then B's own standalone stream."""
    a, nginx, own = dep.addrs[kill], f"127.0.0.1:{dep.port}", standalone_stream(kill)
    offset = dep.log_size()
    s = RawSession()
    r, init = s.post(a, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                       "clientInfo": {"name": "interop-replicas-raw", "version": "0.0.0"}})
    s.id = r.headers.get("mcp-session-id")
    c.check(f"initialize on replica-{kill} (direct): 200, 2025-11-25, a session id",
            r.status == 200 and ((init or {}).get("result") or {}).get("protocolVersion") == "2025-11-25"
            and bool(s.id), (r.status, r.headers, init))
    r, _ = s.post(a, "notifications/initialized", notify=True)
    c.equal(f"notifications/initialized on replica-{kill}: 202", r.status, 202)

    # 1. The session's standalone GET stream, on A.
    get = s.get(a)
    try:
        primed = get.wait_events(1, EVENT_WAIT_S) if get.sse() else []
        c.check(f"GET on replica-{kill} (direct): 200 text/event-stream, the priming event {own}-0",
                get.status == 200 and get.sse() and [e[0] for e in primed] == [f"{own}-0"],
                (get.status, get.headers, primed))
        # 2. List changes on A while the stream is read: enable_blink toggled from what A offers now,
        # so that each call changes the list (announced to every replica: A's copy of the session
        # sends it on its standalone stream).
        blink = "blink_led" in tool_names(s.post(a, "tools/list")[1])
        got, want, heard = [], [], []
        for _ in range(BLINKS_READ):
            blink = not blink
            got.append(answer_text(s.tool(a, "enable_blink", {"enabled": blink})[1]))
            want.append(blink_text(blink))
            heard += get.wait_events(1, EVENT_WAIT_S)
        s.seen += [(f"GET {a}", event_id(i), d) for i, d in primed + heard]
        c.equal(f"{BLINKS_READ} enable_blink calls on replica-{kill} (direct) answered", got, want)
        ids = [event_id(i) for i, _ in heard]
        c.check(f"GET on replica-{kill}: one {LIST_CHANGED} per call, on its standalone stream {own}",
                len(heard) == BLINKS_READ and all(i and i[0] == own for i in ids)
                and all(method_of(d) == LIST_CHANGED for _, d in heard), heard)
        k = ids[-1][1] if ids and ids[-1] else 0
        print(f"  last event read on replica-{kill}'s GET stream: {own}-{k}", flush=True)
    finally:
        get.close()
    time.sleep(0.2)  # the replica notices its reader gone

    # 3. More list changes on A, its stream unread: kept there and in Redis.
    got, want = [], []
    for _ in range(BLINKS_MISSED):
        blink = not blink
        got.append(answer_text(s.tool(a, "enable_blink", {"enabled": blink})[1]))
        want.append(blink_text(blink))
    c.equal(f"{BLINKS_MISSED} more enable_blink calls on replica-{kill} (direct), its stream closed, answered",
            got, want)
    time.sleep(0.3)  # the replica's writer sends its events to Redis in batches, within a few ms

    # 4. A killed.
    log_offsets = dep.replica_log_sizes()
    dep.kill(kill)
    time.sleep(0.2)

    # 5. Through nginx: the session's next requests, then its stream resumed.
    names = tool_names(s.post(nginx, "tools/list")[1])
    c.check("tools/list through nginx after the kill", names[:len(TOOL_NAMES)] == TOOL_NAMES
            and set(names[len(TOOL_NAMES):]) <= {"blink_led"}, names)
    calls = 2 * len(dep.living())
    echoed = [answer_text(s.tool(nginx, "echo", {"message": f"after {i}"})[1]) for i in range(calls)]
    c.equal(f"{calls} echo calls through nginx after the kill", echoed, [[f"after {i}"] for i in range(calls)])

    took: list[tuple[int, str]] = []
    restore: tuple[str, bool] | None = None  # B's board as it was, for the next phases' tools/list
    resumed = s.get(nginx, f"{own}-{k}")
    try:
        replayed = resumed.wait_events(BLINKS_MISSED, EVENT_WAIT_S) if resumed.sse() else []
        time.sleep(QUIET_S)  # nothing more may come: the replay was whole
        resumed.read(0)
        replayed += resumed.events()
        c.check(f"GET through nginx with Last-Event-ID {own}-{k}: 200 text/event-stream, left open",
                resumed.status == 200 and resumed.sse() and not resumed.done, (resumed.status, resumed.headers))
        ids = [event_id(i) for i, _ in replayed]
        c.check(f"replayed: the {BLINKS_MISSED} {LIST_CHANGED} written while unread, on stream {own}",
                len(replayed) == BLINKS_MISSED and all(i and i[0] == own for i in ids)
                and all(method_of(d) == LIST_CHANGED for _, d in replayed), replayed)
        sequences = [i[1] for i in ids if i]
        c.check(f"replayed: sequences {sequences}, after {k}, increasing (none repeated, none from before)",
                len(sequences) == len(ids) and all(q > k for q in sequences) and sequences == sorted(set(sequences)),
                replayed)
        s.seen += [(f"GET {nginx} resumed", i, d) for i, (_, d) in zip(ids, replayed)]
        # One sequence per session copy, over all its streams: the POST answers' fill the gaps
        # between the standalone stream's. Every event A wrote, once: contiguous, none twice.
        mine = sorted(i[1] for _, i, _ in s.seen if i and i[0] >> REPLICA_SHIFT == kill and i[1] > 0)
        c.check(f"replica-{kill}'s events (POST answers; GET stream read, then replayed): sequences "
                f"{mine[0] if mine else '?'}..{mine[-1] if mine else '?'}, each once, none missing",
                bool(mine) and mine == list(range(mine[0], mine[-1] + 1)), [(w, i) for w, i, _ in s.seen if i])
        # The replica that took the stream, from its log (nginx logs the GET only once it ended).
        took = [(i, line) for i, lines in enumerate(dep.replica_lines_since(log_offsets)) for line in lines
                if "another replica's stream resumed" in line and f"stream={own} " in line]
        c.check(f"one living replica resumed stream {own} from Redis, replaying {BLINKS_MISSED} "
                f"({', '.join(f'replica-{i}' for i, _ in took) or 'none'})",
                len(took) == 1 and took[0][0] not in dep.dead and f"replayed={BLINKS_MISSED} ended=false" in took[0][1],
                took)
        if len(took) == 1 and took[0][0] not in dep.dead:
            b = took[0][0]
            # A list change on B goes to B's copy of the session's standalone stream: the one resumed.
            on = "blink_led" not in tool_names(s.post(dep.addrs[b], "tools/list")[1])
            restore = (dep.addrs[b], not on)
            c.equal(f"enable_blink on replica-{b} (direct) answered",
                    answer_text(s.tool(dep.addrs[b], "enable_blink", {"enabled": on})[1]), blink_text(on))
            after = resumed.wait_events(1, EVENT_WAIT_S)
            time.sleep(QUIET_S)
            resumed.read(0)
            after += resumed.events()
            c.check(f"the resumed stream goes on as replica-{b}'s standalone stream {standalone_stream(b)}: "
                    f"its {LIST_CHANGED}, once", len(after) == 1 and not resumed.done
                    and (event_id(after[0][0]) or (0,))[0] == standalone_stream(b)
                    and method_of(after[0][1]) == LIST_CHANGED, after)
    finally:
        resumed.close()
    if restore:
        s.tool(restore[0], "enable_blink", {"enabled": restore[1]})
    r = RawHttp(nginx, "DELETE", None, {n: v for n, v in s.headers().items() if n != "Content-Type"})
    r.read(REQUEST_TIMEOUT_S)
    r.close()
    c.check("DELETE through nginx", 200 <= r.status < 300, r.status)
    time.sleep(0.2)  # nginx logs a request once it ended
    gets = [x for x in dep.requests_since(offset) if x[0] == "GET"]
    c.check(f"nginx: the resumed GET answered 200 by replica-{took[0][0] if took else '?'}",
            len(gets) == 1 and len(took) == 1 and gets[0][1] == 200 and gets[0][2][-1] == dep.addrs[took[0][0]], gets)


def processes_gone(pids: dict[str, int]) -> list[str]:
    """The names of those processes still running (a zombie not yet reaped has ended)."""
    left = []
    for name, pid in pids.items():
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    left.append(f"{name} (pid {pid})")
        except (FileNotFoundError, IndexError):
            pass
    return left


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--server", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                                                     "release", "mcp-device"))
    ap.add_argument("--keep", action="store_true", help="keep the runtime directory (logs) after a clean run")
    a = ap.parse_args()
    if a.replicas < 3:
        ap.error("--replicas must be at least 3 (two are killed, one after the other)")
    dep = Deployment(a.replicas, os.path.abspath(a.server))
    totals = [0, 0]

    def run(label: str, suite, *args, killed: int | None = None, asks: bool = False) -> None:
        c = ReplicaChecks(label)
        print(f"== {label}", flush=True)
        offset = dep.log_size()
        log_offsets = dep.replica_log_sizes()
        try:
            if inspect.iscoroutinefunction(suite):
                async def bounded() -> None:
                    with anyio.fail_after(SUITE_TIMEOUT_S):
                        await suite(c, dep, *args)
                anyio.run(bounded)
            else:
                suite(c, dep, *args)
        except Exception as e:  # noqa: BLE001 - any crash is a failure with a clear message
            c.crash("client run", e)
        time.sleep(0.2)  # nginx logs a request once it ended
        check_spread(c, dep, offset, label, dep.living(), "legacy" in label)
        if asks:
            check_relays(c, dep, offset, log_offsets, label, len(ASKING_TOOLS))
        if killed is not None:
            tried = [r for r in dep.requests_since(offset) if dep.addrs[killed] in r[2][:-1]]
            c.check(f"{label}: nginx moved requests refused by the killed replica on ({len(tried)})", bool(tried),
                    dep.requests_since(offset))
        c.finish()
        totals[0] += c.passed
        totals[1] += c.failed + c.client_failed

    d = Checks("deploy")
    print(f"== deploy/replicas start --replicas {a.replicas} --port {dep.port} --dir {dep.dir}", flush=True)
    started = time.monotonic()
    pids: dict[str, int] = {}
    try:
        if d.equal("deploy/replicas start: exit status", dep.start(), 0):
            print(f"  started in {time.monotonic() - started:.1f} s", flush=True)
            pids = dep.pids()
            d.equal("pid files: redis, nginx and each replica", sorted(pids),
                    sorted(["redis", "nginx", *(f"replica-{i}" for i in range(a.replicas))]))
            if "server flags: redis" not in dep.output:
                print("  note the server has no --redis: the legacy suites are expected to fail", flush=True)
            run("replicas python-auto (2026-07-28)", modern)
            run("replicas python-legacy", legacy, asks=True)
            run("replicas ts-v2-legacy", ts_legacy, "v2", asks=True)
            run("replicas ts-v1-legacy", ts_legacy, "v1", asks=True)
            # The TypeScript SDK's own suites, whole, through nginx (not v1's HTTP+SSE transport: its
            # session is one connection to one replica, which nginx's POSTs to /messages can miss).
            for sdk, era, transport, path in [s for s in TS_SUITES if s[2] == "http"]:
                print(f"== replicas ts-{sdk}-{era} suite (tests/interop/ts_client.mjs through nginx)", flush=True)
                passed, failed = ts_suite(dep.url, sdk, era, transport, path)
                totals[0] += passed
                totals[1] += failed
            last = a.replicas - 1
            run("replicas raw-legacy stream resumed after a kill", resume_after_kill, last, killed=last)
            run("replicas python-legacy kill", legacy, 1, killed=1)
    finally:
        pids = pids or (dep.pids() if os.path.isdir(os.path.join(dep.dir, "pids")) else {})
        d.equal("deploy/replicas stop: exit status", dep.stop(), 0)
        time.sleep(0.2)
        d.equal("deploy/replicas stop: every process it started ended", processes_gone(pids), [])
        busy = [p for p in range(dep.port, dep.port + a.replicas + 2) if port_open(p)]
        d.equal("deploy/replicas stop: its ports are free again", busy, [])
        d.finish()
        totals[0] += d.passed
        totals[1] += d.failed
    if totals[1] == 0 and not a.keep:
        shutil.rmtree(dep.dir, ignore_errors=True)
    else:
        print(f"logs kept in {dep.dir}")
    print(f"replicas interop: {totals[0]} passed, {totals[1]} failed")
    return 0 if totals[1] == 0 and totals[0] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
