"""The ``utf8guard`` command: check or repair files; only I/O, exit codes, formatting.

``utf8guard check [--json] [--all] [policy flags] PATH...`` reports the first
violation of each file (every violation with ``--all``), as
``path:line:column: kind at byte N (C0 AF)`` or, with ``--json``, one JSON object per
line. ``utf8guard repair IN (-o OUT | -o - | --in-place)`` writes IN with one U+FFFD
per violation. ``-`` as a path means standard input. Files are read in chunks, so
memory stays constant whatever their size. A directory is an error: pass files (for
a tree, ``git ls-files -z | xargs -0 utf8guard check``).

Exit status: 0 every file valid (``check``) or nothing to repair (``repair``); 1 some
violation found (``check``) or repaired (``repair``); 2 bad usage or an I/O error,
which wins over 1 (``check`` still checks the other files); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import fields, replace
from typing import BinaryIO, Final, NamedTuple, NoReturn

from . import (
    IDENTIFIER,
    STRICT,
    WELL_FORMED,
    Policy,
    Violation,
    __version__,
    iter_stream_violations,
    repair_stream,
)

__all__ = ["main"]

EXIT_OK: Final = 0
EXIT_FOUND: Final = 1
EXIT_ERROR: Final = 2
#: 128 + SIGINT, as shells report a process ended by Ctrl-C.
EXIT_INTERRUPTED: Final = 130
#: Read size: large enough that per-chunk overhead vanishes, small enough to not
#: matter in memory.
READ_CHUNK_BYTES: Final = 1 << 18
#: Chunks kept behind the one being read, to place a violation that starts before
#: it. The stream validator carries at most 3 bytes; this leaves room to spare.
LOOKBACK_BYTES: Final = 1 << 16
#: Inputs at least this large get a progress line when stderr is a terminal.
PROGRESS_MIN_BYTES: Final = 1 << 24
#: U+FFFD REPLACEMENT CHARACTER in UTF-8: repair writes one per violation.
REPLACEMENT: Final = "\ufffd".encode()
STDIN_NAME: Final = "<stdin>"
PRESETS: Final = {
    "strict": STRICT,
    "well-formed": WELL_FORMED,
    "identifier": IDENTIFIER,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Errors are one line on stderr and status 2, never a traceback.
    """
    try:
        args = _build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse printed --help, --version or a usage error
        return int(exc.code or 0)
    policy = _policy_from(args)
    try:
        if args.command == "check":
            return _check(args.paths, policy, as_json=args.json, every=args.all)
        if problem := _repair_usage_problem(args):
            _error(f"repair: {problem}")
            return EXIT_ERROR
        return _repair(args.input, args.output, policy, in_place=args.in_place)
    except BrokenPipeError:  # e.g. `utf8guard check --all big.txt | head`
        # Python flushes stdout again at exit; send that to /dev/null, not a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_ERROR
    except KeyboardInterrupt:  # Ctrl-C on a large input: a line, not a traceback
        _error("interrupted")
        return EXIT_INTERRUPTED


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, not the usage block: ``utf8guard check: error: ...``."""
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see --help)\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="utf8guard",
        description="Strict UTF-8 validation: name each violation and its byte span.",
        epilog="exit status: 0 valid or nothing to repair, 1 violations found or "
        "repaired, 2 usage or I/O error",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser("check", help="report violations, exit 1 if any")
    check.add_argument("paths", nargs="+", metavar="PATH", help="file, or - for stdin")
    check.add_argument("--json", action="store_true", help="one JSON object per line")
    check.add_argument(
        "--all", action="store_true", help="every violation, not only the first"
    )
    _add_policy_flags(check)
    repair = commands.add_parser("repair", help="replace each violation with U+FFFD")
    repair.add_argument("input", metavar="IN", help="file, or - for stdin")
    target = repair.add_mutually_exclusive_group()
    target.add_argument(
        "-o", "--output", metavar="OUT", help="output file, - for stdout"
    )
    target.add_argument("--in-place", action="store_true", help="atomically rewrite IN")
    _add_policy_flags(repair)
    return parser


def _add_policy_flags(parser: argparse.ArgumentParser) -> None:
    """``--policy PRESET``, then ``--allow-X``/``--refuse-X`` per Policy field."""
    group = parser.add_argument_group("policy (a preset, then per-class changes)")
    group.add_argument(
        "--policy", choices=PRESETS, default="strict", help="preset (default strict)"
    )
    for field in fields(Policy):
        if not field.init:
            continue
        words = field.name.removeprefix("allow_").replace("_", "-")
        pair = group.add_mutually_exclusive_group()
        for verb, value in (("allow", True), ("refuse", False)):
            pair.add_argument(
                f"--{verb}-{words}",
                dest=field.name,
                action="store_const",
                const=value,
                default=None,
                help=f"{verb} {words.replace('-', ' ')}",
            )


def _policy_from(args: argparse.Namespace) -> Policy:
    changes = {
        field.name: getattr(args, field.name)
        for field in fields(Policy)
        if field.init and getattr(args, field.name) is not None
    }
    return replace(PRESETS[args.policy], **changes)


def _repair_usage_problem(args: argparse.Namespace) -> str | None:
    """Refuse, before reading anything, a repair that could clobber its input."""
    if args.in_place and args.input == "-":
        return "--in-place needs a file, not - (stdin)"
    if not args.in_place and args.output is None:
        return "say where to write: -o OUT, -o - (stdout) or --in-place"
    if args.output != "-" and args.input != "-" and not args.in_place:
        if _is_same_file(args.input, args.output):
            return "-o names IN itself: use --in-place to rewrite IN"
    return None


def _is_same_file(first: str, second: str) -> bool:
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        return os.path.samefile(first, second)  # hard links
    except OSError:  # one of them does not exist (yet)
        return False


def _check(paths: Sequence[str], policy: Policy, *, as_json: bool, every: bool) -> int:
    status = EXIT_OK
    for path in paths:
        try:
            found = _check_one(path, policy, as_json=as_json, every=every)
        except BrokenPipeError:
            raise
        except OSError as exc:
            _error(f"{_display(path)}: {exc.strerror or exc}")
            status = EXIT_ERROR
        else:
            status = max(status, EXIT_FOUND if found else EXIT_OK)
    return status


def _check_one(path: str, policy: Policy, *, as_json: bool, every: bool) -> bool:
    """Report the violations of one input; True when there was one."""
    found = False
    with _open_input(path) as stream, _Progress(stream, path) as progress:
        window = _Window()
        chunks = window.track(_read_chunks(stream, progress))
        violations = iter_stream_violations(chunks, policy)
        for violation in violations if every else itertools.islice(violations, 1):
            place = window.locate(violation)
            progress.clear()
            sys.stdout.write(_format(path, violation, place, as_json=as_json) + "\n")
            found = True
    return found


def _repair(source: str, output: str | None, policy: Policy, *, in_place: bool) -> int:
    seen, written = _ReplacementCount(), _ReplacementCount()
    try:
        with _open_input(source) as stream, _Progress(stream, source) as progress:
            chunks = seen.track(_read_chunks(stream, progress))
            repaired = written.track(repair_stream(chunks, policy))
            if output == "-":
                for part in repaired:
                    sys.stdout.buffer.write(part)
                sys.stdout.buffer.flush()
                return _repaired_status(source, written.count - seen.count)
            name = source if in_place else str(output)
            with _AtomicFile(os.path.realpath(name), name) as out:
                for part in repaired:
                    out.write(part)
                # In place, a valid file is left alone: its mtime and links survive.
                if written.count > seen.count or not in_place:
                    out.commit()
    except BrokenPipeError:
        raise
    except OSError as exc:
        name = exc.filename if isinstance(exc.filename, str) else source
        _error(f"{_display(name)}: {exc.strerror or exc}")
        return EXIT_ERROR
    return _repaired_status(source, written.count - seen.count)


def _repaired_status(source: str, count: int) -> int:
    if count:
        _error(f"{_display(source)}: replaced {count} violation(s) with U+FFFD")
    return EXIT_FOUND if count else EXIT_OK


class _Place(NamedTuple):
    line: int  # 1-based
    column: int  # 1-based, in bytes from the start of the line
    data: bytes  # the violation's bytes


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

    def locate(self, violation: Violation) -> _Place:
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
        return _Place(lines + 1, start - line_start + 1, data)


def _end(chunk: _Chunk) -> int:
    return chunk.mark.offset + len(chunk.data)


class _ReplacementCount:
    """Counts U+FFFD in a byte stream, including one split across chunks."""

    def __init__(self) -> None:
        self.count = 0
        self._tail = b""

    def track(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for data in chunks:
            # The tail is shorter than U+FFFD, so nothing in it is counted twice.
            joined = self._tail + data
            self.count += joined.count(REPLACEMENT)
            self._tail = joined[-(len(REPLACEMENT) - 1) :]
            yield data


class _AtomicFile:
    """A temporary file beside ``target`` that replaces it on ``commit``.

    Without ``commit`` (an error, or nothing to change) it is removed, so ``target``
    is never left half-written. The new file keeps ``target``'s permissions, or gets
    the umask's default for a new file. Errors name ``name``, not the temporary file.
    """

    def __init__(self, target: str, name: str) -> None:
        self._target = target
        self._name = name
        with _naming(name):
            fd, self._temp = tempfile.mkstemp(
                dir=os.path.dirname(target), prefix=".utf8guard-", suffix=".tmp"
            )
        self._file = os.fdopen(fd, "wb")
        self._committed = False

    def __enter__(self) -> _AtomicFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._file.close()
        if not self._committed:
            os.unlink(self._temp)

    def write(self, data: bytes) -> None:
        with _naming(self._name):
            self._file.write(data)

    def commit(self) -> None:
        with _naming(self._name):
            self._file.flush()
            os.fsync(self._file.fileno())
            os.chmod(self._temp, _mode_for(self._target))
            os.replace(self._temp, self._target)
        self._committed = True


@contextmanager
def _naming(name: str) -> Iterator[None]:
    """Report an OSError as being about ``name``, the path the user gave."""
    try:
        yield
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from exc


def _mode_for(target: str) -> int:
    try:
        return os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class _Progress:
    """``path NN%`` on stderr for a large regular file when stderr is a terminal."""

    def __init__(self, stream: BinaryIO, path: str) -> None:
        size = os.fstat(stream.fileno()).st_size if path != "-" else 0
        self._active = size >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
        self._size = size
        self._label = _display(path)
        self._shown = -1

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.clear()

    def update(self, position: int) -> None:
        percent = position * 100 // self._size if self._active else -1
        if percent != self._shown:
            sys.stderr.write(f"\r{self._label} {percent:3d}%")
            sys.stderr.flush()
            self._shown = percent

    def clear(self) -> None:
        if self._shown >= 0:
            sys.stderr.write("\r\x1b[K")
            self._shown = -1


def _open_input(path: str) -> BinaryIO | nullcontext[BinaryIO]:
    return nullcontext(sys.stdin.buffer) if path == "-" else open(path, "rb")


def _read_chunks(stream: BinaryIO, progress: _Progress) -> Iterator[bytes]:
    position = 0
    while data := stream.read(READ_CHUNK_BYTES):
        position += len(data)
        progress.update(position)
        yield data


def _format(path: str, violation: Violation, place: _Place, *, as_json: bool) -> str:
    if as_json:
        record = {
            "path": STDIN_NAME if path == "-" else path,
            "kind": violation.kind.value,
            "start": violation.start,
            "end": violation.end,
            "line": place.line,
            "column": place.column,
            "bytes": place.data.hex(),
        }
        return json.dumps(record)
    return (
        f"{_display(path)}:{place.line}:{place.column}: {violation.kind.value} at byte "
        f"{violation.start} ({place.data.hex(' ').upper()})"
    )


def _display(path: str) -> str:
    """``path`` made safe to print on one line, for humans.

    Controls, bidi controls and undecodable bytes (surrogate escapes) become
    backslash escapes, so a file name can neither forge nor reorder output lines.
    """
    if path == "-":
        return STDIN_NAME
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode() for c in path
    )


def _error(message: str) -> None:
    sys.stderr.write(f"utf8guard: {message}\n")
