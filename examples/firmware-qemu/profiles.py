#!/usr/bin/env python3
"""Footprint of each board's firmware in each profile (the core's surface features), checked
against a budget per profile. Stdlib only; measures as footprint.py does.

Usage: profiles.py --markdown FILE [--readme README.md [--write-readme] --small ELF:RAM_START:STACK]
                   BOARD:PROFILE:ELF:MAX_FLASH:RAM_START:STACK[,STACK...] ...

- minimal: one era (legacy), tools only; typical: both eras, tools, resources, prompts, logging;
  full: everything (the profile the serial exchanges and the SDK clients run).
- flash and static RAM as footprint.py measures them; exits 1 if a build exceeds its flash budget,
  its profile's static RAM budget (RAM_BUDGETS: issue #26's 3 KiB for minimal, 6 KiB else) or a
  stack budget (STACK_BUDGETS: issue #26's 2.5 KiB for the Cortex-M3's minimal build).
- STACK: where the peak stack of the runs of that build was recorded: JSON summaries
  (`stack_peak_bytes`, tests/*_exchange.py) or logs with the firmware's `stack peak N B` lines;
  the largest is reported.

Prints a Markdown table (also appended to --markdown).

--readme: the footprint table of README.md (between README_BEGIN and README_END) is this
measurement's: with --write-readme it is written there; without, it is checked, and a table whose
flash or static RAM differs from what was measured by more than FLASH_TOLERANCE fails (the stack
peaks, in brackets, vary by a few words from run to run with the interrupts' timing, so they are
written but not compared). --small is the smallest server, the table's last row.
"""

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from footprint import measure  # noqa: E402


def stack_peak(paths: list[str]) -> int | None:
    """The largest stack peak recorded in `paths` (missing files are skipped)."""
    peaks = []
    for path in paths:
        try:
            text = Path(path).read_text(errors="replace")
        except OSError:
            continue
        if path.endswith(".json"):
            value = json.loads(text).get("stack_peak_bytes")
            if isinstance(value, int):
                peaks.append(value)
        else:
            peaks += [int(n) for n in re.findall(r"stack peak (\d+) B", text)]
    return max(peaks) if peaks else None


README_BEGIN = "<!-- footprint table: written by scripts/test-firmware --write-readme; CI checks it -->"
README_END = "<!-- end of the footprint table -->"
BOARD_COLUMNS = {"lm3s6965evb": "Cortex-M3 (lm3s6965evb)", "microbit": "Cortex-M0 (micro:bit)", "virt": "RISC-V (virt)"}
PROFILE_ROWS = {
    "minimal": "minimal: one era, tools",
    "typical": "typical: both eras, tools, resources, prompts, logging",
    "full": "full: everything",
}


# Static RAM (data + bss: buffers, and the `Server` where a build keeps it in a static) each
# profile's builds must stay within, on every board: issue #26's targets.
RAM_BUDGETS = {"minimal": 3 * 1024, "typical": 6 * 1024, "full": 6 * 1024}

# Peak stack (over the build's recorded runs) the builds given here must stay within: issue #26's
# 2.5 KiB for the minimal profile on the Cortex-M3 (its 4 KiB for the full build is held where
# scripts/test-firmware measures the full builds).
STACK_BUDGETS = {("lm3s6965evb", "minimal"): 2 * 1024 + 512}


def cell(flash: int, ram: int, stack: int | None) -> str:
    return f"{flash:,} B ({ram:,} B / {stack:,} B)" if stack else f"{flash:,} B ({ram:,} B / -)"


def readme_table(measured: dict[tuple[str, str], tuple[int, int, int | None]], small: tuple[int, int, int | None]) -> str:
    """README's table: each profile on each board, then the smallest server (flash, static RAM,
    stack peak)."""
    lines = [
        README_BEGIN,
        "| Profile | " + " | ".join(BOARD_COLUMNS.values()) + " |",
        "|---|" + "---:|" * len(BOARD_COLUMNS),
    ]
    for profile, title in PROFILE_ROWS.items():
        cells = [cell(*measured[(board, profile)]) if (board, profile) in measured else "-" for board in BOARD_COLUMNS]
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    title = "smallest: four tools, minimal (`src/bin/small.rs`)"
    lines.append(f"| {title} | {cell(*small)} |" + " |" * (len(BOARD_COLUMNS) - 1))
    lines.append(README_END)
    return "\n".join(lines)


# How far README's flash figures may be from a build's. The same source gives the same functions,
# byte for byte, but their order follows their symbols' hashes, which depend on the checkout's path:
# the padding between them, and so the total, moved by 4 B between two clones (the Cortex-M3 builds).
FLASH_TOLERANCE = 32


def same_figures(readme: str, measured: str) -> bool:
    """The tables are the same but for the stack peaks, and a flash figure within FLASH_TOLERANCE."""
    figures = re.compile(r"^ ([0-9,]+) B \(([0-9,]+) B / (?:[0-9,]+ B|-)\) $")

    def same(ours: str, theirs: str) -> bool:
        a, b = figures.match(ours), figures.match(theirs)
        if a and b:
            flash = abs(int(a[1].replace(",", "")) - int(b[1].replace(",", ""))) <= FLASH_TOLERANCE
            return flash and a[2] == b[2]
        return ours == theirs

    ours, theirs = [line.split("|") for line in readme.splitlines()], [line.split("|") for line in measured.splitlines()]
    return [len(row) for row in ours] == [len(row) for row in theirs] and all(
        same(a, b) for row, expected in zip(ours, theirs) for a, b in zip(row, expected)
    )


def update_readme(path: str, table: str, write: bool) -> bool:
    """Writes `table` into README at `path`, or checks that the one there has the same numbers."""
    text = Path(path).read_text()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        print(f"profiles: FAIL {path} has no footprint table ({README_BEGIN!r} ... {README_END!r})", file=sys.stderr)
        return False
    current = text[begin : end + len(README_END)]
    if write:
        Path(path).write_text(text[:begin] + table + text[end + len(README_END) :])
        print(f"profiles: wrote the footprint table of {path}")
        return True
    if not same_figures(current, table):
        print(f"profiles: FAIL the footprint table of {path} is not this measurement's; it should be:", file=sys.stderr)
        print(table, file=sys.stderr)
        print("(scripts/test-firmware --write-readme writes it)", file=sys.stderr)
        return False
    print(f"profiles: the footprint table of {path} is this measurement's")
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="+", help="BOARD:PROFILE:ELF:MAX_FLASH:RAM_START:STACK[,STACK...]")
    ap.add_argument("--markdown")
    ap.add_argument("--measured-at", default="unknown")
    ap.add_argument("--readme", help="README.md, whose footprint table is checked (or written)")
    ap.add_argument("--write-readme", action="store_true", help="write the table instead of checking it")
    ap.add_argument("--small", metavar="ELF:RAM_START:STACK", help="the smallest server, README's last row")
    a = ap.parse_args()
    if a.readme and not a.small:
        ap.error("--readme needs --small")

    rows = []
    failures = []
    measured: dict[tuple[str, str], tuple[int, int, int | None]] = {}
    for build in a.builds:
        parts = build.split(":")
        if len(parts) != 6:
            raise SystemExit(f"profiles: expected BOARD:PROFILE:ELF:MAX_FLASH:RAM_START:STACK, got {build}")
        board, profile, elf, max_flash, ram_start, stacks = parts
        m = measure(elf, int(ram_start, 0))
        budget = int(max_flash)
        peak = stack_peak(stacks.split(","))
        measured[(board, profile)] = (m["flash"], m["ram"], peak)
        stack = f"{peak:,} B" if peak else "-"
        rows.append(
            f"| {board} | {profile} | {m['flash']:,} B | {budget:,} B | {m['ram']:,} B | {RAM_BUDGETS[profile]:,} B | {stack} |"
        )
        if m["flash"] > budget:
            failures.append(f"{board} {profile}: flash {m['flash']} > {budget}")
        if m["ram"] > RAM_BUDGETS[profile]:
            failures.append(f"{board} {profile}: static RAM {m['ram']} > {RAM_BUDGETS[profile]}")
        stack_budget = STACK_BUDGETS.get((board, profile))
        if stack_budget is not None and (peak is None or peak > stack_budget):
            failures.append(f"{board} {profile}: peak stack {peak if peak else 'not recorded'} > {stack_budget}")

    text = "\n".join(
        [
            f"### Profiles (measured at {a.measured_at})",
            "",
            "| Board | Profile | Flash | Flash budget | Static RAM | RAM budget | Peak stack |",
            "|---|---|---:|---:|---:|---:|---:|",
            *rows,
            "",
        ]
    )
    print(text)
    if a.markdown:
        with open(a.markdown, "a") as f:
            f.write("\n" + text)
    if a.readme:
        elf, ram_start, stacks = a.small.split(":")
        m = measure(elf, int(ram_start, 0))
        small = (m["flash"], m["ram"], stack_peak(stacks.split(",")))
        if not update_readme(a.readme, readme_table(measured, small), a.write_readme):
            failures.append("README.md's footprint table")
    for failure in failures:
        print(f"profiles: FAIL {failure}", file=sys.stderr)
    if not failures:
        print(f"profiles: {len(rows)} builds within budget")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
