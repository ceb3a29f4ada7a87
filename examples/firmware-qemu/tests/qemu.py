"""Starts the firmware under QEMU (lm3s6965evb) as an MCP server on a byte stream. Stdlib only.

`Firmware` serves UART0 on QEMU's stdin/stdout (`-serial stdio`); `Firmware(tcp_port=N)` serves it
on a TCP listening socket instead (`-serial tcp::N,server=on,wait=off`), for `mcp-serial`.
Semihosting diagnostics (QEMU's stderr) are collected in `stderr_lines`; `stack_peak()` reads the
firmware's reported stack high-water mark from them.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time

QEMU = os.environ.get("QEMU_SYSTEM_ARM", "qemu-system-arm")


def qemu_command(elf: str, serial: str = "stdio") -> list[str]:
    return [QEMU, "-machine", "lm3s6965evb", "-cpu", "cortex-m3", "-nographic", "-monitor", "none",
            "-serial", serial, "-semihosting-config", "enable=on,target=native", "-kernel", elf]


def require_qemu() -> None:
    if shutil.which(QEMU) is None:
        raise SystemExit(f"{QEMU} not found (apt-get install qemu-system-arm)")


class Firmware:
    def __init__(self, elf: str, tcp_port: int | None = None, paused: bool = False):
        """`paused`: QEMU starts with the CPU stopped (`-S`) until `resume()`; the board's devices,
        the UART included, already exist and receive."""
        serial = "stdio" if tcp_port is None else f"tcp:127.0.0.1:{tcp_port},server=on,wait=off"
        command = qemu_command(elf, serial)
        self._monitor: str | None = None
        self.notifications: list[dict] = []
        if paused:
            self._monitor = os.path.join(tempfile.mkdtemp(prefix="fw-qemu-"), "monitor.sock")
            at = command.index("-monitor")
            command[at + 1] = f"unix:{self._monitor},server=on,wait=off"
            command.append("-S")
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.stderr_lines: list[str] = []
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stdout_bytes = b""
        threading.Thread(target=self._read_stderr, daemon=True).start()
        if tcp_port is None:
            threading.Thread(target=self._read_stdout, daemon=True).start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.stderr_lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        pending = b""
        while True:
            chunk = self.proc.stdout.read(4096)
            if not chunk:
                self._lines.put(None)
                return
            self._stdout_bytes += chunk
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                self._lines.put(line)

    def resume(self, timeout: float = 10.0) -> None:
        """Starts the CPU of a `paused` QEMU (the monitor's `cont`)."""
        assert self._monitor is not None, "not started paused"
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self._monitor)
                    s.sendall(b"cont\n")
                    time.sleep(0.1)
                return
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Waits for the firmware's start-up line on the diagnostic channel."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any("serving MCP" in line for line in self.stderr_lines):
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"QEMU exited with {self.proc.returncode}: {self.stderr_lines}")
            time.sleep(0.02)
        raise TimeoutError(f"the firmware did not start: {self.stderr_lines}")

    def send(self, data: bytes, chunk: int | None = None, pause: float = 0.0) -> None:
        assert self.proc.stdin is not None
        if chunk is None:
            self.proc.stdin.write(data)
        else:
            for i in range(0, len(data), chunk):
                self.proc.stdin.write(data[i:i + chunk])
                self.proc.stdin.flush()
                if pause:
                    time.sleep(pause)
        self.proc.stdin.flush()

    def request(self, message: dict) -> dict:
        self.send(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        return self.recv()

    def recv_line(self, timeout: float = 10.0) -> bytes:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no answer within {timeout}s") from None
        if line is None:
            raise EOFError("QEMU closed its stdout")
        return line

    def recv(self, timeout: float = 10.0) -> dict:
        """The next answer; notifications the device sends on the way (log messages of sensor
        reads, progress) are kept in `notifications`."""
        while True:
            message = json.loads(self.recv_line(timeout))
            if isinstance(message, dict) and "method" in message and "id" not in message:
                self.notifications.append(message)
                continue
            return message

    def no_more_output(self, wait: float = 0.3) -> bool:
        try:
            line = self._lines.get(timeout=wait)
        except queue.Empty:
            return True
        self._lines.put(line)
        return False

    @property
    def stdout_bytes(self) -> bytes:
        return self._stdout_bytes

    def stack_peak(self) -> int | None:
        peaks = [int(m.group(1)) for line in self.stderr_lines
                 if (m := re.search(r"stack peak (\d+) B", line))]
        return max(peaks) if peaks else None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def __enter__(self) -> "Firmware":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
