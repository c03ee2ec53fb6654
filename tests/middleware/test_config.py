"""GuardConfig checks every option once; findings are logged without request bytes."""

from __future__ import annotations

import logging

import pytest

from utf8guard import IDENTIFIER, Kind, Policy
from utf8guard.middleware import GuardConfig, ViolationEvent
from utf8guard.middleware._finding import Finding, Location, safe_name


def test_defaults_are_safe() -> None:
    config = GuardConfig()
    assert config.mode == "block"
    assert config.effective_path_policy == IDENTIFIER
    assert config.skip_headers == frozenset()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"mode": "lenient"}, ValueError, "mode must be one of block, normalize"),
        ({"policy": "strict"}, TypeError, "policy must be a Policy, not str"),
        ({"path_policy": 1}, TypeError, "path_policy must be a Policy, not int"),
        ({"max_body_size": 0}, ValueError, "max_body_size must be > 0, not 0"),
        ({"memory_body_size": -1}, ValueError, "memory_body_size must be > 0, not -1"),
        ({"max_body_size": True}, TypeError, "max_body_size must be an int, not bool"),
        ({"stream_body": 1}, TypeError, "stream_body must be a bool"),
        ({"on_violation": 3}, TypeError, "on_violation must be callable or None"),
        ({"skip_headers": "cookie"}, TypeError, "skip_headers must be a collection"),
        ({"skip_headers": 5}, TypeError, "skip_headers must be a collection"),
        ({"skip_headers": [b"cookie"]}, TypeError, "skip_headers must hold str"),
    ],
)
def test_config_mistakes_raise(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        GuardConfig(**options)  # type: ignore[arg-type]  # wrong types on purpose


def test_path_policy_keeps_its_other_flags() -> None:
    config = GuardConfig(path_policy=Policy(allow_private_use=False))
    assert config.effective_path_policy == Policy(
        allow_private_use=False,
        allow_nul=False,
        allow_controls=False,
        allow_bidi_controls=False,
    )


def test_report_logs_and_calls_back(caplog: pytest.LogCaptureFixture) -> None:
    events: list[ViolationEvent] = []
    config = GuardConfig(on_violation=events.append)
    findings = [
        Finding(Location.QUERY, "q", Kind.OVERLONG, 3),
        Finding(Location.PATH, None, Kind.NUL, 1),
    ]
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        config.report(findings, "blocked", "http")
    assert [event.finding for event in events] == findings
    assert events[0].action == "blocked"
    assert events[0].scope_type == "http"
    assert caplog.messages == [
        "utf8guard blocked http: overlong at offset 3 in query (q)",
        "utf8guard blocked http: nul at offset 1 in path",
    ]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"user_id", "user_id"),
        (b"items[0].name", "items[0].name"),
        (b"a b", None),
        (b"\n", None),
        (b"x" * 65, None),
        ("ä".encode(), None),
        (b"", None),
    ],
)
def test_safe_name(raw: bytes, shown: str | None) -> None:
    assert safe_name(raw) == shown
