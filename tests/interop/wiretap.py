#!/usr/bin/env python3
"""Transparent stdio tap between an MCP client and a stdio server (stdlib only).

Usage: wiretap.py LOGFILE [--] SERVER_COMMAND [ARGS...]

The client spawns this script as if it were the server. It starts the real server, copies
client stdin -> server stdin and server stdout -> client stdout unchanged, byte for byte, and
appends every line to LOGFILE as JSON: {"pid": <tap pid>, "dir": "c2s"|"s2c", "line": "..."},
and finally {"pid": ..., "dir": "exit", "rc": <server exit status, -N for signal N>}.
Each server process gets its own pid, so interop.py can check each connection on its own.
Server stderr passes through. Exits with the server's exit status.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading


def main() -> int:
    argv = sys.argv[1:]
    if len(argv) >= 2 and argv[1] == "--":  # the `--` is optional: some clients drop it
        del argv[1]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    log_path, command = argv[0], argv[1:]
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    pid = os.getpid()

    def log(direction: str, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="backslashreplace")
        if text.endswith("\n"):
            text = text[:-1]
        rec = json.dumps({"pid": pid, "dir": direction, "line": text}) + "\n"
        os.write(log_fd, rec.encode())  # one O_APPEND write per line: whole lines across processes

    try:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    except OSError as e:
        print(f"wiretap: cannot start {command[0]}: {e}", file=sys.stderr)
        return 127

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: child.send_signal(s))

    def client_to_server() -> None:
        stdin = sys.stdin.buffer
        try:
            for raw in iter(stdin.readline, b""):
                log("c2s", raw)
                child.stdin.write(raw)
                child.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                child.stdin.close()
            except OSError:
                pass

    def server_to_client() -> None:
        out = sys.stdout.buffer
        client_gone = False
        for raw in iter(child.stdout.readline, b""):
            log("s2c", raw)
            if not client_gone:
                try:
                    out.write(raw)
                    out.flush()
                except (BrokenPipeError, OSError):
                    client_gone = True

    threading.Thread(target=client_to_server, daemon=True).start()
    reader = threading.Thread(target=server_to_client)
    reader.start()
    rc = child.wait()
    reader.join()
    os.write(log_fd, (json.dumps({"pid": pid, "dir": "exit", "rc": rc}) + "\n").encode())
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        pass
    os._exit(rc if rc >= 0 else 128 - rc)


if __name__ == "__main__":
    sys.exit(main())
