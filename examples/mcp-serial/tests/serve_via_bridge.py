#!/usr/bin/env python3
"""A stdio MCP server made of the QEMU firmware behind `mcp-serial`, for the interop suites.

Usage: serve_via_bridge.py [--board BOARD] FIRMWARE_ELF MCP_SERIAL [MCP_SERIAL_ARGS...]

Starts the firmware under QEMU (on BOARD, one of firmware-qemu/tests/qemu.py's BOARDS; the
lm3s6965evb by default) with its UART on a TCP port of 127.0.0.1, then runs
`MCP_SERIAL tcp:127.0.0.1:PORT` with this process's stdin and stdout, so the MCP client talks to
the bridge exactly as an MCP host would. QEMU stops when the bridge exits (or on SIGTERM/SIGINT).
Exits with the bridge's status. Stdlib only.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "firmware-qemu", "tests"))
from qemu import qemu_command, use_board  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Waits until QEMU listens on `port`, without connecting (a connection would be the client)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"serve_via_bridge: QEMU exited with {proc.returncode}")
        with open("/proc/net/tcp") as f:
            rows = [line.split() for line in f.readlines()[1:]]
        # local_address is ADDR:PORT in hex; state 0A is LISTEN.
        if any(row[1].endswith(f":{port:04X}") and row[3] == "0A" for row in rows):
            return
        time.sleep(0.02)
    raise SystemExit("serve_via_bridge: QEMU does not listen")


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--board"] and len(args) > 1:
        use_board(args[1])
        args = args[2:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    elf, bridge, *bridge_args = args
    port = free_port()
    qemu = subprocess.Popen(qemu_command(elf, f"tcp:127.0.0.1:{port},server=on,wait=off"),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sys.stderr)
    child: subprocess.Popen | None = None

    def stop(signum: int, _frame: object) -> None:
        if child is not None and child.poll() is None:
            child.terminate()
        qemu.terminate()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        wait_listening(port, qemu)
        child = subprocess.Popen([bridge, f"tcp:127.0.0.1:{port}", *bridge_args])
        return child.wait()
    finally:
        qemu.terminate()
        try:
            qemu.wait(timeout=5)
        except subprocess.TimeoutExpired:
            qemu.kill()


if __name__ == "__main__":
    sys.exit(main())
