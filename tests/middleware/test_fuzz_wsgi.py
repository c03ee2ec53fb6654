"""Replay the WSGI fuzz seeds without atheris, and show the harness can fail."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fuzz import fuzz_wsgi
from utf8guard.middleware import GuardConfig, RequestSummary, asgi, wsgi
from utf8guard.middleware._engine import BodyCheck, HeadVerdict
from utf8guard.middleware._report import RequestReport
from utf8guard.middleware._request import RequestHead

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse

CORPUS = Path(__file__).parents[2] / "fuzz" / "corpus" / "wsgi"
SEEDS = sorted(CORPUS.iterdir())


def let_through(head: RequestHead, *_: object) -> HeadVerdict:
    return HeadVerdict(head, None, (), RequestReport(GuardConfig(), RequestSummary()))


@pytest.mark.parametrize("seed", SEEDS, ids=[seed.name for seed in SEEDS])
def test_seed_replays_clean(seed: Path) -> None:
    fuzz_wsgi.check(seed.read_bytes())


def test_short_inputs_and_terminated_bodies() -> None:
    fuzz_wsgi.check(b"")
    fuzz_wsgi.check(b"\x05")
    fuzz_wsgi.check(bytes([0x20 | 0x01]) + b"\x03/a?b#c\xfe\xfe\xfe\xfe\xfe\xfe{}")


def test_harness_catches_a_guard_that_lets_everything_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(wsgi, "check_head", let_through)
    monkeypatch.setattr(BodyCheck, "inspected", property(lambda self: False))
    for name, message in [
        ("path-overlong", "invalid path"),
        ("query-invalid", "invalid query"),
        ("header-latin1", "invalid header"),
        ("text-split", "invalid body"),
    ]:
        with pytest.raises(AssertionError, match=message):
            fuzz_wsgi.check((CORPUS / name).read_bytes())


def test_harness_catches_adapters_that_disagree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(asgi, "check_head", let_through)
    with pytest.raises(AssertionError, match="WSGI answered"):
        fuzz_wsgi.check((CORPUS / "path-overlong").read_bytes())


def test_harness_catches_a_refusal_without_a_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def silent(start_response: StartResponse, *_: object) -> list[bytes]:
        start_response("400 Bad Request", [])
        return [b"{}"]

    monkeypatch.setattr(wsgi, "_send_problem", silent)
    with pytest.raises(AssertionError, match="refused without a 400"):
        fuzz_wsgi.check((CORPUS / "path-overlong").read_bytes())


def test_harness_checks_the_asgi_response(monkeypatch: pytest.MonkeyPatch) -> None:
    async def odd(send: asgi.Send, *_: object) -> None:
        await send({"type": "http.response.start", "status": "400", "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    monkeypatch.setattr(asgi, "_send_problem", odd)
    with pytest.raises(AssertionError, match="malformed response"):
        fuzz_wsgi.check((CORPUS / "path-overlong").read_bytes())
