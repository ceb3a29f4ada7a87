#!/usr/bin/env python3
"""Our client, the `mcp` command line, against the QEMU firmware through `mcp-serial`, in each era.

Usage: our_client_bridged.py MCP FIRMWARE_ELF MCP_SERIAL

Each check runs `mcp --json --era ERA ... -- python3 serve_via_bridge.py ELF MCP_SERIAL` (the
firmware under QEMU behind the bridge, as any MCP host reaches a board) and looks at the exit
status and the printed JSON: the tools listed, `echo` answered with its message, a temperature read
with its structured content, and `ping`. Prints one line per check and `N passed, M failed` last.
Stdlib only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BRIDGE_SCRIPT = os.path.join(HERE, "..", "..", "mcp-serial", "tests", "serve_via_bridge.py")
TIMEOUT_S = 60


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    mcp, elf, bridge = sys.argv[1:]
    server = ["--", sys.executable, BRIDGE_SCRIPT, elf, bridge]
    passed = failed = 0

    def run(era: str, *args: str) -> tuple[int, str, str]:
        try:
            done = subprocess.run([mcp, "--json", "--era", era, "--timeout", "20", *args, *server],
                                  capture_output=True, text=True, timeout=TIMEOUT_S)
            return done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired:
            return -1, "", "timed out"

    def check(name: str, ok: bool, detail: str = "") -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"  ok   {name}", flush=True)
        else:
            failed += 1
            print(f"  FAIL {name}: {detail[-800:]}", flush=True)

    for era in ["legacy", "modern", "auto"]:
        status, out, err = run(era, "tools")
        names = [tool.get("name") for tool in json.loads(out)] if status == 0 else []
        check(f"{era}: tools lists echo and read_temperature", "echo" in names and "read_temperature" in names,
              f"status {status}: {err}{out}")
        status, out, err = run(era, "call", "echo", "message=hello board")
        text = json.loads(out)["content"][0].get("text") if status == 0 else None
        check(f"{era}: echo answers its message", text == "hello board", f"status {status}: {err}{out}")
        status, out, err = run(era, "call", "read_temperature", "sensor=cpu")
        structured = json.loads(out).get("structuredContent", {}) if status == 0 else {}
        check(f"{era}: read_temperature has structured content", structured.get("sensor") == "cpu",
              f"status {status}: {err}{out}")
        status, out, err = run(era, "ping")
        check(f"{era}: ping", status == 0 and json.loads(out).get("ok") is True, f"status {status}: {err}{out}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
