"""The request target's path → findings, and its repaired raw form; pure.

The rules a path meets (``_request.inspect_head`` runs them first): a raw target
that is ASCII, strict percent-decoding, encoded separators and dot segments on the
raw path, then double encoding, line controls, UTF-8 under the path policy and
look-alike separators on the decoded one. Each rule the fast lane does not share
declares its :class:`._trigger.Trigger` here, beside it.
"""

from __future__ import annotations

from ..._lazy_pattern import lazy_pattern, literal
from ..._pathrules import LOOKALIKE_SEPARATORS
from ..._policy import Policy
from ..._repair import repair
from ..._scan import iter_violations
from ..._violation import Kind
from ..engine._config import GuardConfig
from ..engine._finding import Finding, Location, RequestKind
from ._abnf import NOT_PCT_ENCODED, PCT_ENCODED
from ._percent import percent_decode
from ._trigger import Trigger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Final

    from ._request import RequestHead

__all__ = [
    "DECODED_PATH_TRIGGER",
    "LOOKALIKE",
    "PATH_TRICK_TRIGGER",
    "decoded_path",
    "holds_encoded_separator",
    "non_ascii_findings",
    "normalized_raw_path",
    "path_findings",
    "requoted",
]

# UTF-8 is self-synchronising, so searching the encoded forms finds exactly the code
# points, even among ill-formed bytes, with byte offsets.
LOOKALIKE: Final = lazy_pattern(
    b"|".join(
        literal(chr(code).encode())
        for lo, hi in LOOKALIKE_SEPARATORS
        for code in range(lo, hi + 1)
    )
)
# One pass over a raw path for the escape tricks: %2F and %5C (RFC 3986 §2.2:
# encoded delimiters are data, but routers and filters disagree on that); and "." or
# ".." segments. RFC 3986 §5.2.4 removes those only when written plainly between
# "/"; an encoded one survives that step and becomes traversal after a later
# decode, and so does one that other parsers delimit differently: "\" is a
# separator to Windows and to the WHATWG URL parser (§4.4 "path state"), and
# Tomcat, Jetty and Spring strip ";" path parameters before they normalise
# ("/..;/": Orange Tsai, "Breaking Parser Logic", Black Hat USA 2018). Werkzeug
# and Starlette keep "..;" and "..\" as names, which is what the app then sees.
_PATH_TRICK: Final = lazy_pattern(
    rb"%(?:2[Ff]|5[Cc])"
    rb"|(?:^|(?<=[/\\])|(?<=%2[Ff])|(?<=%5[Cc]))(?:%2[Ee]|\.){1,2}"
    rb"(?=\Z|[/\\;]|%(?:2[Ff]|5[Cc]|3[Bb]))"
)
# RFC 9112 §3.2 and RFC 3986 §2: the request target is ASCII; a byte over 0x7F must
# be percent-encoded. Servers disagree on a raw one: h11 and Gunicorn refuse it,
# httptools passes it on, wsgiref keeps it, and Werkzeug's server decodes the
# request line as Latin-1 and re-encodes it as UTF-8, so C0 AF reaches the app as
# the valid "\u00c0\u00af". One verdict everywhere: refused, once per component.
_NON_ASCII: Final = lazy_pattern(rb"[\x80-\xff]")
#: What a _PATH_TRICK match must contain, looked for in "/" + the raw path in lower
#: case (the lane's table, _clean.TRIGGERS): a "." at the start of a segment (the
#: path's start, or "/" or "\\" before it), or an escape %2e, %2f or %5c.
PATH_TRICK_TRIGGER: Final = Trigger(
    needles=(b"/.", b"\\.", b"%2e", b"%2f", b"%5c"),
    vectors=(
        b"/a%2Fb",
        b"/a%5cb",
        b"/a/%2e%2E/b",
        b"/a/.%2e/b",
        b"/..;/admin",
        b"/a/..\\b",
        b"/a\\..\\b",
        b"/a/.;/b",
    ),
)
_ENCODED_SEPARATOR: Final = lazy_pattern(rb"%(?:2[Ff]|5[Cc])")
#: Where a plain dot segment is the server's business: between "/" or the ends.
_PLAIN_DELIMITERS: Final = (b"", b"/")
# A dot segment in a path that only exists decoded, delimited by "/", "\" or ";".
_DECODED_DOT_SEGMENT: Final = lazy_pattern(rb"(?:^|(?<=[/\\]))\.{1,2}(?=\Z|[/\\;])")
# Unicode ch. 23.1: the C0 controls a policy keeps as text (TAB, LF, CR; see
# Policy.allow_controls) are refused in a path all the same. A path is no text, and
# a decoded CR LF in it splits a header or a log line (CWE-113, CWE-117).
_LINE_CONTROL: Final = lazy_pattern(rb"[\t\n\r]")
#: What _decoded_path_findings' own rules (double encoding, _LINE_CONTROL) need in a
#: decoded path; the policy and look-alike rules are the lane's shared checks. The
#: vectors are raw paths.
DECODED_PATH_TRIGGER: Final = Trigger(
    needles=(b"%", b"\t", b"\n", b"\r"),
    vectors=(b"/a%2541", b"/%25%43%30", b"/a%09b", b"/a%0Ab", b"/a%0db"),
)
# RFC 3986 §3.3: pchar minus pct-encoded, plus "/" between segments.
_PATH_SAFE: Final = "/:@!$&'()*+,;=-._~"


def holds_encoded_separator(raw: bytes) -> bool:
    """Whether the raw path ``raw`` holds ``%2F`` or ``%5C`` (either case)."""
    return _ENCODED_SEPARATOR.search(raw) is not None


def requoted(text: str) -> bytes:
    """``text`` percent-encoded as a path (RFC 3986 §3.3)."""
    # Only a repaired request gets here: urllib.parse costs more at import.
    from urllib.parse import quote

    return quote(text, safe=_PATH_SAFE).encode("ascii")


def normalized_raw_path(raw: bytes, policy: Policy) -> bytes:
    """``raw`` repaired piece by piece between encoded separators, which it keeps.

    RFC 3986 §2.2: ``%2F`` is data, not a delimiter; decoding it into the new raw path
    would hand the router a separator the client never sent.
    """
    pieces = []
    start = 0
    for match in _ENCODED_SEPARATOR.finditer(raw):
        piece = repair(percent_decode(raw[start : match.start()]).data, policy)
        pieces += [requoted(piece.decode()), match.group()]
        start = match.end()
    pieces.append(requoted(repair(percent_decode(raw[start:]).data, policy).decode()))
    return b"".join(pieces)


def decoded_path(head: RequestHead) -> bytes:
    if head.raw_path is None and head.app_path is not None:
        return head.app_path
    if head.raw_path is None:
        # Lone surrogates from a lenient server decode come out as ED A0..BF, refused.
        return head.path.encode("utf-8", "surrogatepass")
    return percent_decode(head.raw_path).data


def path_findings(head: RequestHead, config: GuardConfig) -> Iterator[Finding]:
    raw = head.raw_path
    if raw is None:
        decoded = decoded_path(head)
        yield from _ambiguous_dot_findings(decoded)
        yield from _decodedpath_findings(decoded, None, config)
        return
    yield from non_ascii_findings(raw, Location.PATH)
    result = percent_decode(raw)
    for kind, offset in result.iter_errors():
        yield Finding(Location.PATH, None, kind, offset)
    yield from _escape_findings(raw, config)
    yield from _decodedpath_findings(result.data, result.offset_map(), config)
    if head.app_path is not None and head.app_path != result.data:
        # Offsets count from the start of the server-decoded path.
        yield from _decodedpath_findings(head.app_path, None, config)


def non_ascii_findings(raw: bytes, location: Location) -> Iterator[Finding]:
    """The first unescaped byte over 0x7F in a raw path or query, if any."""
    found = None if raw.isascii() else _NON_ASCII.search(raw)
    if found is not None:
        yield Finding(location, None, RequestKind.NON_ASCII_TARGET, found.start())


def _decodedpath_findings(
    decoded: bytes, to_raw: Callable[[int], int] | None, config: GuardConfig
) -> Iterator[Finding]:
    """Double encoding, controls, UTF-8 and look-alikes in a decoded path.

    ``to_raw`` maps offsets back to the raw target (None: they count in ``decoded``).
    """
    if b"%" in decoded:
        # Double encoding, judged on the decoded path: an escape there is one a
        # second decode would turn into a byte the guard never checked, however it
        # was spelt (%2541, %25%34%31, %%34%31: the "%" and each hex digit may be
        # escaped). A raw "%HH" cannot survive the first decode.
        for match in PCT_ENCODED.finditer(decoded):
            index = match.start()
            offset = index if to_raw is None else to_raw(index)
            yield Finding(Location.PATH, None, RequestKind.DOUBLE_ENCODING, offset)
    for match in _LINE_CONTROL.finditer(decoded):
        offset = match.start() if to_raw is None else to_raw(match.start())
        yield Finding(Location.PATH, None, Kind.CONTROL, offset)
    if config.is_plain(decoded, path=True):
        return
    for violation in iter_violations(decoded, config.effective_path_policy):
        offset = violation.start if to_raw is None else to_raw(violation.start)
        yield Finding(Location.PATH, None, violation.kind, offset, fixable=True)
    if not config.allow_lookalike_separators and not decoded.isascii():
        for match in LOOKALIKE.finditer(decoded):
            index = match.start()
            offset = index if to_raw is None else to_raw(index)
            yield Finding(Location.PATH, None, RequestKind.LOOKALIKE_SEPARATOR, offset)


def _escape_findings(raw: bytes, config: GuardConfig) -> Iterator[Finding]:
    """Encoded separators, and dot segments encoded or oddly delimited: raw path."""
    if b"%" not in raw and b"." not in raw:
        return
    for match in _PATH_TRICK.finditer(raw):
        found = match.group()
        if found.startswith(b"%") and found[1:].lower() in (b"2f", b"5c"):
            if config.allow_encoded_separators:
                continue
            kind = RequestKind.ENCODED_SEPARATOR
        elif b"%" in found:
            kind = RequestKind.ENCODED_DOT_SEGMENT
        elif _is_plain_segment(raw, match.start(), match.end()):
            continue  # a plain "." or "..": the server's and router's business
        else:
            kind = RequestKind.AMBIGUOUS_DOT_SEGMENT
        yield Finding(Location.PATH, None, kind, match.start())


def _is_plain_segment(path: bytes, start: int, end: int) -> bool:
    """True when ``path[start:end]`` sits between "/" (or the ends) on both sides."""
    before = path[start - 1 : start] if start else b""
    return before in _PLAIN_DELIMITERS and path[end : end + 1] in _PLAIN_DELIMITERS


def _ambiguous_dot_findings(decoded: bytes) -> Iterator[Finding]:
    """Dot segments and stray ``%`` in a path known only decoded (no raw target).

    The server (wsgiref, so Django's runserver) decoded the path before the guard
    saw it, so an encoded ``%2e%2e`` and a plain ``..`` look the same; clients remove
    plain dot segments before sending (RFC 3986 §5.2.4), so every dot segment here is
    refused. Likewise a ``%`` the server left in place that is not an escape
    (``%G0``, IIS's ``%u002f``): sent as ``%25`` or malformed, no one can tell.
    """
    if b"." in decoded:
        for match in _DECODED_DOT_SEGMENT.finditer(decoded):
            kind = RequestKind.AMBIGUOUS_DOT_SEGMENT
            yield Finding(Location.PATH, None, kind, match.start())
    if b"%" in decoded:
        # A "%" the server's decode left: "%25" sent, or an escape it could not read
        # ("%G0", "%u002f"); the two cannot be told apart here.
        for match in NOT_PCT_ENCODED.finditer(decoded):
            iis = decoded[match.end() : match.end() + 1] in (b"u", b"U")
            kind = (
                RequestKind.NONSTANDARD_ESCAPE if iis else RequestKind.MALFORMED_ESCAPE
            )
            yield Finding(Location.PATH, None, kind, match.start())
