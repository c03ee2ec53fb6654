"""The compiled head proof (``_speedups.scan_head``, ``strict_unquote``) against Python.

``py_scan_head`` and ``py_strict_unquote`` are the references: the C twins must give
the same answer (or raise the same exception type) for every input, odd types
included. The explicit rows also state each rule's expected answer from the spec
(RFC 3986 §2.1, RFC 9110 §5.5/§5.6.2, RFC 9112 §3.2/§6.3), so both are held to it.
"""

from __future__ import annotations

import string
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard import Policy, _accel
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.head import _clean, _percent
from utf8guard.middleware.head._abnf import NOT_PCT_ENCODED
from utf8guard.middleware.head._clean import OnceFields, py_scan_head
from utf8guard.middleware.head._percent import py_strict_unquote

from .pure import run_pure

speedups = pytest.importorskip("utf8guard._speedups")

ROOT: Final = Path(__file__).resolve().parent.parent
DEFAULT: Final = GuardConfig()
CONTROLS_OFF: Final = GuardConfig(
    policy=Policy(allow_controls=False, allow_private_use=False)
)
#: (path_policy, policy, header_policy, lookalike) of several configs.
POLICIES: Final = [
    (
        c.effective_path_policy,
        c.policy,
        c.header_policy,
        not c.allow_lookalike_separators,
    )
    for c in (
        DEFAULT,
        CONTROLS_OFF,
        GuardConfig(policy=Policy(allow_noncharacters=True, allow_bom=False)),
        GuardConfig(path_policy=Policy(allow_bidi_controls=False, allow_nul=False)),
        GuardConfig(allow_lookalike_separators=True),
    )
]
RAW_PATH: Final = b"/api/caf%C3%A9/items"
QUERY: Final = b"page=2&q=caf%C3%A9&sort=name"
HEADERS: Final = [
    (b"host", b"127.0.0.1"),
    (b"user-agent", b"bench/1.0"),
    (b"accept", b"*/*"),
    (b"accept-language", b"de-CH,de;q=0.9"),
    (b"cookie", b"session=abc123; theme=dark"),
]
#: RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" /
#: "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
TCHAR_SPEC: Final = frozenset(
    (string.ascii_letters + string.digits + "!#$%&'*+-.^_`|~").encode()
)


class Bytes(bytes):
    """A bytes subclass: ``isinstance(x, bytes)``, so a header may hold one."""


class ListOf(list[object]):
    """A list subclass: walked with the iteration protocol, like a list."""


class LyingPair(tuple[object, ...]):
    """Says it has 2 items but unpacks to 3: Python's unpacking raises ValueError."""

    def __len__(self) -> int:
        return 2


class FakeBytes:
    """Passes ``isinstance(x, bytes)`` through ``__class__``, but is no bytes."""

    @property  # type: ignore[misc]  # faking __class__ is the point
    def __class__(self) -> type:
        return bytes


class Unequal:
    """An app_path whose comparison fails."""

    def __ne__(self, other: object) -> bool:
        raise ZeroDivisionError


Outcome = tuple[str, object]


def outcome(scan: Callable[..., object], *args: object) -> Outcome:
    """What a call gives: its result, or the type of what it raised."""
    try:
        return ("returned", scan(*args))
    except (TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
        return ("raised", type(exc))


def both(*args: object) -> Outcome:
    """The one outcome of the C and the Python scan_head (equal, same objects)."""
    compiled, python = outcome(speedups.scan_head, *args), outcome(py_scan_head, *args)
    assert compiled == python
    assert type(compiled[1]) is type(python[1])
    if isinstance(python[1], tuple) and isinstance(compiled[1], tuple):
        assert all(a is b for a, b in zip(compiled[1], python[1], strict=True))
    return python


def scan(
    raw_path: object = RAW_PATH,
    query: object = QUERY,
    headers: object = None,
    app_path: object = None,
    config: GuardConfig = DEFAULT,
) -> Outcome:
    headers = HEADERS if headers is None else headers
    return both(
        raw_path,
        app_path,
        query,
        headers,
        config.effective_path_policy,
        config.policy,
        config.header_policy,
        not config.allow_lookalike_separators,
    )


CLEAN: Final = ("returned", OnceFields(None, None))
DECLINED: Final = ("returned", None)
LENGTH, TYPE = Bytes(b"12"), b"text/plain"

Row = tuple[str, dict[str, object], Outcome]


def _each(name: str, key: str, values: list[object], expected: Outcome) -> list[Row]:
    return [(f"{name}-{i}", {key: v}, expected) for i, v in enumerate(values)]


def _headers_each(name: str, values: list[bytes]) -> list[Row]:
    # Each value refused in a field of its own, beside a clean one.
    return _each(
        name, "headers", [[(b"x-a", v), (b"x-b", b"c")] for v in values], DECLINED
    )


#: (id, scan() keyword arguments, expected outcome), one row or group per rule.
ROWS: Final[list[Row]] = [
    ("get", {}, CLEAN),
    ("ascii-path", {"raw_path": b"/a.b/c.d"}, CLEAN),
    ("escaped-space-bracket", {"raw_path": b"/a%20b%5B"}, CLEAN),
    ("empty-path", {"raw_path": b""}, CLEAN),
    # U+FF0F FULLWIDTH SOLIDUS, a look-alike of "/" (UTS #39 confusables): refused
    # unless the config allows look-alike separators
    ("lookalike", {"raw_path": b"/a%EF%BC%8Fb"}, DECLINED),
    ("lookalike-allowed", {"raw_path": b"/a%EF%BC%8Fb",
                           "config": GuardConfig(allow_lookalike_separators=True)},
     CLEAN),
    # the dot-segment screen: "." at a segment start, literal or escaped, "/" or "\"
    # escaped; then RFC 3986 §2.1 strictly ("%" HEXDIG HEXDIG), decoded once
    *_each("dot", "raw_path", [b".a", b"/a/.b", b"/a\\.b"], DECLINED),
    *_each("escaped-separator", "raw_path",
           [b"/%2e", b"/%2E", b"/a%2fb", b"/a%2Fb", b"/a%5cb", b"/a%5Cb"], DECLINED),
    *_each("malformed", "raw_path",
           [b"/a%G0", b"/a%4", b"/a%", b"/%%41", b"/%u0041", b"/%41%"], DECLINED),
    *_each("double-encoding", "raw_path", [b"/a%2541", b"/a%25"], DECLINED),
    *_each("line-control", "raw_path", [b"/a\tb", b"/%09", b"/%0a", b"/%0D"], DECLINED),
    *_each("path-refused", "raw_path",
           ["/é".encode(), b"/%00", b"/%01", b"/%C2%85", b"/%E2%80%AE", b"/%EF%BF%BE",
            b"/%C0%AF", b"/%C3", b"/%ED%A0%80", b"/%F4%90%80%80"], DECLINED),
    ("app-path-same", {"app_path": "/api/café/items".encode()}, CLEAN),
    ("app-path-bytearray", {"app_path": bytearray("/api/café/items".encode())}, CLEAN),
    *_each("app-path-other", "app_path", [b"/api/cafe/items", "/api/café/items", 1],
           DECLINED),
    ("app-path-raises", {"app_path": Unequal()}, ("raised", ZeroDivisionError)),
    *_each("query", "query", [b"a=b+c&d", b"a=%2B", b"q=%00", b"q=\x01", b""], CLEAN),
    *_each("query-refused", "query",
           ["q=é".encode(), b"q=%zz", b"q=%2541", b"q=%C0%AF", b"q=%EF%BF%BE"],
           DECLINED),
    ("query-control", {"query": b"q=\x01", "config": CONTROLS_OFF}, DECLINED),
    ("query-private-use", {"query": b"%EE%80%80", "config": CONTROLS_OFF}, DECLINED),
    # headers: names are tokens, values hold no CR/LF and are valid
    ("no-headers", {"headers": []}, CLEAN),
    ("lengths", {"headers": [(b"Content-Length", LENGTH), (b"content-type", TYPE)]},
     ("returned", OnceFields(LENGTH, TYPE))),
    *_each("bad-name", "headers",
           [[(b"", b"v")], [(b"a b", b"v")], [(b"\xc3\xa9", b"")],
            [(b"a\nb", b"v")], [(b"A\x00", b"v")]], DECLINED),
    *_each("value", "headers",
           [[(b"x-a", b"a\tb")], [(b"x-a", "café".encode())]], CLEAN),
    *_headers_each("value-refused",
                   [b"a\rb", b"a\nb", b"\x00", b"\x01", b"\x7f", b"\xc2\x85",
                    b"\xc0\xaf", b"\xc3", b"\xef\xbf\xbe"]),
    ("split-sequence", {"headers": [(b"x-a", b"\xc3"), (b"x-b", b"\xa9")]}, DECLINED),
    ("repeated-field", {"headers": [(b"accept", b"a"), (b"Accept", b"b"), *HEADERS]},
     CLEAN),
    ("repeated-field-joined-hosts",
     {"headers": [(b"accept", b"a"), (b"accept", b"b"), (b"host", b"a,b")]}, DECLINED),
    *_each("framing", "headers",
           [[(b"host", b"a"), (b"HOST", b"b")], [(b"Host", b"a,b")],
            [(b"cookie", b"a=1"), (b"Cookie", b"b=2")], [(b"cookie", b"a=\\b")],
            [(b"cookie", b"a=\tb")], [(b"Transfer-Encoding", b"chunked")],
            [(b"Content-Encoding", b"identity")],
            [(b"content-length", b"1")] * 2,
            [(b"content-type", TYPE), (b"Content-Type", TYPE)]],
           DECLINED),
    # odd types, as py_scan_head answers them
    *_each("raw-path-type", "raw_path",
           [None, bytearray(b"/"), memoryview(b"/"), "/", Bytes(b"/"), 1], DECLINED),
    *_each("query-type", "query", [None, bytearray(b""), "", Bytes(b"")], DECLINED),
    *_each("headers-type", "headers", [{}, "", b"", iter(HEADERS), 1], DECLINED),
    *_each("headers-sequence", "headers",
           [tuple(HEADERS), ListOf([[b"a", b"b"], (b"c", b"d")]),
            [(Bytes(b"a"), Bytes(b"b"))]], CLEAN),
    *_each("pair", "headers",
           [[(b"a", b"b"), pair] for pair in
            [(b"a",), (b"a", b"b", b"c"), "ab", b"ab", None, (b"a", "b"), ("a", b"b"),
             (bytearray(b"a"), b"b")]], DECLINED),
    ("pair-lies", {"headers": [LyingPair((b"a", b"b", b"c"))]}, ("raised", ValueError)),
    ("fake-bytes-name", {"headers": [(FakeBytes(), b"v")]}, ("raised", TypeError)),
    ("fake-bytes-value", {"headers": [(b"a", FakeBytes())]}, ("raised", TypeError)),
]  # fmt: skip


@pytest.mark.parametrize(("case", "kwargs", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_each_rule(case: str, kwargs: dict[str, object], expected: Outcome) -> None:
    assert scan(**kwargs) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("byte", range(256))
def test_header_names_are_tchar(byte: int) -> None:
    # A one-byte name: a token exactly when the byte is tchar (RFC 9110 §5.6.2).
    got = scan(headers=[(bytes([byte]), b"v")])
    assert got == (CLEAN if byte in TCHAR_SPEC else DECLINED)


def test_a_policy_is_read_only_when_reached() -> None:
    # Not a Policy: reading it raises, but only where py_scan_head reads it too.
    bad = object()
    assert both(b"/a", None, b"", [], bad, bad, bad, True) == ("raised", TypeError)
    assert both(b"/a%", None, b"", [], bad, bad, bad, True) == DECLINED
    path, query, _, _ = POLICIES[0]
    assert both(b"/a", None, b"", [], path, query, bad, True) == CLEAN
    assert both(b"/a", None, b"", [(b"a", b"b")], path, query, bad, True)[0] == "raised"
    assert both(b"/a", None, b"", [(b"a", b"\r")], path, query, bad, True) == DECLINED


def test_more_configs_than_cached_masks() -> None:
    # 20 configs (60 policies) in turn: every lookup misses the mask cache, and the
    # headers are walked, not read in place; the answers stay the reference's.
    configs = [GuardConfig(policy=Policy(allow_bom=i % 2 == 0)) for i in range(20)]
    for _ in range(2):
        for config in configs:
            assert scan(config=config) == CLEAN
            bom = scan(headers=[(b"x", b"\xef\xbb\xbf")], config=config)
            assert bom == (CLEAN if config.policy.allow_bom else DECLINED)


def test_argument_count_is_checked() -> None:
    with pytest.raises(TypeError, match="expected 8 arguments, got 1"):
        speedups.scan_head(b"/")


def test_references_are_returned_not_leaked() -> None:
    length = Bytes(b"5")
    heads = [
        (RAW_PATH, None, QUERY, [*HEADERS, (b"content-length", length)]),  # clean
        (RAW_PATH, None, QUERY, ListOf([(b"content-length", length)])),  # walked
        (RAW_PATH, None, QUERY, [(b"content-length", length)] * 2),  # declined
        (b"/a", Unequal(), QUERY, HEADERS),  # raises
    ]
    policies = POLICIES[1]
    watched = [length, RAW_PATH, QUERY, *policies[:3], *(head[3] for head in heads)]
    rounds = [1, 1000]  # the first caches the policies' masks (one reference each)
    counts = []
    for count in rounds:
        for _ in range(count):
            for head in heads:
                outcome(speedups.scan_head, *head, *policies)
        counts.append([sys.getrefcount(obj) for obj in watched])
    assert counts[0] == counts[1]


# --- Hypothesis: heads built from the bytes the rules are about ---------------------
_PATH_PIECES = [
    b"/",
    b"a",
    b".",
    b"..",
    b"\\",
    b";",
    b"+",
    b"%",
    b"%2e",
    b"%2E",
    b"%2f",
    b"%5C",
    b"%25",
    b"%41",
    b"%C3%A9",
    b"%c3%a9",
    b"%C0%AF",
    b"%EF%BC%8F",
    b"%0a",
    b"%0D",
    b"%09",
    b"%00",
    b"%01",
    b"%7f",
    b"%C2%85",
    b"%4",
    b"%g1",
    b"%u002e",
    b"\t",
    b"\n",
    b"\x00",
    b"\xc3\xa9",
    b"%E2%80%AE",
    b"%EF%BF%BE",
    b"%EE%80%80",
    b"%EF%BB%BF",
    b"%ED%A0%80",
    b"%F0%9F%98%80",
    b"%F4%90%80%80",
    b"%E0%80",
    b"%FF",
    b"%2B",
]
_QUERY_PIECES = [
    b"a",
    b"=",
    b"&",
    b"+",
    b"%",
    b"%41",
    b"%25",
    b"%25C0",
    b"%C3%A9",
    b"%C0",
    b"%zz",
    b"\xff",
    b"\x7f",
    b"\x01",
    b"\t",
    b"%2F",
    b"%00",
    b"%0A",
    b"%E2%80%AE",
    b"%2B",
    b"%EF%BF%BF",
    b"%F0%9F%98%80",
    b"%EE%80%80",
    b"%C2%85",
]
_NAMES = [
    b"host",
    b"Host",
    b"HOST",
    b"cookie",
    b"Cookie",
    b"content-length",
    b"Content-Length",
    b"content-type",
    b"CONTENT-TYPE",
    b"transfer-encoding",
    b"Transfer-Encoding",
    b"content-encoding",
    b"Content-Encoding",
    b"x-raw",
    b"accept",
    b"bad name",
    b"",
    b"x\xe9",
    b"a\n",
    b"a\nb",
    b"hos",
    b"hostt",
    b"content_length",
    b"!#$%&'*+-.^_`|~",
    b"\x00",
]
_VALUE_PIECES = [
    b"a",
    b" ",
    b",",
    b"\\",
    b"\t",
    b"\r",
    b"\n",
    b"\x00",
    b"\x01",
    b"\x7f",
    b'"',
    "é".encode(),
    b"\xc3",
    b"\xa9",
    b"\xef\xbf\xbe",
    b"\xc2\x85",
    b"\xe2\x80\xae",
    b"\xee\x80\x80",
    b"\xef\xbb\xbf",
    b"12",
    b"text/plain",
]


def _joined(pieces: list[bytes], size: int) -> st.SearchStrategy[bytes]:
    near = st.one_of(st.sampled_from(pieces), st.binary(max_size=2))
    return st.lists(near, max_size=size).map(b"".join)


_ODD: Final = [None, 1, "/", bytearray(b"/a"), memoryview(b"/a"), Bytes(b"/a")]
_ODD_PAIRS: Final = [
    (b"a",),
    (b"a", b"b", b"c"),
    "ab",
    b"ab",
    None,
    (b"a", "b"),
    ("a", b"b"),
    (bytearray(b"a"), b"b"),
    (Bytes(b"x-a"), Bytes(b"12")),
    [b"host", b"h"],
]
_pairs = st.one_of(
    st.tuples(st.sampled_from(_NAMES), _joined(_VALUE_PIECES, 4)),
    st.lists(st.sampled_from(_NAMES), min_size=2, max_size=2).map(tuple),
    st.sampled_from(_ODD_PAIRS),
)
_headers: st.SearchStrategy[object] = st.one_of(
    st.lists(_pairs, max_size=5),
    st.lists(_pairs, max_size=5).map(tuple),
    st.lists(_pairs, max_size=3).map(ListOf),
    st.sampled_from([None, {}, "", 1]),
)


@st.composite
def heads(draw: st.DrawFn) -> tuple[object, ...]:
    raw = draw(_joined(_PATH_PIECES, 8))
    decoded = unquote_to_bytes(raw)
    app_path = draw(st.sampled_from([None, decoded, bytearray(decoded), b"/x", "/"]))
    query: object = draw(_joined(_QUERY_PIECES, 8))
    raw_path: object = raw
    if draw(st.integers(0, 9)) == 0:
        raw_path = draw(st.sampled_from(_ODD))
    if draw(st.integers(0, 9)) == 0:
        query = draw(st.sampled_from(_ODD))
    return (raw_path, app_path, query, draw(_headers), *draw(st.sampled_from(POLICIES)))


@settings(max_examples=3000, deadline=None)
@given(heads())
def test_compiled_scan_head_is_py_scan_head(head: tuple[object, ...]) -> None:
    answer = both(*head)
    if isinstance(head[3], list):
        # The same pairs in a list subclass are walked, not read in place: same answer.
        assert both(*head[:3], ListOf(head[3]), *head[4:]) == answer


# --- strict_unquote ---------------------------------------------------------------
def _expected_unquote(raw: bytes) -> bytes | None:
    # RFC 3986 §2.1: decodable exactly when every "%" starts "%" HEXDIG HEXDIG.
    return None if NOT_PCT_ENCODED.search(raw) else unquote_to_bytes(raw)


# A backslash and "x" too: py_strict_unquote rewrites "%" as a bytes literal's "\x".
@settings(max_examples=2000, deadline=None)
@given(
    _joined(
        [
            b"%",
            b"%4",
            b"%41",
            b"%e9",
            b"%G0",
            b"%%",
            b"+",
            b"\xff",
            b"\\",
            b"x",
            b"\\x41",
        ],
        10,
    )
)
def test_strict_unquote_decodes_exactly_the_escapes(raw: bytes) -> None:
    expected = _expected_unquote(raw)
    assert speedups.strict_unquote(raw) == expected
    assert py_strict_unquote(raw) == expected
    assert speedups.strict_unquote(Bytes(raw)) == expected


def test_strict_unquote_takes_bytes_only() -> None:
    with pytest.raises(TypeError, match="must be bytes, not str"):
        speedups.strict_unquote("%41")


def test_large_components_decode_on_the_heap() -> None:
    # Past the stack buffer (512 bytes): the same answers.
    path = b"/" + b"%C3%A9" * 400
    assert speedups.strict_unquote(path) == b"/" + "é".encode() * 400
    assert scan(raw_path=path, query=b"q=" + b"%41+" * 300) == CLEAN


# --- which implementation is active -----------------------------------------------
def test_active_implementation_is_the_accelerators() -> None:
    compiled = _accel.IMPLEMENTATION == "c"
    assert (_clean.scan_head is speedups.scan_head) is compiled
    assert (_percent.strict_unquote is speedups.strict_unquote) is compiled


def test_pure_python_keeps_the_python_twins() -> None:
    code = (
        "from utf8guard.middleware.head import _clean, _percent\n"
        "assert _clean.scan_head is _clean.py_scan_head\n"
        "assert _percent.strict_unquote is _percent.py_strict_unquote\n"
    )
    result = run_pure(code)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("odd", [0x00, 0x09, 0x1F, 0x7F, 0x80, 0xC3])
@pytest.mark.parametrize("length", [1, 7, 8, 9, 63, 64, 65])
def test_printable_values_skip_the_scan_only_when_printable(
    odd: int, length: int
) -> None:
    # Printable ASCII (0x20-0x7E, both ends included) is valid under every policy; a
    # value with one byte outside it, at any of the 8 positions of a word or in the
    # tail, is judged by the scan (controls refused under CONTROLS_OFF, a lone
    # 0x80 or 0xC3 ill-formed everywhere).
    for position in {0, length // 2, length - 1, min(7, length - 1)}:
        value = bytearray(b"\x20\x7e" * length)[:length]
        assert scan(headers=[(b"x", bytes(value))], config=CONTROLS_OFF) == CLEAN
        value[position] = odd
        for config in (DEFAULT, CONTROLS_OFF):
            scan(headers=[(b"x", bytes(value))], config=config)  # both twins agree
        if odd != 0x09:  # HTAB is allowed in a field value (RFC 9110 §5.5)
            refused = scan(headers=[(b"x", bytes(value))], config=CONTROLS_OFF)
            assert refused == DECLINED


def test_a_policy_subclass_is_read_where_python_reads_it() -> None:
    # Not exactly a Policy: no shortcut leaves it unread (its attributes could run
    # code), so the answers stay py_scan_head's.
    class Custom(Policy):
        pass

    custom = Custom()
    path, query, _, _ = POLICIES[0]
    assert both(b"/a", None, b"", [(b"a", b"b")], path, query, custom, True) == CLEAN
    assert (
        both(b"/a", None, b"", [(b"a", b"\x00")], path, query, custom, True)[0]
        == "returned"
    )


def test_an_empty_name_is_declined_before_the_policy_is_read() -> None:
    # A fuzz finding (fuzz_fastlane, fuzz_lane): the Python twin once read the header
    # policy before it declined an empty name (no token, RFC 9110 §5.1), and raised
    # for a policy that is no Policy where the C twin declined.
    path, query, _, _ = POLICIES[0]
    bad = object()
    for headers in ([(b"", b"x")], [(b"a", b"b"), (b"", b"x")], [(b"", b"")]):
        assert both(b"/a", None, b"", headers, path, query, bad, True) == DECLINED
