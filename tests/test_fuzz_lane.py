"""The lane harness: its layout, and planted bugs it finds on its seeds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from fuzz import fuzz_lane
from fuzz.run import SEEDS
from utf8guard.middleware.head._fast import Lane

from .test_fuzz_fastlane import seed_failures

speedups = pytest.importorskip("utf8guard._speedups")

SEED_FILES = sorted((SEEDS / "lane").iterdir())
_plan = speedups.asgi_plan
_whole = speedups.whole_plain_json
_head = speedups.head_plan


def test_the_first_byte_picks_the_lane_and_message() -> None:
    choice = fuzz_lane.LaneChoice.of(bytes([0b1010_1101]))
    assert choice == fuzz_lane.LaneChoice(
        lookalike=True,
        limit=fuzz_lane.LIMITS[2],
        as_json=True,
        longer=False,
        version=fuzz_lane.VERSIONS[1],
        more_body=True,
    )
    assert fuzz_lane.LaneChoice.of(b"").limit == -1


def _lookalike_ignored(lane: Lane, scope: object) -> object:
    return _plan(lane._replace(lookalike=False), scope)


def _limit_off_by_one(lane: Lane, scope: object) -> object:
    return _plan(lane._replace(limit=lane.limit + 1), scope)


def _backslash_ignored(
    lane: tuple[object, ...], message: object, length: int
) -> object:
    if isinstance(message, dict) and isinstance(message.get("body"), bytes):
        message = {**message, "body": message["body"].replace(b"\\", b"_")}
    return _whole(lane, message, length)


def _more_body_ignored(
    lane: tuple[object, ...], message: object, length: int
) -> object:
    if isinstance(message, dict):
        message = {key: value for key, value in message.items() if key != "more_body"}
    return _whole(lane, message, length)


def _app_path_ignored(lane: tuple[object, ...], *args: object) -> object:
    raw_path, _, query, headers, bodiless = args
    return _head(lane, raw_path, None, query, headers, bodiless)


PLANTED: dict[str, tuple[str, str, Callable[..., object]]] = {
    "app-path-ignored": ("head_plan", "head_plan != py", _app_path_ignored),
    "lookalike-ignored": ("asgi_plan", "asgi_plan != py", _lookalike_ignored),
    "limit-off-by-one": ("asgi_plan", "asgi_plan != py", _limit_off_by_one),
    "backslash-ignored": ("whole_plain_json", "whole_plain_json", _backslash_ignored),
    "more-body-ignored": ("whole_plain_json", "whole_plain_json", _more_body_ignored),
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_harness_catches_planted_bug(bug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    function, expected, broken = PLANTED[bug]
    monkeypatch.setattr(speedups, function, broken)
    failures = seed_failures(fuzz_lane.check, SEED_FILES)
    assert failures, f"every seed passed with {bug} planted"
    assert any(expected in message for message in failures), failures[0]


def test_seeds_pass() -> None:
    assert len(SEED_FILES) >= 20
    for path in SEED_FILES:
        fuzz_lane.check(Path(path).read_bytes())
