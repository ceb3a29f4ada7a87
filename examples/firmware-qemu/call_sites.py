#!/usr/bin/env python3
"""How many bytes of a firmware's code go to calling the JSON writer and reader. Needs llvm-objdump
and an ELF with debug info (the firmware's release profile keeps it).

Usage: call_sites.py FIRMWARE_ELF [--functions]

Counts, in every function but the writer's and the reader's own, the code that goes to using them:
- what the ELF's line table puts on a line of the writer (`core/src/json/write.rs`) or the reader
  (`core/src/json/value.rs`, `string.rs`): the methods inlined where they are called, with the
  calls they make, and the machine outliner's pieces of them;
- the other calls to a writer function (`JsonWriter`'s, `Outgoing::field`, the capability writers,
  `ToolReply::push_text*`) or a reader function (`Value`'s, `Params::get`, `JsonStr::eq_str`,
  byte-string equality): the call instruction and the instructions just before it (at most five,
  in its block) that load the argument registers r0-r3;
- the literal-pool words (4 B) those instructions load.
Code that sets an argument further up is not counted, so the figure is an estimate.

It bounds what a table-driven writer and dispatch could save: a table in place of those calls still
needs an entry per call and code to read the table, so it saves less than the calls cost
(docs/firmware.md, "Flash: what tables could save"). Thumb (ARMv6-M, ARMv7-M) only: the registers
and branch mnemonics are Arm's.

Also prints the text in `.rodata` (runs of three or more printable ASCII bytes: names, schemas,
JSON fragments, messages), which shorter texts could save from.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass

from footprint import section_data

WRITER_FILES = re.compile(r"core/src/json/write\.rs$")
READER_FILES = re.compile(r"core/src/json/(value|string)\.rs$")
# The functions of each: a name in `json::write` (or `json::value`, `json::string`), whether plain
# (`json::value::Value::get`) or an impl's (`_$LT$mcp_sansio..json..string..Pieces...`).
WRITER = re.compile(r"json(::|\.\.)write(::|\.\.)|Outgoing::field$|ObjectWriter::|MemberWriter::|ToolReply::push_text")
READER = re.compile(r"json(::|\.\.)(value|string)(::|\.\.)|Params::get$|PartialEq.*::eq$")
INSTRUCTION = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")
SYMBOL = re.compile(r"^[0-9a-f]+ <(.*)>:$")
LINE = re.compile(r"^; (/\S*):\d+")
POOL = re.compile(r"\[pc, #-?\d+\]\s+@ 0x([0-9a-f]+)")
ARGUMENT = re.compile(r"r[0-3]\b")
LOOK_BACK = 5
POOL_WORD = 4


@dataclass
class Instruction:
    address: int
    size: int
    mnemonic: str
    operands: str
    function: str  # the symbol it is in
    file: str  # the source file the line table gives it


def plain(name: str) -> str:
    """A symbol's name without its hash, offset or `(.N)` suffix."""
    return re.sub(r" \(\.\d+\)$", "", re.sub(r"::h[0-9a-f]{16}(\+0x[0-9a-f]+)?$", "", name))


def disassemble(elf: str) -> list[Instruction]:
    text = subprocess.run(["llvm-objdump", "-d", "-l", "--no-show-raw-insn", "-C", "--section=.text", elf],
                          capture_output=True, text=True, check=True).stdout
    code: list[Instruction] = []
    addresses: list[int] = []  # of every instruction and pool word, in order
    function = file = ""
    in_pool = False
    for line in text.splitlines():
        if m := SYMBOL.match(line):
            # `$d` starts a literal pool, `$t` code again; any other symbol starts a function.
            in_pool = m.group(1).startswith("$d")
            if not m.group(1).startswith("$"):
                function = plain(m.group(1))
        elif m := LINE.match(line):
            file = m.group(1)
        elif m := INSTRUCTION.match(line):
            address = int(m.group(1), 16)
            addresses.append(address)
            if not in_pool:
                code.append(Instruction(address, 0, m.group(2), m.group(3), function, file))
    following = dict(zip(addresses, addresses[1:]))
    for instruction in code:
        size = following.get(instruction.address, instruction.address) - instruction.address
        # A Thumb instruction is 2 or 4 bytes; past one the next address is padding's or a section's.
        instruction.size = size if size in (2, 4) else 4 if instruction.mnemonic in ("bl", "b.w") else 2
    return code


def kind_of_file(file: str) -> str | None:
    return "writer" if WRITER_FILES.search(file) else "reader" if READER_FILES.search(file) else None


def kind_of_function(name: str) -> str | None:
    return "writer" if WRITER.search(name) else "reader" if READER.search(name) else None


def callee(operands: str) -> str:
    m = re.search(r"<(.*)>", operands)
    return plain(m.group(1)) if m else ""


def measure(code: list[Instruction]) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Bytes and pool words by kind ("writer", "reader"), and bytes by function."""
    counted: dict[int, str] = {}  # instruction index -> kind
    for i, instruction in enumerate(code):
        if kind_of_function(instruction.function):
            continue
        if kind := kind_of_file(instruction.file):
            counted[i] = kind
        if instruction.mnemonic not in ("bl", "blx", "b", "b.w"):
            continue
        kind = counted.get(i) or kind_of_function(callee(instruction.operands))
        if kind is None:
            continue
        counted[i] = kind
        for j in range(i - 1, max(i - 1 - LOOK_BACK, -1), -1):
            before = code[j]
            if before.function != instruction.function or before.mnemonic.startswith(("b", "cb", "it", "push", "pop")):
                break
            if ARGUMENT.match(before.operands):
                counted.setdefault(j, kind)
    size: Counter[str] = Counter()
    by_function: Counter[str] = Counter()
    pools: dict[int, tuple[str, str]] = {}
    for i, kind in counted.items():
        size[kind] += code[i].size
        by_function[code[i].function] += code[i].size
        if m := POOL.search(code[i].operands):
            pools.setdefault(int(m.group(1), 16), (kind, code[i].function))
    words: Counter[str] = Counter()
    for kind, function in pools.values():
        words[kind] += 1
        size[kind] += POOL_WORD
        by_function[function] += POOL_WORD
    return size, words, by_function


def rodata_text(elf: str) -> int:
    """Bytes of `.rodata` in runs of three or more printable ASCII bytes."""
    return sum(len(run) for run in re.findall(rb"[\x20-\x7e]{3,}", section_data(elf, ".rodata")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("elf")
    ap.add_argument("--functions", action="store_true", help="also list the functions with the most such code")
    args = ap.parse_args()
    code = disassemble(args.elf)
    size, words, by_function = measure(code)
    print("| Code using | Bytes | Pool words among them (4 B each) |")
    print("|---|---:|---:|")
    for kind in ("writer", "reader"):
        print(f"| the JSON {kind} | {size[kind]:,} | {words[kind]} |")
    print(f"| both | {sum(size.values()):,} | {sum(words.values())} |")
    print(f"\nText in .rodata: {rodata_text(args.elf):,} B")
    if args.functions:
        print()
        for function, n in by_function.most_common(20):
            print(f"{n:6,} {function}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
