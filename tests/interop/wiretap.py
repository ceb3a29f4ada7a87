#!/usr/bin/env python3
"""Transparent stdio tap between an MCP client and a stdio server (stdlib only).

Usage: wiretap.py LOGFILE [--] SERVER_COMMAND [ARGS...]

The client spawns this script as if it were the server. It starts the real server, copies
client stdin -> server stdin and server stdout -> client stdout unchanged, byte for byte, and
appends every line to LOGFILE as JSON: {"pid": <tap pid>, "dir": "c2s"|"s2c", "line": "..."},
and finally {"pid": ..., "dir": "exit", "rc": <server exit status, -N for signal N>}.
Each server process gets its own pid, so interop.py can check each connection on its own.
Server stderr passes through. Exits with the server's exit status.

`read_log(LOGFILE)` reads such a log back, for the scripts that check the wire.
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


def read_log(path: str, keep_unparsed: bool = False):
    """The log at `path`, by server process: `(conns, exits, bad)` where `conns` maps each tap pid to
    its lines in order as `(dir, message)` (the parsed JSON; for a line that is not JSON, `None`, or
    the line itself with `keep_unparsed`), `exits` maps it to the server's exit status, and `bad`
    holds the server's lines that are not JSON-RPC 2.0 objects. Raises FileNotFoundError."""
    conns: dict[int, list[tuple[str, object]]] = {}
    exits: dict[int, int] = {}
    bad: list[str] = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            rec = json.loads(raw)
            if rec["dir"] == "exit":
                exits[rec["pid"]] = rec["rc"]
                continue
            try:
                msg = json.loads(rec["line"])
            except ValueError:
                msg = rec["line"] if keep_unparsed else None
            if rec["dir"] == "s2c" and not (isinstance(msg, dict) and msg.get("jsonrpc") == "2.0"):
                bad.append(rec["line"])
            conns.setdefault(rec["pid"], []).append((rec["dir"], msg))
    return conns, exits, bad


def pair_answers(conns):
    """The client's requests of each connection of `conns` (as `read_log` gives them) paired with
    the server's answers: `(pairs, unanswered, duplicate, stray)`, where `pairs` holds
    `(request, answer)`, `duplicate` the second answers to one id and `stray` the answers to no
    request of their connection."""
    pairs: list[tuple[dict, dict]] = []
    unanswered: list[dict] = []
    duplicate: list[dict] = []
    stray: list[dict] = []
    for msgs in conns.values():
        pending: dict[str, dict] = {}
        answered: set[str] = set()
        for d, m in msgs:
            if not isinstance(m, dict):
                continue
            key = json.dumps(m.get("id"))
            if d == "c2s" and "method" in m and "id" in m:
                pending[key] = m
            elif d == "s2c" and "id" in m and "method" not in m:
                if key in answered:
                    duplicate.append(m)
                elif key in pending:
                    answered.add(key)
                    pairs.append((pending.pop(key), m))
                else:
                    stray.append(m)
        unanswered.extend(pending.values())
    return pairs, unanswered, duplicate, stray


if __name__ == "__main__":
    sys.exit(main())
