#!/usr/bin/env python3
"""Footprint of each board's firmware in each profile (the core's surface features), checked
against a budget per profile. Stdlib only; measures as footprint.py does.

Usage: profiles.py --markdown FILE BOARD:PROFILE:ELF:MAX_FLASH:RAM_START:STACK[,STACK...] ...

- minimal: one era (legacy), tools only; typical: both eras, tools, resources, prompts, logging;
  full: everything (the profile the serial exchanges and the SDK clients run).
- flash and static RAM as footprint.py measures them; exits 1 if a build exceeds its flash budget.
- STACK: where the peak stack of the runs of that build was recorded: JSON summaries
  (`stack_peak_bytes`, tests/*_exchange.py) or logs with the firmware's `stack peak N B` lines;
  the largest is reported.

Prints a Markdown table (also appended to --markdown).
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="+", help="BOARD:PROFILE:ELF:MAX_FLASH:RAM_START:STACK[,STACK...]")
    ap.add_argument("--markdown")
    ap.add_argument("--measured-at", default="unknown")
    a = ap.parse_args()

    rows = []
    failures = []
    for build in a.builds:
        parts = build.split(":")
        if len(parts) != 6:
            raise SystemExit(f"profiles: expected BOARD:PROFILE:ELF:MAX_FLASH:RAM_START:STACK, got {build}")
        board, profile, elf, max_flash, ram_start, stacks = parts
        m = measure(elf, int(ram_start, 0))
        budget = int(max_flash)
        peak = stack_peak(stacks.split(","))
        stack = f"{peak:,} B" if peak else "-"
        rows.append(f"| {board} | {profile} | {m['flash']:,} B | {budget:,} B | {m['ram']:,} B | {stack} |")
        if m["flash"] > budget:
            failures.append(f"{board} {profile}: flash {m['flash']} > {budget}")

    text = "\n".join(
        [
            f"### Profiles (measured at {a.measured_at})",
            "",
            "| Board | Profile | Flash | Flash budget | Static RAM | Peak stack |",
            "|---|---|---:|---:|---:|---:|",
            *rows,
            "",
        ]
    )
    print(text)
    if a.markdown:
        with open(a.markdown, "a") as f:
            f.write("\n" + text)
    for failure in failures:
        print(f"profiles: FAIL {failure}", file=sys.stderr)
    if not failures:
        print(f"profiles: {len(rows)} builds within budget")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
