"""The HTTP and URI grammar the guard parses with, as patterns (the C lane reads TCHAR).

Quoted from RFC 9110 §5.6.2 (token), §5.6.4 (quoted-string), §5.6.6 (parameters),
§8.3.1 (media-type) and RFC 3986 §2.1 (pct-encoded):

    token          = 1*tchar
    tchar          = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
                     "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    quoted-string  = DQUOTE *( qdtext / quoted-pair ) DQUOTE
    quoted-pair    = "\\" ( HTAB / SP / VCHAR / obs-text )
    parameters     = *( OWS ";" OWS [ parameter ] )
    parameter      = parameter-name "=" parameter-value
    parameter-value = ( token / quoted-string )
    media-type     = type "/" subtype parameters
    pct-encoded    = "%" HEXDIG HEXDIG
    field-name     = token                                   (RFC 9110 §5.1)
"""

from __future__ import annotations

from ..._lazy_pattern import DOTALL, lazy_pattern, literal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "FIELD_NAME",
    "MEDIA_TYPE",
    "NOT_PCT_ENCODED",
    "PARAMETER",
    "PCT_ENCODED",
    "PRINTABLE",
    "TCHAR",
    "TOKEN",
    "parameters",
]

#: RFC 3986 §2.1: pct-encoded = "%" HEXDIG HEXDIG.
PCT_ENCODED: Final = lazy_pattern(rb"%[0-9A-Fa-f]{2}")
#: A "%" that does not start a pct-encoded triplet (``%G0``, a trailing ``%``).
NOT_PCT_ENCODED: Final = lazy_pattern(rb"%(?![0-9A-Fa-f]{2})")
#: RFC 5234 Appendix B.1: SP and VCHAR (%x20-7E), the printable ASCII bytes.
PRINTABLE: Final = bytes(range(0x20, 0x7F))
#: RFC 9110 §5.6.2 tchar: the bytes a token is made of; DIGIT and ALPHA are
#: %x30-39 and %x41-5A / %x61-7A (RFC 5234 Appendix B.1).
TCHAR: Final = b"!#$%&'*+-.^_`|~" + bytes(
    [*range(0x30, 0x3A), *range(0x61, 0x7B), *range(0x41, 0x5B)]
)
#: RFC 9110 §5.6.2 token, as a pattern to embed.
TOKEN: Final = b"[" + literal(TCHAR) + b"]+"
#: RFC 9110 §5.1: field-name = token (match it whole: ``FIELD_NAME.fullmatch``).
FIELD_NAME: Final = lazy_pattern(TOKEN)
#: RFC 9110 §5.6.6 as written: ``OWS ";" OWS parameter-name "=" parameter-value``,
#: no space around "=" (multipart part headers, where parsers disagree on it).
#: Groups: the name, then a quoted-string's inside (quotes off, quoted pairs as
#: sent) or the token.
PARAMETER: Final = lazy_pattern(
    rb";[ \t]*(" + TOKEN + rb')=(?:"([^"\\]*(?:\\.[^"\\]*)*)"|(' + TOKEN + rb"))[ \t]*"
)
#: RFC 9110 §8.3.1: type "/" subtype, with optional whitespace around.
MEDIA_TYPE: Final = lazy_pattern(rb"\s*(" + TOKEN + rb"/" + TOKEN + rb")\s*")
#: RFC 9110 §5.6.4: quoted-pair = "\\" ( HTAB / SP / VCHAR / obs-text ).
_QUOTED_PAIR: Final = lazy_pattern(rb"\\(.)", DOTALL)
# Content-Type parameters as servers and frameworks read them: space around "=" is
# allowed (every parser tested strips it there).
_LENIENT_PARAMETER: Final = lazy_pattern(
    rb";\s*(" + TOKEN + rb')\s*=\s*("(?:[^"\\]|\\.)*"|' + TOKEN + rb")\s*",
    DOTALL,
)


def parameters(value: bytes, pos: int) -> dict[str, bytes] | None:
    """The ``; name=value`` parameters of a header from ``pos``; None if malformed.

    Names are lower-cased; a quoted value is unquoted (quoted-pair undone). A name
    given twice (in any case) is malformed: RFC 9110 §5.6.6 does not say which one
    counts, and parsers differ (fail closed). So is a quoted-pair other than ``\\\\``
    and ``\\"``: RFC 9110 §5.6.4 (and Werkzeug) undo any, but ``email.utils.unquote``
    (python-multipart) and Django only those two, so ``boundary="Xy\\Z"`` is ``XyZ``
    to one and ``Xy\\Z`` to the other.
    """
    params: dict[str, bytes] = {}
    while pos < len(value):
        param = _LENIENT_PARAMETER.match(value, pos)
        if param is None:
            return None
        raw = param.group(2)
        if raw.startswith(b'"'):
            raw = raw[1:-1]
            if any(c not in b'\\"' for c in _QUOTED_PAIR.findall(raw)):
                return None
            raw = _QUOTED_PAIR.sub(rb"\1", raw)
        name = param.group(1).decode("ascii").lower()
        if name in params:
            return None
        params[name] = raw
        pos = param.end()
    return params
