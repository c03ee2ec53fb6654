"""The oracle: did refused content reach the app, did the server crash or hang?

Independent of the guard's code: it knows the Unicode rules from ``unicodedata`` and
the spec, and reads only the echo document (echo.py) and the status. A 4xx (the
guard's RFC 9457 problem, or the server's or framework's own refusal) and a closed
connection count as refused: the app never saw the request.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from .._servers import Response
from .rows import Expect, Row

#: Outcomes that pass; the rest fail the test.
GOOD: Final = frozenset({"refused", "server-refused", "closed", "passed"})
#: 5xx statuses a server sends on its own to refuse a request it cannot parse: RFC
#: 9112 §6.1 (501 for a transfer coding it does not implement), RFC 9110 §15.6.6.
PROTOCOL_REFUSALS: Final = frozenset({501, 505})
#: Echo fields that name something in the request path or a file system.
NAME_FIELDS: Final = frozenset({"path", "raw_path", "filename"})
#: Fields where controls (C0, DEL, C1) must never arrive (SECURITY.md, issue 11 F6).
NO_CONTROL_FIELDS: Final = NAME_FIELDS | {"cookies"}
#: Fields the frameworks hand over one code point per byte (PEP 3333, ASGI headers,
#: Starlette cookies): judged as the UTF-8 they carry, when they carry valid UTF-8.
BYTE_FIELDS: Final = frozenset({"raw_path", "headers", "cookies"})
#: UAX #9 §2: the explicit directional formatting characters and marks.
BIDI_CONTROLS: Final = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
#: UTS #39 confusables.txt: look-alikes of "/" and "\\" that NFKC leaves alone
#: (FRACTION SLASH, DIVISION SLASH, BOX DRAWINGS, BIG SOLIDUS, SET MINUS ...).
CONFUSABLE_SEPARATORS: Final = frozenset(
    "\u2044\u2215\u2571\u27cb\u29f8\u3033\u2216\u2572\u27cd\u29f5\u29f9"
)
#: Segment separators that some layer splits a path at (Windows, Tomcat, IIS).
SEGMENT_SEPARATORS: Final = ("/", "\\", ";")


@dataclass(frozen=True, slots=True)
class Exchange:
    """What one request got: a response, nothing (closed), a hang or an error."""

    response: Response | None = None
    hung: bool = False
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The oracle's answer for one row on one stack."""

    outcome: str
    detail: str = ""

    @property
    def ok(self) -> bool:
        """True when the outcome passes."""
        return self.outcome in GOOD


def judge(row: Row, exchange: Exchange) -> Verdict:
    """The verdict for ``row`` given what the stack answered."""
    if exchange.hung:
        return Verdict("hang", "no answer within the request timeout")
    if exchange.error is not None:
        return Verdict("error", exchange.error)
    response = exchange.response
    if response is None:
        return _refused(row, Verdict("closed", "closed without an answer"))
    if response.status >= 500 and response.status not in PROTOCOL_REFUSALS:
        return Verdict("5xx", f"status {response.status}")
    if response.status == 404:
        # Every echo app routes every path to its echo: a 404 means the row never
        # reached the code under test (it hid F6 until the routes matched CR LF).
        return Verdict("wrong", "404: the echo's catch-all route did not match")
    if response.status >= 300:
        return _refused(row, _refusal(response))
    return _passed(row, response)


def _refusal(response: Response) -> Verdict:
    media_type = (response.header(b"content-type") or b"").split(b";")[0]
    if media_type == b"application/problem+json" and response.status in (400, 413):
        return Verdict("refused", f"guard {response.status}")
    return Verdict("server-refused", f"status {response.status}")


def _refused(row: Row, verdict: Verdict) -> Verdict:
    if row.expect is Expect.PASS:
        return Verdict("wrong", f"a valid request was refused: {verdict.detail}")
    return verdict


def _passed(row: Row, response: Response) -> Verdict:
    try:
        document = response.json()
    except ValueError:
        return Verdict("wrong", "2xx without an echo document")
    if not isinstance(document, dict) or "app" not in document:
        return Verdict("wrong", "2xx without an echo document")
    leaks = list(leaks_in(row, document))
    if leaks:
        return Verdict("leaked", "; ".join(leaks[:4]))
    if row.expect is Expect.REFUSE:
        return Verdict("allowed", "issue 11 says refuse; the app got it")
    mismatches = list(_mismatches(row, document))
    if mismatches:
        return Verdict("wrong", "; ".join(mismatches[:4]))
    return Verdict("passed")


def leaks_in(row: Row, document: dict[str, object]) -> Iterator[str]:
    """Each refused thing the echo shows the app got, as ``field: why``."""
    for field, text in strings(document):
        seen = byte_view(text) if field in BYTE_FIELDS else text
        for problem in _generic(field, seen, fffd_ok=row.fffd_ok):
            yield f"{field}: {problem} in {seen!r}"
        for value in row.forbidden:
            if value in text or value in seen:
                yield f"{field}: forbidden {value!r} in {seen!r}"
        for name, value in row.field_forbidden:
            if name == field and (value in text or value in seen):
                yield f"{field}: forbidden {value!r} in {seen!r}"


def strings(document: dict[str, object]) -> Iterator[tuple[str, str]]:
    """``(field, string)`` for every string the app got, keys of JSON objects too."""
    for key, value in document.items():
        if key in ("app", "errors", "counts"):
            continue  # the echo's own bookkeeping
        if key == "files" and isinstance(value, list):
            # [field, filename, content_hex]: the hex is data, not text.
            for field, filename, _ in value:
                yield "form", field
                if filename is not None:
                    yield "filename", filename
        elif key in ("query", "headers", "cookies", "form") and isinstance(value, list):
            for name, item in value:
                yield key, name
                yield key, item
        else:
            yield from ((key, text) for text in _walk(value))


def _walk(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def byte_view(text: str) -> str:
    """A one-code-point-per-byte string read as the UTF-8 it carries, if it does."""
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def _generic(field: str, text: str, *, fffd_ok: bool) -> Iterator[str]:
    for char in set(text):
        point = ord(char)
        if 0xD800 <= point <= 0xDFFF:
            yield f"lone surrogate U+{point:04X}"  # Unicode ch. 3 D71, not a scalar
        elif 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE:
            yield f"noncharacter U+{point:04X}"  # Unicode ch. 23.7
        elif point == 0xFFFD and not fffd_ok:
            yield "U+FFFD the client never sent"  # something was replaced
        elif field in NO_CONTROL_FIELDS and unicodedata.category(char) == "Cc":
            yield f"control U+{point:04X}"  # C0, DEL and C1 are all Cc
        elif field in NAME_FIELDS and char in BIDI_CONTROLS:
            yield f"bidi control U+{point:04X}"
        elif field in NAME_FIELDS and _is_lookalike(char):
            yield f"look-alike separator U+{point:04X}"
    if field in NAME_FIELDS:
        yield from _dot_segments(field, text)


def _is_lookalike(char: str) -> bool:
    # UAX #15: a character whose NFKC form holds "/", "\" or "." but is not one
    # (U+FF0F, U+2024, U+FE68 ...); UTS #39 adds those NFKC leaves alone.
    if char in CONFUSABLE_SEPARATORS:
        return True
    folded = unicodedata.normalize("NFKC", char)
    return char not in "/\\." and any(c in folded for c in "/\\.")


def _dot_segments(field: str, text: str) -> Iterator[str]:
    # RFC 3986 §5.2.4: no request here sends a literal dot segment, so one in what
    # the app got came from decoding; a filename must hold no separator at all.
    if field == "filename" and any(sep in text for sep in ("/", "\\")):
        yield f"separator in filename {text!r}"
    segments = text
    for sep in SEGMENT_SEPARATORS:
        segments = segments.replace(sep, "\0")
    if ".." in segments.split("\0"):
        yield f"dot-dot segment in {text!r}"


def _mismatches(row: Row, document: dict[str, object]) -> Iterator[str]:
    errors = document.get("errors")
    assert isinstance(errors, dict)
    for key, expected in row.echo.items():
        if key in errors:
            if row.expect is Expect.PASS:
                yield f"{key}: the framework raised {errors[key]}"
            continue
        if key not in document:
            continue  # no such API here (Django has no "json", only FastAPI "model")
        got = document[key]
        if key in BYTE_FIELDS and isinstance(got, list):
            got = [[name, byte_view(value)] for name, value in got]
        if got != expected:
            yield f"{key}: expected {expected!r}, got {got!r}"
