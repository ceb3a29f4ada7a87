#!/usr/bin/env python3
"""An MCP stdio server written with the official Python SDK (mcp 2.x, MCPServer), for our_client.py.

Usage: .cache/peers/venv/bin/python tests/interop/python_server.py

One process serves both eras: the SDK's stdio loop (serve_dual_era_loop) lets the client's first
request decide, `initialize` (2025-11-25 and earlier) or per-request `_meta` after
`server/discover` (2026-07-28).

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
    server.run("stdio")
