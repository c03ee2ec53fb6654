"""The command line's standard streams: closed ones stood in for, stdout checked.

A stream the caller closed (``utf8guard check <&-``, ``>&-``, ``2>&-``) is ``None``
in ``sys``; :func:`stand_in_closed` opens ``os.devnull`` in its place the wrong way
round, so that reading stdin or writing stdout fails as on a closed descriptor
(``Bad file descriptor``: one line and exit 2, not a traceback) and no file opened
later takes the descriptor's number. A closed stderr just drops the messages.

Everything for stdout goes through :func:`out`, so that a write error (a full disk,
``> /dev/full``) is said to be about standard output, never about the input being
read, and stops the run: :class:`OutputError`. A closed pipe stays a
``BrokenPipeError``, which ends the run quietly.
"""

from __future__ import annotations

import os
import sys

__all__ = ["OutputError", "flush_out", "out", "silence_stdout", "stand_in_closed"]


class OutputError(Exception):
    """Standard output could not be written (other than a closed pipe).

    Not an ``OSError``: the handlers of input errors must not take it for one.
    """


def stand_in_closed() -> None:
    """Give each closed standard stream an ``os.devnull`` stand-in."""
    if sys.stdin is None:  # opened write-only: a read fails with EBADF
        sys.stdin = open(os.open(os.devnull, os.O_WRONLY), encoding="utf-8")
    if sys.stdout is None:  # opened read-only: a write fails with EBADF
        sys.stdout = open(os.open(os.devnull, os.O_RDONLY), "w", encoding="utf-8")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")


def out(data: str | bytes) -> None:
    """Write ``data`` to standard output (bytes to its binary buffer).

    Raises:
        BrokenPipeError: the reader has gone away.
        OutputError: any other write error.
    """
    try:
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc)) from exc


def flush_out() -> None:
    """Flush standard output; errors as :func:`out`'s."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc)) from exc


def silence_stdout() -> None:
    """Point stdout's descriptor at ``os.devnull``, so that Python's own flush at
    exit neither fails again nor prints a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
