"""The clean-head fast path agrees with the full inspection (``inspect_head``).

The oracle is ``inspect_head`` itself: the fast path may only say "clean" for a head
in which the full inspection finds nothing, and for the ordinary heads it is built
for (a raw target, no dot segment, no escape of a delimiter) it must say so.
"""

from __future__ import annotations

import itertools
import re
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard import Policy, is_valid
from utf8guard._policy import FLAGS
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.engine._engine import check_head
from utf8guard.middleware.engine._finding import RequestSummary
from utf8guard.middleware.head import _clean
from utf8guard.middleware.head._abnf import PRINTABLE
from utf8guard.middleware.head._clean import OnceFields, is_clean_head
from utf8guard.middleware.head._percent import strict_unquote
from utf8guard.middleware.head._request import RequestHead, inspect_head

CONFIGS = [
    GuardConfig(),
    GuardConfig(allow_lookalike_separators=True),
    GuardConfig(allow_encoded_separators=True, skip_headers=["cookie", "x-raw"]),
    GuardConfig(policy=Policy(allow_controls=False, allow_private_use=False)),
]
GET_HEADERS = (
    (b"host", b"127.0.0.1"),
    (b"user-agent", b"bench/1.0"),
    (b"accept-language", b"de-CH,de;q=0.9"),
    (b"cookie", b"session=abc123; theme=dark"),
)


def _head(
    raw_path: bytes | None = b"/api/caf%C3%A9/items",
    query: bytes = b"page=2&q=caf%C3%A9+x&sort=name",
    headers: tuple[tuple[bytes, bytes], ...] = GET_HEADERS,
    app_path: bytes | None = None,
) -> RequestHead:
    return RequestHead(
        path="/", raw_path=raw_path, query_string=query, headers=headers,
        app_path=app_path,
    )  # fmt: skip


def _finds_nothing(head: RequestHead, config: GuardConfig) -> bool:
    return next(inspect_head(head, config), None) is None


CLEAN = [
    ("get", _head()),
    ("no-query-no-headers", _head(b"/", b"", ())),
    ("plain-ascii", _head(b"/a/b.txt", b"a=1&b", ((b"accept", b"*/*"),))),
    ("wsgi-app-path-same", _head(app_path="/api/café/items".encode())),
    ("utf8-header", _head(headers=((b"x-name", "café".encode()),))),
    ("two-cookies-apart", _head(headers=((b"Cookie", b"a=1"), (b"host", b"h")))),
    # RFC 9110 §5.3: a field may come in several lines; only some names may not.
    ("repeated-field",
     _head(headers=((b"accept", b"a/b"), (b"Accept", b"*/*"), (b"host", b"h")))),
]  # fmt: skip


@pytest.mark.parametrize(("case", "head"), CLEAN, ids=[c[0] for c in CLEAN])
def test_clean_heads_take_the_fast_path(case: str, head: RequestHead) -> None:
    config = GuardConfig()
    assert _finds_nothing(head, config)
    assert is_clean_head(head, config)


#: Heads the full inspection refuses, one per rule; the fast path must decline each.
REFUSED = [
    ("raw-non-ascii", _head(raw_path="/é".encode())),
    ("encoded-dot-segment", _head(raw_path=b"/a/%2e%2E/b")),
    ("encoded-slash", _head(raw_path=b"/a%2Fb")),
    ("encoded-backslash", _head(raw_path=b"/a%5cb")),
    ("backslash-dot", _head(raw_path=b"/a\\..\\b")),
    ("dot-param", _head(raw_path=b"/..;/admin")),
    ("malformed-path-escape", _head(raw_path=b"/a%G0")),
    ("truncated-path-escape", _head(raw_path=b"/a%4")),
    ("iis-escape", _head(raw_path=b"/a%u002e")),
    ("double-encoding", _head(raw_path=b"/a%252e")),
    ("decoded-lf", _head(raw_path=b"/a%0Ab")),
    ("decoded-tab", _head(raw_path=b"/a%09b")),
    ("overlong", _head(raw_path=b"/etc%C0%AFpasswd")),
    ("path-nul", _head(raw_path=b"/a%00")),
    ("lookalike", _head(raw_path=b"/a%EF%BC%8F..")),
    ("app-path-invalid", _head(app_path=b"/api/caf\xc0/items")),
    ("query-non-ascii", _head(query="q=é".encode())),
    ("query-malformed", _head(query=b"q=%zz")),
    ("query-invalid", _head(query=b"q=%C0%AF")),
    ("query-double", _head(query=b"q=%25C0%25AF")),
    ("header-name", _head(headers=((b"bad name", b"v"),))),
    ("header-empty-name", _head(headers=((b"", b"v"), (b"a", b"b")))),
    # a lone empty name once passed the joined-names check (found by Hypothesis)
    ("header-lone-empty-name", _head(headers=((b"", b""),))),
    ("header-cr", _head(headers=((b"x-a", b"a\rb"),))),
    ("header-nul", _head(headers=((b"x-a", b"a\x00b"),))),
    # RFC 9110 §5.5: no CTL but HTAB in field-content
    ("header-control", _head(headers=((b"x-a", b"a\x01"), (b"x-b", b"\x7f")))),
    ("header-esc", _head(headers=((b"user-agent", b"a\x1b[31m"),))),
    ("header-c1", _head(headers=((b"x-a", "\x85".encode()),))),
    ("header-invalid", _head(headers=((b"x-a", b"\xc0\xaf"),))),
    ("two-hosts", _head(headers=((b"host", b"a"), (b"Host", b"b")))),
    ("joined-hosts", _head(headers=((b"host", b"a,b"),))),
    ("joined-hosts-beside-repeated",
     _head(headers=((b"accept", b"a"), (b"accept", b"b"), (b"host", b"a,b")))),
    ("cookie-octal", _head(headers=((b"cookie", b'a="\\300\\257"'),))),
    ("cookie-tab", _head(headers=((b"cookie", b"a=\tb"),))),
    ("cookie-control", _head(headers=((b"cookie", b"a=\x01"),))),
    ("cookie-nul", _head(headers=((b"cookie", b"a=\x00"),))),
]  # fmt: skip


@pytest.mark.parametrize(("case", "head"), REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_heads_take_the_full_inspection(case: str, head: RequestHead) -> None:
    config = GuardConfig()
    assert not _finds_nothing(head, config)
    assert not is_clean_head(head, config)


#: Clean heads the fast path leaves to the full inspection: a cost, not an error.
DECLINED = [
    ("no-raw-target", _head(raw_path=None)),
    ("app-path-differs", _head(app_path="/api/caf\ufffd/items".encode())),
    ("lone-percent-decoded", _head(raw_path=b"/100%25")),
    ("plain-dot-segment", _head(raw_path=b"/a/./b")),
    ("escaped-url-in-query", _head(query=b"next=%2Fa%2520b")),
    ("cookies-in-two-fields", _head(headers=((b"cookie", b"a=1"), (b"cookie", b"b")))),
]


@pytest.mark.parametrize(("case", "head"), DECLINED, ids=[c[0] for c in DECLINED])
def test_declined_heads_are_clean_all_the_same(case: str, head: RequestHead) -> None:
    config = GuardConfig()
    assert not is_clean_head(head, config)
    assert _finds_nothing(head, config)


def test_lookalike_allowed_by_config_is_clean() -> None:
    head = _head(raw_path=b"/a%EF%BC%8Fb")
    config = GuardConfig(allow_lookalike_separators=True)
    assert is_clean_head(head, config)
    assert _finds_nothing(head, config)


# Hypothesis: heads built from the bytes the rules are about, spliced into text.
_PATH_PIECES = st.sampled_from(
    [b"/", b"a", b".", b"..", b"%", b"%2e", b"%2F", b"%5c", b"%25", b"%C3%A9",
     b"%C0%AF", b"%EF%BC%8F", b"%0a", b"%09", b"%00", b"%7f", b"%4", b"%g1",
     b"%u002e", b"\\", b";", b"\xc3\xa9", b"\t", b"%E2%80%AE", b"%EF%BF%BE"]
)  # fmt: skip
_QUERY_PIECES = st.sampled_from(
    [b"a", b"=", b"&", b"+", b"%", b"%41", b"%25", b"%25C0", b"%C3%A9", b"%C0",
     b"%zz", b"\xff", b"\x7f", b"%2F", b"%00", b"%E2%80%AE"]
)  # fmt: skip
_NAMES = st.sampled_from(
    [b"host", b"Host", b"cookie", b"x-raw", b"accept", b"bad name", b"", b"x\xe9"]
)
_VALUE_PIECES = st.sampled_from(
    [b"a", b" ", b",", b"\\", b"\\303", b"\\001", b"\t", b"\r", b"\n", b"\x00",
     b"\x01", b"\x7f", "é".encode(), b"\xc3", b"\xa9", b"\xef\xbf\xbe", b'"',
     b"\xc2\x85"]
)  # fmt: skip


def _joined(pieces: st.SearchStrategy[bytes], size: int) -> st.SearchStrategy[bytes]:
    return st.lists(pieces, max_size=size).map(b"".join)


heads = st.builds(
    _head,
    raw_path=st.one_of(st.none(), _joined(_PATH_PIECES, 8)),
    query=_joined(_QUERY_PIECES, 8),
    headers=st.lists(st.tuples(_NAMES, _joined(_VALUE_PIECES, 5)), max_size=4).map(
        tuple
    ),
)


@settings(max_examples=600, deadline=None)
@given(heads, st.sampled_from(CONFIGS))
def test_fast_path_clean_only_when_inspection_finds_nothing(
    head: RequestHead, config: GuardConfig
) -> None:
    fast = is_clean_head(head, config)
    if fast:
        assert _finds_nothing(head, config)
    elif _finds_nothing(head, config):
        # Only the heads the fast path is documented to leave to the slow one.
        assert _is_declined(head)


# Unicode ch. 23.1: C0 but TAB, LF, CR (and NUL, refused in any header), DEL, C1.
_CONTROL = re.compile(rb"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]")


def _is_declined(head: RequestHead) -> bool:
    """A clean head the fast path may decline (see ``_clean``'s docstring)."""
    raw = head.raw_path
    if raw is None:
        return True
    lowered = raw.lower()
    dot_segment = raw.startswith(b".") or b"/." in raw or b"\\." in raw
    escapes = b"%2e" in lowered or b"%2f" in lowered or b"%5c" in lowered
    decoded_query = unquote_to_bytes(head.query_string.replace(b"+", b" "))
    decoded_path = unquote_to_bytes(raw)
    names = [name.lower() for name, _ in head.headers]
    return (
        dot_segment
        or escapes
        or b"%" in decoded_query
        or b"%" in decoded_path
        or (head.app_path is not None and head.app_path != decoded_path)
        or names.count(b"cookie") > 1
        # Controls and NUL are refused in cookies only; elsewhere the slow way.
        or any(_CONTROL.search(value) for _, value in head.headers)
        # Skipped headers are not inspected, but the fast path checks them all.
        or any(name in (b"cookie", b"x-raw") for name in names)
    )


def _has_malformed_escape(raw: bytes) -> bool:
    """RFC 3986 §2.1, by hand: some "%" not followed by two hex digits."""
    hexdig = b"0123456789abcdefABCDEF"
    return any(
        byte == ord("%")
        and not (
            index + 2 < len(raw)
            and raw[index + 1] in hexdig
            and raw[index + 2] in hexdig
        )
        for index, byte in enumerate(raw)
    )


@given(st.binary(max_size=12) | _joined(_QUERY_PIECES, 6))
def test_strict_unquote_decodes_as_unquote_or_refuses(raw: bytes) -> None:
    decoded = strict_unquote(raw)
    if _has_malformed_escape(raw):
        assert decoded is None
    else:
        assert decoded == unquote_to_bytes(raw)


def test_strict_unquote_needs_two_hex_digits() -> None:
    assert strict_unquote(b"%4") is None
    assert strict_unquote(b"%41%") is None
    assert strict_unquote(b"%%41") is None
    assert strict_unquote(b"%aF%Af") == b"\xaf\xaf"
    assert strict_unquote(b"") == b""


def test_strict_unquote_keeps_backslashes() -> None:
    # RFC 3986 §2.1: only "%" escapes; a backslash, "\x41" and "%5C%78%34%31" are data.
    assert strict_unquote(b"\\") == b"\\"
    assert strict_unquote(b"\\x41%41") == b"\\x41A"
    assert strict_unquote(b"a\\%41\\\\") == b"a\\A\\\\"
    assert strict_unquote(b"%5C%78%34%31") == b"\\x41"
    assert strict_unquote(b"\\%4") is None


def test_summary_built_only_when_reported() -> None:
    calls: list[int] = []

    def summary() -> RequestSummary:
        calls.append(1)
        return RequestSummary(method="GET", path="/x")

    config = GuardConfig()
    clean = check_head(_head(), config, "http", summary)
    assert clean.problem is None
    assert calls == []
    refused = check_head(_head(raw_path=b"/%C0%AF"), config, "http", summary)
    assert refused.problem is not None
    assert refused.report.request.path == "/x"
    assert calls == [1]  # built once, however often it is read


def _scan(
    headers: object, raw_path: object = b"/caf%C3%A9", lookalike: bool = True
) -> object:
    config = GuardConfig()
    policies = config.effective_path_policy, config.policy, config.header_policy
    return _clean.scan_head(raw_path, None, b"q=1", headers, *policies, lookalike)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "headers",
    [
        None,
        b"host: x",
        [(b"host", b"x", b"y")],
        [(b"host",)],
        [("host", b"x")],
        [(b"host", "x")],
        [bytearray(b"host"), b"x"],
        [(b"content-length", b"1"), (b"Content-Length", b"1")],
        [(b"content-type", b"a/b"), (b"CONTENT-TYPE", b"a/b")],
        [(b"transfer-encoding", b"chunked")],
        [(b"content-encoding", b"identity")],
    ],
    ids=repr,
)
def test_shapes_and_framing_the_scan_leaves_to_the_full_check(headers: object) -> None:
    """Odd header shapes are refused by the full check (``RequestHead`` takes pairs
    of bytes only); repeated framing fields and codings are weighed by it."""
    assert _scan(headers) is None


def test_scan_returns_the_framing_fields_of_a_clean_head() -> None:
    headers = [[b"Content-Type", b"application/json"], (b"content-length", b"12")]
    fields = _scan(headers)
    assert isinstance(fields, OnceFields)
    assert fields.content_length == b"12"
    assert fields.content_type == b"application/json"
    assert _scan([]) == OnceFields(None, None)
    assert _scan((), raw_path=b"/plain") == OnceFields(None, None)
    assert _scan((), raw_path="/str") is None


@pytest.mark.parametrize(
    "raw_path", [b"/a%EF%BC%8Fb", b"/a%E2%88%95b", b"/a%EF%BC%BCb", b"/caf%C3%A9"]
)
def test_the_scan_applies_the_lookalike_rule_when_asked(raw_path: bytes) -> None:
    """``lookalike`` is the config's look-alike rule: the scan refuses what the full
    check refuses under each setting (U+FF0F, U+2215, U+FF3C look like "/" or "\\",
    UTS #39 confusables; "é" does not)."""
    for allowed in (False, True):
        config = GuardConfig(allow_lookalike_separators=allowed)
        refused = not _finds_nothing(_head(raw_path=raw_path), config)
        assert refused is (raw_path != b"/caf%C3%A9" and not allowed)
        assert (_scan((), raw_path, lookalike=not allowed) is None) is refused


def test_every_policy_allows_printable_ascii() -> None:
    # clean_headers lets printable values (RFC 5234 SP and VCHAR) skip is_valid
    # under any Policy: each flag refuses only NUL, controls, DEL or non-ASCII. A new
    # flag must be weighed there first.
    names = FLAGS
    assert len(names) == 6
    assert PRINTABLE == bytes(range(0x20, 0x7F))
    for flags in itertools.product([False, True], repeat=len(names)):
        policy = Policy(**dict(zip(names, flags, strict=True)))
        assert is_valid(PRINTABLE, policy)
