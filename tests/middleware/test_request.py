"""Path, query and header rules of the engine, one vector per rule."""

from __future__ import annotations

import unicodedata

import pytest

from utf8guard import Kind, Policy
from utf8guard._pathrules import LOOKALIKE_SEPARATORS
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.engine._finding import Finding, Location, RequestKind
from utf8guard.middleware.head._request import RequestHead, normalize_head
from utf8guard.middleware.head._request import (
    inspect_head as iter_findings,
)

STRICT_CONFIG = GuardConfig()
R = RequestKind


def inspect_head(found: RequestHead, config: GuardConfig) -> list[Finding]:
    """All findings, as a list (the engine itself keeps only the first few)."""
    return list(iter_findings(found, config))


def head(
    raw_path: bytes | None = b"/",
    query: bytes = b"",
    headers: tuple[tuple[bytes, bytes], ...] = (),
    path: str = "/",
) -> RequestHead:
    return RequestHead(
        path=path, raw_path=raw_path, query_string=query, headers=headers
    )


def kinds(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(finding.kind.value, finding.offset) for finding in findings]


PATH_CASES = [
    # (id, raw path, [(kind, raw offset)]); source in the comment
    ("ascii", b"/a/b.txt", []),
    # #8 (issue 11): RFC 9112 §3.2, the target is ASCII; raw bytes over 0x7F are
    # refused once, at the first, whatever they are
    ("utf8-raw", "/ä/€/𝄞".encode(), [("non_ascii_target", 1)]),
    ("utf8-escaped", b"/%C3%A4/%E2%82%AC/%F0%9D%84%9E", []),
    # Table 3-7: C0 is never a lead; AF then stands alone (the classic %C0%AF "/")
    (
        "overlong-c0af",
        b"/etc%C0%AFpasswd",
        [("overlong", 4), ("unexpected_continuation", 7)],
    ),
    (
        "surrogate-escaped",
        b"/%ED%A0%80",
        [
            ("surrogate", 1),
            ("unexpected_continuation", 4),
            ("unexpected_continuation", 7),
        ],
    ),
    ("raw-invalid-byte", b"/a\xffb", [("non_ascii_target", 2), ("invalid_byte", 2)]),
    (
        "raw-overlong",
        b"/a\xc0\xafb",
        [
            ("non_ascii_target", 2),
            ("overlong", 2),
            ("unexpected_continuation", 3),
        ],
    ),
    ("nul", b"/a%00b", [("nul", 2)]),
    ("control", b"/a%01", [("control", 2)]),
    # F6 (issue 11): TAB, LF and CR, which a text policy allows, are refused in paths
    (
        "crlf-header-injection",
        b"/a%0D%0ASet-Cookie:%20evil=1",
        [("control", 2), ("control", 5)],
    ),
    ("tab", b"/a%09b", [("control", 2)]),
    ("lf-lower-case", b"/a%0ab", [("control", 2)]),
    ("del", b"/a%7Fb", [("control", 2)]),
    ("c1-nel", b"/a%C2%85b", [("control", 2)]),
    ("c0-escape", b"/a%1B[2J", [("control", 2)]),
    ("bidi-rlo", b"/a%E2%80%AEb", [("bidi_control", 2)]),
    ("noncharacter", b"/%EF%BF%BF", [("noncharacter", 1)]),
    ("malformed-escape", b"/%G0", [("malformed_escape", 1)]),
    ("trailing-percent", b"/a%", [("malformed_escape", 2)]),
    ("iis-escape", b"/%u002f", [("nonstandard_escape", 1)]),
    ("double-c0af", b"/%25C0%25AF", [("double_encoding", 1), ("double_encoding", 6)]),
    ("double-dot", b"/%252e", [("double_encoding", 1)]),
    # F4 (issue 11): the hex digits of the inner escape escaped themselves
    (
        "double-nibbles-dot",
        b"/static/%25%32%65%25%32%65/secret",
        [("double_encoding", 8), ("double_encoding", 17)],
    ),
    ("double-nibbles-slash", b"/a%25%32%46b", [("double_encoding", 2)]),
    (
        "double-nibbles-c0af",
        b"/%25%43%30%25%41%46",
        [("double_encoding", 1), ("double_encoding", 10)],
    ),
    ("double-one-nibble", b"/%252%65", [("double_encoding", 1)]),
    # a bare "%" before escaped digits: malformed now, an escape after one decode
    (
        "percent-then-nibbles",
        b"/%%32%65",
        [("malformed_escape", 1), ("double_encoding", 1)],
    ),
    ("percent-literal-then-text", b"/100%25-off%25", []),
    ("percent-before-non-hex-escape", b"/%25%47%30", []),
    ("percent-literal-ok", b"/100%25", []),
    ("encoded-slash", b"/a%2Fb", [("encoded_separator", 2)]),
    ("encoded-backslash", b"/a%5cb", [("encoded_separator", 2)]),
    ("encoded-dotdot", b"/%2e%2e/etc", [("encoded_dot_segment", 1)]),
    ("encoded-dot", b"/a/%2E/b", [("encoded_dot_segment", 3)]),
    ("half-encoded-dotdot", b"/.%2e/x", [("encoded_dot_segment", 1)]),
    ("literal-dots-left-to-server", b"/a/../b", []),
    # F13 (issue 11): dot segments delimited by "\\" or carrying a ";" parameter
    (
        "encoded-dotdot-backslash",
        b"/static/%2e%2e\\secret",
        [("encoded_dot_segment", 8)],
    ),
    (
        "encoded-dotdot-semicolon",
        b"/static/%2e%2e;/secret",
        [("encoded_dot_segment", 8)],
    ),
    ("encoded-dot-encoded-semicolon", b"/a/%2e%3Bx", [("encoded_dot_segment", 3)]),
    ("after-backslash", b"/a\\%2e%2e/b", [("encoded_dot_segment", 3)]),
    ("plain-dotdot-semicolon", b"/static/..;/secret", [("ambiguous_dot_segment", 8)]),
    ("plain-dotdot-params", b"/a/..;jsessionid=1/b", [("ambiguous_dot_segment", 3)]),
    ("plain-dotdot-backslash", b"/static/..\\secret", [("ambiguous_dot_segment", 8)]),
    ("plain-dot-backslash-end", b"/a\\.", [("ambiguous_dot_segment", 3)]),
    (
        "plain-dotdot-between-encoded-slashes",
        b"/a%2F..%2Fb",
        [
            ("encoded_separator", 2),
            ("ambiguous_dot_segment", 5),
            ("encoded_separator", 7),
        ],
    ),
    ("dots-in-names-stay", b"/a..;b/.x;/..a\\b/v1.2;x", []),
    ("literal-dots-beside-escapes", b"/./a/../b%20c/...%2e", []),
    ("fullwidth-solidus", b"/a%EF%BC%8Fb", [("lookalike_separator", 2)]),
    ("division-slash", b"/a%E2%88%95b", [("lookalike_separator", 2)]),
    ("fraction-slash", b"/a%E2%81%84b", [("lookalike_separator", 2)]),
    (
        "fullwidth-dot",
        b"/%EF%BC%8E%EF%BC%8E/x",
        [("lookalike_separator", 1), ("lookalike_separator", 10)],
    ),
    ("two-dot-leader", b"/%E2%80%A5/x", [("lookalike_separator", 1)]),
    (
        "lookalike-after-invalid",
        b"/%FF%EF%BC%8F",
        [("invalid_byte", 1), ("lookalike_separator", 4)],
    ),
]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [case[1:] for case in PATH_CASES],
    ids=[case[0] for case in PATH_CASES],
)
def test_path_rules(raw: bytes, expected: list[tuple[str, int]]) -> None:
    findings = inspect_head(head(raw), STRICT_CONFIG)
    assert kinds(findings) == expected
    assert all(finding.location is Location.PATH for finding in findings)


def test_stray_percent_in_a_path_known_only_decoded() -> None:
    # wsgiref leaves the malformed "%u002f" in PATH_INFO; IIS would decode it to "/".
    found = head(raw_path=None, path="/a%u002fb/%U2215/%u12/%G0/100%")
    assert kinds(inspect_head(found, STRICT_CONFIG)) == [
        ("nonstandard_escape", 2),
        ("nonstandard_escape", 10),
        ("nonstandard_escape", 17),
        ("malformed_escape", 22),
        ("malformed_escape", 29),
    ]


def test_line_controls_block_in_normalize_mode() -> None:
    # A repair keeps TAB, LF and CR (they are text), so they cannot be fixed.
    findings = inspect_head(head(b"/a%0D%0A%FF"), GuardConfig(mode="normalize"))
    assert [(f.kind, f.fixable) for f in findings] == [
        (Kind.CONTROL, False),
        (Kind.CONTROL, False),
        (Kind.INVALID_BYTE, True),
    ]
    lax = GuardConfig(path_policy=Policy(allow_controls=True))
    assert kinds(inspect_head(head(raw_path=None, path="/a\r\n"), lax)) == [
        ("control", 2),
        ("control", 3),
    ]


def test_dot_segments_in_a_path_known_only_decoded() -> None:
    # Without a raw target even a plain "/../" may have been "%2e%2e": all refused.
    found = head(raw_path=None, path="/static/..\\secret/..;/x/../y/..z\\.")
    assert kinds(inspect_head(found, STRICT_CONFIG)) == [
        ("ambiguous_dot_segment", 8),
        ("ambiguous_dot_segment", 18),
        ("ambiguous_dot_segment", 24),
        ("ambiguous_dot_segment", 33),
    ]


def test_path_options_allow_separators_and_lookalikes() -> None:
    config = GuardConfig(allow_encoded_separators=True, allow_lookalike_separators=True)
    assert inspect_head(head(b"/a%2Fb%EF%BC%8F"), config) == []
    # allowing encoded separators does not allow a dot segment between them
    assert kinds(inspect_head(head(b"/a%2F..%2Fb"), config)) == [
        ("ambiguous_dot_segment", 5)
    ]


def test_path_policy_is_at_least_identifier() -> None:
    lax = Policy(allow_noncharacters=True)
    config = GuardConfig(path_policy=lax)
    assert kinds(inspect_head(head(b"/%EF%BF%BF%00"), config)) == [("nul", 10)]


def test_path_without_raw_path_checks_the_decoded_path() -> None:
    # the server decoded once: "%2F" left in its path was "%252F" on the wire
    lone = head(raw_path=None, path="/a\udcff/b%2F")
    assert kinds(inspect_head(lone, STRICT_CONFIG)) == [
        ("double_encoding", 7),
        ("surrogate", 2),
        ("unexpected_continuation", 3),
        ("unexpected_continuation", 4),
    ]
    lookalike = head(raw_path=None, path="/a\uff0f")
    assert kinds(inspect_head(lookalike, STRICT_CONFIG)) == [("lookalike_separator", 2)]


def test_lookalike_table_holds_every_nfkc_separator() -> None:
    # UAX #15: any code point whose NFKC form has "/", "\\" or "." must be listed.
    listed = {cp for lo, hi in LOOKALIKE_SEPARATORS for cp in range(lo, hi + 1)}
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        folded = unicodedata.normalize("NFKC", chr(cp))
        if any(separator in folded for separator in "/\\."):
            assert cp in listed, f"U+{cp:04X}"


QUERY_CASES = [
    ("empty", b"", []),
    ("valid", b"a=1&b=%C3%A4&c=%E2%82%AC&d=%F0%9D%84%9E", []),
    ("raw-utf8", "a=1&b=ä".encode(), [(None, "non_ascii_target", 6)]),
    ("plus-space", b"a+b=c+d", []),
    (
        "value-overlong",
        b"a=1&q=%C0%AF",
        [("q", "overlong", 6), ("q", "unexpected_continuation", 9)],
    ),
    ("name-invalid", b"%FF=1", [(None, "invalid_byte", 0)]),
    (
        "raw-byte",
        b"q=\xed\xa0\x80",
        [
            (None, "non_ascii_target", 2),
            ("q", "surrogate", 2),
            ("q", "unexpected_continuation", 3),
            ("q", "unexpected_continuation", 4),
        ],
    ),
    ("malformed", b"q=%G", [("q", "malformed_escape", 2)]),
    ("iis", b"q=%u0041", [("q", "nonstandard_escape", 2)]),
    ("unsafe-name-hidden", b"a%20b=%FF", [(None, "invalid_byte", 6)]),
    ("no-equals", b"flag&x=%FF", [("x", "invalid_byte", 7)]),
    ("noncharacter", b"q=%EF%BF%BE", [("q", "noncharacter", 2)]),
    # A second decode (an app unquoting a value again) must not yield what the guard
    # would have refused; escaped URLs that decode to valid text stay legitimate.
    ("nested-url", b"next=https%3A%2F%2Fh%2Fa%2520b%3Fq%3D%25C3%25A9", []),
    ("literal-percent", b"q=100%25+off&r=%2541", []),
    ("double-c0af", b"x=%25C0%25AF", [("x", "double_encoding", 2)]),
    ("double-nibbles", b"x=%25%43%30%25%41%46", [("x", "double_encoding", 2)]),
    ("double-noncharacter", b"q=%25EF%25BF%25BE", [("q", "double_encoding", 2)]),
    ("double-after-text", b"q=ab%25FF", [("q", "double_encoding", 4)]),
    ("double-in-name", b"%25FF=1", [(None, "double_encoding", 0)]),
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [case[1:] for case in QUERY_CASES],
    ids=[case[0] for case in QUERY_CASES],
)
def test_query_rules(query: bytes, expected: list[tuple[str | None, str, int]]) -> None:
    findings = inspect_head(head(query=query), STRICT_CONFIG)
    assert [(f.name, f.kind.value, f.offset) for f in findings] == expected
    assert all(finding.location is Location.QUERY for finding in findings)


HEADER_CASES = [
    ("valid", ((b"x-name", "ä€𝄞".encode()),), []),
    ("obs-text-latin1", ((b"x-name", b"caf\xe9"),), [("x-name", "truncated", 3)]),
    (
        "surrogate",
        ((b"x-a", b"\xed\xa0"),),
        [("x-a", "surrogate", 0), ("x-a", "unexpected_continuation", 1)],
    ),
    ("bad-name", ((b"x name", b"v"),), [(None, "invalid_header_name", 0)]),
    ("empty-name", ((b"", b"v"),), [(None, "invalid_header_name", 0)]),
    ("skipped-cookie", ((b"cookie", b"\xff"),), [(None, "invalid_byte", 0)]),
    # RFC 9110 §5.5: CR, LF, NUL in a value (obs-fold a server passed on as is)
    (
        "obs-fold-crlf",
        ((b"x-a", b"a\r\n b"),),
        [("x-a", "control", 1), ("x-a", "control", 2)],
    ),
    ("nul-in-value", ((b"x-a", b"a\x00"),), [("x-a", "nul", 1)]),
    ("tab-allowed", ((b"x-a", b"a\tb"),), []),
    # RFC 9112 §3.2: more than one Host field line is a 400
    (
        "duplicate-host",
        ((b"host", b"a.example"), (b"Host", b"b.example")),
        [("host", "duplicate_header", 0)],
    ),
    (
        "folded-host",
        ((b"host", b"a.example,b.example"),),
        [("host", "duplicate_header", 0)],
    ),
]


@pytest.mark.parametrize(
    ("headers", "expected"),
    [case[1:] for case in HEADER_CASES],
    ids=[case[0] for case in HEADER_CASES],
)
def test_header_rules(
    headers: tuple[tuple[bytes, bytes], ...],
    expected: list[tuple[str | None, str, int]],
) -> None:
    findings = inspect_head(head(headers=headers), STRICT_CONFIG)
    got = [(f.name, f.kind.value, f.offset) for f in findings]
    if headers[0][0] == b"cookie":
        assert got == [("cookie", "invalid_byte", 0)]
        skipping = GuardConfig(skip_headers=["Cookie"])
        assert inspect_head(head(headers=headers), skipping) == []
        return
    assert got == expected


def test_findings_are_fixable_only_for_utf8() -> None:
    findings = inspect_head(head(b"/%C0%2F"), STRICT_CONFIG)
    assert [(f.kind, f.fixable) for f in findings] == [
        (R.ENCODED_SEPARATOR, False),
        (Kind.OVERLONG, True),
    ]


def test_normalize_head_repairs_and_reencodes() -> None:
    original = head(
        raw_path=b"/a%C0b/%E2%82%AC",
        query=b"q=%FF&r=\xc3\xa4+x&flag",
        headers=((b"x-a", b"\xff"), (b"cookie", b"\xfe")),
    )
    config = GuardConfig(mode="normalize", skip_headers=["cookie"])
    fixed = normalize_head(original, config)
    assert fixed.path == "/a\ufffdb/€"
    assert fixed.raw_path == b"/a%EF%BF%BDb/%E2%82%AC"
    assert fixed.query_string == b"q=%EF%BF%BD&r=%C3%A4+x&flag="
    assert fixed.headers == ((b"x-a", b"\xef\xbf\xbd"), (b"cookie", b"\xfe"))
    assert inspect_head(fixed, config) == []


def test_normalize_keeps_allowed_encoded_separators_encoded() -> None:
    # F14 (issue 11): RFC 3986 §2.2, %2F is data; it must not become a separator.
    config = GuardConfig(mode="normalize", allow_encoded_separators=True)
    fixed = normalize_head(head(b"/a%2Fb%FF%5c%C3%A4/c%2f"), config)
    assert fixed.raw_path == b"/a%2Fb%EF%BF%BD%5c%C3%A4/c%2f"
    # the app's decoded path is that raw path decoded, as a server would
    assert fixed.path == "/a/b\ufffd\\ä/c/"
    assert inspect_head(fixed, config) == []


def test_normalize_head_without_raw_path_or_query() -> None:
    fixed = normalize_head(head(raw_path=None, path="/\udcff"), STRICT_CONFIG)
    assert (fixed.path, fixed.raw_path, fixed.query_string) == (
        "/\ufffd\ufffd\ufffd",
        b"/%EF%BF%BD%EF%BF%BD%EF%BF%BD",
        b"",
    )
