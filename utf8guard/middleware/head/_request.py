"""A request head → findings, and its normalised form; the query and header rules.

The path's rules are ``_target``'s; the cookie rules ``_cookies``'. Pure.
"""

from __future__ import annotations

from ..._lazy_pattern import lazy_pattern
from ..._policy import Policy
from ..._record import Record
from ..._repair import repair
from ..._scan import find_violation, iter_violations
from ..._violation import Kind
from ..engine._config import GuardConfig
from ..engine._finding import Finding, Location, RequestKind, safe_name
from ._abnf import FIELD_NAME
from ._cookies import cookie_findings
from ._latin1 import deceptive
from ._percent import Decoded, SecondDecode, percent_decode
from ._target import (
    decoded_path,
    non_ascii_findings,
    normalized_raw_path,
    path_findings,
    requoted,
)
from ._trigger import Trigger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Final

__all__ = [
    "FIELD_VALUE_TRIGGER",
    "HOST_TRIGGER",
    "QUERY_ESCAPE_TRIGGER",
    "RequestHead",
    "inspect_head",
    "normalize_head",
]

#: What the Host rule needs in the one Host value (RFC 9112 §3.2; WSGI servers join
#: repeated lines with ","); a second Host line is the lane's once-only rule.
HOST_TRIGGER: Final = Trigger(
    needles=(b",",), vectors=(b"a.example,b.example", b"a.example, a.example")
)
# RFC 9110 §5.5: a field value with CR, LF or NUL is "invalid and dangerous", and
# field-content holds no other CTL but HTAB (field-vchar = VCHAR / obs-text). NUL and
# the other controls, the C1 ones too (NEL ends a line for str.splitlines, CSI starts
# a terminal escape), are a Policy's: GuardConfig.header_policy refuses them, and the
# lane checks every value under it. CR and LF, which every text policy keeps
# (Unicode ch. 23.1), are this rule's own.
_LINE_ENDS: Final = lazy_pattern(b"[\r\n]")
#: What _forbidden_field_bytes needs beyond the header policy: the lane looks in
#: every value.
FIELD_VALUE_TRIGGER: Final = Trigger(
    needles=(b"\r", b"\n"), vectors=(b"a\r\nSet-Cookie: s=1", b"a\nb", b"a\r")
)
#: The kinds of what the header policy refuses beyond the text policy.
_POLICY_CONTROLS: Final = (Kind.NUL, Kind.CONTROL)
#: What _second_decode_findings needs in a decoded query name or value: an escape
#: left by the first decode. The vectors are raw queries.
QUERY_ESCAPE_TRIGGER: Final = Trigger(
    needles=(b"%",), vectors=(b"a=%25C0%25AF", b"q=%25%43%30", b"%25C0%25AF=1")
)


class RequestHead(Record):
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
    yield from path_findings(head, config)
    yield from _query_findings(head.query_string, config)
    yield from _header_findings(head.headers, config)


def normalize_head(head: RequestHead, config: GuardConfig) -> RequestHead:
    """``head`` with every invalid sequence replaced by U+FFFD.

    Only for heads whose findings are all ``fixable``. The path is re-encoded from the
    repaired text so that ``path`` and ``raw_path`` agree; an encoded separator
    (allowed by ``allow_encoded_separators``) stays encoded in ``raw_path``.
    """
    policy = config.effective_path_policy
    path = repair(decoded_path(head), policy).decode()
    raw = head.raw_path
    return RequestHead(
        # "/" and "\\" are ASCII, so no repair spans one: the pieces repaired apart
        # decode to ``path`` again.
        path=path,
        raw_path=requoted(path) if raw is None else normalized_raw_path(raw, policy),
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
    yield from non_ascii_findings(query, Location.QUERY)
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
    # Only a repaired request gets here: urllib.parse costs more at import.
    from urllib.parse import quote_plus

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
        yield from _forbidden_field_bytes(value, shown, config.header_policy)
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


def _forbidden_field_bytes(
    value: bytes, shown: str | None, header_policy: Policy
) -> Iterator[Finding]:
    """Controls other than HTAB in a field value (RFC 9110 §5.5: CR, LF and NUL are
    "invalid and dangerous", and field-content holds no other CTL), and the C1
    controls in UTF-8: CR and LF, and what ``header_policy`` refuses as NUL or
    control, in the order they stand.

    httptools, Gunicorn and Granian refuse them; h11, Hypercorn and others pass
    them to the app (differential rows ``header-control-*``), where an ESC colours
    a terminal that shows the log. Not fixable, since a repair keeps them.
    """
    # Imported here, on the full check's path: a cold start spares heapq and
    # operator (issue 28).
    from heapq import merge
    from operator import attrgetter

    line_ends = (
        Finding(Location.HEADER, shown, Kind.CONTROL, match.start())
        for match in _LINE_ENDS.finditer(value)
    )
    controls = (
        Finding(Location.HEADER, shown, violation.kind, violation.start)
        for violation in iter_violations(value, header_policy)
        if violation.kind in _POLICY_CONTROLS
    )
    yield from merge(line_ends, controls, key=attrgetter("offset"))
