"""exclude_paths: which routes skip the checks, and why a doubtful path never does."""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote

import pytest

from utf8guard.middleware import GuardConfig, Utf8GuardWSGIMiddleware
from utf8guard.middleware.engine._exclude import is_excluded
from utf8guard.middleware.head._request import RequestHead

from .test_asgi import client
from .test_wsgi import call, echo, make_environ

CONFIG = GuardConfig(exclude_paths=["/hooks/stripe", re.compile(r"/ws/[0-9]+")])


def head(raw: bytes, app_path: bytes | None = None) -> RequestHead:
    # The server's decoded path, as uvicorn makes it.
    decoded = unquote(raw.decode("ascii"), errors="replace")
    return RequestHead(decoded, raw, b"", (), app_path)


@pytest.mark.parametrize(
    ("raw", "excluded"),
    [
        (b"/hooks/stripe", True),
        (b"/hooks/stripe/events", True),
        (b"/hooks/%73tripe", True),  # the router sees /hooks/stripe too
        (b"/hooks/stripe-x", False),  # a prefix ends at a segment boundary
        (b"/hooks", False),
        (b"/ws/42", True),
        (b"/ws/42/x", False),  # a pattern matches the whole path
        # fail closed: a path the guard would refuse claims nothing
        (b"/hooks/stripe/%C0%AF", False),
        (b"/hooks/stripe/%FF", False),
        (b"/hooks/stripe/%2e%2e/admin", False),
        # dot segments: resolved by some servers and routers, not by others
        (b"/hooks/stripe/../../admin", False),
        (b"/hooks/stripe/./x", False),
        (b"/hooks/stripe%2Fx", False),
    ],
)
def test_exclusion_rule(raw: bytes, excluded: bool) -> None:
    assert is_excluded(head(raw), CONFIG) is excluded


def test_encoded_separators_never_claim_an_exclusion() -> None:
    config = GuardConfig(exclude_paths=["/hooks/stripe"], allow_encoded_separators=True)
    assert not is_excluded(head(b"/hooks%2Fstripe/x"), config)
    assert not is_excluded(head(b"/hooks/stripe%5cx"), config)


def test_every_path_form_must_match() -> None:
    # WSGI: the raw target and SCRIPT_NAME + PATH_INFO must agree on the route
    assert is_excluded(head(b"/hooks/stripe", b"/hooks/stripe"), CONFIG)
    assert not is_excluded(head(b"/hooks/stripe", b"/admin"), CONFIG)
    assert not is_excluded(RequestHead("/admin", b"/hooks/stripe", b"", ()), CONFIG)
    # without a raw target, the decoded path decides
    assert is_excluded(RequestHead("/ws/7", None, b"", ()), CONFIG)


def test_no_exclusions_configured() -> None:
    assert not is_excluded(head(b"/hooks/stripe"), GuardConfig())


def test_excluded_route_gets_the_body_unchecked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    signed = b'{"payload": "\xff\xfe"}'
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        asgi = client(exclude_paths=["/hooks/stripe"]).post(
            "/hooks/stripe?sig=%FF",
            content=signed,
            headers={"content-type": "application/json"},
        )
        guard = Utf8GuardWSGIMiddleware(echo, exclude_paths=["/hooks/stripe"])
        environ = make_environ(
            "/hooks/stripe", signed, "application/json", RAW_URI="/hooks/stripe"
        )
        wsgi = call(guard, environ)
    assert asgi.status_code == 200
    assert asgi.json()["body"] == '{"payload": "\\xff\\xfe"}'
    assert wsgi[0] == "200 OK"
    assert caplog.records == []


def test_a_doubtful_path_under_the_prefix_is_checked_in_full() -> None:
    guard = Utf8GuardWSGIMiddleware(echo, exclude_paths=["/hooks/stripe"])
    environ = make_environ(
        "/hooks/stripe/../../admin",  # a server that leaves dot segments alone
        RAW_URI="/hooks/stripe/../../admin?q=%FF",
        QUERY_STRING="q=%FF",
    )
    status, _, _ = call(guard, environ)
    assert status == "400 Bad Request"
