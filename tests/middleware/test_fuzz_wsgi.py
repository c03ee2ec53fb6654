"""Replay the WSGI fuzz seeds without atheris, and show the harness can fail.

As in test_fuzz_middleware, the planted bugs swap the guard through the public API
only: a WSGI or ASGI middleware that lets everything through or answers oddly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fuzz import _common, fuzz_wsgi
from tests.middleware.test_fuzz_middleware import (
    BREACHES,
    _pass_through,
    _refuses_with,
    request,
)

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

CORPUS = Path(__file__).parents[2] / "fuzz" / "corpus" / "wsgi"
SEEDS = sorted(CORPUS.iterdir())


def _wsgi_refuses_with(status: str, body: bytes) -> Callable[..., WSGIApplication]:
    def factory(app: WSGIApplication, **_: object) -> WSGIApplication:
        def guard(
            environ: WSGIEnvironment, start_response: StartResponse
        ) -> Iterable[bytes]:
            start_response(status, [])
            return [body]

        return guard

    return factory


@pytest.mark.parametrize("seed", SEEDS, ids=[seed.name for seed in SEEDS])
def test_seed_replays_clean(seed: Path) -> None:
    fuzz_wsgi.check(seed.read_bytes())


def test_middleware_seeds_are_the_wsgi_seeds() -> None:
    middleware = CORPUS.parent / "middleware"
    assert {p.name for p in SEEDS} == {p.name for p in middleware.iterdir()}


def test_short_inputs_and_terminated_bodies() -> None:
    fuzz_wsgi.check(b"")
    fuzz_wsgi.check(b"\x05")
    fuzz_wsgi.check(bytes([0x20 | 0x01]) + b"\x03/a?b#c\xfe\xfe\xfe\xfe\xfe\xfe{}")


@pytest.mark.parametrize("name", sorted(BREACHES))
def test_harness_catches_a_guard_that_lets_everything_through(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    message, (flags, chunk, *parts) = BREACHES[name]
    monkeypatch.setattr(fuzz_wsgi, "Utf8GuardWSGIMiddleware", _pass_through)
    with pytest.raises(AssertionError, match=message):
        fuzz_wsgi.check(request(flags, chunk, *parts))


def test_harness_catches_adapters_that_disagree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_common, "Utf8GuardMiddleware", _pass_through)
    with pytest.raises(AssertionError, match="WSGI answered"):
        fuzz_wsgi.check(request(0, 0, b"etc%C0%AFpasswd"))


def test_harness_catches_a_refusal_without_a_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refuse = _wsgi_refuses_with("400 Bad Request", b"{}")
    monkeypatch.setattr(fuzz_wsgi, "Utf8GuardWSGIMiddleware", refuse)
    with pytest.raises(AssertionError, match="refused without a 400"):
        fuzz_wsgi.check(request(0, 0, b"a"))


def test_harness_checks_the_asgi_response(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_common, "Utf8GuardMiddleware", _refuses_with("400"))
    with pytest.raises(AssertionError, match="malformed response"):
        fuzz_wsgi.check(request(0, 0, b"etc%C0%AFpasswd"))
