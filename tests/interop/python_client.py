#!/usr/bin/env python3
"""Interop test: the official Python MCP SDK (mcp 2.x) as a client of an MCP stdio server.

Usage: python_client.py --era legacy|modern|auto [--profile full|typical] -- SERVER_COMMAND [ARGS...]

Run with the interpreter of .cache/peers/venv (scripts/install-peers creates it).
Era selection:
  legacy: `ClientSession` over `stdio_client`, `ClientSession.initialize()`: the initialize
          handshake, offering 2025-11-25.
  modern: `ClientSession` over `stdio_client`, `ClientSession.discover()`: `server/discover` at
          2026-07-28; every later request carries the per-request `_meta` envelope. No fallback.
  auto:   the high-level `mcp.client.Client(StdioServerParameters(...))` with its default
          mode="auto" (probe server/discover, fall back to initialize). A dual-era server must
          come out modern.
--profile typical: the server is the example device built with the firmware's typical profile (both
eras, tools, resources, prompts, logging): completion and subscriptions must be answered -32601 and
not declared, the tools that ask the client for input -32603; the rest is checked as in full.
Prints one line per check and `N passed, M failed` last; exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import warnings  # noqa: E402

import anyio  # noqa: E402
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
from mcp.client.client import Client  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

import mcp_types as types  # noqa: E402

REQUEST_TIMEOUT_S = 20
RUN_TIMEOUT_S = 120
# The tools that ask the client for input (elicitation, sampling, roots).
INPUT_TOOLS = ["factory_reset", "explain_status", "export_target"]


def text_blocks(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


async def expect_error(c: Checks, name: str, want_code: int, coro) -> None:
    try:
        got = await coro
    except MCPError as e:
        c.equal(f"{name}: JSON-RPC error code", e.code, want_code)
        return
    c.check(f"{name}: JSON-RPC error code", False, f"expected error {want_code}, got result {got!r}")


async def exercise(c: Checks, session: ClientSession | Client, era: str, profile: str = "full") -> None:
    # --- connection -----------------------------------------------------------------------
    if era == "legacy":
        init = await session.initialize()
        c.equal("initialize: protocolVersion", init.protocol_version, "2025-11-25")
        c.equal("initialize: serverInfo.name", init.server_info.name, SERVER_NAME)
        caps = init.capabilities
    elif era == "auto":  # `session` is an entered mcp.client.Client: negotiation already ran
        c.equal("auto: negotiated the modern era", session.protocol_version, "2026-07-28")
        info = session.server_info
        c.equal("auto: serverInfo.name", info.name if info else None, SERVER_NAME)
        caps = session.server_capabilities
        era = "modern"
    else:
        disc = await session.discover()
        c.check("discover: supportedVersions has 2026-07-28", "2026-07-28" in disc.supported_versions,
                disc.supported_versions)
        c.equal("discover: negotiated version", session.protocol_version, "2026-07-28")
        info = session.server_info
        c.equal("discover: serverInfo.name", info.name if info else None, SERVER_NAME)
        caps = disc.capabilities
    c.check("capabilities: tools, resources, prompts",
            caps.tools is not None and caps.resources is not None and caps.prompts is not None,
            caps.model_dump(exclude_none=True))
    if profile == "typical":
        c.check("capabilities (typical profile): no completions, no resource subscriptions",
                caps.completions is None and not (caps.resources and caps.resources.subscribe),
                caps.model_dump(exclude_none=True))

    # --- tools ----------------------------------------------------------------------------
    tools = (await session.list_tools()).tools
    c.equal("tools/list: names in order", [t.name for t in tools], TOOL_NAMES)
    for t in tools:
        c.equal(f"tools/list: {t.name}.inputSchema.type", (t.input_schema or {}).get("type"), "object")

    r = await session.call_tool("echo", {"message": ECHO_MESSAGE})
    c.check("echo: not isError", not r.is_error, r.model_dump(exclude_none=True))
    c.equal("echo: one text content equal to the message", text_blocks(r), [ECHO_MESSAGE])
    c.equal("echo: content length", len(r.content), 1)

    r = await session.call_tool("read_temperature", {})
    sc = r.structured_content
    c.check("read_temperature: not isError", not r.is_error, r.model_dump(exclude_none=True))
    c.check("read_temperature: has text content", len(text_blocks(r)) >= 1, r.model_dump(exclude_none=True))
    c.check("read_temperature: structuredContent {sensor: board, celsius: number}",
            isinstance(sc, dict) and sc.get("sensor") == "board" and is_number(sc.get("celsius")), sc)

    r = await session.call_tool("read_temperature", {"sensor": "cpu"})
    sc = r.structured_content
    c.check("read_temperature(cpu): structuredContent {sensor: cpu, celsius: number}",
            isinstance(sc, dict) and sc.get("sensor") == "cpu" and is_number(sc.get("celsius")), sc)

    for on in (True, False):
        r = await session.call_tool("set_led", {"on": on})
        c.check(f"set_led({on}): not isError", not r.is_error, r.model_dump(exclude_none=True))
        c.equal(f"set_led({on}): structuredContent", r.structured_content, {"on": on})

    r1 = await session.call_tool("get_uptime", {})
    r2 = await session.call_tool("get_uptime", {})
    u1 = (r1.structured_content or {}).get("uptimeMs") if isinstance(r1.structured_content, dict) else None
    u2 = (r2.structured_content or {}).get("uptimeMs") if isinstance(r2.structured_content, dict) else None
    c.check("get_uptime: structuredContent {uptimeMs: integer >= 0}", is_int(u1) and u1 >= 0,
            r1.structured_content)
    c.check("get_uptime: keys exactly [uptimeMs]", isinstance(r1.structured_content, dict)
            and list(r1.structured_content) == ["uptimeMs"], r1.structured_content)
    c.check("get_uptime: does not go backwards", is_int(u1) and is_int(u2) and u2 >= u1, [u1, u2])

    await expect_error(c, "tools/call unknown tool", -32602, session.call_tool("no_such_tool", {}))

    r = await session.call_tool("echo", {})
    c.check("echo without message: isError true", r.is_error is True, r.model_dump(exclude_none=True))

    # --- resources ------------------------------------------------------------------------
    res = (await session.list_resources()).resources
    by_uri = {str(x.uri): x for x in res}
    for uri, mime in RESOURCES.items():
        c.check(f"resources/list: has {uri}", uri in by_uri, sorted(by_uri))
        if uri in by_uri:
            c.equal(f"resources/list: {uri} mimeType", by_uri[uri].mime_type, mime)

    rr = await session.read_resource("device://status")
    c.equal("read device://status: one content", len(rr.contents), 1)
    st = rr.contents[0] if rr.contents else None
    c.check("read device://status: text contents", isinstance(st, types.TextResourceContents), st)
    if isinstance(st, types.TextResourceContents):
        c.equal("read device://status: uri", str(st.uri), "device://status")
        c.equal("read device://status: mimeType", st.mime_type, "application/json")
        try:
            doc = json.loads(st.text)
        except ValueError as e:
            doc = None
            c.check("read device://status: text is JSON", False, f"{e}: {st.text!r}")
        if doc is not None:
            c.check("read device://status: {led: bool, uptimeMs: int}",
                    isinstance(doc, dict) and isinstance(doc.get("led"), bool) and is_int(doc.get("uptimeMs")), doc)
            c.equal("read device://status: led reflects set_led(false)", doc.get("led"), False)

    rr = await session.read_resource("device://calibration")
    cal = rr.contents[0] if rr.contents else None
    c.check("read device://calibration: blob contents", isinstance(cal, types.BlobResourceContents), cal)
    if isinstance(cal, types.BlobResourceContents):
        c.equal("read device://calibration: mimeType", cal.mime_type, "application/octet-stream")
        data = b64_decode(cal.blob)
        c.check("read device://calibration: valid non-empty base64", bool(data), cal.blob[:80])

    await expect_error(c, f"read device://missing ({era})", MISSING_RESOURCE_CODE[era],
                       session.read_resource("device://missing"))

    # --- prompts --------------------------------------------------------------------------
    prompts = (await session.list_prompts()).prompts
    diag = next((p for p in prompts if p.name == "diagnose"), None)
    c.check("prompts/list: has diagnose", diag is not None, [p.name for p in prompts])
    if diag is not None:
        arg = next((a for a in (diag.arguments or []) if a.name == "symptom"), None)
        c.check("prompts/list: diagnose has required argument symptom", arg is not None and arg.required is True,
                diag.model_dump(exclude_none=True))

    gp = await session.get_prompt("diagnose", {"symptom": SYMPTOM})
    m0 = gp.messages[0] if gp.messages else None
    c.check("prompts/get diagnose: messages[0] is a user text message",
            m0 is not None and m0.role == "user" and isinstance(m0.content, types.TextContent),
            gp.model_dump(exclude_none=True))
    if m0 is not None and isinstance(m0.content, types.TextContent):
        c.check("prompts/get diagnose: text contains the symptom", SYMPTOM in m0.content.text, m0.content.text)


class Events:
    """What the server sent unasked, through the session's callbacks."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.notifications: list[object] = []
        self.elicitations: list[object] = []
        self.samples: list[types.CreateMessageRequestParams] = []
        self.roots_asked = 0

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def on_message(self, message: object) -> None:
        self.notifications.append(message)

    async def on_elicit(self, context: object, params: object) -> types.ElicitResult:
        self.elicitations.append(params)
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def on_sample(self, context: object, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.samples.append(params)
        return types.CreateMessageResult(role="assistant", model="interop-model",
                                         content=types.TextContent(type="text", text="all is well"))

    async def on_roots(self, context: object) -> types.ListRootsResult:
        self.roots_asked += 1
        return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/interop-root", name="interop")])

    def callbacks(self) -> dict:
        return {"logging_callback": self.on_log, "message_handler": self.on_message,
                "elicitation_callback": self.on_elicit, "sampling_callback": self.on_sample,
                "list_roots_callback": self.on_roots}


async def exercise_surface(c: Checks, session: ClientSession | Client, era: str, events: Events,
                           profile: str = "full") -> None:
    """Templates, completion, logging, progress, list changes and elicitation. In the typical
    profile, completion, subscriptions and input from the client are checked to be left out."""
    modern = era != "legacy"
    typical = profile == "typical"
    templates = (await session.list_resource_templates()).resource_templates
    c.equal("resources/templates/list: the sensor template", [t.uri_template for t in templates],
            ["device://sensor/{name}"])
    rr = await session.read_resource("device://sensor/cpu")
    doc = json.loads(rr.contents[0].text) if rr.contents and isinstance(rr.contents[0], types.TextResourceContents) else None
    c.check("read device://sensor/cpu (template): {sensor: cpu, celsius: number}",
            isinstance(doc, dict) and doc.get("sensor") == "cpu" and is_number(doc.get("celsius")), doc)
    if typical:
        await expect_error(c, "completion/complete (no completion in the profile)", -32601,
                           session.complete(types.PromptReference(name="diagnose"), {"name": "symptom", "value": "o"}))
    else:
        done = await session.complete(types.ResourceTemplateReference(uri="device://sensor/{name}"),
                                      {"name": "name", "value": "c"})
        c.equal("completion/complete template variable: values", done.completion.values, ["cpu"])
        done = await session.complete(types.PromptReference(name="diagnose"), {"name": "symptom", "value": "over"})
        c.equal("completion/complete prompt argument: values", done.completion.values, ["overheating"])

    # Logging: legacy through logging/setLevel, 2026-07-28 through the session's per-request log level.
    if not modern:
        with warnings.catch_warnings():  # deprecated in 2026-07-28, current in the legacy era
            warnings.simplefilter("ignore")
            await session.set_logging_level("info")
    before = len(events.logs)
    await session.call_tool("read_temperature", {})
    logs = events.logs[before:]
    c.check("read_temperature: logged through notifications/message (logger sensors, level info)",
            len(logs) == 1 and logs[0].logger == "sensors" and logs[0].level == "info"
            and "board sensor read" in str(logs[0].data), [l.model_dump() for l in logs])
    if not modern:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await session.set_logging_level("error")
        before = len(events.logs)
        await session.call_tool("read_temperature", {})
        c.equal("read_temperature after setLevel(error): no log message", len(events.logs) - before, 0)

    progress: list[tuple] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    r = await session.call_tool("calibrate", {}, progress_callback=on_progress)
    c.equal("calibrate: progress 1..4 of 4, in order", [p[:2] for p in progress], [(1, 4), (2, 4), (3, 4), (4, 4)])
    c.equal("calibrate: structuredContent", r.structured_content, {"steps": 4})

    if not modern:
        # The tool list changes: legacy sessions hear it.
        r = await session.call_tool("enable_blink", {"enabled": True})
        await anyio.sleep(0.1)
        changed = [n for n in events.notifications if isinstance(n, types.ToolListChangedNotification)]
        c.equal("enable_blink: notifications/tools/list_changed", len(changed), 1)
        names = [t.name for t in (await session.list_tools()).tools]
        c.check("tools/list after enable_blink: has blink_led", "blink_led" in names, names)
        r = await session.call_tool("blink_led", {"times": 2})
        c.equal("blink_led: text", text_blocks(r), ["blinked 2 times"])
        await session.call_tool("enable_blink", {"enabled": False})

    if typical:
        for tool in INPUT_TOOLS:
            await expect_error(c, f"{tool} (asks for input: no input in the profile)", -32603,
                               session.call_tool(tool, {}))
        c.equal("the client was asked nothing",
                (len(events.elicitations), len(events.samples), events.roots_asked), (0, 0, 0))
        if not modern:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await expect_error(c, "resources/subscribe (no subscriptions in the profile)", -32601,
                                   session.subscribe_resource("device://status"))
        return

    # The factory reset asks the user first (elicitation).
    if era == "modern":
        # `ClientSession` hands the InputRequiredResult back; answer it and retry.
        first = await session.call_tool("factory_reset", {}, allow_input_required=True)
        c.check("factory_reset: InputRequiredResult with an elicitation/create request",
                isinstance(first, types.InputRequiredResult)
                and first.input_requests is not None and "confirm" in first.input_requests, first)
        answer = {"confirm": types.ElicitResult(action="accept", content={"confirm": True})}
        r = await session.call_tool("factory_reset", {}, input_responses=answer,
                                    request_state=getattr(first, "request_state", None))
    else:
        # Legacy: the server asks through elicitation/create; auto: the client's MRTR driver does.
        r = await session.call_tool("factory_reset", {})
        c.equal("factory_reset: the user was asked once", len(events.elicitations), 1)
    c.equal("factory_reset: done after the confirmation", text_blocks(r), ["factory settings restored"])

    # Sampling and roots: asked of the client the same two ways.
    if era == "modern":
        first = await session.call_tool("explain_status", {}, allow_input_required=True)
        request = (first.input_requests or {}).get("explanation") if isinstance(first, types.InputRequiredResult) else None
        c.check("explain_status: InputRequiredResult with a sampling/createMessage request",
                isinstance(request, types.CreateMessageRequest), first)
        answer = types.CreateMessageResult(role="assistant", model="interop-model",
                                           content=types.TextContent(type="text", text="all is well"))
        r = await session.call_tool("explain_status", {}, input_responses={"explanation": answer})
        c.equal("explain_status: the model's answer", text_blocks(r), ["the model says: all is well"])
        first = await session.call_tool("export_target", {}, allow_input_required=True)
        c.check("export_target: InputRequiredResult with a roots/list request",
                isinstance(first, types.InputRequiredResult) and "roots" in (first.input_requests or {}), first)
        roots = types.ListRootsResult(roots=[types.Root(uri="file:///tmp/interop-root", name="interop")])
        r = await session.call_tool("export_target", {}, input_responses={"roots": roots})
    else:
        r = await session.call_tool("explain_status", {})
        c.equal("explain_status: the model was asked once", len(events.samples), 1)
        prompt = events.samples[0].messages[0].content if events.samples and events.samples[0].messages else None
        c.check("explain_status: the sampling request carries the live status",
                isinstance(prompt, types.TextContent) and "LED" in prompt.text, prompt)
        c.equal("explain_status: the model's answer", text_blocks(r), ["the model says: all is well"])
        r = await session.call_tool("export_target", {})
        c.equal("export_target: the roots were asked once", events.roots_asked, 1)
    c.equal("export_target: names the first root", text_blocks(r),
            ["the calibration would be exported under file:///tmp/interop-root"])

    if not modern:
        # Subscriptions: the status changes with the LED.
        with warnings.catch_warnings():  # removed in 2026-07-28, current in the legacy era
            warnings.simplefilter("ignore")
            await session.subscribe_resource("device://status")
        await session.call_tool("set_led", {"on": True})
        await anyio.sleep(0.1)
        updated = [n for n in events.notifications if isinstance(n, types.ResourceUpdatedNotification)]
        c.check("resources/subscribe device://status: updated when the LED changes",
                len(updated) == 1 and str(updated[0].params.uri) == "device://status", updated)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await session.unsubscribe_resource("device://status")
        await session.call_tool("set_led", {"on": False})
        await anyio.sleep(0.1)
        updated = [n for n in events.notifications if isinstance(n, types.ResourceUpdatedNotification)]
        c.equal("resources/unsubscribe: no update after", len(updated), 1)


async def run(era: str, command: list[str], profile: str = "full") -> int:
    c = Checks(f"python-sdk {era}")
    import importlib.metadata as md

    print(f"== python SDK mcp {md.version('mcp')} client, {era} era, server: {' '.join(command)}", flush=True)
    params = StdioServerParameters(command=command[0], args=command[1:])
    info = types.Implementation(name=f"interop-python-{era}", version="0.0.0")
    events = Events()
    try:
        with anyio.fail_after(RUN_TIMEOUT_S):
            if era == "auto":
                async with Client(params, client_info=info, read_timeout_seconds=REQUEST_TIMEOUT_S,
                                  log_level="info", **events.callbacks()) as client:
                    await exercise(c, client, era, profile)
                    await exercise_surface(c, client, era, events, profile)
            else:
                async with stdio_client(params) as (read, write):
                    log_level = "info" if era == "modern" else None
                    async with ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT_S, client_info=info,
                                             log_level=log_level, **events.callbacks()) as session:
                        await exercise(c, session, era, profile)
                        await exercise_surface(c, session, era, events, profile)
    except Exception as e:  # noqa: BLE001 - any crash is a test failure with a clear message
        c.crash("client run", e)
    return c.finish()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--era", choices=["legacy", "modern", "auto"], required=True)
    ap.add_argument("--profile", choices=["full", "typical"], default="full")
    ap.add_argument("command", nargs="+", help="server command (after --)")
    a = ap.parse_args()
    return anyio.run(run, a.era, a.command, a.profile)


if __name__ == "__main__":
    sys.exit(main())
