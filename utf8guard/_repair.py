"""repair(): one U+FFFD per maximal subpart or refused code point."""

from __future__ import annotations

from typing import Final

from ._policy import STRICT, Policy
from ._scan import BytesLike, as_buffer, iter_violations

__all__ = ["repair"]

#: U+FFFD REPLACEMENT CHARACTER in UTF-8.
REPLACEMENT: Final = "\ufffd".encode()


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
        TypeError: ``data`` is not bytes, bytearray or memoryview.
    """
    buf = as_buffer(data)
    parts: list[bytes] = []
    pos = 0
    for violation in iter_violations(buf, policy):
        parts += (bytes(buf[pos : violation.start]), REPLACEMENT)
        pos = violation.end
    if not parts:
        return bytes(buf)
    parts.append(bytes(buf[pos:]))
    return b"".join(parts)
