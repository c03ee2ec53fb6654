"""The per-request decisions every adapter shares: modes, limits, repair."""

from __future__ import annotations

from utf8guard.middleware import GuardConfig, Location, RequestKind
from utf8guard.middleware._engine import MAX_FINDINGS, BodyCheck, check_head
from utf8guard.middleware._request import RequestHead

TEXT = [(b"content-type", b"text/plain")]


def test_enums_print_as_their_values() -> None:
    assert str(Location.PATH) == "path"
    assert str(RequestKind.DOUBLE_ENCODING) == "double_encoding"


def test_check_head_modes() -> None:
    head = RequestHead(path="/", raw_path=b"/%FF", query_string=b"", headers=())
    blocked = check_head(head, GuardConfig(), "http")
    assert blocked.problem is not None
    assert blocked.head is head
    fixed = check_head(head, GuardConfig(mode="normalize"), "http")
    assert fixed.problem is None
    assert fixed.head.raw_path == b"/%EF%BF%BD"
    reported = check_head(head, GuardConfig(mode="report"), "http")
    assert reported.problem is None
    assert reported.head is head
    assert len(reported.findings) == 1


def test_problem_lists_at_most_max_findings_but_decides_on_all() -> None:
    raw = b"/" + b"%FF" * (MAX_FINDINGS + 4) + b"%2F"
    head = RequestHead(path="/", raw_path=raw, query_string=b"", headers=())
    verdict = check_head(head, GuardConfig(mode="normalize"), "http")
    # the encoded "/" comes last, after the fixable findings, and still blocks
    assert verdict.problem is not None
    assert len(verdict.findings) == MAX_FINDINGS + 5


def test_uninspected_body_counts_bytes_only() -> None:
    config = GuardConfig(max_body_size=4)
    body = BodyCheck([(b"content-type", b"image/png")], config, "http")
    assert body.inspected  # until its first bytes show it is not JSON
    assert body.feed(b"\x89PNG\r\n\x1a\n\xff") is None  # over the limit: not checked
    assert not body.inspected
    assert body.feed(b"\xff") is None
    assert body.checked == 10
    assert body.finish() is None


def test_declared_length_over_the_limit() -> None:
    config = GuardConfig(max_body_size=4)
    assert BodyCheck([*TEXT, (b"content-length", b"5")], config, "http").refusal
    assert not BodyCheck([*TEXT, (b"content-length", b"4")], config, "http").refusal
    odd = [*TEXT, (b"content-length", b"x"), (b"content-length", b"9")]
    refusal = BodyCheck(odd, config, "http").refusal  # ambiguous: test_framing.py
    assert refusal is not None
    assert b"ambiguous_framing" in refusal[2]
    report = GuardConfig(max_body_size=4, mode="report")
    assert not BodyCheck([*TEXT, (b"content-length", b"5")], report, "http").refusal


def test_body_findings_beyond_the_report_limit_still_decide() -> None:
    body = BodyCheck(
        [(b"content-type", b"application/json")], GuardConfig(mode="normalize"), "http"
    )
    assert body.feed(b"\xff") is None
    assert body.needs_repair
    for _ in range(MAX_FINDINGS):
        assert body.feed(b'"\\u0041"') is None
    assert body.feed(b'"\\udc00"' * (MAX_FINDINGS + 1)) is not None
