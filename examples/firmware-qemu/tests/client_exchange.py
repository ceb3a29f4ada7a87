#!/usr/bin/env python3
"""The client firmware (src/bin/client.rs) against a real MCP server: QEMU's UART0 is wired to a
server's stdin and stdout, byte for byte, both ways.

Usage: client_exchange.py CLIENT_ELF -- SERVER_COMMAND [ARGS...]

The firmware finds the server's era, lists its tools, calls `echo` and exits QEMU with success
only if the answer is its message. Checks: QEMU's exit status, the era and the echo it logged (its
semihosting lines on QEMU's stderr), what it wrote, and that the server exits cleanly once the
board hangs up. Prints one line per check and `N passed, M failed` last. Stdlib only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemu import qemu_command, require_qemu  # noqa: E402

TIMEOUT_S = 60


def pump(source, sink, name: str, log: list[bytes]) -> None:
    """Copies `source` to `sink` until `source` ends; keeps what passed for the failure report."""
    try:
        while True:
            chunk = source.read1(4096)
            if not chunk:
                break
            log.append(chunk)
            sink.write(chunk)
            sink.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass
    finally:
        try:
            sink.close()
        except OSError:
            pass


def main() -> int:
    if "--" not in sys.argv[1:] or len(sys.argv) < 4:
        print(__doc__)
        return 2
    at = sys.argv.index("--")
    elf, server_command = sys.argv[1], sys.argv[at + 1:]
    require_qemu()
    passed = failed = 0

    def check(name: str, ok: bool, detail: str = "") -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"  ok   {name}", flush=True)
        else:
            failed += 1
            print(f"  FAIL {name}: {detail[:800]}", flush=True)

    server = subprocess.Popen(server_command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    qemu = subprocess.Popen(qemu_command(elf), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    to_server: list[bytes] = []
    to_board: list[bytes] = []
    threads = [
        threading.Thread(target=pump, args=(qemu.stdout, server.stdin, "board→server", to_server), daemon=True),
        threading.Thread(target=pump, args=(server.stdout, qemu.stdin, "server→board", to_board), daemon=True),
    ]
    stderr: list[bytes] = []
    # Only these threads read QEMU's output (communicate() would race them for stdout).
    threads.append(threading.Thread(target=lambda: stderr.append(qemu.stderr.read()), daemon=True))
    for thread in threads:
        thread.start()
    try:
        status = qemu.wait(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        qemu.kill()
        qemu.wait()
        status = None
    threads[-1].join(timeout=5)
    log = b"".join(stderr).decode(errors="replace")
    # The board hung up: the server's input ends and it exits by itself.
    try:
        server_status = server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server_status = server.wait()
    wire = b"".join(to_server).decode(errors="replace")
    check("the client firmware exits with success", status == 0, f"status {status}; log:\n{log}\nsent:\n{wire}")
    check("it found the server's era", "connected: 2026-07-28" in log or "connected: 2025-" in log, log)
    check("it listed the tools", "tools: " in log, log)
    check("it got its message back from echo", "echo: hello from the board" in log, log)
    check("the server exits cleanly once the board hangs up", server_status == 0, f"status {server_status}")
    check("every request carried 2026-07-28 _meta", all(
        '"io.modelcontextprotocol/protocolVersion":"2026-07-28"' in line for line in wire.splitlines() if '"method"' in line
    ) if "connected: 2026-07-28" in log else True, wire)
    for line in log.splitlines():
        if "stack peak" in line or "B engine" in line:
            print(f"  info {line}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
