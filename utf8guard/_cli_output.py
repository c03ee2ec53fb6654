"""What the command line prints: exit statuses, messages, violation records, summaries.

Every line that names a file goes through :func:`display` (humans) or
:func:`json_path` (``--json``), so a file name can neither forge nor reorder output
lines, and a name that is not UTF-8 survives ``--json`` losslessly.
"""

from __future__ import annotations

import os
import sys

from ._ranges import in_ranges
from ._record import Record

# Only mypy needs these (issue 28: a command's start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from ._violation import Violation

__all__ = [
    "EXIT_ERROR",
    "EXIT_FOUND",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "STDIN_NAME",
    "Place",
    "display",
    "error",
    "format_violation",
    "json_path",
    "plural",
]

#: Exit statuses of every command (``check``, ``repair``, ``scan``).
EXIT_OK: Final = 0
EXIT_FOUND: Final = 1
EXIT_ERROR: Final = 2
#: 128 + SIGINT, as shells report a process ended by Ctrl-C.
EXIT_INTERRUPTED: Final = 130
STDIN_NAME: Final = "<stdin>"


class Place(Record):
    """Where a violation sits in its input, for a human."""

    line: int  # 1-based
    column: int  # 1-based, in bytes from the start of the line
    data: bytes  # the violation's bytes


def _escape_char(ch: str) -> str:
    cp = ord(ch)
    if 0xDC80 <= cp <= 0xDCFF:  # an undecodable byte, kept by surrogateescape
        return f"\\x{cp - 0xDC00:02x}"
    if ch == "\\":
        return "\\\\"
    if ch.isprintable() and (ch.isascii() or not _is_default_ignorable(cp)):
        return ch
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


def _is_default_ignorable(cp: int) -> bool:
    # Imported at the first non-ASCII name (every default ignorable is above
    # U+007F): the name rules, with unicodedata and typing, cost a command 21M
    # instructions, a sixth of its start-up (issue 28).
    from ._pathrules import DEFAULT_IGNORABLES

    return in_ranges(cp, DEFAULT_IGNORABLES)


def display(path: str | bytes) -> str:
    """``path`` made safe to print on one line, for humans: the one escaping of
    every command (``check``, ``repair``, ``scan``).

    An undecodable byte becomes ``\\xNN``; a control, bidi control or invisible
    (default ignorable) character ``\\uXXXX`` (``\\UXXXXXXXX`` above the BMP);
    a backslash ``\\\\``. So a name can neither forge nor reorder output lines,
    nor pass for another, and the escapes cannot be mistaken for the name.
    """
    if isinstance(path, bytes):
        path = path.decode("utf-8", "surrogateescape")
    elif path == "-":
        return STDIN_NAME
    return "".join(map(_escape_char, path))


def json_path(path: str | bytes) -> dict[str, str]:
    """``{"path": ...}`` plus, for a name that is not UTF-8, ``"path_bytes"`` (hex).

    Names are read with ``surrogateescape`` (PEP 383), so an undecodable byte is a
    lone surrogate in ``path`` (JSON ``"\\udcff"``, which strict JSON parsers may
    refuse); ``path_bytes`` holds the name exactly as the file system has it.
    """
    if path == "-":  # never bytes: names from a walk are not "-"
        return {"path": STDIN_NAME}
    text = os.fsdecode(path)
    record = {"path": text}
    raw = os.fsencode(text)
    if raw.decode("utf-8", "replace") != text:
        record["path_bytes"] = raw.hex()
    return record


def format_violation(
    path: str, violation: Violation, place: Place, *, as_json: bool
) -> str:
    """One output line: ``path:line:column: kind at byte N (HEX)`` or a JSON object."""
    if as_json:
        import json  # only --json needs it (issue 28: a command's start-up)

        record: dict[str, object] = {
            **json_path(path),
            "kind": violation.kind.value,
            "start": violation.start,
            "end": violation.end,
            "line": place.line,
            "column": place.column,
            "bytes": place.data.hex(),
        }
        return json.dumps(record)
    return (
        f"{display(path)}:{place.line}:{place.column}: {violation.kind.value} at byte "
        f"{violation.start} ({place.data.hex(' ').upper()})"
    )


def plural(count: int, noun: str) -> str:
    """``"1 file"``, ``"2 files"``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def error(message: str) -> None:
    """One line on stderr: ``utf8guard: message``."""
    sys.stderr.write(f"utf8guard: {message}\n")
