# ruff: noqa: E501  # a table of data: one request per line reads best
"""HTTP/2-only rows (RFC 9113): what a client can send over h2c and not over HTTP/1.1.

Every other row that has an HTTP/2 form goes to the h2c stacks too (h2c.py); these
have no HTTP/1.1 form. HPACK (RFC 7541) codes each field: the h2 client Huffman-codes
every literal (§5.2), a field repeated in one block is an index into the dynamic
table (§2.3.2), a sensitive one a never-indexed literal (§6.2.3). The target is the
``:path`` pseudo-header (RFC 9113 §8.3.1), which no request line frames: raw bytes,
an absolute form, two of them, one after a regular field. Each refuse row hides an
overlong "/" (C0 AF: "À¯" to a Latin-1 reader) or U+FFFE where one of these codings
or forms carries it; servers may refuse malformed ones themselves (§8.1.1).
"""

from __future__ import annotations

from typing import Final

from hpack import NeverIndexedHeaderTuple

from .rows import Expect, H2Fields, Row

_OVERLONG: Final = "À¯"  # C0 AF (Unicode Table 3-7: never valid) read as Latin-1


def _head(path: bytes = b"/h2") -> H2Fields:
    """The pseudo-header fields of a GET (RFC 9113 §8.3.1), ``path`` as ``:path``."""
    return (
        (b":method", b"GET"),
        (b":scheme", b"http"),
        (b":authority", b"t"),
        (b":path", path),
    )


def _refuse(id: str, fields: H2Fields, *forbidden: str) -> Row:
    return Row(id, b"", Expect.REFUSE, forbidden or (_OVERLONG,), h2=(fields, b""))


_PSEUDO: Final = _head()[:3]

ATTACKS: Final = (
    # RFC 7541 §5.2 Huffman literal, §6.2.3 never indexed, §2.3.2 dynamic table index.
    _refuse("h2-hpack-huffman-value-overlong", (*_head(), (b"x-name", b"x\xc0\xaf"))),
    _refuse("h2-hpack-never-indexed-value-overlong", (*_head(), NeverIndexedHeaderTuple(b"x-name", b"x\xc0\xaf"))),
    _refuse("h2-hpack-indexed-repeat-noncharacter", (*_head(), (b"x-a", b"\xef\xbf\xbe"), (b"x-a", b"\xef\xbf\xbe")), "\ufffe"),
    _refuse("h2-hpack-user-agent-overlong", (*_head(), (b"user-agent", b"x\xc0\xaf"))),
    _refuse("h2-header-name-overlong", (*_head(), (b"x-\xc0\xaf", b"1"))),
    _refuse("h2-header-name-uppercase", (*_head(), (b"X-Name", b"x\xc0\xaf"))),
    # RFC 9113 §8.2.1: CR, LF and NUL make a request malformed; §8.2.2: no Connection.
    _refuse("h2-header-value-crlf", (*_head(), (b"x-a", b"1\r\nx-b: \xc0\xaf"))),
    _refuse("h2-header-value-nul", (*_head(), (b"x-a", b"a\x00b")), "a\x00b"),
    # RFC 9113 §8.2.3: a cookie may come as several fields ("crumbs").
    _refuse("h2-cookie-crumb-second-raw-overlong", (*_head(), (b"cookie", b"a=1"), (b"cookie", b"b=x\xc0\xaf"))),
    _refuse("h2-cookie-crumb-second-percent-overlong", (*_head(), (b"cookie", b"a=1"), (b"cookie", b"b=%C0%AF"))),
    _refuse("h2-cookie-crumb-second-noncharacter", (*_head(), (b"cookie", b"a=1"), (b"cookie", b"b=%EF%BF%BE")), "\ufffe"),
    # RFC 9113 §8.3.1: :path is an origin form (or "*"); no request line frames it.
    _refuse("h2-path-raw-overlong", _head(b"/h2/\xc0\xaf")),
    _refuse("h2-path-raw-noncharacter", _head(b"/h2/\xef\xbf\xbe"), "\ufffe"),
    _refuse("h2-path-absolute-form-overlong", _head(b"http://t/h2/%C0%AF")),
    _refuse("h2-path-no-slash-overlong", _head(b"h2/%C0%AF")),
    # RFC 9113 §8.3.1: no fragment in :path; Granian drops it, Hypercorn refuses.
    Row("h2-path-fragment-overlong", b"", Expect.EITHER, (_OVERLONG,), h2=(_head(b"/h2#%C0%AF"), b"")),
    _refuse("h2-path-query-raw-overlong", _head(b"/h2?q=\xc0\xaf")),
    _refuse("h2-path-twice-second-overlong", (*_head(), (b":path", b"/h2/%C0%AF"))),
    _refuse("h2-path-twice-first-overlong", (*_head(b"/h2/%C0%AF"), (b":path", b"/h2"))),
    _refuse("h2-path-after-regular-field", (*_PSEUDO, (b"x-a", b"1"), (b":path", b"/h2/%C0%AF"))),
    _refuse("h2-authority-overlong", ((b":method", b"GET"), (b":scheme", b"http"), (b":authority", b"t\xc0\xaf"), (b":path", b"/h2"))),
    _refuse("h2-host-overlong-beside-authority", (*_head(), (b"host", b"t\xc0\xaf"))),
)  # fmt: skip

CONTROLS: Final = (
    Row("h2-control-path-query", b"", Expect.PASS, echo={"path": "/h2/café", "query": [["q", "€"]]}, h2=(_head(b"/h2/caf%C3%A9?q=%E2%82%AC"), b"")),
    Row("h2-control-cookie-crumbs", b"", Expect.PASS, h2=((*_head(), (b"cookie", b"lang=fr"), (b"cookie", b"name=caf%C3%A9")), b"")),
    Row("h2-control-never-indexed-unicode", b"", Expect.PASS, h2=((*_head(), NeverIndexedHeaderTuple(b"x-name", "𝄞 ä".encode())), b"")),
)  # fmt: skip

ROWS: Final[tuple[Row, ...]] = CONTROLS + ATTACKS
