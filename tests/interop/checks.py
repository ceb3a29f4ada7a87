"""Shared pass/fail bookkeeping for the Python interop scripts (stdlib only)."""

from __future__ import annotations

import base64
import binascii
import json
import sys
import traceback
from typing import Any

# The mcp-device contract, checked by every client. Keep in sync with ts_client.mjs.
TOOL_NAMES = ["echo", "read_temperature", "set_led", "get_uptime", "calibrate", "enable_blink", "factory_reset",
              "explain_status", "export_target"]
RESOURCES = {
    "device://status": "application/json",
    "device://calibration": "application/octet-stream",
}
SERVER_NAME = "mcp-device"
ECHO_MESSAGE = "hello from interop \u2713 \"quoted\" \\ back"
SYMPTOM = "LED blinks red twice"
# Resource-not-found: -32002 in the legacy era, -32602 in the modern era (SEP-2164).
MISSING_RESOURCE_CODE = {"legacy": -32002, "modern": -32602}


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def b64_decode(s: str) -> bytes | None:
    try:
        return base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return None


def _leaf_exceptions(exc: BaseException):
    """The real errors inside (nested) exception groups, as raised by anyio task groups."""
    if isinstance(exc, BaseExceptionGroup):
        for e in exc.exceptions:
            yield from _leaf_exceptions(e)
    else:
        yield exc


class Checks:
    """Records named checks; prints one line per check and `N passed, M failed` at the end.

    `check` is a check of the server (what it answered, as the client shows it or as the wire shows
    it); `client_check` is a check of what the client itself did, reported apart: its failures count
    as failures, its passes are not counted as passed checks of the server.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.passed = 0
        self.failed = 0
        self.client_passed = 0
        self.client_failed = 0

    def check(self, name: str, ok: bool, detail: Any = "") -> bool:
        if ok:
            self.passed += 1
            print(f"  ok   {name}", flush=True)
        else:
            self.failed += 1
            msg = detail if isinstance(detail, str) else json.dumps(detail, default=str)
            if len(msg) > 600:
                msg = msg[:600] + "..."
            print(f"  FAIL {name}: {msg}", flush=True)
        return ok

    def client_check(self, name: str, ok: bool, detail: Any = "") -> bool:
        if ok:
            self.client_passed += 1
            print(f"  ok   client: {name}", flush=True)
        else:
            self.client_failed += 1
            msg = detail if isinstance(detail, str) else json.dumps(detail, default=str)
            print(f"  FAIL client: {name}: {msg[:600]}", flush=True)
        return ok

    def equal(self, name: str, got: Any, want: Any) -> bool:
        return self.check(name, got == want, f"expected {want!r}, got {got!r}")

    def crash(self, name: str, exc: BaseException) -> None:
        """A step raised where it should not have: count it as one failure and keep going."""
        self.failed += 1
        leaves = list(_leaf_exceptions(exc))
        why = "; ".join(f"{type(e).__name__}: {e}" for e in leaves)
        print(f"  FAIL {name}: unexpected {why}", flush=True)
        for e in leaves:
            traceback.print_exception(e, file=sys.stdout, limit=6)

    def finish(self) -> int:
        failed = self.failed + self.client_failed
        ok = failed == 0 and self.passed > 0
        print(f"[{self.label}] {'OK' if ok else 'FAILED'}", flush=True)
        if self.client_passed or self.client_failed:
            print(f"  (checks of the client itself, not counted as passed: {self.client_passed} passed, "
                  f"{self.client_failed} failed)", flush=True)
        print(f"{self.passed} passed, {failed} failed", flush=True)
        return 0 if ok else 1
