"""A row of the differential table, and builders for the raw requests in it.

Requests are bytes, exactly as sent: no client normalises them. ``http()`` adds
``Host`` and ``Connection: close`` after the request line and a ``Content-Length``
unless the row frames its body itself.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final

#: An HTTP/2 field list as sent (RFC 9113 §8.3: pseudo-header fields first).
H2Fields = tuple[tuple[bytes, bytes], ...]


class Expect(enum.Enum):
    """What a row demands of every stack, on top of "no 5xx, no hang, no leak"."""

    #: Issue 11 says refuse it: a 2xx fails even with a clean echo ("allowed").
    REFUSE = "refuse"
    #: A valid request: 2xx with the expected echo, on every stack.
    PASS = "pass"  # noqa: S105  # a verdict, not a password
    #: Either verdict is fine; if it passes, the expected echo must hold for every
    #: part the framework parsed (framing a server does not support, F7's size).
    EITHER = "either"


@dataclass(frozen=True, slots=True)
class Row:
    """One raw request and what the oracle checks of the answer to it."""

    id: str
    raw: bytes
    expect: Expect
    #: Substrings that must appear in no echoed string (e.g. ``"À¯"``, ``"<script>"``).
    forbidden: tuple[str, ...] = ()
    #: ``(echo field, substring)``: must not appear in that field (``raw_path`` ...).
    field_forbidden: tuple[tuple[str, str], ...] = ()
    #: Echo fields and the values they must have when the request passes.
    echo: Mapping[str, object] = field(default_factory=dict)
    #: The client sent U+FFFD itself, or the row runs the guard's normalize mode
    #: (which repairs to U+FFFD): an echoed U+FFFD is then no sign of a leak.
    fffd_ok: bool = False
    #: Stacks whose server destroys what the rule needs before any middleware runs
    #: (SECURITY.md says which and why): there a refuse row may pass, never leak.
    blind_on: tuple[str, ...] = ()
    #: An HTTP/2-only row (table_h2.py): the exact field list (pseudo-headers
    #: first, as given) and body sent to the h2c stacks; the others skip it.
    h2: tuple[H2Fields, bytes] | None = None

    def on(self, stack: str) -> Row:
        """The row as judged on ``stack``: either way where the stack is blind."""
        if stack in self.blind_on and self.expect is Expect.REFUSE:
            return replace(self, expect=Expect.EITHER)
        return self


Headers = tuple[tuple[bytes, bytes], ...]

JSON: Final[Headers] = ((b"Content-Type", b"application/json"),)
TEXT: Final[Headers] = ((b"Content-Type", b"text/plain; charset=utf-8"),)
FORM: Final[Headers] = ((b"Content-Type", b"application/x-www-form-urlencoded"),)
BINARY: Final[Headers] = ((b"Content-Type", b"application/octet-stream"),)
MULTIPART: Final[Headers] = ((b"Content-Type", b"multipart/form-data; boundary=XyZ"),)
CHUNKED: Final[Headers] = ((b"Transfer-Encoding", b"chunked"),)


def http(
    method: bytes,
    target: bytes,
    headers: Headers = (),
    body: bytes = b"",
    *,
    length: bool = True,
) -> bytes:
    """A raw HTTP/1.1 request; ``length=False``: ``headers`` frame the body."""
    lines = [method + b" " + target + b" HTTP/1.1", b"Host: t", b"Connection: close"]
    lines += [name + b": " + value for name, value in headers]
    if length and (body or method != b"GET"):
        lines.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def get(target: bytes, headers: Headers = ()) -> bytes:
    """A GET of ``target``."""
    return http(b"GET", target, headers)


def post(target: bytes, headers: Headers, body: bytes) -> bytes:
    """A POST with a Content-Length."""
    return http(b"POST", target, headers, body)


def part(disposition: bytes, body: bytes, *headers: bytes) -> bytes:
    """One multipart part (RFC 7578 §4.2): Content-Disposition, more headers, body."""
    head = [b"Content-Disposition: form-data; " + disposition, *headers]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def multipart(*parts: bytes, boundary: bytes = b"XyZ") -> bytes:
    """A multipart body (RFC 2046 §5.1.1): CRLF delimiters, closed, no epilogue."""
    dash = b"--" + boundary
    return b"".join(dash + b"\r\n" + p + b"\r\n" for p in parts) + dash + b"--\r\n"


def chunks(*pieces: bytes, extension: bytes = b"", trailer: bytes = b"") -> bytes:
    """A chunked body (RFC 9112 §7.1), each chunk with ``extension`` (``;e=1``)."""
    body = b"".join(b"%x%s\r\n%s\r\n" % (len(p), extension, p) for p in pieces)
    return body + b"0\r\n" + trailer + b"\r\n"
