#!/usr/bin/env python3
"""An MCP server written with the official Python SDK (mcp 2.x, MCPServer), for our_client.py.

Usage: .cache/peers/venv/bin/python tests/interop/python_server.py            (stdio)
       .cache/peers/venv/bin/python tests/interop/python_server.py --http PORT (Streamable HTTP)

One process serves both eras. On stdio the SDK's loop (serve_dual_era_loop) lets the client's first
request decide, `initialize` (2025-11-25 and earlier) or per-request `_meta` after
`server/discover` (2026-07-28). With `--http PORT` it serves Streamable HTTP at
http://127.0.0.1:PORT/mcp (MCPServer.run("streamable-http"): uvicorn; SSE answers, not JSON-only;
the SDK's default loopback Host/Origin checks): the session manager routes a POST whose
`MCP-Protocol-Version` header is not a handshake version (2026-07-28) to its stateless modern entry,
and everything else to legacy sessions (`initialize`, `Mcp-Session-Id`, DELETE to end one).

Tools:     echo(message) -> text and {"result": message}; add(a: int, b: int) -> {"result": a + b};
           fail(reason) -> isError; weather(city) -> structured {"city", "celsius", "sky"};
           roots() -> the client's roots (ListRoots resolver: `roots/list` in the legacy era,
           an `input_required` round in the modern one);
           confirm() -> asks the user (Elicit resolver; needs the client's elicitation capability);
           profile() -> asks the user for {name, age} and says what came back, accepted, declined
           or cancelled (an ElicitationResult resolver: declining is not an error);
           summarize(text) -> asks the client's model (Sample resolver; needs sampling) and
           returns "<model> says: <text>";
           chatty() -> logs "debug detail" (debug) and "careful now" (warning) as logger "chatty",
           then returns "logged".
Logging:   2026-07-28: the SDK sends a request's log messages only at or above the level in its
           `_meta` (io.modelcontextprotocol/logLevel), none without it. Legacy: MCPServer has no
           `logging/setLevel` of its own; this server adds one (so it declares `logging`) and
           chatty() logs at or above the level set on its session (everything before one is set).
Resources: config://app (text), greeting://{name} (template).
Prompts:   review(code) -> one user message; pick(language) -> one user message.
Completion: pick's `language` from LANGUAGES, greeting://{name}'s `name` from NAMES (prefix match);
           with context argument language=rust, pick's `language` completes to ["rust"] only.
"""

from __future__ import annotations

import weakref
from typing import Annotated, Any

from mcp.server.elicitation import AcceptedElicitation, DeclinedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp_types import (
    Completion,
    CreateMessageResult,
    EmptyResult,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    SetLevelRequestParams,
    TextContent,
)
from pydantic import BaseModel

server = MCPServer("python-sdk-fixture", version="1.0.0", instructions="Fixture for tests/interop/our_client.py")


@server.tool()
def echo(message: str) -> str:
    """Sends the message back."""
    return message


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def fail(reason: str = "on purpose") -> str:
    """Always fails, as a tool error (isError)."""
    raise ToolError(f"failed: {reason}")


class Weather(BaseModel):
    city: str
    celsius: float
    sky: str


@server.tool()
def weather(city: str) -> Weather:
    """Made-up weather, as structured output."""
    return Weather(city=city, celsius=21.5, sky="clear")


def client_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def roots(found: Annotated[ListRootsResult, Resolve(client_roots)]) -> str:
    """The client's roots, one URI a line (asks the client with roots/list)."""
    return "\n".join(str(root.uri) for root in found.roots)


class Confirmation(BaseModel):
    ok: bool


def ask() -> Elicit[Confirmation]:
    return Elicit("Go ahead?", Confirmation)


@server.tool()
def confirm(answer: Annotated[Confirmation, Resolve(ask)]) -> str:
    """Asks the user to confirm (elicitation)."""
    return "confirmed" if answer.ok else "not confirmed"


class Profile(BaseModel):
    name: str
    age: int = 30


def ask_profile() -> Elicit[Profile]:
    return Elicit("Who are you?", Profile)


@server.tool()
def profile(answer: Annotated[ElicitationResult[Profile], Resolve(ask_profile)]) -> str:
    """Asks the user for a profile (elicitation) and says what came back."""
    if isinstance(answer, AcceptedElicitation):
        return f"accepted: {answer.data.name}, {answer.data.age}"
    if isinstance(answer, DeclinedElicitation):
        return "declined"
    return "cancelled"


def ask_model(text: str) -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))
    return Sample([message], max_tokens=50)


@server.tool()
def summarize(text: str, reply: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Asks the client's model to summarize the text (sampling)."""
    blocks = reply.content if isinstance(reply.content, list) else [reply.content]
    said = " ".join(getattr(block, "text", "") for block in blocks)
    return f"{reply.model} says: {said}"


# Legacy `logging/setLevel`, per connection (a ServerSession is made per request; its connection is
# the session's). The SDK's own level rules apply in 2026-07-28.
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
session_levels: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


async def set_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
    session_levels[ctx.session._connection] = params.level
    return EmptyResult()


server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)


@server.tool()
async def chatty(ctx: Context) -> str:
    """Logs a debug and a warning message (logger "chatty")."""
    floor = LEVELS.index(session_levels.get(ctx.session._connection, "debug"))
    if floor <= LEVELS.index("debug"):
        await ctx.debug("debug detail", logger_name="chatty")
    if floor <= LEVELS.index("warning"):
        await ctx.warning("careful now", logger_name="chatty")
    return "logged"


@server.resource("config://app", mime_type="text/plain")
def config() -> str:
    """The app's configuration."""
    return "mode=test\nlevel=3"


@server.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A greeting for name."""
    return f"Hello, {name}!"


@server.prompt()
def review(code: str) -> str:
    """Asks for a code review."""
    return f"Please review this code:\n\n{code}"


@server.prompt()
def pick(language: str) -> str:
    """Asks for a tip about a programming language (its argument completes)."""
    return f"Give me one tip about {language}."


LANGUAGES = ["python", "perl", "php", "rust", "ruby"]
NAMES = ["alice", "albert", "bob"]


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
    chosen = (context.arguments or {}) if context is not None else {}
    if isinstance(ref, PromptReference) and ref.name == "pick" and argument.name == "language":
        if "language" in chosen:
            return Completion(values=[chosen["language"]], total=1, has_more=False)
        values = [v for v in LANGUAGES if v.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    if isinstance(ref, ResourceTemplateReference) and ref.uri == "greeting://{name}" and argument.name == "name":
        return Completion(values=[v for v in NAMES if v.startswith(argument.value)])
    return None


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--http"] and len(sys.argv) == 3:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif len(sys.argv) == 1:
        server.run("stdio")
    else:
        sys.exit(f"usage: {sys.argv[0]} [--http PORT]")
