"""``utf8guard check``: report the violations of files, trees and stdin.

Files are read in chunks at constant memory; a violation is placed (line, column,
bytes) from a window of recent chunks. With ``-r`` a directory is walked
(:mod:`utf8guard._cli_files`), binary files are skipped and a summary line ends
the run on stderr.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections import deque

from . import _cli_input
from ._cli_encoding import bomless_utf16, guess
from ._cli_files import BINARY_SNIFF_BYTES, Tree, is_binary
from ._cli_input import Progress, open_input, read_chunks
from ._cli_output import (
    EXIT_ERROR,
    EXIT_FOUND,
    EXIT_OK,
    Place,
    display,
    error,
    format_violation,
    plural,
)
from ._cli_stdio import out
from ._record import Record
from ._scan import is_valid
from ._stream import iter_stream_violations

# dataclasses and typing cost a command 61M instructions, over a quarter of its
# start-up (issue 28); only mypy needs the names.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import BinaryIO, Final

    from ._policy import Policy
    from ._violation import Violation

__all__ = ["run_check"]

#: How files are opened: binary on Windows (and, as every fd of Python's since
#: PEP 446, not inherited by child processes).
OPEN_FLAGS: Final = os.O_RDONLY | getattr(os, "O_BINARY", 0)
#: Chunks kept behind the one being read, to place a violation that starts before
#: it. The stream validator carries at most 3 bytes; this leaves room to spare.
LOOKBACK_BYTES: Final = 1 << 16


class _Tally:
    """What ``check`` has counted so far (a mutable record: not a ``Record``)."""

    __slots__ = (
        "binary",
        "checked",
        "errors",
        "ignored",
        "invalid",
        "utf16",
        "violations",
    )

    def __init__(self) -> None:
        self.checked = 0
        self.invalid = 0  # files with a violation
        self.violations = 0  # violations reported
        self.binary = 0
        self.ignored = 0  # left out by git
        self.utf16 = 0  # BOM-less UTF-16 files, named on stderr
        self.errors = 0

    def status(self) -> int:
        if self.errors:
            return EXIT_ERROR
        return EXIT_FOUND if self.invalid or self.utf16 else EXIT_OK


class _Options(Record):
    policy: Policy
    as_json: bool
    every: bool


def run_check(
    paths: Sequence[str],
    policy: Policy,
    *,
    as_json: bool,
    every: bool,
    recursive: bool,
    use_git: bool = True,
) -> int:
    """Check each path (with ``recursive``, each directory's files); exit status.

    A directory that holds files none of which is checked (all ignored by git or
    binary) is an error: a tree never passes unread.
    """
    options, tally = _Options(policy, as_json, every), _Tally()

    def walk_error(message: str) -> None:
        error(message)
        tally.errors += 1

    for path in paths:
        if path != "-" and os.path.isdir(path):
            if recursive:
                _check_tree(Tree(path, walk_error, use_git=use_git), options, tally)
            else:
                walk_error(f"{display(path)}: Is a directory (-r checks its files)")
            continue
        _check_path(path, options, tally, skip_binary=False)
    if recursive:
        error(_summary(tally, every=every))
    return tally.status()


def _check_tree(tree: Tree, options: _Options, tally: _Tally) -> None:
    checked, binary = tally.checked, tally.binary
    try:
        for found in tree:
            _check_path(found, options, tally, skip_binary=True)
    except BrokenPipeError:
        raise
    except OSError as exc:  # git could not list the work tree
        error(f"{display(tree.root)}: {exc.strerror or exc}")
        tally.errors += 1
        return
    tally.ignored += tree.ignored
    binary = tally.binary - binary
    if tally.checked > checked or not (tree.ignored or binary):
        return  # something was read, or there was nothing to read
    left_out = []
    if tree.ignored:
        left_out.append(
            f"{plural(tree.ignored, 'file')} ignored by git (--no-ignore checks them)"
        )
    if binary:
        left_out.append(plural(binary, "binary file"))
    error(f"{display(tree.root)}: no file checked: {' and '.join(left_out)}")
    tally.errors += 1


def _summary(tally: _Tally, *, every: bool) -> str:
    """``12 files checked, 2 with violations, 3 violations, 1 binary file skipped``."""
    shown = plural(tally.violations, "violation")
    parts = [
        f"{plural(tally.checked, 'file')} checked",
        f"{tally.invalid} with violations",
        shown if every or not tally.violations else f"{shown} (the first of each file)",
    ]
    if tally.utf16:
        parts.append(f"{plural(tally.utf16, 'UTF-16 file')} (named above)")
    if tally.binary:
        parts.append(f"{plural(tally.binary, 'binary file')} skipped")
    if tally.ignored:
        parts.append(f"{plural(tally.ignored, 'file')} ignored by git")
    if tally.errors:
        parts.append(plural(tally.errors, "error"))
    return ", ".join(parts)


def _check_path(
    path: str, options: _Options, tally: _Tally, *, skip_binary: bool
) -> None:
    try:
        count = _check_one(path, options, tally, skip_binary=skip_binary)
    except BrokenPipeError:
        raise
    except OSError as exc:
        error(f"{display(path)}: {exc.strerror or exc}")
        tally.errors += 1
        return
    if count is None:
        tally.binary += 1
        return
    tally.checked += 1
    tally.violations += count
    if count:
        tally.invalid += 1


def _check_one(
    path: str, options: _Options, tally: _Tally, *, skip_binary: bool
) -> int | None:
    """Report the violations of one input; how many, or None for a binary file."""
    if path == "-":
        with open_input(path) as stream:
            # Where the input starts, for a second read: stdin may be a file opened
            # part-way through.
            origin = stream.tell() if stream.seekable() else None
            return _report(path, stream, origin, options)
    # Opened once: a pipe or FIFO (`check <(cmd)`) cannot be read a second time.
    fd = os.open(path, OPEN_FLAGS)
    try:
        head: bytes = b""
        valid: bool | None = False
        if stat.S_ISREG(os.fstat(fd).st_mode):
            head, valid = _first_pass(fd, options.policy, skip_binary=skip_binary)
            if valid is None:
                return None
            os.lseek(fd, 0, os.SEEK_SET)
        count = 0
        if not valid:
            with open(fd, "rb", closefd=False) as stream:
                origin = 0 if stream.seekable() else None
                count = _report(path, stream, origin, options)
    finally:
        os.close(fd)
    if not count and b"\0" in head and bomless_utf16(head[:BINARY_SNIFF_BYTES]):
        _name_utf16(path, tally)
    return count


def _first_pass(
    fd: int, policy: Policy, *, skip_binary: bool
) -> tuple[bytes, bool | None]:
    """A regular file's first bytes, and whether it is valid (None: binary, skipped).

    Most files of a tree are small and valid: one read and one ``is_valid`` settle
    them, with no Python object per chunk. False means "look closer": invalid, or
    larger than one chunk (read again with a progress line).
    """
    size = _cli_input.READ_CHUNK_BYTES
    head = os.read(fd, size)
    if skip_binary and is_binary(head):
        return head, None
    # A read returns less than asked at the end of a file; a second read
    # returning nothing confirms it (never trust a short read alone).
    return head, len(head) < size and not os.read(fd, 1) and is_valid(head, policy)


def _name_utf16(path: str, tally: _Tally) -> None:
    """Name a valid file that looks like UTF-16 without a byte order mark."""
    with open_input(path) as stream:
        if hint := guess(stream, 0, _cli_input.READ_CHUNK_BYTES):
            error(f"{display(path)}: {hint}")
            tally.utf16 += 1


def _report(path: str, stream: BinaryIO, origin: int | None, options: _Options) -> int:
    """Report the violations of ``stream``; how many."""
    count = 0
    with Progress(stream, path) as progress:
        window = _Window()
        chunks = window.track(read_chunks(stream, progress))
        violations = iter_stream_violations(chunks, options.policy)
        for violation in (
            violations if options.every else itertools.islice(violations, 1)
        ):
            place = window.locate(violation)
            progress.clear()
            line = format_violation(path, violation, place, as_json=options.as_json)
            out(line + "\n")
            count += 1
        progress.clear()
        if count and origin is not None:
            if hint := guess(stream, origin, _cli_input.READ_CHUNK_BYTES):
                error(f"{display(path)}: hint: {hint}")
    return count


class _Mark(Record):
    """What is known at one stream offset, to count lines onward from it."""

    offset: int
    lines: int  # newlines before offset
    line_start: int  # offset just after the last newline before offset (or 0)


class _Chunk(Record):
    mark: _Mark  # at data[0]
    data: bytes


class _Window:
    """The last chunks read from one input, and newline counts, to place violations.

    Holds the chunk being read and LOOKBACK_BYTES before it, so memory is bounded
    by the chunk size, not the input size. Violations come in stream order, so lines
    are counted on from the previous one: a chunk is scanned once, however many
    violations it holds.
    """

    def __init__(self) -> None:
        self._chunks: deque[_Chunk] = deque()
        self._next = _Mark(0, 0, 0)  # at the end of what has been read
        self._last = self._next  # at the last violation placed

    def track(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """Pass ``chunks`` through, remembering them as they go by."""
        for data in chunks:
            start, lines = self._next.offset, self._next.lines
            line_start = self._next.line_start
            self._chunks.append(_Chunk(self._next, data))
            if (newline := data.rfind(b"\n")) >= 0:
                line_start = start + newline + 1
            lines += data.count(b"\n")
            self._next = _Mark(start + len(data), lines, line_start)
            oldest = self._chunks[0]
            while _end(oldest) <= start - LOOKBACK_BYTES:
                self._chunks.popleft()
                oldest = self._chunks[0]
            yield data

    def locate(self, violation: Violation) -> Place:
        """Line, column and bytes of ``violation``, which must lie in the window."""
        start, end = violation.start, violation.end
        held = [c for c in self._chunks if c.mark.offset < end and start < _end(c)]
        data = b"".join(
            c.data[max(start - c.mark.offset, 0) : end - c.mark.offset] for c in held
        )
        if not held or held[0].mark.offset > start or len(data) != end - start:
            raise RuntimeError(f"internal error: {violation} is outside the bytes held")
        chunk = held[0]
        last = self._last
        if not chunk.mark.offset <= last.offset <= start:
            last = chunk.mark
        begin, stop = last.offset - chunk.mark.offset, start - chunk.mark.offset
        lines = last.lines + chunk.data.count(b"\n", begin, stop)
        newline = chunk.data.rfind(b"\n", begin, stop)
        line_start = (
            chunk.mark.offset + newline + 1 if newline >= 0 else last.line_start
        )
        self._last = _Mark(start, lines, line_start)
        return Place(lines + 1, start - line_start + 1, data)


def _end(chunk: _Chunk) -> int:
    return chunk.mark.offset + len(chunk.data)
