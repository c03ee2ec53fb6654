"""The command line's inputs: files or stdin, read in chunks, with a progress line."""

from __future__ import annotations

import os
import sys

from ._cli_output import display

# Only mypy needs these (issue 28: a command's start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextlib import nullcontext
    from typing import BinaryIO, Final

__all__ = ["READ_CHUNK_BYTES", "Progress", "open_input", "read_chunks"]

#: Read size: large enough that per-chunk overhead vanishes, small enough to not
#: matter in memory.
READ_CHUNK_BYTES: Final = 1 << 18
#: Inputs at least this large get a progress line when stderr is a terminal.
PROGRESS_MIN_BYTES: Final = 1 << 24


class Progress:
    """``path NN%`` on stderr for a large regular file when stderr is a terminal."""

    def __init__(self, stream: BinaryIO, path: str) -> None:
        size = os.fstat(stream.fileno()).st_size if path != "-" else 0
        self._active = size >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
        self._size = size
        self._path = path
        self._shown = -1

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.clear()

    def update(self, position: int) -> None:
        percent = position * 100 // self._size if self._active else -1
        if percent != self._shown:
            sys.stderr.write(f"\r{display(self._path)} {percent:3d}%")
            sys.stderr.flush()
            self._shown = percent

    def clear(self) -> None:
        if self._shown >= 0:
            sys.stderr.write("\r\x1b[K")
            self._shown = -1


def open_input(path: str) -> BinaryIO | nullcontext[BinaryIO]:
    """``path`` opened for binary reading; ``-`` is stdin (left open afterwards)."""
    if path != "-":
        return open(path, "rb")
    from contextlib import nullcontext  # stdin only (issue 28: start-up)

    return nullcontext(sys.stdin.buffer)


def read_chunks(stream: BinaryIO, progress: Progress) -> Iterator[bytes]:
    """The rest of ``stream`` in chunks."""
    position = 0
    for data in iter(lambda: stream.read(READ_CHUNK_BYTES), b""):
        position += len(data)
        progress.update(position)
        yield data
