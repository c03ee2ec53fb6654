"""Media types: parse a Content-Type value and say which inspector its body gets."""

from __future__ import annotations

from ..._lazy_pattern import DOTALL, lazy_pattern
from ..._memo import memoize
from ..engine._finding import RequestKind
from ..head._abnf import MEDIA_TYPE, parameters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "JSON_MEDIA_TYPES",
    "SPACED_EQUALS",
    "UTF8_CHARSETS",
    "UTF8_CHARSET_NAMES",
    "extended_parameter",
    "has_parameter_escape",
    "is_valid_boundary",
    "media_kind",
    "parse_media_type",
]

#: Charsets whose bytes are UTF-8 (US-ASCII is a subset), by their IANA names: all an
#: RFC 8187 ext-value may name (``filename*=UTF-8''...``), whose charset is a
#: registered mime-charset (§3.2.1; RFC 2978), so no alias.
UTF8_CHARSET_NAMES: Final = frozenset({"utf-8", "us-ascii"})
#: Charset labels whose bytes are UTF-8 in a ``charset`` parameter: the names and
#: the aliases parsers accept there; RFC 8259 §8.1 for JSON.
UTF8_CHARSETS: Final = UTF8_CHARSET_NAMES | {"utf8", "ascii"}


@memoize(256)
def parse_media_type(value: bytes) -> tuple[str, dict[str, str]] | None:
    """``(type/subtype, parameters)``, names in lower case; None if malformed.

    Cached, as a few Content-Type values recur on every request: treat the result as
    read-only.

    >>> parse_media_type(b'Text/Plain; charset="UTF-8"')
    ('text/plain', {'charset': 'UTF-8'})
    """
    match = MEDIA_TYPE.match(value)
    params = None if match is None else parameters(value, match.end())
    if match is None or params is None:
        return None
    decoded = {name: raw.decode("latin-1") for name, raw in params.items()}
    return match.group(1).decode("ascii").lower(), decoded


#: JSON and sequences of JSON texts, each a JSON parser's input: RFC 8259 §11
#: (application/json), RFC 7464 §4 (application/json-seq), NDJSON (ndjson.org:
#: application/x-ndjson), JSON Lines (jsonlines.org: application/jsonl); plus the
#: structured syntax suffix of RFC 6839 §3.1 (``*/*+json``) in media_kind.
JSON_MEDIA_TYPES: Final = frozenset(
    {
        "application/json",
        "application/json-seq",
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonlines",
    }
)


#: Types a framework reads as a urlencoded form: the standard one, and the
#: misspelling Werkzeug's form parser (Flask, Quart) reads too (issue 25 R7).
FORM_MEDIA_TYPES: Final = frozenset(
    {"application/x-www-form-urlencoded", "application/x-url-encoded"}
)


def media_kind(media_type: str) -> str | None:
    """Which inspector a media type gets: json, text, form, multipart, wildcard
    or None.

    ``wildcard``: a ``*`` in the type or subtype, which has no meaning in a
    Content-Type (RFC 9110 §8.3.1: ranges are for Accept) but which Falcon matches
    against its form and multipart handlers (issue 25 R1).
    """
    main, _, sub = media_type.partition("/")
    if media_type in JSON_MEDIA_TYPES or sub.endswith("+json"):
        return "json"
    if main == "text":
        return "text"
    if media_type in FORM_MEDIA_TYPES:
        return "form"
    if media_type == "multipart/form-data":
        return "multipart"
    if "*" in media_type:
        return "wildcard"
    return None


def has_parameter_escape(content_type: bytes) -> bool:
    """True when a Content-Type holds a backslash or a ``%`` (``parameter_escape``).

    The canonical subset (issue 25): parameters as tokens or quoted strings without
    quoted pairs or percent escapes, as every client sends them, so that RFC 9110's
    reading, ``email.message``'s and Werkzeug's percent-decoding agree.
    """
    return b"\\" in content_type or b"%" in content_type


#: Whitespace around a parameter's "=", which RFC 9110 §5.6.6 does not allow:
#: Django and email strip it, Werkzeug reads ``boundary=\t"a"`` as no boundary at
#: all (found by fuzz_framing); no client sends it.
SPACED_EQUALS: Final = lazy_pattern(rb"[ \t]=|=[ \t]")

#: RFC 2046 §5.1.1: bchars := bcharsnospace / " ", with
#: bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." /
#: "/" / ":" / "=" / "?"; boundary := 0*69<bchars> bcharsnospace.
_BOUNDARY: Final = lazy_pattern(
    rb"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]"
)


def is_valid_boundary(boundary: bytes) -> bool:
    """True when ``boundary`` is 1 to 70 RFC 2046 §5.1.1 ``bchars``, the last no space.

    >>> is_valid_boundary(b"----WebKitFormBoundary7MA4"), is_valid_boundary(b"XyZ ")
    (True, False)
    >>> is_valid_boundary(b"a" * 70), is_valid_boundary(b"a" * 71)
    (True, False)
    """
    return _BOUNDARY.fullmatch(boundary) is not None


#: RFC 2231 §4: ext-value = charset "'" [ language ] "'" value-chars (pct-encoded).
_EXT_VALUE: Final = lazy_pattern(r"[^']*'[^']*'(.*)", DOTALL)


def extended_parameter(params: dict[str, str]) -> RequestKind | None:
    """A refusal for RFC 2231 parameters (``charset*=``, ``boundary*0=``), if any.

    Parsers that know RFC 2231 read them and parsers that don't ignore them, so the
    two disagree on the value: refused as ``ambiguous_parameter``. A ``charset*`` is
    decoded far enough to tell: naming anything but UTF-8 it is
    ``unsupported_charset`` (``charset*=utf-8''utf-7`` makes Django read UTF-7).

    >>> extended_parameter({"charset*": "utf-8''utf-7"})
    <RequestKind.UNSUPPORTED_CHARSET: 'unsupported_charset'>
    """
    starred = [name for name in params if "*" in name]
    for name in starred:
        if name.startswith("charset*"):
            ext = _EXT_VALUE.fullmatch(params[name]) if name.endswith("*") else None
            label = params[name] if ext is None else ext.group(1)
            from urllib.parse import unquote_to_bytes  # rare: costly at import

            charset = unquote_to_bytes(label).decode("latin-1").strip().lower()
            if charset not in UTF8_CHARSETS:
                return RequestKind.UNSUPPORTED_CHARSET
    return RequestKind.AMBIGUOUS_PARAMETER if starred else None
