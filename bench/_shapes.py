"""Attack shapes for ``bench_scaling``: raw HTTP/1.1 requests that grow with ``size``.

Each shape repeats one small unit until its attack part (the request target, one
header value or the body) is about ``size`` bytes. Head shapes are the escapes and
header bytes of issue 11's F1; body shapes are F7's urlencoded bodies plus JSON
escapes and tiny multipart parts. ``text/plain`` is the baseline body: the same size
of ordinary UTF-8 text, which every body shape should cost within 10x of.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

__all__ = ["BASELINE", "BODY_SHAPES", "HEAD_SHAPES", "Shape", "request"]

#: A multipart part as small as RFC 7578 §4.2 allows a form field to be.
_PART: Final = b'--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n'


def _distinct_parts(size: int) -> bytes:
    """Tiny parts as above, each of another name (``a0``, ``a1`` ...), as an attacker
    would send them to miss any cache of a header block's verdict; about ``size``
    bytes, closed."""
    parts: list[bytes] = []
    total, index = len(b"--B--\r\n"), 0
    while True:
        part = _PART.replace(b'"a"', b'"a%d"' % index)
        if total + len(part) > size and parts:
            return b"".join(parts) + b"--B--\r\n"
        parts.append(part)
        total += len(part)
        index += 1


def _repeat(unit: bytes, size: int, prefix: bytes = b"", suffix: bytes = b"") -> bytes:
    """``prefix + unit * k + suffix`` with k as large as keeps it within ``size``."""
    room = max(0, size - len(prefix) - len(suffix))
    return prefix + unit * max(1, room // len(unit)) + suffix


@dataclass(frozen=True, slots=True, kw_only=True)
class Shape:
    """One attack shape: where its bytes go and how they grow."""

    name: str
    #: ``size`` -> the request target, the X-Data header value, or the body
    build: Callable[[int], bytes]
    where: str  # "target", "header" or "body"
    content_type: bytes = b""


HEAD_SHAPES: Final = (
    Shape(
        name="path `%FF`",
        where="target",
        build=lambda n: _repeat(b"%FF", n, prefix=b"/"),
    ),
    Shape(
        name="query `%FF`",
        where="target",
        build=lambda n: _repeat(b"%FF", n, prefix=b"/q?x="),
    ),
    Shape(
        name="path `%EF%BC%8F`",  # U+FF0F FULLWIDTH SOLIDUS, a look-alike separator
        where="target",
        build=lambda n: _repeat(b"%EF%BC%8F", n, prefix=b"/"),
    ),
    Shape(
        name="header `FF` bytes",  # obs-text (RFC 9110 §5.5), never UTF-8
        where="header",
        build=lambda n: _repeat(b"\xff", n),
    ),
    Shape(
        name="header `é` bytes",  # valid UTF-8 obs-text: the scan, no finding
        where="header",
        build=lambda n: _repeat("é".encode(), n),
    ),
)

_FORM: Final = b"application/x-www-form-urlencoded"
BASELINE: Final = Shape(
    name="text/plain",
    where="body",
    content_type=b"text/plain; charset=utf-8",
    build=lambda n: _repeat("Grüße aus Zürich, 東京 ".encode(), n),
)
BODY_SHAPES: Final = (
    BASELINE,
    Shape(name="form `=`", where="body", content_type=_FORM, build=lambda n: b"=" * n),
    Shape(name="form `&`", where="body", content_type=_FORM, build=lambda n: b"&" * n),
    Shape(
        name="form `a=`",
        where="body",
        content_type=_FORM,
        build=lambda n: _repeat(b"a=", n),
    ),
    Shape(  # one run of escapes left after one decode: the double-encoding check's
        # worst case (short runs, `a=%2541.`, cost half as much)
        name="form `%25C3%25A9`",
        where="body",
        content_type=_FORM,
        build=lambda n: _repeat(b"%25C3%25A9", n, prefix=b"a="),
    ),
    Shape(  # issue 28: 64 KiB chunks (and most others) end inside a character,
        # which the form inspector once mapped its whole chunk for (50x the cost)
        name="form `%E2%82%AC%C3%A9x` (chunks cut characters)",
        where="body",
        content_type=_FORM,
        build=lambda n: _repeat(b"%E2%82%AC%C3%A9x", n, prefix=b"a="),
    ),
    Shape(
        name="JSON `\\u00e9`",
        where="body",
        content_type=b"application/json",
        build=lambda n: _repeat(b"\\u00e9", n, prefix=b'{"a":"', suffix=b'"}'),
    ),
    Shape(
        name="JSON `\\\\`",
        where="body",
        content_type=b"application/json",
        build=lambda n: _repeat(b"\\\\", n, prefix=b'{"a":"', suffix=b'"}'),
    ),
    Shape(
        name="multipart tiny parts",
        where="body",
        content_type=b"multipart/form-data; boundary=B",
        build=lambda n: _repeat(_PART, n, suffix=b"--B--\r\n"),
    ),
    Shape(
        name="multipart distinct names",
        where="body",
        content_type=b"multipart/form-data; boundary=B",
        build=_distinct_parts,
    ),
)


def request(shape: Shape, size: int) -> bytes:
    """The whole raw request for ``shape`` at ``size``; the connection closes after."""
    data = shape.build(size)
    target = data if shape.where == "target" else b"/upload"
    method = b"POST" if shape.where == "body" else b"GET"
    lines = [method + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1"]
    lines.append(b"Connection: close")
    if shape.where == "header":
        lines.append(b"X-Data: " + data)
    body = data if shape.where == "body" else b""
    if body:
        lines.append(b"Content-Type: " + shape.content_type)
        lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
