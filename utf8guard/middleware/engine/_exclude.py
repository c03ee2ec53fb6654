"""Per-route exclusions: requests the guard leaves to the application; fail closed.

A request is excluded when every form of its path the engine knows (the server's
decoded ``path``, the raw target's path after strict percent-decoding, WSGI's
``SCRIPT_NAME + PATH_INFO``) matches one entry of ``exclude_paths``, and only when
that path is beyond doubt: the path check finds nothing, it holds no ``.`` or ``..``
segment (RFC 3986 §5.2.4 resolves them; servers and routers differ on when) and no
``%2F``/``%5C`` even when ``allow_encoded_separators`` lets them through elsewhere.
A path that fails any of this is checked in full, as if not excluded.
"""

from __future__ import annotations

from ..head._percent import percent_decode
from ..head._request import RequestHead, inspect_head
from ..head._target import holds_encoded_separator
from ._config import GuardConfig

__all__ = ["is_excluded", "may_be_excluded"]


def is_excluded(head: RequestHead, config: GuardConfig) -> bool:
    """True when the request's path is one the guard must pass on unchecked.

    An entry is a prefix (``"/webhooks/stripe"`` matches that path and what lies
    under it, ``"/webhooks/stripe-x"`` not) or a compiled pattern that must match a
    whole path (``re.compile(r"/hooks/[0-9]+")``).
    """
    if not may_be_excluded(head.path, config):
        return False  # the cheap test first: most paths match no entry
    raw = head.raw_path
    if raw is not None and holds_encoded_separator(raw):
        return False
    path_only = head.replace(query_string=b"", headers=())
    if next(inspect_head(path_only, config), None) is not None:
        return False
    forms = [head.path]
    if raw is not None:
        forms.append(percent_decode(raw).data.decode())
    if head.app_path is not None:
        forms.append(head.app_path.decode())
    return all(_matches(form, config) and not _has_dot_segment(form) for form in forms)


def may_be_excluded(path: str, config: GuardConfig) -> bool:
    """Whether a request whose decoded path is ``path`` could be excluded: if not,
    :func:`is_excluded` is False for it too (its first test is this one)."""
    return bool(config.exclude_paths) and _matches(path, config)


def _matches(path: str, config: GuardConfig) -> bool:
    # GuardConfig holds str prefixes and re.Pattern entries only.
    for entry in config.exclude_paths:
        if isinstance(entry, str):
            if path == entry or path.startswith(entry.rstrip("/") + "/"):
                return True
        elif entry.fullmatch(path):
            return True
    return False


def _has_dot_segment(path: str) -> bool:
    return any(segment in (".", "..") for segment in path.split("/"))
