"""Where a multipart part's header block ends, or why its framing is refused.

RFC 2046 §5.1.1 and RFC 5322 §2.2: a part's header block is lines that end in CRLF,
closed by an empty line, and holds no delimiter. :class:`._multipart.MultipartInspector`
finds the block here; :mod:`._multipart_part` judges the fields in it.
"""

from __future__ import annotations

from ..._lazy_pattern import lazy_pattern
from ..engine._finding import RequestKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple
else:
    from ..._named_tuple import NamedTuple

__all__ = ["MAX_PART_HEADER_BYTES", "BlockRefusal", "header_block_end"]

#: Longest header block of one multipart part; more is refused, not truncated.
MAX_PART_HEADER_BYTES: Final = 16 * 1024
#: RFC 2046 §5.1.1 and RFC 5322 §2.2: lines end in CRLF; a CR or LF alone is a
#: line break to Werkzeug and not to python-multipart.
_BARE_LINE_BREAK: Final = lazy_pattern(rb"\r(?!\n)|(?<!\r)\n")
#: CR and LF as ints, which ``in`` finds with one memchr (see _json.JSON_ESCAPE).
_CR: Final = ord("\r")
_LF: Final = ord("\n")


class BlockRefusal(NamedTuple):
    """Why a header block is refused, and the index in the buffer to point at."""

    kind: RequestKind
    at: int


def _paired_line_breaks(block: bytes) -> bool:
    """True when every CR and LF in ``block`` is in a CRLF: none is bare."""
    if _CR not in block and _LF not in block:
        return True  # one header line: two memchr, not three counts
    crlf = block.count(b"\r\n")
    return block.count(b"\r") == crlf == block.count(b"\n")


def header_block_end(
    buf: bytes, start: int, scan: int, boundary: bytes
) -> int | BlockRefusal | None:
    """The end of the header block at ``buf[start]``: the index of the CRLF CRLF
    that closes it (``start`` for an empty block), a refusal, or None while the
    block is not whole (the search may then resume at ``len(buf)``).

    ``scan`` is where the last search stopped. Refused: a bare CR or LF, a block
    over :data:`MAX_PART_HEADER_BYTES`, the boundary inside the block. Each verdict
    looks at the same bytes however the block arrives in chunks.
    """
    block_end = start
    if not buf.startswith(b"\r\n", start):
        # Resume 3 bytes back: the empty line may straddle chunks.
        block_end = buf.find(b"\r\n\r\n", max(scan - 3, start))
    if 0 <= block_end - start <= MAX_PART_HEADER_BYTES:
        block = buf[start:block_end]
        # A whole block within the limit, every CR and LF in a CRLF and no
        # boundary: what the checks below pass, in fewer calls.
        if _paired_line_breaks(block) and boundary not in block:
            return block_end
    searched = len(buf) if block_end < 0 else block_end
    # At most the limit, plus 3 bytes of an empty line not yet complete.
    last = min(searched, start + MAX_PART_HEADER_BYTES + 3)
    # Resume 1 byte back: the lookbehind needs the byte before.
    bare = _BARE_LINE_BREAK.search(buf, max(scan - 1, start), last)
    # A CR at the end of the bytes so far may yet be followed by LF.
    pending = bare is not None and bare.end() == len(buf)
    if bare is not None and not (pending and bare.group() == b"\r"):
        return BlockRefusal(RequestKind.MULTIPART_BARE_LINE_BREAK, bare.start())
    limit = MAX_PART_HEADER_BYTES + (3 if block_end < 0 else 0)
    if searched - start > limit:
        return BlockRefusal(RequestKind.MALFORMED_MULTIPART, start)
    if block_end < 0:
        return None
    stray = buf.find(boundary, start, block_end)
    if stray >= 0:
        if stray >= start + 2 and buf.startswith(b"--", stray - 2):
            stray -= 2
        return BlockRefusal(RequestKind.MULTIPART_BOUNDARY_IN_PART, stray)
    return block_end
