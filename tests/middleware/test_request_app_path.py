"""RequestHead.app_path: the server-decoded path as bytes (WSGI), in the engine."""

from __future__ import annotations

from utf8guard import Kind
from utf8guard.middleware import GuardConfig, Location
from utf8guard.middleware.engine._finding import Finding
from utf8guard.middleware.head._request import RequestHead, normalize_head
from utf8guard.middleware.head._request import inspect_head as iter_findings

CONFIG = GuardConfig()


def inspect_head(found: RequestHead, config: GuardConfig) -> list[Finding]:
    """All findings, as a list (the engine itself keeps only the first few)."""
    return list(iter_findings(found, config))


def head(raw_path: bytes | None, app_path: bytes) -> RequestHead:
    return RequestHead("", raw_path, b"", (), app_path=app_path)


def path_kinds(found: RequestHead) -> list[tuple[object, int]]:
    return [
        (f.kind, f.offset)
        for f in inspect_head(found, CONFIG)
        if f.location is Location.PATH
    ]


def test_app_path_is_the_path_without_a_raw_target() -> None:
    assert path_kinds(head(None, b"/a\xc0")) == [(Kind.OVERLONG, 2)]


def test_app_path_equal_to_the_decoded_target_adds_nothing() -> None:
    assert path_kinds(head(b"/a%C0", b"/a\xc0")) == [(Kind.OVERLONG, 2)]


def test_app_path_that_differs_is_checked_as_well() -> None:
    # Werkzeug: PATH_INFO carries U+FFFD for %C0 (valid); the target still refuses.
    assert path_kinds(head(b"/a%C0", "/a\ufffd".encode())) == [(Kind.OVERLONG, 2)]
    # A later layer rewrote PATH_INFO: its bytes are checked, offsets in it.
    assert path_kinds(head(b"/ok", b"/x/\xff")) == [(Kind.INVALID_BYTE, 3)]


def test_normalize_repairs_the_app_path_without_a_raw_target() -> None:
    fixed = normalize_head(head(None, b"/a\xc0"), CONFIG)
    assert (fixed.path, fixed.raw_path) == ("/a\ufffd", b"/a%EF%BF%BD")
