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
           confirm() -> asks the user (Elicit resolver; needs the client's elicitation capability).
Resources: config://app (text), greeting://{name} (template).
Prompts:   review(code) -> one user message.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve
from mcp_types import ListRootsResult
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


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--http"] and len(sys.argv) == 3:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif len(sys.argv) == 1:
        server.run("stdio")
    else:
        sys.exit(f"usage: {sys.argv[0]} [--http PORT]")
