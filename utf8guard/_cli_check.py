"""``utf8guard check``: report the violations of files, trees and stdin.

Files are read in chunks at constant memory; a violation is placed (line, column,
bytes) from a window of recent chunks. With ``-r`` a directory is walked
(:mod:`utf8guard._cli_files`), binary files are skipped and a summary line ends
the run on stderr.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from . import _cli_input
from ._cli_encoding import guess
from ._cli_files import BINARY_SNIFF_BYTES, is_binary, iter_files
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
from ._policy import Policy
from ._stream import iter_stream_violations
from ._violation import Violation

__all__ = ["run_check"]

#: Chunks kept behind the one being read, to place a violation that starts before
#: it. The stream validator carries at most 3 bytes; this leaves room to spare.
LOOKBACK_BYTES: Final = 1 << 16


@dataclass
class _Tally:
    checked: int = 0
    invalid: int = 0  # files with a violation
    violations: int = 0  # violations reported
    binary: int = 0
    errors: int = 0

    def status(self) -> int:
        if self.errors:
            return EXIT_ERROR
        return EXIT_FOUND if self.invalid else EXIT_OK


@dataclass(frozen=True)
class _Options:
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
) -> int:
    """Check each path (with ``recursive``, each directory's files); exit status."""
    options, tally = _Options(policy, as_json, every), _Tally()

    def walk_error(message: str) -> None:
        error(message)
        tally.errors += 1

    for path in paths:
        if not (recursive and path != "-" and os.path.isdir(path)):
            _check_path(path, options, tally, skip_binary=False)
            continue
        try:
            for found in iter_files(path, walk_error):
                _check_path(found, options, tally, skip_binary=True)
        except BrokenPipeError:
            raise
        except OSError as exc:  # git could not list the work tree
            walk_error(f"{display(path)}: {exc.strerror or exc}")
    if recursive:
        error(_summary(tally, every=every))
    return tally.status()


def _summary(tally: _Tally, *, every: bool) -> str:
    """``12 files checked, 2 with violations, 3 violations, 1 binary file skipped``."""
    shown = plural(tally.violations, "violation")
    parts = [
        f"{plural(tally.checked, 'file')} checked",
        f"{tally.invalid} with violations",
        shown if every or not tally.violations else f"{shown} (the first of each file)",
    ]
    if tally.binary:
        parts.append(f"{plural(tally.binary, 'binary file')} skipped")
    if tally.errors:
        parts.append(plural(tally.errors, "error"))
    return ", ".join(parts)


def _check_path(
    path: str, options: _Options, tally: _Tally, *, skip_binary: bool
) -> None:
    try:
        count = _check_one(path, options, skip_binary=skip_binary)
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


def _check_one(path: str, options: _Options, *, skip_binary: bool) -> int | None:
    """Report the violations of one input; how many, or None for a binary file."""
    count = 0
    with open_input(path) as stream, Progress(stream, path) as progress:
        # Where the input starts, for a second read: stdin may be a file opened
        # part-way through.
        origin = stream.tell() if stream.seekable() else None
        head = stream.read(BINARY_SNIFF_BYTES) if skip_binary else b""
        if is_binary(head):
            return None
        window = _Window()
        chunks = window.track(read_chunks(stream, progress, head))
        violations = iter_stream_violations(chunks, options.policy)
        for violation in (
            violations if options.every else itertools.islice(violations, 1)
        ):
            place = window.locate(violation)
            progress.clear()
            line = format_violation(path, violation, place, as_json=options.as_json)
            sys.stdout.write(line + "\n")
            count += 1
        progress.clear()
        if count and origin is not None:
            if hint := guess(stream, origin, _cli_input.READ_CHUNK_BYTES):
                error(f"{display(path)}: hint: {hint}")
    return count


class _Mark(NamedTuple):
    """What is known at one stream offset, to count lines onward from it."""

    offset: int
    lines: int  # newlines before offset
    line_start: int  # offset just after the last newline before offset (or 0)


class _Chunk(NamedTuple):
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
            start, lines, line_start = self._next
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
