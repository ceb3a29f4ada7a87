#!/usr/bin/env python3
"""Footprint of the firmware ELF, checked against a budget. Stdlib only (reads the ELF itself).

Usage: footprint.py FIRMWARE_ELF [--stack-summary FILE] [--stack-log NAME=FILE ...]
                    [--max-flash BYTES] [--max-ram BYTES] [--max-stack BYTES] [--ram-start ADDRESS]
                    [--ram-size BYTES] [--title TEXT] [--markdown FILE] [--absent WHAT=REGEX ...]

- flash: every allocated section stored in the image: vector table, code, read-only data, and
  the initial values of `.data` (copied to RAM at reset).
- static RAM: every allocated section in RAM (at or above --ram-start, 0x2000_0000 by default, the
  Cortex-M SRAM region): `.data`, `.bss`, `.uninit`; not riscv-rt's `.stack` and `.heap`, which
  only mark the regions left to the stack and a heap.
- stack peak: measured at run time by the firmware (stack painting): the largest of the JSON
  summary that tests/serial_exchange.py writes and of the `stack peak N B` lines the firmware logs
  on semihosting in each --stack-log (the output of the SDK client stages).

Prints a Markdown table (also written to --markdown, under a `### TITLE` heading with --title) and
exits 1 if flash or static RAM exceeds its budget, or with --max-stack the stack peak (which must then
have been measured); with --ram-size (the board's RAM), also when the
statics and the stack peak leave less than RAM_MARGIN bytes of it unused (a stack that grows into
the statics corrupts them silently on these boards); with --absent, also when a symbol of the ELF
matches one of the patterns given (code the build must not link).
"""

from __future__ import annotations

import argparse
import json
import re
import struct
import sys

SHF_ALLOC = 0x2
SHT_NOBITS = 8
SHT_SYMTAB = 2
RAM_START = 0x2000_0000  # Cortex-M SRAM region
# riscv-rt's sections that only mark the room left to the heap and the stack.
MARKERS = {".stack", ".heap"}
RAM_MARGIN = 512


def read_elf(path: str) -> tuple[bytes, list[tuple[int, ...]]]:
    """The bytes of a 32-bit little-endian ELF and its section headers (each `Elf32_Shdr`'s ten words)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise SystemExit(f"{path}: not a 32-bit little-endian ELF")
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    return data, [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize) for i in range(shnum)]


def named_sections(path: str) -> tuple[bytes, list[tuple[str, tuple[int, ...]]]]:
    """The ELF's bytes, and each section's name with its header."""
    data, headers = read_elf(path)
    shstrndx, = struct.unpack_from("<H", data, 0x32)
    names_at = headers[shstrndx][4]

    def name(offset: int) -> str:
        end = data.index(b"\0", names_at + offset)
        return data[names_at + offset:end].decode()

    return data, [(name(h[0]), h) for h in headers]


def sections(path: str) -> list[tuple[str, int, int, int, int]]:
    """(name, type, flags, address, size) of every section of a 32-bit little-endian ELF."""
    return [(name, h[1], h[2], h[3], h[5]) for name, h in named_sections(path)[1]]


def section_data(path: str, section: str) -> bytes:
    """The contents of the named section (empty if the ELF has none)."""
    data, named = named_sections(path)
    return next((data[h[4]:h[4] + h[5]] for name, h in named if name == section), b"")


def sized_symbols(path: str) -> list[tuple[str, int]]:
    """Every symbol in the ELF's symbol table (mangled, as the linker saw it) with its size."""
    data, headers = read_elf(path)
    found = []
    for h in headers:
        if h[1] != SHT_SYMTAB:
            continue
        strtab = headers[h[6]][4]  # sh_link: the string table's section; [4]: its offset
        for at in range(h[4], h[4] + h[5], 16):  # Elf32_Sym entries: name, value, size, ...
            name_at, _, size = struct.unpack_from("<III", data, at)
            if name_at:
                end = data.index(b"\0", strtab + name_at)
                found.append((data[strtab + name_at:end].decode(errors="replace"), size))
    return found


def symbols(path: str) -> list[str]:
    """The names of every symbol in the ELF's symbol table (mangled, as the linker saw them)."""
    return [name for name, _ in sized_symbols(path)]


def buffer_caption(path: str, specs: list[str]) -> str:
    """`Buffers: receive 768 B, …` from the sizes of the statics each `LABEL=NAME` names (a
    static whose path ends in `NAME`, as `main`'s `RX`): what the build holds, whatever the
    source's constants say. Fails if one is not in the ELF."""
    sizes = sized_symbols(path)
    parts = []
    for spec in specs:
        label, _, name = spec.partition("=")
        pattern = re.compile(rf"(?<![0-9]){len(name)}{re.escape(name)}17h[0-9a-f]{{16}}E$")
        matches = [size for symbol, size in sizes if pattern.search(symbol)]
        if len(matches) != 1:
            raise SystemExit(f"{path}: {len(matches)} statics named {name} (for {label!r}), not one")
        parts.append(f"{label} {matches[0]:,} B")
    return "Buffers: " + ", ".join(parts) + "."


def measure(path: str, ram_start: int = RAM_START) -> dict:
    flash = ram = 0
    parts: dict[str, int] = {}
    in_flash: list[str] = []
    in_ram: list[str] = []
    for name, kind, flags, addr, size in sections(path):
        if not flags & SHF_ALLOC or size == 0 or name in MARKERS:
            continue
        parts[name] = size
        if addr >= ram_start:
            ram += size
            in_ram.append(name)
        if kind != SHT_NOBITS:
            flash += size  # code and constants, or the initial values of RAM data
            in_flash.append(name)
    return {"flash": flash, "ram": ram, "sections": parts, "in_flash": in_flash, "in_ram": in_ram}


def kib(n: int) -> str:
    return f"{n:,} B ({n / 1024:.1f} KiB)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("elf")
    ap.add_argument("--stack-summary")
    ap.add_argument("--stack-log", action="append", default=[], metavar="NAME=FILE",
                    help="a stage's output with the firmware's `stack peak N B` lines (repeatable)")
    ap.add_argument("--max-flash", type=int, default=76 * 1024)
    ap.add_argument("--max-ram", type=int, default=16 * 1024)
    ap.add_argument("--max-stack", type=int, help="fail if the stack peak exceeds this, or was not measured")
    ap.add_argument("--ram-start", type=lambda v: int(v, 0), default=RAM_START,
                    help="lowest RAM address (default 0x20000000)")
    ap.add_argument("--ram-size", type=int, help="the board's RAM: fail if the statics and the stack peak "
                    f"leave less than {RAM_MARGIN} B of it")
    ap.add_argument("--title", help="a heading for the table (the board)")
    ap.add_argument("--markdown")
    ap.add_argument("--buffers", default="", help="text after the table (more buffer sizes)")
    ap.add_argument("--buffer", action="append", default=[], metavar="LABEL=NAME",
                    help="a static buffer for the table's caption, by its name (as RX in main), sized from the ELF")
    ap.add_argument("--measured-at", default="", help="the commit measured, for the table's caption")
    ap.add_argument("--absent", action="append", default=[], metavar="WHAT=REGEX",
                    help="fail if a symbol matches REGEX (code that must not be linked, e.g. core's padding)")
    a = ap.parse_args()

    m = measure(a.elf, a.ram_start)
    peaks: dict[str, int] = {}  # the deepest use per source
    if a.stack_summary:
        with open(a.stack_summary) as f:
            if (peak := json.load(f).get("stack_peak_bytes")) is not None:
                peaks["serial test sessions"] = peak
    for spec in a.stack_log:
        name, _, path = spec.partition("=")
        try:
            with open(path, errors="replace") as f:
                found = [int(m.group(1)) for m in re.finditer(r"stack peak (\d+) B", f.read())]
        except FileNotFoundError:
            found = []
        if found:
            peaks[name] = max(found)
    stack = max(peaks.values()) if peaks else None
    deepest = max(peaks, key=peaks.get) if peaks else ""
    stack_detail = "stack painting; deepest use over " + ", ".join(peaks) if peaks else "stack painting"
    if len(peaks) > 1:
        stack_detail += f" (reached in: {deepest})"
    s = m["sections"]
    rows = [
        ("Flash (vector table + text + rodata + data image)", kib(m["flash"]), kib(a.max_flash),
         " + ".join(f"{k} {s[k]:,}" for k in m["in_flash"])),
        ("Static RAM (data + bss)", kib(m["ram"]), kib(a.max_ram),
         " + ".join(f"{k} {s[k]:,}" for k in m["in_ram"])),
        ("Peak stack (measured at run time)", kib(stack) if stack else "not measured",
         kib(a.max_stack) if a.max_stack else "-", stack_detail),
    ]
    headroom = None
    if a.ram_size:
        headroom = a.ram_size - m["ram"] - (stack or 0)
        rows.append(("RAM left (RAM - static RAM - peak stack)", kib(headroom) if headroom >= 0 else f"{headroom:,} B",
                     f">= {RAM_MARGIN} B", f"of {kib(a.ram_size)}"))
    table = [f"### {a.title}", ""] if a.title else []
    table += ["| | Measured | Budget | Detail |", "|---|---|---|---|"]
    table += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |" for r in rows]
    text = "\n".join(table) + "\n"
    caption = " ".join(t for t in (buffer_caption(a.elf, a.buffer) if a.buffer else "", a.buffers) if t)
    if caption:
        text += f"\n{caption}\n"
    if a.measured_at:
        text += f"\nMeasured at commit {a.measured_at}.\n"
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    failures = []
    if m["flash"] > a.max_flash:
        failures.append(f"flash {m['flash']} B exceeds the budget of {a.max_flash} B")
    if m["ram"] > a.max_ram:
        failures.append(f"static RAM {m['ram']} B exceeds the budget of {a.max_ram} B")
    if a.max_stack and stack is None:
        failures.append("the stack peak was not measured (--max-stack asks for it)")
    elif a.max_stack and stack > a.max_stack:
        failures.append(f"stack peak {stack} B exceeds the budget of {a.max_stack} B")
    if headroom is not None and headroom < RAM_MARGIN:
        failures.append(f"static RAM and stack peak leave {headroom} B of the board's {a.ram_size} B "
                        f"(at least {RAM_MARGIN} B must stay unused)")
    names = symbols(a.elf) if a.absent else []
    for spec in a.absent:
        what, _, pattern = spec.partition("=")
        linked = sorted({n for n in names if re.search(pattern, n)})
        if linked:
            failures.append(f"{what} is linked: {', '.join(linked[:3])}")
        else:
            print(f"footprint: not linked: {what}")
    for failure in failures:
        print(f"footprint: FAIL {failure}", file=sys.stderr)
    if not failures:
        print(f"footprint: within budget (flash {m['flash']} <= {a.max_flash}, static RAM {m['ram']} <= {a.max_ram})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
