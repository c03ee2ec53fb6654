"""The per-request decisions every adapter shares: modes, limits, repair."""

from __future__ import annotations

import json

import pytest

from utf8guard.middleware import GuardConfig, Location, RequestKind
from utf8guard.middleware.engine._engine import (
    MAX_CONTENT_LENGTH,
    MAX_FINDINGS,
    BodyCheck,
    check_head,
    content_length,
)
from utf8guard.middleware.head._request import RequestHead

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
    assert (len(reported.findings), reported.count) == (1, 1)


def test_problem_lists_at_most_max_findings_but_decides_on_all() -> None:
    raw = b"/" + b"%FF" * (MAX_FINDINGS + 4) + b"%2F"
    head = RequestHead(path="/", raw_path=raw, query_string=b"", headers=())
    verdict = check_head(head, GuardConfig(mode="normalize"), "http")
    # the encoded "/" comes last, after the fixable findings, and still blocks
    assert verdict.problem is not None
    assert (len(verdict.findings), verdict.count) == (MAX_FINDINGS, MAX_FINDINGS + 5)
    document = json.loads(verdict.problem[2])
    assert (len(document["violations"]), document["count"]) == (16, MAX_FINDINGS + 5)
    # one more fixable finding, never listed, must not change the decision either
    assert (
        check_head(
            RequestHead(path="/", raw_path=raw[:-3], query_string=b"", headers=()),
            GuardConfig(mode="normalize"),
            "http",
        ).problem
        is None
    )


def test_many_findings_in_every_location_are_counted_not_kept() -> None:
    # F1 (issue 11): 16384 escapes in path and query, and invalid header bytes.
    escapes = b"%FF" * 16384
    head = RequestHead(
        path="/",
        raw_path=b"/" + escapes,
        query_string=b"x=" + escapes,
        headers=((b"x-a", b"\xff" * 1000),),
    )
    verdict = check_head(head, GuardConfig(), "http")
    assert verdict.count == 16384 * 2 + 1000
    assert len(verdict.findings) == MAX_FINDINGS
    # the first sixteen, in order: path offsets count in the raw target
    assert [f.offset for f in verdict.findings] == [1 + 3 * i for i in range(16)]
    malformed = RequestHead(
        path="/", raw_path=b"/" + b"%G0" * 16384, query_string=b"x=%u" * 100, headers=()
    )
    assert check_head(malformed, GuardConfig(), "http").count == 16384 + 100


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
    # Four bytes: JSON's findings wait for the encoding (RFC 8259 §8.1), which the
    # first four decide.
    assert body.feed(b"\xff   ") is None
    assert body.needs_repair
    for _ in range(MAX_FINDINGS):
        assert body.feed(b'"\\u0041"') is None
    assert body.feed(b'"\\udc00"' * (MAX_FINDINGS + 1)) is not None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (b"0", 0),
        (b"5", 5),
        (b" 5\t", 5),  # RFC 9110 §5.5: OWS around a field value
        (b"007", 7),
        (b"", None),
        (b"+5", None),
        (b"-5", None),
        (b"5, 5", None),  # a folded list (RFC 9112 §6.3 item 5)
        (b"0x5", None),
        (b"5\n", None),  # not OWS
        ("\u0665".encode(), None),  # ARABIC-INDIC DIGIT FIVE: no ASCII DIGIT
        (b"\xb2", None),  # SUPERSCRIPT TWO in Latin-1
        # §8.6: "anticipate potentially large decimal numerals"; CPython's int()
        # raises past 4300 digits. Leading zeros are digits like any other.
        (b"0" * 5000 + b"2", 2),
        (b"9" * 18, 10**18 - 1),
        (b"1" + b"0" * 18, MAX_CONTENT_LENGTH),
        (b"9" * 5000, MAX_CONTENT_LENGTH),
    ],
)
def test_content_length_is_1_digit(value: bytes, expected: int | None) -> None:
    # RFC 9110 §8.6: Content-Length = 1*DIGIT
    assert content_length(value) == expected


def test_finish_counts_once() -> None:
    body = BodyCheck([*TEXT], GuardConfig(), "http")
    assert body.feed(b"ab\xe2\x82") is None
    assert body.finish() is not None  # truncated at the end
    assert body.finish() is None  # the end was already declared
