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
from ._config import GuardConfig
from ._finding import Finding, Location, RequestKind, safe_name
from ._percent import Decoded, percent_decode

__all__ = [
    "LOOKALIKE_SEPARATORS",
    "RequestHead",
    "inspect_head",
    "normalize_head",
]

# UTF-8 is self-synchronising, so searching the encoded forms finds exactly the code
# points, even among ill-formed bytes, with byte offsets.
_LOOKALIKE: Final = re.compile(
    b"|".join(
        re.escape(chr(code).encode())
        for lo, hi in LOOKALIKE_SEPARATORS
        for code in range(lo, hi + 1)
    )
)
# One pass over a raw path for the escape tricks: %25 then two hex digits (a second
# decode would see an escape the guard never checked); %2F and %5C (RFC 3986 §2.2:
# encoded delimiters are data, but routers and filters disagree on that); and "." or
# ".." segments, which RFC 3986 §5.2.4 removes but whose encoded forms survive that
# step and become traversal after a later decode.
_PATH_TRICK: Final = re.compile(
    rb"%25[0-9A-Fa-f]{2}|%(?:2[Ff]|5[Cc])|(?<![^/])(?:%2[Ee]|\.){1,2}(?![^/])"
)
# RFC 9110 §5.1: field-name = token; §5.6.2: tchar.
_TOKEN: Final = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
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


def inspect_head(head: RequestHead, config: GuardConfig) -> list[Finding]:
    """Every finding in path, query and headers (the server bounds their size)."""
    return [
        *_path_findings(head, config),
        *_query_findings(head.query_string, config),
        *_header_findings(head.headers, config),
    ]


def normalize_head(head: RequestHead, config: GuardConfig) -> RequestHead:
    """``head`` with every invalid sequence replaced by U+FFFD.

    Only for heads whose findings are all ``fixable``. The path is re-encoded from the
    repaired text so that ``path`` and ``raw_path`` agree.
    """
    decoded = _decoded_path(head)
    path = repair(decoded, config.effective_path_policy).decode()
    return RequestHead(
        path=path,
        raw_path=quote(path, safe=_PATH_SAFE).encode("ascii"),
        query_string=_normalized_query(head.query_string, config.policy),
        headers=tuple(
            (name, value)
            if name.lower().decode("latin-1") in config.skip_headers
            else (name, repair(value, config.policy))
            for name, value in head.headers
        ),
    )


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
        yield from _decoded_path_findings(_decoded_path(head), None, config)
        return
    result = percent_decode(raw)
    for kind, offset in result.errors:
        yield Finding(Location.PATH, None, kind, offset)
    yield from _escape_findings(raw, config)
    yield from _decoded_path_findings(result.data, result.raw_offset, config)
    if head.app_path is not None and head.app_path != result.data:
        # Offsets count from the start of the server-decoded path.
        yield from _decoded_path_findings(head.app_path, None, config)


def _decoded_path_findings(
    decoded: bytes, to_raw: Callable[[int], int] | None, config: GuardConfig
) -> Iterator[Finding]:
    """UTF-8 and look-alike findings in a decoded path; ``to_raw`` maps offsets."""
    if config.is_plain(decoded, path=True):
        return
    for violation in iter_violations(decoded, config.effective_path_policy):
        offset = violation.start if to_raw is None else to_raw(violation.start)
        yield Finding(Location.PATH, None, violation.kind, offset, fixable=True)
    if not config.allow_lookalike_separators and not decoded.isascii():
        for match in _LOOKALIKE.finditer(decoded):
            index = match.start()
            offset = index if to_raw is None else to_raw(index)
            yield Finding(Location.PATH, None, RequestKind.LOOKALIKE_SEPARATOR, offset)


def _escape_findings(raw: bytes, config: GuardConfig) -> Iterator[Finding]:
    """Double encoding, encoded separators and encoded dot segments in a raw path."""
    if b"%" not in raw:
        return
    for match in _PATH_TRICK.finditer(raw):
        found = match.group()
        if found.startswith(b"%25"):
            kind = RequestKind.DOUBLE_ENCODING
        elif found.startswith(b"%") and found[1:].lower() in (b"2f", b"5c"):
            if config.allow_encoded_separators:
                continue
            kind = RequestKind.ENCODED_SEPARATOR
        elif b"%" in found:
            kind = RequestKind.ENCODED_DOT_SEGMENT
        else:
            continue  # a plain "." or "..": the server's and router's business
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
    if b"%" not in query and config.is_plain(query):
        return
    # "&" and "=" are ASCII, and no sequence can span an ASCII byte: the whole decoded
    # query is valid exactly when every decoded name and value is.
    whole = percent_decode(query, plus_is_space=True)
    if not whole.errors and find_violation(whole.data, config.policy) is None:
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
    for kind, offset in decoded.errors:
        yield Finding(Location.QUERY, name, kind, base + offset)
    if config.is_plain(decoded.data):
        return
    for violation in iter_violations(decoded.data, config.policy):
        offset = base + decoded.raw_offset(violation.start)
        yield Finding(Location.QUERY, name, violation.kind, offset, fixable=True)


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
    for name, value in headers:
        if not _TOKEN.fullmatch(name):
            yield Finding(Location.HEADER, None, RequestKind.INVALID_HEADER_NAME, 0)
            continue
        if config.is_plain(value):
            continue
        lowered = name.lower()
        if lowered.decode("ascii") in config.skip_headers:
            continue
        shown = safe_name(lowered)
        # RFC 9110 §5.5 lets obs-text through as opaque bytes; here they must be UTF-8.
        for violation in iter_violations(value, config.policy):
            yield Finding(
                Location.HEADER, shown, violation.kind, violation.start, fixable=True
            )
