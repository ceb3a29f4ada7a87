"""Starts the firmware under QEMU as an MCP server on a byte stream. Stdlib only.

`board` names the QEMU machine the ELF was built for (`BOARDS`: lm3s6965evb, the Cortex-M3 board
and the default; microbit, Cortex-M0; virt, RISC-V); `--board` options of the scripts that use this
module pass it on, and so does the FIRMWARE_BOARD environment variable (the default when no
board is given).

`Firmware` serves the board's UART on QEMU's stdin/stdout (`-serial stdio`); `Firmware(tcp_port=N)`
serves it on a TCP listening socket instead (`-serial tcp::N,server=on,wait=off`), for `mcp-serial`.
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

ARM = os.environ.get("QEMU_SYSTEM_ARM", "qemu-system-arm")
RISCV32 = os.environ.get("QEMU_SYSTEM_RISCV32", "qemu-system-riscv32")
# The machine options of each board; every board serves MCP on its first UART and logs on
# semihosting.
BOARDS = {
    "lm3s6965evb": [ARM, "-machine", "lm3s6965evb", "-cpu", "cortex-m3"],
    "microbit": [ARM, "-machine", "microbit"],
    "virt": [RISCV32, "-machine", "virt", "-bios", "none"],
}
DEFAULT_BOARD = os.environ.get("FIRMWARE_BOARD", "lm3s6965evb")
# The Debian package of each QEMU binary, for the hint when it is missing.
PACKAGES = {ARM: "qemu-system-arm", RISCV32: "qemu-system-misc"}


def use_board(board: str) -> None:
    """Makes `board` the default of this module's functions (a script's `--board`)."""
    global DEFAULT_BOARD
    if board not in BOARDS:
        raise SystemExit(f"unknown board {board!r}: one of {', '.join(BOARDS)}")
    DEFAULT_BOARD = board


def qemu_command(elf: str, serial: str = "stdio", board: str | None = None) -> list[str]:
    return [*BOARDS[board or DEFAULT_BOARD], "-nographic", "-monitor", "none", "-serial", serial,
            "-semihosting-config", "enable=on,target=native", "-kernel", elf]


def require_qemu(board: str | None = None) -> None:
    qemu = BOARDS[board or DEFAULT_BOARD][0]
    if shutil.which(qemu) is None:
        raise SystemExit(f"{qemu} not found (apt-get install {PACKAGES.get(qemu, qemu)})")


class Firmware:
    def __init__(self, elf: str, tcp_port: int | None = None, paused: bool = False, board: str | None = None):
        """`paused`: QEMU starts with the CPU stopped (`-S`) until `resume()`; the board's devices,
        the UART included, already exist and receive."""
        serial = "stdio" if tcp_port is None else f"tcp:127.0.0.1:{tcp_port},server=on,wait=off"
        command = qemu_command(elf, serial, board)
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
        self._readers = [threading.Thread(target=self._read_stderr, daemon=True)]
        if tcp_port is None:
            self._readers.append(threading.Thread(target=self._read_stdout, daemon=True))
        for reader in self._readers:
            reader.start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        try:
            for raw in self.proc.stderr:
                self.stderr_lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
        except ValueError:  # closed by `close` while this thread was still reading: the run is over
            pass

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
        # QEMU is gone, so its pipes reach end of file and the readers return. They are joined
        # before the pipes close: a reader about to read a closed pipe's descriptor number could
        # otherwise read the next QEMU's pipe, which the kernel gives the same number, and take
        # the start of that firmware's output.
        for reader in self._readers:
            reader.join(timeout=5)
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
