"""Replay the middleware fuzz seeds without atheris, and show the harness can fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz import fuzz_middleware
from utf8guard.middleware import GuardConfig, RequestSummary, asgi
from utf8guard.middleware._engine import BodyCheck, HeadVerdict
from utf8guard.middleware._report import RequestReport
from utf8guard.middleware._request import RequestHead

SEEDS = sorted((Path(__file__).parents[2] / "fuzz" / "corpus" / "middleware").iterdir())


@pytest.mark.parametrize("seed", SEEDS, ids=[seed.name for seed in SEEDS])
def test_seed_replays_clean(seed: Path) -> None:
    fuzz_middleware.check(seed.read_bytes())


def test_short_inputs() -> None:
    fuzz_middleware.check(b"")
    fuzz_middleware.check(b"\x05")


def test_harness_catches_a_guard_that_lets_everything_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def let_through(head: RequestHead, *_: object) -> HeadVerdict:
        return HeadVerdict(
            head, None, (), RequestReport(GuardConfig(), RequestSummary())
        )

    monkeypatch.setattr(asgi, "check_head", let_through)
    monkeypatch.setattr(BodyCheck, "inspected", property(lambda self: False))
    for name, message in [
        ("path-overlong", "invalid path"),
        ("query-invalid", "invalid query"),
        ("header-latin1", "invalid header"),
        ("text-split", "invalid body"),
    ]:
        with pytest.raises(AssertionError, match=message):
            fuzz_middleware.check((SEEDS[0].parent / name).read_bytes())


def test_harness_catches_a_lone_surrogate_escape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(BodyCheck, "inspected", property(lambda self: False))
    seed = (SEEDS[0].parent / "json-lone-surrogate").read_bytes()
    with pytest.raises(AssertionError, match="lone surrogate"):
        fuzz_middleware.check(seed)


def test_harness_catches_a_refusal_without_a_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def silent(*_: object) -> None:
        return None

    monkeypatch.setattr(asgi, "_send_problem", silent)
    with pytest.raises(AssertionError, match="refused without a 400"):
        fuzz_middleware.check((SEEDS[0].parent / "path-overlong").read_bytes())


def test_harness_checks_message_types() -> None:
    with pytest.raises(AssertionError, match="expected bytes"):
        fuzz_middleware._as_bytes("text")
