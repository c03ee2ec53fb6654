"""Replay the middleware fuzz seeds without atheris, and show the harness can fail.

The planted bugs replace the guard through the public API only (a middleware that
lets everything through, or answers oddly), so they hold while the guard's
internals change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz import _common, fuzz_middleware
from utf8guard.middleware.asgi import ASGIApp, Receive, Scope, Send

CORPUS = Path(__file__).parents[2] / "fuzz" / "corpus" / "middleware"
SEEDS = sorted(CORPUS.iterdir())


def _pass_through(app: ASGIApp, **_: object) -> ASGIApp:
    """A 'guard' that calls the app with whatever came in."""
    return app


def _refuses_with(status: object) -> object:
    """A 'guard' that never calls the app and answers ``status``."""

    def factory(app: ASGIApp, **_: object) -> ASGIApp:
        async def guard(scope: Scope, receive: Receive, send: Send) -> None:
            await send({"type": "http.response.start", "status": status, "headers": []})
            await send({"type": "http.response.body", "body": b"{}"})

        return guard

    return factory


@pytest.mark.parametrize("seed", SEEDS, ids=[seed.name for seed in SEEDS])
def test_seed_replays_clean(seed: Path) -> None:
    fuzz_middleware.check(seed.read_bytes())


def test_short_inputs() -> None:
    fuzz_middleware.check(b"")
    fuzz_middleware.check(b"\x05")


# Requests that hold invalid text where an app reads it, each with the breach the
# oracle must name when a guard lets it through: (flags, chunk, path, query, header
# value, body). Public so that test_fuzz_wsgi uses the same table.
BREACHES = {
    "path-overlong": ("invalid path", (0x00, 0, b"etc%C0%AFpasswd", b"", b"", b"")),
    "query-invalid": ("invalid query", (0x05, 0, b"", b"q=%FF", b"", b"")),
    "header-latin1": ("invalid header", (0x05, 0, b"", b"", b"caf\xe9", b"")),
    "text-split": (
        "invalid body",
        (0x00, 0, b"t", b"", b"", b"a\xf0\x9d\x84\x9eb\xc0"),
    ),
    "json-lone-surrogate": (
        "lone surrogate",
        (0x01, 5, b"api", b"", b"", b'{"a": "\\ud800"}'),
    ),
    # U+FFFE as Werkzeug reads the escapes (http.cookies: three Latin-1 characters)
    "cookie-octal": (
        "invalid cookie",
        (0x80, 1, b"", b"", b'a="\\357\\277\\276"', b""),
    ),
    "multipart-field": (
        "invalid multipart field",
        (
            0x03,
            7,
            b"",
            b"",
            b"",
            b'--B\r\nContent-Disposition: form-data; name="t"\r\n\r\n\xff\r\n--B--\r\n',
        ),
    ),
    "multipart-filename-star": (
        "invalid multipart parameter",
        (
            0x03,
            7,
            b"",
            b"",
            b"",
            b'--B\r\nContent-Disposition: form-data; name="f"; '
            b"filename*=utf-8''%C0%AF\r\n\r\nx\r\n--B--\r\n",
        ),
    ),
    "multipart-charset": (
        "charset other than UTF-8",
        (
            0x03,
            7,
            b"",
            b"",
            b"",
            b"--B\r\nContent-Disposition: form-data; "
            b"name*=utf-7''%2BADw-\r\n\r\nx\r\n--B--\r\n",
        ),
    ),
}


def request(flags: int, chunk: int, *parts: bytes) -> bytes:
    return bytes([flags, chunk]) + b"\xfe\xfe".join(parts)


@pytest.mark.parametrize("name", sorted(BREACHES))
def test_harness_catches_a_guard_that_lets_everything_through(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    message, (flags, chunk, *parts) = BREACHES[name]
    monkeypatch.setattr(_common, "Utf8GuardMiddleware", _pass_through)
    with pytest.raises(AssertionError, match=message):
        fuzz_middleware.check(request(flags, chunk, *parts))


def test_harness_catches_a_refusal_without_a_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_common, "Utf8GuardMiddleware", _refuses_with(403))
    with pytest.raises(AssertionError, match="refused without a 400"):
        fuzz_middleware.check(request(0, 0, b"a"))


def test_harness_checks_message_types() -> None:
    with pytest.raises(AssertionError, match="expected bytes"):
        _common.as_bytes("text")
