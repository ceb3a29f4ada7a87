"""The suite bookkeeping of the interop scripts that check one client per protocol version
(typed_tools.py, router_input.py, python_tasks.py): one line per check (`ok`/`FAIL`, known bugs
of our server marked), client and wire counts, the wire checks every stdio suite starts with, and
the summary whose last line scripts/test counts."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from wiretap import pair_answers, read_log


@dataclass
class Suite:
    name: str
    client: str  # python | ts-v1 | ts-v2
    version: str
    passed: int = 0
    failed: int = 0
    wire_passed: int = 0
    wire_failed: int = 0
    known: int = 0  # failures listed in `bugs` (counted in failed)
    secs: float = 0.0
    notes: list[str] = field(default_factory=list)
    # Known bugs of OUR server: (suite regex, check regex) -> why. They still fail and count; a
    # note is printed when one passes.
    bugs: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)

    def bug(self, name: str) -> str | None:
        for (suites, check), why in self.bugs.items():
            if re.fullmatch(suites, self.name) and re.search(check, name):
                return why
        return None

    def _report(self, prefix: str, name: str, ok: bool, detail: Any) -> bool:
        bug = self.bug(name)
        if ok:
            print(f"  ok   {prefix}{name}", flush=True)
            if bug:
                print(f"  note {prefix}{name}: listed in OUR_SERVER_BUGS, but passes: {bug[:120]}...", flush=True)
            return True
        d = detail if isinstance(detail, str) else json.dumps(detail, default=str)
        if len(d) > 700:
            d = d[:700] + "..."
        if bug:
            self.known += 1
            print(f"  FAIL {prefix}{name}: OUR SERVER'S BUG (OUR_SERVER_BUGS): {bug}; got: {d}", flush=True)
        else:
            print(f"  FAIL {prefix}{name}: {d}", flush=True)
        return False

    def check(self, name: str, ok: bool, detail: Any = "") -> bool:
        ok = bool(ok)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return self._report("", name, ok, detail)

    def wire(self, name: str, ok: bool, detail: Any = "") -> bool:
        ok = bool(ok)
        if ok:
            self.wire_passed += 1
        else:
            self.wire_failed += 1
        return self._report("wire: ", name, ok, detail)

    def wire_basics(self, log: str, prefix: str = "") -> tuple[dict, list] | None:
        """The wire checks every stdio suite starts with, on the wiretap's `log`: the server was
        started through the tap, its stdout is only JSON-RPC lines, every client request is
        answered exactly once, no server process crashed. The log's connections and its
        (request, answer) pairs; None without a log."""
        try:
            conns, exits, bad = read_log(log)
        except FileNotFoundError:
            self.wire(f"{prefix}the server was started through the wiretap", False, f"no log at {log}")
            return None
        n = sum(1 for m in conns.values() for d, _ in m if d == "s2c")
        self.wire(f"{prefix}server stdout is only JSON-RPC 2.0 lines ({n} lines)", n > 0 and not bad,
                  bad[:3] or "nothing written")
        pairs, unanswered, dup, _ = pair_answers(conns)
        self.wire(f"{prefix}every client request answered exactly once ({len(pairs)} requests)",
                  pairs and not unanswered and not dup, {"unanswered": unanswered[:3], "duplicate": dup[:3]})
        crashed = {pid: rc for pid, rc in exits.items() if rc == 101 or rc in (-6, -11, -7, -4, -8)}
        self.wire(f"{prefix}no server process crashed ({len(exits)} exits)", pairs and not crashed,
                  crashed or "no answers")
        return conns, pairs

    def equal(self, name: str, got: Any, want: Any) -> bool:
        return self.check(name, got == want, f"expected {want!r}, got {got!r}")

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.wire_failed == 0 and self.passed > 0 and self.wire_passed > 0


def summarize(title: str, prefix: str, suites: list[Suite]) -> int:
    """Prints the summary table, one `interop <prefix>-<suite>: ...` line per suite and
    `<title> interop: N passed, M failed` last; the exit status (0: every check passed)."""
    print(f"\n==== {title} summary " + "=" * (65 - len(title)))
    print(f"{'suite':<20} {'version':<11} {'client':>7} {'wire':>7} {'time':>6}  result")
    for s in suites:
        print(f"{s.name:<20} {s.version:<11} {f'{s.passed}/{s.passed + s.failed}':>7} "
              f"{f'{s.wire_passed}/{s.wire_passed + s.wire_failed}':>7} {s.secs:>5.1f}s  "
              f"{'ok' if s.ok else 'FAILED'}{f' ({s.known} known bugs of our server)' if s.known else ''}")
    for s in suites:
        print(f"interop {prefix}-{s.name}: {s.passed} client, {s.wire_passed} wire checks passed; "
              f"{s.failed + s.wire_failed} failed; {s.known} of them known bugs of our server", flush=True)
    passed = sum(s.passed + s.wire_passed for s in suites)
    failed = sum(s.failed + s.wire_failed for s in suites)
    print(f"{title} interop: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 and all(s.ok for s in suites) else 1
