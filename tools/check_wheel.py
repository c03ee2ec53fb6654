"""Check wheels for what check-wheel-contents does not: no C source, stripped ELF.

Usage::

    python tools/check_wheel.py dist/*.whl

A wheel ships the compiled extension only: its ``.c`` and ``.h`` sources belong in the
sdist (``pyproject.toml``, ``exclude-package-data``). An ELF extension (Linux) must
carry no debug information and no static symbol table (``setup.py`` links with ``-s``);
its exported ``PyInit_*`` lives in the dynamic symbol table, which stripping keeps.
Prints one line per problem and exits 1 if there is any.
"""

from __future__ import annotations

import struct
import sys
import zipfile
from collections.abc import Iterator, Sequence

SOURCE_SUFFIXES = (".c", ".h")
#: Section names that a stripped ELF file no longer has (ELF gABI, "Special Sections").
UNSTRIPPED_SECTIONS = (".symtab", ".debug_")


def elf_section_names(data: bytes) -> list[str]:
    """The section names of an ELF file (32/64-bit, either byte order)."""
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    # e_shoff, then e_shentsize, e_shnum, e_shstrndx at the end of the header.
    shoff = struct.unpack_from(
        order + ("Q" if wide else "I"), data, 40 if wide else 32
    )[0]
    entsize, count, names_index = struct.unpack_from(
        order + "HHH", data, 58 if wide else 46
    )
    # In each section header: sh_name first; sh_offset at 24 (64-bit) or 16 (32-bit).
    offset_field = (24, "Q") if wide else (16, "I")

    def header(index: int) -> tuple[int, int]:
        base = shoff + index * entsize
        name = struct.unpack_from(order + "I", data, base)[0]
        offset = struct.unpack_from(
            order + offset_field[1], data, base + offset_field[0]
        )
        return name, offset[0]

    strings = header(names_index)[1]
    names = []
    for index in range(count):
        start = strings + header(index)[0]
        names.append(data[start : data.index(b"\0", start)].decode("ascii"))
    return names


def problems(wheel: zipfile.ZipFile) -> Iterator[str]:
    """What is wrong with one wheel, one line each."""
    for name in wheel.namelist():
        if name.endswith(SOURCE_SUFFIXES):
            yield f"{name}: C source in the wheel"
        data = wheel.read(name) if ".so" in name.rsplit("/", 1)[-1] else b""
        if data[:4] == b"\x7fELF":
            kept = [
                s for s in elf_section_names(data) if s.startswith(UNSTRIPPED_SECTIONS)
            ]
            if kept:
                yield f"{name}: not stripped ({', '.join(kept)})"


def main(argv: Sequence[str]) -> int:
    found = 0
    for path in argv:
        with zipfile.ZipFile(path) as wheel:
            for problem in problems(wheel):
                found += 1
                print(f"{path}: {problem}")
    print(f"check_wheel: {len(argv)} wheels, {found} problems")
    return 1 if found or not argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
