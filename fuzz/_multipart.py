"""Multipart structure for the middleware harnesses: a script to build bodies from, and
a lenient reader that sees every way a mainstream parser could split them.

Build: the fuzzed body is a script of items separated by ``FD FD``; each item's
first byte picks a structural element (``OPS``), the rest is its payload. So the
fuzzer mutates structure (preambles, delimiters with and without CR, repeated part
headers, RFC 2231 parameters and continuations, ``filename*``, nested boundaries,
epilogues, tiny parts) as easily as bytes.

Read: the oracle for block mode. Parsers disagree on multipart (issue 11, F3:
preambles, LF-only delimiters, repeated headers, RFC 2231); a guard that lets a body
through must have checked every reading. So ``readings`` splits at *every* line that
starts with ``--`` + boundary (after CRLF, after a bare LF, or at the start), takes
each part's header block up to the first empty line (CRLF or LF; the preamble and
what follows a close delimiter are no part), and yields each
header line, each parameter value as a parser would decode it (quoted-string
unescaped, RFC 2231 ext-value percent-decoded, RFC 8187), and the content of every
part that no ``filename`` marks as a file (a form field: frameworks decode it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Final
from urllib.parse import quote_from_bytes, unquote_to_bytes

__all__ = ["BOUNDARY", "CONTENT_TYPE", "OPS", "build", "readings"]

BOUNDARY: Final = b"B"
CONTENT_TYPE: Final = b"multipart/form-data; boundary=" + BOUNDARY
ITEM_SEPARATOR: Final = b"\xfd\xfd"
_DELIMITER: Final = b"--" + BOUNDARY
_CD: Final = b"Content-Disposition: form-data; "


def _half(p: bytes) -> tuple[bytes, bytes]:
    return p[: len(p) // 2], p[len(p) // 2 :]


# RFC 7578 §4 (form-data), RFC 2046 §5.1.1 (delimiters, preamble, epilogue),
# RFC 2231 §3-4 and RFC 8187 §3.2 (name*0, filename*=charset'lang'pct-encoded).
OPS: Final[tuple[Callable[[bytes, bool], bytes], ...]] = (
    lambda p, first: p,  # 0: raw bytes: preamble, content, junk
    lambda p, first: (b"" if first else b"\r\n") + _DELIMITER + p + b"\r\n",  # 1
    lambda p, first: b"\n" + _DELIMITER + p + b"\n",  # 2: LF-only delimiter
    lambda p, first: _CD + b'name="' + p + b'"\r\n',  # 3
    lambda p, first: _CD + b'name="f"; filename="' + p + b'"\r\n',  # 4
    lambda p, first: _CD + b"name=\"f\"; filename*=utf-8''" + _pct(p) + b"\r\n",  # 5
    lambda p, first: (
        (  # 6: an RFC 2231 continuation
            _CD + b'name*0="' + _half(p)[0] + b"\"; name*1*=utf-8''" + _pct(_half(p)[1])
        )
        + b"\r\n"
    ),
    lambda p, first: b"Content-Type: text/plain; charset=" + p + b"\r\n",  # 7
    lambda p, first: b"\r\n" + p,  # 8: end of the part's headers, then its content
    lambda p, first: (  # 9: a nested multipart/mixed (RFC 7578 §4.3 forbids it)
        b"Content-Type: multipart/mixed; boundary=C\r\n\r\n--C\r\n"
        + _CD.replace(b"form-data", b"attachment")
        + b'filename="'
        + p
        + b'"\r\n\r\n'
        + p
        + b"\r\n--C--"
    ),
    lambda p, first: b"\r\n" + _DELIMITER + b"--" + p,  # 10: close, then epilogue
    lambda p, first: _CD + b"name*=" + p + b"\r\n",  # 11: a raw ext-value
    lambda p, first: (  # 12: one tiny part, opening delimiter to the next
        (b"" if first else b"\r\n")
        + _DELIMITER
        + b"\r\n"
        + _CD
        + b'name="a"\r\n\r\n'
        + p
    ),
)


def _pct(data: bytes) -> bytes:
    return quote_from_bytes(data, safe="").encode("ascii")


def build(script: bytes) -> bytes:
    """The body the script describes (see the module docstring)."""
    out = bytearray()
    for item in script.split(ITEM_SEPARATOR):
        if item:
            out += OPS[item[0] % len(OPS)](item[1:], not out)
    return bytes(out)


# A line that opens a part for some parser: at the start, after CRLF or after LF.
_DELIMITER_LINE: Final = re.compile(
    rb"(?:\A|\n)--" + re.escape(BOUNDARY) + rb"(?P<close>--)?[^\n]*\n?"
)
# The end of a part's headers: an empty line, which may be the part's first line.
_BLANK_LINE: Final = re.compile(rb"(?:\A|\r?\n)\r?\n")
# RFC 9110 §5.6.6 parameter, value a token or a quoted-string (§5.6.4), leniently.
_PARAMETER: Final = re.compile(
    rb';\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"?|([^;]*))', re.DOTALL
)
_QUOTED_PAIR: Final = re.compile(rb"\\(.)", re.DOTALL)
# RFC 8187 §3.2.1: ext-value = charset "'" [ language ] "'" value-chars
_EXT_VALUE: Final = re.compile(rb"([^']*)'[^']*'(.*)", re.DOTALL)
UTF8_CHARSETS: Final = (b"utf-8", b"utf8", b"us-ascii", b"")


def _parameters(line: bytes) -> Iterator[tuple[bytes, bytes]]:
    """Each parameter (name, decoded value); an RFC 2231 value in another charset
    comes out as the charset's name prefixed with ``charset:``, for the oracle."""
    for match in _PARAMETER.finditer(line):
        name, quoted, token = match.groups()
        value = (
            _QUOTED_PAIR.sub(rb"\1", quoted) if quoted is not None else token.strip()
        )
        if name.endswith(b"*") and (ext := _EXT_VALUE.fullmatch(value.strip())):
            charset, value = ext.group(1).lower(), unquote_to_bytes(ext.group(2))
            if charset not in UTF8_CHARSETS:
                yield name, b"charset:" + charset
        yield name, value


def _split_part(part: bytes) -> tuple[bytes, bytes]:
    """The part's header block and its content (none without an empty line)."""
    blank = _BLANK_LINE.search(part)
    if blank is None:
        return part, b""
    return part[: blank.start()], part[blank.end() :]


def readings(body: bytes) -> Iterator[tuple[str, bytes]]:
    """(what, bytes) for every header line, parameter value and form-field content
    that some parser could read from ``body``; what is "header", "parameter",
    "charset" (a non-UTF-8 charset declared) or "field"."""
    delimiters = list(_DELIMITER_LINE.finditer(body))
    ends = [delimiter.start() for delimiter in delimiters[1:]]
    for delimiter, end in zip(delimiters, [*ends, len(body)], strict=True):
        if delimiter["close"]:
            continue  # an epilogue: no parser reads it, unless a delimiter follows
        part = body[delimiter.end() : end]
        head, content = _split_part(part)
        is_file = b"filename" in head.lower()
        for line in re.split(rb"\r?\n", head) if head else ():
            yield "header", line
            for name, value in _parameters(line):
                if value.startswith(b"charset:") or name.lower() == b"charset":
                    charset = value.removeprefix(b"charset:").strip().lower()
                    if charset not in UTF8_CHARSETS:
                        yield "charset", charset
                yield "parameter", value
        if not is_file:
            yield "field", content
