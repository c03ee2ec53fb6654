"""Atomic output files: written beside their target, then renamed over it or linked."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

# signal.py imports enum for its constants; _signal, its C half (the same names), is
# built in and loaded at start-up. mypy reads signal's stubs for both.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal as _signal
else:
    import _signal

__all__ = ["AtomicFile", "naming"]


class AtomicFile:
    """A temporary file beside ``target`` that becomes ``target`` on ``commit``.

    Without ``commit`` (an error, or nothing to change) it is removed, so ``target``
    is never left half-written. With ``overwrite`` the commit is a rename over
    ``target``; without it, a hard link that fails with ``EEXIST`` if ``target``
    appeared meanwhile, so nothing is ever replaced that the user did not name for
    replacing. The new file keeps ``target``'s permissions, or gets the umask's
    default for a new file. Errors name ``name``, not the temporary file. While it is
    open, SIGTERM (``timeout``, ``kill``, a service manager) is taken as Ctrl-C is, a
    ``KeyboardInterrupt``, so that the temporary file is removed on the way out too.
    """

    def __init__(self, target: str, name: str, *, overwrite: bool) -> None:
        self._target = target
        self._name = name
        self._overwrite = overwrite
        with naming(name):
            fd, self._temp = tempfile.mkstemp(
                dir=os.path.dirname(target), prefix=".utf8guard-", suffix=".tmp"
            )
        self._file = os.fdopen(fd, "wb")
        self._committed = False
        try:
            self._on_term = _signal.signal(_signal.SIGTERM, _interrupt)
        except ValueError:  # not the main thread (cli.main from a worker): as before
            self._on_term = None

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._file.close()
            if not self._committed:
                os.unlink(self._temp)
        finally:
            if self._on_term is not None:
                _signal.signal(_signal.SIGTERM, self._on_term)

    def write(self, data: bytes) -> None:
        with naming(self._name):
            self._file.write(data)

    def commit(self) -> None:
        with naming(self._name):
            self._file.flush()
            os.fsync(self._file.fileno())
            os.chmod(self._temp, _mode_for(self._target))
            if self._overwrite:
                os.replace(self._temp, self._target)
            else:
                os.link(self._temp, self._target)
                os.unlink(self._temp)
        self._committed = True


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def naming(name: str) -> Iterator[None]:
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
