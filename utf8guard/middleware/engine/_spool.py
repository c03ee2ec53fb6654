"""BodySpool: hold a body for validation in memory, then in a temporary file; replay."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import IO, Final

__all__ = ["REPLAY_BYTES", "BodySpool"]

#: Size of each piece replayed from the temporary file.
REPLAY_BYTES: Final = 64 * 1024


class BodySpool:
    """Chunks kept as received (no copy) up to ``memory_bytes``, then a temporary file.

    The way ``tempfile.SpooledTemporaryFile`` rolls over, so a large body costs disk,
    not memory. Writes are synchronous: the page cache absorbs them, and an ASGI
    middleware cannot assume which event loop library runs it.
    """

    def __init__(self, memory_bytes: int) -> None:
        self._memory_bytes = memory_bytes
        self._chunks: list[bytes] = []
        self._file: IO[bytes] | None = None
        self.size = 0

    def append(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.size += len(chunk)
        if self._file is None and self.size <= self._memory_bytes:
            self._chunks.append(chunk)
            return
        if self._file is None:
            # Imported here: tempfile (with shutil, random, bz2, lzma) was a tenth of
            # the middleware's import time, and most bodies never roll over.
            import tempfile

            self._file = tempfile.TemporaryFile()  # closed by close()
            self._file.writelines(self._chunks)
            self._chunks.clear()
        self._file.write(chunk)

    def chunks(self) -> Iterator[bytes]:
        """The body again, in order, as one or more non-empty pieces."""
        if self._file is None:
            yield from self._chunks
            return
        self._file.seek(0)
        while piece := self._file.read(REPLAY_BYTES):
            yield piece

    def close(self) -> None:
        self._chunks.clear()
        if self._file is not None:
            self._file.close()
            self._file = None
