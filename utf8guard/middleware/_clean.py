"""A one-pass proof that a request head is clean: the per-location checks are skipped.

``is_clean_head`` is True only when :func:`._request.inspect_head` would find nothing:
it applies the same rules (taken from ``_request``, ``_percent`` and ``_cookies``, not
restated) to whole components at once, with substring tests where a pattern would
cost more, and builds no finding. Whatever it cannot settle cheaply (a head with no
raw target, a path the server decoded differently, anything that looks like a dot
segment or an encoded separator, an escape left in a decoded query) it leaves to the
full inspection by answering False, which only costs time. Pure.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Final

from .._scan import is_valid
from ._abnf import TCHAR
from ._config import GuardConfig
from ._cookies import cookie_policy
from ._percent import strict_unquote
from ._request import LOOKALIKE, RequestHead

__all__ = ["is_clean_head"]

_NAME: Final = itemgetter(0)
_VALUE: Final = itemgetter(1)
#: Joins header names for one token check: "\n" is no tchar (RFC 9110 §5.6.2).
_NAME_JOINER: Final = b"\n"
# Joins header values for one UTF-8 check. UTF-8 is self-synchronising and every
# policy rule is per code point, so the join is valid exactly when every value is;
# SP is allowed by every policy and is none of the bytes RFC 9110 §5.5 forbids.
# A header with a control (refused in cookies only) goes the slow way.
_VALUE_JOINER: Final = b" "


def is_clean_head(head: RequestHead, config: GuardConfig) -> bool:
    """True only when ``inspect_head(head, config)`` yields no finding."""
    return (
        _is_clean_path(head, config)
        and _is_clean_query(head.query_string, config)
        and _are_clean_headers(head.headers, config)
    )


def _is_clean_path(head: RequestHead, config: GuardConfig) -> bool:
    raw = head.raw_path
    if raw is None or not raw.isascii():
        return False
    # What a _PATH_TRICK match must contain: a "." at the start of a segment (the
    # path's start, "/" or "\" before it), or an escape "%2e", "%2f" or "%5c".
    if b"." in raw and (raw.startswith(b".") or b"/." in raw or b"\\." in raw):
        return False
    if b"%" in raw:
        if b"%2" in raw or b"%5" in raw:
            lowered = raw.lower()
            if b"%2e" in lowered or b"%2f" in lowered or b"%5c" in lowered:
                return False
        decoded = strict_unquote(raw)
        # None: a malformed escape. "%" after one decode: double encoding.
        if decoded is None or b"%" in decoded:
            return False
    else:
        decoded = raw
    # _LINE_CONTROL: TAB, LF, CR.
    if b"\t" in decoded or b"\n" in decoded or b"\r" in decoded:
        return False
    if head.app_path is not None and head.app_path != decoded:
        return False
    return is_valid(decoded, config.effective_path_policy) and (
        config.allow_lookalike_separators
        or decoded.isascii()
        or LOOKALIKE.search(decoded) is None
    )


def _is_clean_query(query: bytes, config: GuardConfig) -> bool:
    if not query.isascii():
        return False
    if b"%" not in query:
        return is_valid(query, config.policy)
    # "&", "=" and "+" are ASCII and no sequence spans one, so the whole decoded
    # query is clean exactly when each decoded name and value is.
    decoded = strict_unquote(query.replace(b"+", b" "))
    return (
        decoded is not None and b"%" not in decoded and is_valid(decoded, config.policy)
    )


def _are_clean_headers(
    headers: tuple[tuple[bytes, bytes], ...], config: GuardConfig
) -> bool:
    if not headers:
        return True
    names = _NAME_JOINER.join(map(_NAME, headers))
    # Every name a token: nothing but tchar between the joiners, and none empty.
    if names.translate(None, TCHAR) != _NAME_JOINER * (len(headers) - 1):
        return False
    lowered = names.lower().split(_NAME_JOINER)
    if b"" in lowered:
        return False
    values = _VALUE_JOINER.join(map(_VALUE, headers))
    # RFC 9110 §5.5: no CR or LF (_FIELD_FORBIDDEN), then UTF-8 under the policy of
    # cookies, which is the policy with NUL (the rest of _FIELD_FORBIDDEN) and
    # controls refused too: stricter for every header, exact for the Cookie one.
    if b"\r" in values or b"\n" in values:
        return False
    if not is_valid(values, cookie_policy(config.policy)):
        return False
    hosts = lowered.count(b"host")
    # RFC 9112 §3.2: one Host line, holding no "," (a WSGI server's join of two).
    if hosts > 1 or (hosts and b"," in headers[lowered.index(b"host")][1]):
        return False
    cookies = lowered.count(b"cookie")
    if not cookies:
        return True
    if cookies > 1:
        return False  # HTTP/2 may split it in fields (RFC 9113 §8.2.3): slow path
    cookie = headers[lowered.index(b"cookie")][1]
    # The rest of what cookie_findings refuses: a backslash escape, a TAB.
    return b"\\" not in cookie and b"\t" not in cookie
