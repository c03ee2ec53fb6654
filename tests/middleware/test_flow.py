"""The body's route, the stream gate's release and the buffer's repair, without I/O."""

from __future__ import annotations

import pytest

from utf8guard.middleware import GuardConfig, RequestSummary
from utf8guard.middleware.engine._engine import HeadVerdict
from utf8guard.middleware.engine._flow import BodyFlow, Route
from utf8guard.middleware.engine._report import RequestReport
from utf8guard.middleware.head._request import RequestHead

TEXT = (b"content-type", b"text/plain")
Headers = tuple[tuple[bytes, bytes], ...]


def flow(
    headers: Headers = (TEXT,), *, has_body: bool = True, **options: object
) -> BodyFlow:
    config = GuardConfig(**options)  # type: ignore[arg-type]  # the tests' keywords
    head = RequestHead(path="/", raw_path=b"/", query_string=b"", headers=headers)
    report = RequestReport(config, RequestSummary())
    verdict = HeadVerdict(head, None, (), report)
    return BodyFlow(verdict, config, "http", has_body=has_body)


@pytest.mark.parametrize(
    ("headers", "has_body", "options", "route"),
    [
        pytest.param(
            (TEXT, (b"content-length", b"9")),
            True,
            {"max_body_size": 8},
            Route.REFUSE,
            id="declared-too-large",
        ),
        pytest.param(
            ((b"content-type", b"image/png"),),
            True,
            {},
            Route.BUFFER,
            id="binary-sniffed-first",
        ),
        pytest.param(
            ((b"content-type", b"text/plain; charset=latin-1"),),
            True,
            {"mode": "report"},
            Route.PASS,
            id="other-charset-reported",
        ),
        pytest.param((TEXT,), False, {}, Route.EMPTY, id="no-body"),
        pytest.param(
            ((b"content-type", b"multipart/form-data; boundary=b"),),
            False,
            {},
            Route.REFUSE,
            id="no-body-is-no-multipart",
        ),
        pytest.param((TEXT,), True, {"mode": "report"}, Route.OBSERVE, id="report"),
        pytest.param((TEXT,), True, {"stream_body": True}, Route.STREAM, id="stream"),
        pytest.param((TEXT,), True, {"mode": "normalize"}, Route.BUFFER, id="buffer"),
    ],
)
def test_route(
    headers: Headers, has_body: bool, options: dict[str, object], route: Route
) -> None:
    chosen = flow(headers, has_body=has_body, **options)
    assert chosen.route is route
    # REFUSE exactly when there is a response to send
    assert (chosen.problem is not None) == (route is Route.REFUSE)


def test_gate_releases_only_whole_sequences() -> None:
    # U+1D11E is F0 9D 84 9E (RFC 3629 §3): split over three chunks, it waits whole.
    gate = flow(stream_body=True).gate()
    assert gate.feed(b"a\xf0\x9d", last=False) == b"a"
    assert gate.feed(b"\x84", last=False) == b""
    assert gate.feed(b"\x9eb", last=False) == b"\xf0\x9d\x84\x9eb"
    assert gate.feed(b"c\xe2\x82", last=False) == b"c"
    assert gate.end() == b""  # a truncated end is refused: the held bytes stay held
    assert gate.problem is not None
    assert gate.problem[0] == 400


def test_gate_last_chunk_releases_all_and_end_is_idempotent() -> None:
    gate = flow(stream_body=True).gate()
    assert gate.feed(b"\xe2\x82", last=False) == b""
    assert gate.feed(b"\xac!", last=True) == b"\xe2\x82\xac!"
    assert gate.end() == b""
    assert gate.problem is None


def test_gate_refusal_releases_nothing_more() -> None:
    gate = flow(stream_body=True).gate()
    assert gate.feed(b"ok \xc0\xaf", last=False) == b""
    assert gate.problem is not None
    assert gate.unreadable()  # still refused


def test_observing_gate_releases_every_byte() -> None:
    gate = flow(mode="report").gate()
    assert gate.feed(b"\xc0\xaf\xe2", last=False) == b"\xc0\xaf\xe2"
    assert gate.end() == b""
    assert gate.problem is None
    assert not gate.unreadable()  # report mode: a read error is no refusal


def test_buffer_repairs_in_normalize_mode() -> None:
    buffer = flow(mode="normalize").buffer()
    assert buffer.feed(b"a\xff") is None
    assert buffer.feed(b"b\xe2\x82", last=True) is None
    assert buffer.repaired
    spool = buffer.release()
    # one U+FFFD per maximal subpart (Unicode ch. 3, "U+FFFD Substitution")
    assert b"".join(spool.chunks()) == "a\ufffdb\ufffd".encode()
    assert spool.size == 8
    buffer.close()


def test_buffer_keeps_a_clean_body_as_received() -> None:
    buffer = flow().buffer()
    chunk = b"caf\xc3\xa9"
    assert buffer.feed(chunk) is None
    assert buffer.end() is None
    assert not buffer.repaired
    assert next(buffer.release().chunks()) is chunk
    buffer.close()
