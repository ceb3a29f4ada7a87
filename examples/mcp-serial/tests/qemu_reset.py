#!/usr/bin/env python3
"""`mcp-serial` in front of the QEMU firmware, across device resets (QEMU restarted behind a TCP
serial backend on the same port).

Usage: qemu_reset.py FIRMWARE_ELF MCP_SERIAL

1. A legacy-era session through the bridge: initialize, tools, resources.
2. Reset: QEMU is frozen (SIGSTOP) with a request in flight, then killed: the request gets an
   error answer. A request sent while the device is away is held.
3. A fresh QEMU on the same port: the bridge reconnects, replays `initialize` (the fresh firmware
   logs a new session), swallows the duplicate answer, forwards the held request: the host's
   session carries on without a second handshake.
4. A second reset while idle, then a modern-era request.
Prints one line per check and `N passed, M failed` last. Stdlib only.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "firmware-qemu", "tests"))
from qemu import Firmware, require_qemu  # noqa: E402
from serial_exchange import Checks  # noqa: E402

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bridge:
    def __init__(self, exe: str, port: int):
        self.proc = subprocess.Popen([exe, f"tcp:127.0.0.1:{port}", "--retry-ms", "50", "--verbose"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, lambda b: self.stderr.append(b.decode().rstrip())),
                         daemon=True).start()

    @staticmethod
    def _pump(stream, sink) -> None:
        for line in stream:
            sink(line)

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def recv(self, timeout: float = 15.0) -> dict:
        line = self.lines.get(timeout=timeout)
        return json.loads(line)

    def quiet(self, wait: float = 0.5) -> bool:
        try:
            line = self.lines.get(timeout=wait)
        except queue.Empty:
            return True
        self.lines.put(line)
        return False


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    elf, exe = sys.argv[1:]
    require_qemu()
    c = Checks()
    port = free_port()
    device = Firmware(elf, tcp_port=port)
    device.wait_ready()
    bridge = Bridge(exe, port)
    try:
        print("== a legacy session through mcp-serial", flush=True)
        bridge.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}})
        init = bridge.recv()
        c.equal("initialize answered", init.get("result", {}).get("protocolVersion"), "2025-11-25")
        bridge.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "set_led", "arguments": {"on": True}}})
        c.equal("set_led through the bridge", bridge.recv().get("result", {}).get("structuredContent"), {"on": True})

        print("== reset with a request in flight", flush=True)
        device.proc.send_signal(signal.SIGSTOP)
        bridge.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_uptime", "arguments": {}}})
        time.sleep(0.3)
        device.proc.kill()
        device.proc.wait()
        device.close()
        lost = bridge.recv()
        c.check("the request lost in the reset gets an error answer",
                lost.get("id") == 3 and lost.get("error", {}).get("code") == -32000, lost)
        bridge.send({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "device://status"}})
        c.check("a request sent while the device is away is held, not failed", bridge.quiet(0.8))

        device = Firmware(elf, tcp_port=port)
        held = bridge.recv(timeout=20)
        c.check("after the reset the held request is answered by the fresh device",
                held.get("id") == 4 and "contents" in held.get("result", {}), held)
        status = json.loads(held.get("result", {}).get("contents", [{}])[0].get("text", "{}"))
        c.equal("the fresh device's LED is off (it really was reset)", status.get("led"), False)
        c.check("the fresh firmware saw the replayed initialize",
                any("session started: 2025-11-25" in line for line in device.stderr_lines), device.stderr_lines)
        c.check("the duplicate initialize answer was swallowed", bridge.quiet())
        bridge.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "still here"}}})
        echo = bridge.recv()
        c.equal("the host's session carries on (no second handshake)",
                [x.get("text") for x in echo.get("result", {}).get("content", [])], ["still here"])

        print("== idle reset, then the modern era", flush=True)
        device.close()
        device = Firmware(elf, tcp_port=port)
        device.wait_ready()
        bridge.send({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                     "params": {"name": "get_uptime", "arguments": {}, "_meta": META}})
        up = bridge.recv(timeout=20)
        c.check("a modern-era request after a second reset", isinstance(
            up.get("result", {}).get("structuredContent", {}).get("uptimeMs"), int), up)
        c.check("nothing was lost in an idle reset", bridge.quiet())
        c.check("mcp-serial logged the resets on stderr",
                sum("lost the device" in line for line in bridge.stderr) >= 2, bridge.stderr)

        assert bridge.proc.stdin is not None
        bridge.proc.stdin.close()
        try:
            rc = bridge.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            rc = None
        c.equal("mcp-serial exits 0 when the host closes stdin", rc, 0)
    finally:
        if bridge.proc.poll() is None:
            bridge.proc.kill()
        device.close()
    print(f"{c.passed} passed, {c.failed} failed", flush=True)
    return 0 if c.failed == 0 and c.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
