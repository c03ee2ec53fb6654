"""``utf8guard scan DIR...``: report (and on request rename) unsafe filenames in trees.

Only I/O and formatting: the rules are :func:`utf8guard.paths.check_path` and
:func:`utf8guard.paths.safe_filename`. Names are read as bytes, so a name that is not
UTF-8 is seen as it is on disk. Symlinks are reported like any name but never
followed. Nothing is renamed unless both ``--fix`` and ``--apply`` are given. Names
are printed with ``check``'s escaping and lines (``path: kind at byte N (HEX)``, one
per violation), and ``--json`` has ``check``'s record: one object per violation with
``path`` (and ``path_bytes``), ``kind``, ``start``, ``end`` and ``bytes``. Offsets
and bytes are those of the name, the last component of ``path``.
"""

from __future__ import annotations

import argparse
import os
import sys

from ._cli_output import EXIT_ERROR, EXIT_FOUND, EXIT_OK, display, json_path
from ._cli_stdio import out

# Only mypy needs these. The name rules (utf8guard.paths) are imported when ``scan``
# runs: with unicodedata and typing they cost every other command 21M instructions,
# a sixth of its start-up (issue 28).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final, TypeVar

    from .paths import PathViolation

    Parser = TypeVar("Parser", bound=argparse.ArgumentParser)

__all__ = ["add_scan_parser", "display", "run_scan"]

#: A terminal gets a progress line on stderr every this many names.
PROGRESS_EVERY_NAMES: Final = 10_000
#: What ``--fix`` puts in place of each unsafe byte sequence or character.
FIX_REPLACEMENT: Final = "_"


class _Platforms:
    """``--platform``'s choices, :data:`utf8guard._pathrules.PLATFORMS`, read when
    argparse checks a ``--platform`` value or prints the help, not when it builds
    the parser of every command (hence the explicit metavar: argparse would list
    the choices in it at once)."""

    def __iter__(self) -> Iterator[str]:
        from ._pathrules import PLATFORMS

        return iter(PLATFORMS)

    def __contains__(self, value: object) -> bool:
        return value in tuple(self)


def add_scan_parser(subparsers: argparse._SubParsersAction[Parser]) -> None:
    """Add the ``scan`` command; its ``handler`` default is :func:`run_scan`."""
    scan = subparsers.add_parser(
        "scan",
        help="report unsafe filenames under each DIR, exit 1 if any",
        description="Walk each DIR without following symlinks and report each name "
        "that is not valid UTF-8, not NFC, or unsafe by the utf8guard.paths rules.",
    )
    scan.add_argument("directories", nargs="+", metavar="DIR")
    scan.add_argument("--json", action="store_true", help="one JSON object per line")
    scan.add_argument(
        "--platform",
        choices=_Platforms(),
        metavar="PLATFORM",
        default="universal",
        help="whose name rules apply: %(choices)s (default universal: Windows rules "
        "everywhere)",
    )
    scan.add_argument(
        "--fix", action="store_true", help="show the rename of each name (dry run)"
    )
    scan.add_argument(
        "--apply",
        action="store_true",
        help="with --fix: really rename, never overwrite",
    )
    scan.set_defaults(handler=run_scan)


def _names(root: bytes, errors: list[OSError]) -> Iterator[tuple[bytes, bytes]]:
    """``(directory, name)`` for every entry below ``root``, children before their
    directory so that renaming one never moves another still to come."""
    for directory, dirnames, filenames in os.walk(
        root, topdown=False, onerror=errors.append, followlinks=False
    ):
        for name in sorted(dirnames + filenames):
            yield directory, name


def _fix(
    directory: bytes, name: bytes, args: argparse.Namespace, errors: list[OSError]
) -> dict[str, str]:
    """Work out (and with ``--apply`` do) the rename of one name."""
    from .paths import UnsafePathError, safe_filename

    old = os.path.join(directory, name)
    try:
        new_name = safe_filename(
            name, replacement=FIX_REPLACEMENT, platform=args.platform
        ).encode()
    except UnsafePathError as exc:
        return {"action": "cannot rename", "reason": str(exc)}
    new = os.path.join(directory, new_name)
    if os.path.lexists(new):
        return {"action": "cannot rename", "reason": f"{display(new_name)} exists"}
    if not args.apply:
        return {"action": "would rename", "to": display(new_name)}
    try:
        os.rename(old, new)
    except OSError as exc:
        errors.append(exc)
        return {"action": "cannot rename", "reason": exc.strerror or str(exc)}
    return {"action": "renamed", "to": display(new_name)}


def _report(
    path: bytes,
    found: list[PathViolation],
    fix: dict[str, str] | None,
    *,
    as_json: bool,
) -> None:
    if as_json:
        import json  # only --json needs it

        name = os.path.basename(path)
        for v in found:
            record: dict[str, object] = {
                **json_path(path),
                "kind": v.kind.value,
                "start": v.start,
                "end": v.end,
                "bytes": name[v.start : v.end].hex(),
            }
            if fix is not None:
                record["fix"] = fix
            out(json.dumps(record) + "\n")
        return
    name = os.path.basename(path)
    for v in found:  # check's line without line:column: offsets are in the name
        data = name[v.start : v.end].hex(" ").upper()
        out(f"{display(path)}: {v.kind} at byte {v.start} ({data})\n")
    if fix is not None:
        shown = display(name)
        target = f"{shown} → {fix['to']}" if "to" in fix else fix["reason"]
        out(f"  {fix['action']}: {target}\n")


def run_scan(args: argparse.Namespace) -> int:
    """Scan each of ``args.directories``; 0 if every name is safe, 1 if not, 2 on
    error.

    Errors (a DIR missing, unreadable directories, a failed rename) go to stderr as
    one line each; the scan goes on and the status is 2.
    """
    if args.apply and not args.fix:
        print("utf8guard: scan: --apply needs --fix", file=sys.stderr)
        return EXIT_ERROR
    from .paths import check_path

    errors: list[OSError] = []
    status, count, missing = EXIT_OK, 0, False
    progress = sys.stderr.isatty()
    for directory in args.directories:
        root = os.fsencode(directory)
        if not os.path.isdir(root):
            print(f"utf8guard: scan: not a directory: {display(root)}", file=sys.stderr)
            missing = True
            continue
        for parent, name in _names(root, errors):
            count += 1
            if progress and count % PROGRESS_EVERY_NAMES == 0:
                print(f"\rscanned {count} names", end="", file=sys.stderr, flush=True)
            found = check_path(name, platform=args.platform)
            if not found:
                continue
            status = EXIT_FOUND
            fix = _fix(parent, name, args, errors) if args.fix else None
            _report(os.path.join(parent, name), found, fix, as_json=args.json)
    if progress and count >= PROGRESS_EVERY_NAMES:
        print(f"\rscanned {count} names", file=sys.stderr)
    for error in errors:
        where = display(os.fsencode(error.filename))
        print(f"utf8guard: {where}: {error.strerror}", file=sys.stderr)
    return EXIT_ERROR if errors or missing else status
