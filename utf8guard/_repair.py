"""repair(): one U+FFFD per maximal subpart or refused code point."""

from __future__ import annotations

from ._policy import STRICT, Policy
from ._scan import BytesLike, as_buffer, iter_range

# typing, and collections.abc (which imports collections), each cost about what the
# rest of ``import utf8guard`` does (issue 28); only mypy needs them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

__all__ = ["repair", "repaired_parts"]

#: U+FFFD REPLACEMENT CHARACTER in UTF-8.
REPLACEMENT: Final = "\ufffd".encode()


def repaired_parts(
    buf: BytesLike, start: int, end: int, policy: Policy
) -> Iterator[bytes]:
    """``buf[start:end]`` repaired, as the valid runs and replacements in order."""
    pos = start
    for violation in iter_range(buf, start, end, policy):
        yield bytes(buf[pos : violation.start])
        yield REPLACEMENT
        pos = violation.end
    yield bytes(buf[pos:end])


def repair(data: BytesLike, policy: Policy = STRICT) -> bytes:
    """Return ``data`` with each violation replaced by one U+FFFD.

    Ill-formed input is replaced one maximal subpart at a time, the practice the
    Unicode Standard recommends (ch. 3, "U+FFFD Substitution of Maximal Subparts") and
    the WHATWG Encoding Standard requires; a code point the policy refuses becomes one
    U+FFFD. With ``allow_noncharacters=True`` and nothing else refused, the result
    equals ``data.decode("utf-8", "replace").encode()``. The output is valid under
    ``policy``.

    >>> repair(b"a\\xc0\\xafb")
    b'a\\xef\\xbf\\xbd\\xef\\xbf\\xbdb'

    Raises:
        TypeError: ``data`` is not bytes, bytearray or memoryview, or ``policy``
            is not a :class:`Policy`.
    """
    buf = as_buffer(data)
    return b"".join(repaired_parts(buf, 0, len(buf), policy))
