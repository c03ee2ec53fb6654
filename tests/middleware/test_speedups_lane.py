"""The ASGI lane's decisions in C (``_speedups.asgi_plan``, ``whole_plain_json``).

``py_asgi_plan`` and ``py_whole_plain_json`` are the references: the C twins must
give the same answer for every input. The explicit rows also state each rule from
its source, so both are held to it: the look-alike separators of
``_pathrules.LOOKALIKE_SEPARATORS`` (every range's ends and neighbours), the
Content-Length grammar (RFC 9110 §8.6: OWS around 1*DIGIT), RFC 9112 §6.3 item 7 (an
HTTP/1 request with neither Content-Length nor Transfer-Encoding has no body), and
RFC 8259 (a JSON text that ``json.loads`` reads as UTF-8, with no escape). Soundness
against the full check: ``whole_plain_json`` says True only for bodies the JSON
inspector passes, and a plan is None whenever ``inspect_head`` finds anything.
"""

from __future__ import annotations

import json
from typing import Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard import Policy
from utf8guard._pathrules import LOOKALIKE_SEPARATORS
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.head._fast import (
    NO_BODY,
    Lane,
    is_clean_json,
    lane_for,
    py_asgi_plan,
    py_head_plan,
    py_whole_plain_json,
    remember_kind,
)
from utf8guard.middleware.head._request import RequestHead, inspect_head

speedups = pytest.importorskip("utf8guard._speedups")

JSON: Final = b"application/json"
BODY: Final = '{"name": "Zoë", "note": "日本"}'.encode()
CONFIGS: Final = [
    GuardConfig(),
    GuardConfig(allow_lookalike_separators=True),
    GuardConfig(mode="report"),
    GuardConfig(memory_body_size=16),
    GuardConfig(policy=Policy(allow_noncharacters=True)),
]


def lanes() -> list[Lane]:
    """A fresh lane of each config, and one that remembers JSON and form types."""
    made = [lane_for(config) for config in CONFIGS]
    known = lane_for(GuardConfig())
    known[5].update({JSON: True, b"application/x-www-form-urlencoded": False})
    return [*made, known]


def scope(
    raw_path: object = b"/api/caf%C3%A9",
    query: object = b"q=1",
    headers: object = None,
    version: object = "1.1",
) -> dict[str, object]:
    if headers is None:
        headers = [(b"host", b"example.com")]
    return {
        "type": "http",
        "http_version": version,
        "raw_path": raw_path,
        "query_string": query,
        "headers": headers,
    }


def plan(lane: Lane, value: object) -> object:
    """The one answer of both twins."""
    compiled = speedups.asgi_plan(lane, value)
    assert compiled == py_asgi_plan(lane, value)
    return compiled


def test_lane_for_reads_the_config() -> None:
    default = GuardConfig()
    assert lane_for(default)[:4] == (
        default.effective_path_policy,
        default.policy,
        default.header_policy,
        True,
    )
    assert lane_for(default)[4] == min(default.memory_body_size, default.max_body_size)
    assert lane_for(GuardConfig(mode="report"))[4] == -1
    assert lane_for(GuardConfig(stream_body=True))[4] == -1
    assert lane_for(GuardConfig(allow_lookalike_separators=True))[3] is False
    huge = GuardConfig(memory_body_size=2**60, max_body_size=2**61)
    assert lane_for(huge)[4] == 2**53


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("1.1", NO_BODY),
        ("1.0", NO_BODY),
        ("2", None),
        ("3", None),
        (None, None),
        (1.1, None),
        # Near misses of the C twin's in-place read of a compact ASCII str, and the
        # str forms it hands to the general comparison (non-ASCII, a subclass).
        ("1.2", None),
        ("0.1", None),
        ("1.10", None),
        ("1.", None),
        ("", None),
        ("1.1\u00e9", None),
        ("\uff11.\uff11", None),
        (type("Version", (str,), {})("1.1"), None),
    ],
)
def test_no_framing_is_no_body_only_in_http1(version: object, expected: object) -> None:
    # RFC 9112 §6.3 item 7; HTTP/2 and 3 frame the body themselves.
    for lane in lanes():
        assert plan(lane, scope(version=version)) == expected


def test_a_content_type_without_length_is_the_full_check() -> None:
    headers = [(b"host", b"a"), (b"content-type", JSON)]
    for lane in lanes():
        assert plan(lane, scope(headers=headers)) is None


@pytest.mark.parametrize(
    ("value", "length"),
    [
        (b"12", 12),
        (b" 12\t", 12),
        (b"\t 0 ", 0),
        (b"007", 7),
        (b"", None),
        (b"  ", None),
        (b"+5", None),
        (b"-1", None),
        (b"1 2", None),
        (b"0x10", None),
        (b"12,12", None),
        ("١٢".encode(), None),  # Arabic-Indic digits: DIGIT is ASCII (RFC 5234 B.1)
        (b"9" * 30, None),  # past every limit
        (b"9007199254740993", None),  # 2**53 + 1
    ],
)
def test_content_length_grammar(value: bytes, length: int | None) -> None:
    # RFC 9110 §8.6: Content-Length = 1*DIGIT, with OWS around the field value.
    headers = [(b"host", b"a"), (b"content-length", value), (b"content-type", JSON)]
    lane = lane_for(GuardConfig(memory_body_size=2**60, max_body_size=2**60))
    expected = None if length is None else (length, JSON)
    assert plan(lane, scope(headers=headers)) == expected
    lane.kinds[JSON] = True
    assert plan(lane, scope(headers=headers)) == length


@pytest.mark.parametrize("length", [0, 15, 16, 17])
def test_the_body_limit(length: int) -> None:
    lane = lane_for(GuardConfig(memory_body_size=16))
    headers = [(b"content-length", str(length).encode())]
    assert plan(lane, scope(headers=headers)) == (
        (length, None) if length <= 16 else None
    )
    report = lane_for(GuardConfig(mode="report"))
    assert plan(report, scope(headers=headers)) is None
    assert plan(report, scope()) == NO_BODY


def _lookalike_cases() -> list[int]:
    cases = set()
    for lo, hi in LOOKALIKE_SEPARATORS:
        cases |= {lo - 1, lo, hi, hi + 1}
    return sorted(c for c in cases if not 0xD800 <= c <= 0xDFFF and c > 0x7F)


def _in_table(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in LOOKALIKE_SEPARATORS)


def _escaped(data: bytes, form: str) -> bytes:
    """``data`` percent-encoded byte by byte, hex digits in upper, lower or mixed case
    (RFC 3986 §2.1: HEXDIG is case-insensitive)."""
    hexes = [f"{byte:02X}" for byte in data]
    if form == "lower":
        hexes = [pair.lower() for pair in hexes]
    elif form == "mixed":
        hexes = [pair[0] + pair[1].lower() for pair in hexes]
    return "".join("%" + pair for pair in hexes).encode()


@pytest.mark.parametrize("form", ["upper", "lower", "mixed"])
@pytest.mark.parametrize("code", _lookalike_cases())
def test_lookalike_separators(code: int, form: str) -> None:
    encoded = chr(code).encode()
    escaped = _escaped(encoded, form)
    on, off = (
        lane_for(GuardConfig()),
        lane_for(GuardConfig(allow_lookalike_separators=True)),
    )
    # Alone, first, last, and between other escapes (each "%" starts one).
    e_acute = _escaped("é".encode(), form)
    for raw in (
        b"/a" + escaped + b"b",
        b"/" + escaped,
        b"/a/" + e_acute + escaped,
        b"/" + escaped + e_acute + b"%41",
    ):
        request = scope(raw_path=raw)
        head = RequestHead(
            path="",
            raw_path=raw,
            query_string=b"q=1",
            headers=((b"host", b"example.com"),),
        )
        clean = not list(inspect_head(head, GuardConfig()))
        if _in_table(code):
            assert not clean
            assert plan(on, request) is None
        else:
            assert (plan(on, request) == NO_BODY) == clean
        assert (plan(off, request) == NO_BODY) == (
            not list(inspect_head(head, GuardConfig(allow_lookalike_separators=True)))
        )
    # Unencoded in the raw path: not clean (RFC 3986 allows ASCII only there).
    assert plan(on, scope(raw_path=b"/a" + encoded)) is None
    assert plan(off, scope(raw_path=b"/a" + escaped + b"b")) == plan(
        on, scope(raw_path=b"/a/b")
    )


def test_odd_scopes_take_the_full_check() -> None:
    for lane in lanes():
        assert plan(lane, [("raw_path", b"/")]) is None
        assert plan(lane, {}) is None
        assert plan(lane, scope(raw_path=None)) is None
        assert plan(lane, scope(raw_path="/")) is None
        assert plan(lane, scope(query=None)) is None
        assert plan(lane, scope(headers=None) | {"headers": 5}) is None
        assert plan(lane, scope(headers=[(b"host", b"a", b"b")])) is None


def test_a_lane_of_the_wrong_shape_is_refused() -> None:
    for bad in [(1, 2), [*lane_for(GuardConfig())], (*lane_for(GuardConfig())[:5], [])]:
        with pytest.raises(TypeError):
            speedups.asgi_plan(bad, scope())
        with pytest.raises(TypeError):
            speedups.whole_plain_json(bad, {}, 0)
    with pytest.raises(TypeError):
        speedups.asgi_plan(lane_for(GuardConfig()))
    with pytest.raises(TypeError):
        speedups.whole_plain_json(lane_for(GuardConfig()), {})
    with pytest.raises(TypeError):
        speedups.whole_plain_json(lane_for(GuardConfig()), {}, "0")


def test_remember_kind() -> None:
    config = GuardConfig()
    lane = lane_for(config)
    remember_kind(lane, JSON, config)
    remember_kind(lane, b"application/problem+json", config)
    remember_kind(lane, b"application/json; charset=latin-1", config)
    remember_kind(lane, b"text/plain", config)
    assert lane.kinds == {
        JSON: True,
        b"application/problem+json": True,
        b"application/json; charset=latin-1": False,  # refused: not the JSON inspector
        b"text/plain": False,
    }
    for index in range(100):
        remember_kind(lane, b"text/x-%d" % index, config)
    assert len(lane.kinds) == 64


class BytesKind(bytes):
    """A bytes subclass: equal to and hashed as its bytes."""


@pytest.mark.parametrize(
    ("kinds", "content_type", "is_json"),
    [
        ({}, JSON, False),
        ({JSON: True}, JSON, True),
        ({JSON: False}, JSON, False),
        ({JSON: 1}, JSON, False),  # `is True`, as the twin asks
        ({b"application/jsom": False, JSON: True}, JSON, True),  # same length first
        ({b"application/json+x": True}, JSON, False),
        ({JSON: True}, b"application/jso", False),
        ({JSON: True}, b"Application/json", False),  # the dict's equality: exact
        # Keys of other types, and a type no exact bytes, are the dict's to match:
        ({BytesKind(JSON): True}, JSON, True),
        ({"application/json": True}, JSON, False),  # hashed alike, never equal
        ({"application/json": True, JSON: True}, JSON, True),
        ({JSON: True}, BytesKind(JSON), True),
        ({JSON: False}, BytesKind(JSON), False),
    ],
)
def test_the_remembered_kinds(
    kinds: dict[object, object], content_type: bytes, is_json: bool
) -> None:
    # py_head_plan: `lane.kinds.get(content_type) is True` gives the length alone.
    lane = lane_for(GuardConfig())
    lane.kinds.update(kinds)  # type: ignore[arg-type]  # odd keys, on purpose
    headers = [(b"content-length", b"7"), (b"content-type", content_type)]
    assert plan(lane, scope(headers=headers)) == (7 if is_json else (7, content_type))


def test_many_remembered_kinds() -> None:
    config = GuardConfig()
    lane = lane_for(config)
    for index in range(100):
        remember_kind(lane, b"text/x-%d" % index, config)
    lane.kinds[JSON] = True  # the 65th: past what remember_kind keeps
    for content_type, expected in [
        (b"text/x-63", (1, b"text/x-63")),
        (JSON, 1),
        (b"text/x", (1, b"text/x")),
    ]:
        headers = [(b"content-length", b"1"), (b"content-type", content_type)]
        assert plan(lane, scope(headers=headers)) == expected


# --- whole_plain_json -------------------------------------------------------------


def whole(lane: Lane, message: object, length: int) -> bool:
    compiled = speedups.whole_plain_json(lane, message, length)
    assert compiled is py_whole_plain_json(lane, message, length)
    return bool(compiled)


def message(body: object = BODY, **extra: object) -> dict[str, object]:
    return {"type": "http.request", "body": body, **extra}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (message(), True),
        (message(more_body=False), True),
        (message(more_body=True), False),
        (message(more_body=0), False),  # falsy, but not what servers send: no shortcut
        (message(body=bytearray(BODY)), False),
        ({"type": "http.request", "body": BODY[:-1]}, False),
        ({"type": "http.disconnect"}, False),
        ({"body": BODY}, False),
        ({"type": b"http.request", "body": BODY}, False),
        ([("type", "http.request")], False),
        # Near misses of the C twin's in-place read of a compact ASCII str, and the
        # str forms it hands to the general comparison (non-ASCII, a subclass).
        ({"type": "http.requesT", "body": BODY}, False),
        ({"type": "http.reques", "body": BODY}, False),
        ({"type": "http.request ", "body": BODY}, False),
        ({"type": "http.reques\u00e9", "body": BODY}, False),
        ({"type": "".join(["http.", "request"]), "body": BODY}, True),
        ({"type": type("Kind", (str,), {})("http.request"), "body": BODY}, False),
    ],
)
def test_whole_message(value: object, expected: bool) -> None:
    assert whole(lane_for(GuardConfig()), value, len(BODY)) is expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"a": 1}', True),
        (b"[1, 2]", True),
        (b"{", True),  # no escape and valid UTF-8: the parser refuses the syntax
        (b" {}", False),  # detect_encoding's job (the full check decides)
        (b'"text"', False),
        (b"", False),
        (b"{\x00", False),  # NUL second: a UTF-16/32 guess (RFC 8259 §8.1)
        (b"[\x00]", False),
        (b'{"a": "\\u00e9"}', False),  # an escape: the JSON inspector's
        (b'{"a": "\xff"}', False),
        (b'{"a": "\xed\xa0\x80"}', False),  # a UTF-16 surrogate
        ('{"a": "\ufdd0"}'.encode(), False),  # a noncharacter under STRICT
    ],
)
def test_whole_plain_json_rules(body: bytes, expected: bool) -> None:
    assert whole(lane_for(GuardConfig()), message(body), len(body)) is expected


def test_whole_plain_json_follows_the_lanes_policy() -> None:
    body = '{"a": "\ufdd0"}'.encode()
    lenient = lane_for(GuardConfig(policy=Policy(allow_noncharacters=True)))
    assert whole(lenient, message(body), len(body))


JSON_BYTES = st.one_of(
    st.binary(max_size=40),
    st.builds(
        lambda head, text, tail: head + text + tail,
        st.sampled_from([b"{", b"[", b" {", b"\xef\xbb\xbf{", b"{\x00", b""]),
        st.text(max_size=20).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.sampled_from([b"}", b"]", b"\\", b"\\u0041", b"\\ud800", b"\xff", b""]),
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    body=JSON_BYTES, more=st.sampled_from([None, False, True]), delta=st.integers(-1, 1)
)
def test_whole_plain_json_twins_and_soundness(
    body: bytes, more: object, delta: int
) -> None:
    extra = {} if more is None else {"more_body": more}
    for config in CONFIGS[:1] + CONFIGS[4:]:
        lane = lane_for(config)
        said = whole(lane, message(body, **extra), len(body) + delta)
        if said:
            # Sound: the JSON inspector (the full check's) passes the body, and
            # json.loads reads it as UTF-8.
            assert is_clean_json(body, config.policy)
            assert json.detect_encoding(body) in ("utf-8", "utf-8-sig")


PATHS = st.one_of(
    st.sampled_from(
        [
            b"/",
            b"/a/b",
            b"/caf%C3%A9",
            b"/a%E2%88%95b",
            b"/%EF%BC%8F",
            b"/a%2Fb",
            b"/..",
            b"/%ZZ",
        ]
    ),
    st.binary(max_size=12).map(
        lambda b: b"/" + "".join(f"%{x:02X}" for x in b).encode()
    ),
    st.text(max_size=6).map(lambda t: b"/" + t.encode("utf-8", "surrogatepass")),
)
HEADER_SETS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                b"host",
                b"content-length",
                b"Content-Type",
                b"cookie",
                b"transfer-encoding",
                b"x-a",
                b"bad name",
            ]
        ),
        st.sampled_from(
            [
                b"1",
                b" 4 ",
                b"",
                b"x",
                JSON,
                b"text/plain",
                b"a\\b",
                b"caf\xc3\xa9",
                b"\xff",
                b"99999999999999999999",
            ]
        ),
    ),
    max_size=4,
)


@settings(max_examples=600, deadline=None)
@given(
    raw_path=PATHS,
    query=st.sampled_from([b"", b"q=1", b"q=%C3%A9", b"q=%FF", b"a%", None]),
    headers=HEADER_SETS,
    version=st.sampled_from(["1.1", "1.0", "2", None]),
    lane_index=st.integers(0, len(CONFIGS)),
)
def test_asgi_plan_twins(
    raw_path: bytes,
    query: bytes | None,
    headers: list[tuple[bytes, bytes]],
    version: str | None,
    lane_index: int,
) -> None:
    lane = lanes()[lane_index]
    request = scope(raw_path=raw_path, query=query, headers=headers, version=version)
    found = plan(lane, request)
    if found is not None and query is not None:
        # Sound: a plan means the full inspection finds nothing in the head.
        config = GuardConfig(allow_lookalike_separators=not lane.lookalike)
        head = RequestHead(
            path="", raw_path=raw_path, query_string=query, headers=tuple(headers)
        )
        assert not list(inspect_head(head, config))


# --- head_plan (the WSGI adapter's) ------------------------------------------------


def head(lane: Lane, *args: object) -> object:
    compiled = speedups.head_plan(lane, *args)
    assert compiled == py_head_plan(lane, *args)  # type: ignore[arg-type]
    return compiled


@pytest.mark.parametrize("bodiless", [True, False])
def test_head_plan_takes_the_framing_from_the_adapter(bodiless: bool) -> None:
    # WSGI: has_body() reads the framing (RFC 9112 §6.3 item 7 and PEP 3333).
    lane = lane_for(GuardConfig())
    got = head(lane, b"/a", b"/a", b"", [(b"host", b"a")], bodiless)
    assert got == (NO_BODY if bodiless else None)


@pytest.mark.parametrize(
    ("app_path", "expected"),
    [
        (None, NO_BODY),
        ("/café".encode(), NO_BODY),
        (b"/caf\xc3\xa9/", None),  # the server decoded another path
        ("/café".encode("latin-1"), None),
    ],
)
def test_head_plan_compares_the_servers_path(
    app_path: bytes | None, expected: object
) -> None:
    lane = lane_for(GuardConfig())
    assert head(lane, b"/caf%C3%A9", app_path, b"", [], True) == expected


def test_head_plan_arguments() -> None:
    lane = lane_for(GuardConfig())
    with pytest.raises(TypeError):
        speedups.head_plan(lane, b"/", None, b"", [])
    with pytest.raises(TypeError):
        speedups.head_plan((1,), b"/", None, b"", [], True)
    assert head(lane, None, b"/", b"", [], True) is None  # no raw target: full check


def test_the_lookalike_rule_is_weighed_with_the_path_in_both_twins() -> None:
    # A fuzz finding (fuzz_lane): the C twin once declined a look-alike path before
    # reading the header policy, where Python read it first and raised for a policy
    # that is no Policy. Both now weigh the look-alike rule with the path (issue 24:
    # scan_head's lookalike flag), so neither reads the header policy here, and
    # without the rule both read it.
    default = GuardConfig()
    not_a_policy: Policy = object()  # type: ignore[assignment]  # the point
    lane = Lane(
        default.effective_path_policy, default.policy, not_a_policy, True, 0, {}
    )
    request = scope(raw_path=b"/a%E2%88%95", headers=[(b"host", "é".encode())])
    assert speedups.asgi_plan(lane, request) is None
    assert py_asgi_plan(lane, request) is None
    lane = lane._replace(lookalike=False)
    with pytest.raises(TypeError, match="policy must be a Policy, not object"):
        speedups.asgi_plan(lane, request)
    with pytest.raises(TypeError, match="policy must be a Policy, not object"):
        py_asgi_plan(lane, request)
