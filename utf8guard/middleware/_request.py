"""Path, query and headers of a request → findings, and their normalised forms; pure."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote, quote_plus

from .._pathrules import LOOKALIKE_SEPARATORS
from .._policy import Policy
from .._repair import repair
from .._scan import find_violation, iter_violations
from .._violation import Kind
from ._abnf import FIELD_NAME, NOT_PCT_ENCODED, PCT_ENCODED
from ._config import GuardConfig
from ._cookies import cookie_findings
from ._finding import Finding, Location, RequestKind, safe_name
from ._latin1 import deceptive
from ._percent import Decoded, SecondDecode, percent_decode
from ._trigger import Trigger

__all__ = [
    "DECODED_PATH_TRIGGER",
    "HOST_TRIGGER",
    "LOOKALIKE_SEPARATORS",
    "PATH_TRICK_TRIGGER",
    "RequestHead",
    "inspect_head",
    "normalize_head",
]

# UTF-8 is self-synchronising, so searching the encoded forms finds exactly the code
# points, even among ill-formed bytes, with byte offsets.
LOOKALIKE: Final = re.compile(
    b"|".join(
        re.escape(chr(code).encode())
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
_PATH_TRICK: Final = re.compile(
    rb"%(?:2[Ff]|5[Cc])"
    rb"|(?:^|(?<=[/\\])|(?<=%2[Ff])|(?<=%5[Cc]))(?:%2[Ee]|\.){1,2}"
    rb"(?=\Z|[/\\;]|%(?:2[Ff]|5[Cc]|3[Bb]))"
)
# RFC 9112 §3.2 and RFC 3986 §2: the request target is ASCII; a byte over 0x7F must
# be percent-encoded. Servers disagree on a raw one: h11 and Gunicorn refuse it,
# httptools passes it on, wsgiref keeps it, and Werkzeug's server decodes the
# request line as Latin-1 and re-encodes it as UTF-8, so C0 AF reaches the app as
# the valid "\u00c0\u00af". One verdict everywhere: refused, once per component.
_NON_ASCII: Final = re.compile(rb"[\x80-\xff]")
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
_ENCODED_SEPARATOR: Final = re.compile(rb"%(?:2[Ff]|5[Cc])")
#: Where a plain dot segment is the server's business: between "/" or the ends.
_PLAIN_DELIMITERS: Final = (b"", b"/")
# A dot segment in a path that only exists decoded, delimited by "/", "\" or ";".
_DECODED_DOT_SEGMENT: Final = re.compile(rb"(?:^|(?<=[/\\]))\.{1,2}(?=\Z|[/\\;])")
# Unicode ch. 23.1: the C0 controls a policy keeps as text (TAB, LF, CR; see
# Policy.allow_controls) are refused in a path all the same. A path is no text, and
# a decoded CR LF in it splits a header or a log line (CWE-113, CWE-117).
_LINE_CONTROL: Final = re.compile(rb"[\t\n\r]")
#: What _decoded_path_findings' own rules (double encoding, _LINE_CONTROL) need in a
#: decoded path; the policy and look-alike rules are the lane's shared checks. The
#: vectors are raw paths.
DECODED_PATH_TRIGGER: Final = Trigger(
    needles=(b"%", b"\t", b"\n", b"\r"),
    vectors=(b"/a%2541", b"/%25%43%30", b"/a%09b", b"/a%0Ab", b"/a%0db"),
)
#: What the Host rule needs in the one Host value (RFC 9112 §3.2; WSGI servers join
#: repeated lines with ","); a second Host line is the lane's once-only rule.
HOST_TRIGGER: Final = Trigger(
    needles=(b",",), vectors=(b"a.example,b.example", b"a.example, a.example")
)
# RFC 9110 §5.5: a field value with CR, LF or NUL is "invalid and dangerous".
_FIELD_FORBIDDEN: Final = re.compile(rb"[\r\n\x00]")
# RFC 3986 §3.3: pchar minus pct-encoded, plus "/" between segments.
_PATH_SAFE: Final = "/:@!$&'()*+,;=-._~"


@dataclass(frozen=True, slots=True)
class RequestHead:
    """The parts of a request the engine checks, as the server received them.

    ``raw_path`` is the request target's path before percent-decoding, or None when the
    server gives only the decoded ``path`` (checked then as the server decoded it).
    ``app_path`` is the decoded path as bytes when the server hands it over that way
    (WSGI ``SCRIPT_NAME + PATH_INFO``): checked instead of ``path`` when there is no
    ``raw_path``, and as well as it when the server's decoding differs from the
    guard's (Werkzeug turns ``%C0`` into U+FFFD, which the app then sees as valid).
    """

    path: str
    raw_path: bytes | None
    query_string: bytes
    headers: tuple[tuple[bytes, bytes], ...]
    app_path: bytes | None = None


def inspect_head(head: RequestHead, config: GuardConfig) -> Iterator[Finding]:
    """Every finding in path, query and headers, in that order, one at a time.

    Each location is scanned once, in O(n); a caller that keeps only the first few
    findings holds no more than those (the engine caps and counts them).
    """
    yield from _path_findings(head, config)
    yield from _query_findings(head.query_string, config)
    yield from _header_findings(head.headers, config)


def normalize_head(head: RequestHead, config: GuardConfig) -> RequestHead:
    """``head`` with every invalid sequence replaced by U+FFFD.

    Only for heads whose findings are all ``fixable``. The path is re-encoded from the
    repaired text so that ``path`` and ``raw_path`` agree; an encoded separator
    (allowed by ``allow_encoded_separators``) stays encoded in ``raw_path``.
    """
    policy = config.effective_path_policy
    path = repair(_decoded_path(head), policy).decode()
    raw = head.raw_path
    return RequestHead(
        # "/" and "\\" are ASCII, so no repair spans one: the pieces repaired apart
        # decode to ``path`` again.
        path=path,
        raw_path=_requoted(path) if raw is None else _normalized_raw_path(raw, policy),
        query_string=_normalized_query(head.query_string, config.policy),
        headers=tuple(
            (name, _normalized_field(name, value, config))
            for name, value in head.headers
        ),
    )


def _normalized_field(name: bytes, value: bytes, config: GuardConfig) -> bytes:
    """``value`` repaired, unless skipped or Latin-1 text that passes as it is."""
    lowered = name.lower().decode("latin-1")
    if lowered in config.skip_headers:
        return value
    if lowered in config.latin1_headers and not any(
        deceptive(value, iter_violations(value, config.policy))
    ):
        return value
    return repair(value, config.policy)


def _requoted(text: str) -> bytes:
    return quote(text, safe=_PATH_SAFE).encode("ascii")


def _normalized_raw_path(raw: bytes, policy: Policy) -> bytes:
    """``raw`` repaired piece by piece between encoded separators, which it keeps.

    RFC 3986 §2.2: ``%2F`` is data, not a delimiter; decoding it into the new raw path
    would hand the router a separator the client never sent.
    """
    pieces = []
    start = 0
    for match in _ENCODED_SEPARATOR.finditer(raw):
        piece = repair(percent_decode(raw[start : match.start()]).data, policy)
        pieces += [_requoted(piece.decode()), match.group()]
        start = match.end()
    pieces.append(_requoted(repair(percent_decode(raw[start:]).data, policy).decode()))
    return b"".join(pieces)


def _decoded_path(head: RequestHead) -> bytes:
    if head.raw_path is None and head.app_path is not None:
        return head.app_path
    if head.raw_path is None:
        # Lone surrogates from a lenient server decode come out as ED A0..BF, refused.
        return head.path.encode("utf-8", "surrogatepass")
    return percent_decode(head.raw_path).data


def _path_findings(head: RequestHead, config: GuardConfig) -> Iterator[Finding]:
    raw = head.raw_path
    if raw is None:
        decoded = _decoded_path(head)
        yield from _ambiguous_dot_findings(decoded)
        yield from _decoded_path_findings(decoded, None, config)
        return
    yield from _non_ascii_findings(raw, Location.PATH)
    result = percent_decode(raw)
    for kind, offset in result.iter_errors():
        yield Finding(Location.PATH, None, kind, offset)
    yield from _escape_findings(raw, config)
    yield from _decoded_path_findings(result.data, result.offset_map(), config)
    if head.app_path is not None and head.app_path != result.data:
        # Offsets count from the start of the server-decoded path.
        yield from _decoded_path_findings(head.app_path, None, config)


def _non_ascii_findings(raw: bytes, location: Location) -> Iterator[Finding]:
    """The first unescaped byte over 0x7F in a raw path or query, if any."""
    found = None if raw.isascii() else _NON_ASCII.search(raw)
    if found is not None:
        yield Finding(location, None, RequestKind.NON_ASCII_TARGET, found.start())


def _decoded_path_findings(
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


def _form_pairs(raw: bytes) -> Iterator[tuple[int, bytes, int, bytes]]:
    """``(name offset, raw name, value offset, raw value)`` of each ``&`` field."""
    offset = 0
    for field in raw.split(b"&"):
        name, _, value = field.partition(b"=")
        yield offset, name, offset + len(name) + 1, value
        offset += len(field) + 1


def _query_findings(query: bytes, config: GuardConfig) -> Iterator[Finding]:
    # WHATWG URL "application/x-www-form-urlencoded parsing": split on "&", then on
    # the first "=", then percent-decode with "+" as space.
    yield from _non_ascii_findings(query, Location.QUERY)
    if b"%" not in query and config.is_plain(query):
        return
    # "&" and "=" are ASCII, and no sequence can span an ASCII byte: the whole decoded
    # query is valid exactly when every decoded name and value is.
    whole = percent_decode(query, plus_is_space=True)
    if (
        not whole.malformed
        and b"%" not in whole.data
        and find_violation(whole.data, config.policy) is None
    ):
        return
    for name_at, name, value_at, value in _form_pairs(query):
        decoded_name = percent_decode(name, plus_is_space=True)
        shown = safe_name(decoded_name.data)
        yield from _component_findings(decoded_name, name_at, shown, config)
        decoded_value = percent_decode(value, plus_is_space=True)
        yield from _component_findings(decoded_value, value_at, shown, config)


def _component_findings(
    decoded: Decoded, base: int, name: str | None, config: GuardConfig
) -> Iterator[Finding]:
    for kind, offset in decoded.iter_errors():
        yield Finding(Location.QUERY, name, kind, base + offset)
    if b"%" in decoded.data:
        yield from _second_decode_findings(decoded, base, name, config)
    if config.is_plain(decoded.data):
        return
    to_raw = decoded.offset_map()
    for violation in iter_violations(decoded.data, config.policy):
        offset = base + to_raw(violation.start)
        yield Finding(Location.QUERY, name, violation.kind, offset, fixable=True)


def _second_decode_findings(
    decoded: Decoded, base: int, name: str | None, config: GuardConfig
) -> Iterator[Finding]:
    """Double encoding in a query name or value (:class:`._percent.SecondDecode`).

    A query value may carry an escaped URL (``next=https%3A%2F%2Fh%2Fa%2520b``), so
    escapes left after one decode are legitimate there, unlike in a path. What a
    second decode by the application would turn into ill-formed UTF-8 or a code point
    the policy refuses (``%25C0%25AF``, ``%25%43%30``) is refused: the guard never
    checked those bytes. One finding, at the first escape it comes from.
    """
    second = SecondDecode(config.policy)
    to_raw = decoded.offset_map()
    found = second.feed(decoded.data, to_raw) or second.finish()
    if found:
        yield Finding(
            Location.QUERY, name, RequestKind.DOUBLE_ENCODING, base + found[0]
        )


def _normalized_query(query: bytes, policy: Policy) -> bytes:
    if not query:
        return query
    fields = []
    for _, name, _, value in _form_pairs(query):
        fixed_name = repair(percent_decode(name, plus_is_space=True).data, policy)
        fixed_value = repair(percent_decode(value, plus_is_space=True).data, policy)
        fields.append(f"{quote_plus(fixed_name)}={quote_plus(fixed_value)}")
    return "&".join(fields).encode("ascii")


def _header_findings(
    headers: Iterable[tuple[bytes, bytes]], config: GuardConfig
) -> Iterator[Finding]:
    hosts = 0
    for name, value in headers:
        if not FIELD_NAME.fullmatch(name):
            yield Finding(Location.HEADER, None, RequestKind.INVALID_HEADER_NAME, 0)
            continue
        lowered = name.lower()
        if lowered == b"host":
            # RFC 9112 §3.2: more than one Host field line MUST get a 400; two
            # parsers may take different ones (routing, virtual hosts, URL building).
            # WSGI servers join repeated lines with ","; no DNS name holds one.
            hosts += 1
            if hosts > 1 or b"," in value:
                yield Finding(Location.HEADER, "host", RequestKind.DUPLICATE_HEADER, 0)
        if lowered.decode("ascii") in config.skip_headers:
            continue
        if lowered == b"cookie":
            # Escapes in plain ASCII decode to controls and bytes: always parsed.
            yield from cookie_findings(value, config.policy)
            continue
        shown = safe_name(lowered)
        yield from _forbidden_field_bytes(value, shown)
        if config.is_plain(value):
            continue
        # RFC 9110 §5.5 lets obs-text through as opaque bytes; here they must be
        # UTF-8, but for printable Latin-1 in the free-text fields (_latin1).
        violations = iter_violations(value, config.policy)
        if lowered.decode("ascii") in config.latin1_headers:
            violations = deceptive(value, violations)
        for violation in violations:
            yield Finding(
                Location.HEADER, shown, violation.kind, violation.start, fixable=True
            )


def _forbidden_field_bytes(value: bytes, shown: str | None) -> Iterator[Finding]:
    """CR, LF and NUL in a field value (RFC 9110 §5.5: "invalid and dangerous").

    A server passes one on only from obs-fold or a parser bug; not fixable, since
    a repair keeps them.
    """
    if b"\r" in value or b"\n" in value or b"\x00" in value:
        for match in _FIELD_FORBIDDEN.finditer(value):
            kind = Kind.NUL if match.group() == b"\x00" else Kind.CONTROL
            yield Finding(Location.HEADER, shown, kind, match.start())
