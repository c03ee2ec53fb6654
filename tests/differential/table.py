# ruff: noqa: E501  # a table of data: one request per line reads best
"""The differential table: every raw request of issue 11 (F1-F14) and its variants.

Each row cites the finding, rule or RFC it tests. ``refuse`` rows must get a 4xx
(issue 11 says refuse them); ``control`` rows are valid and must pass with the
right echo on every stack; ``either`` rows may go either way, but never leak,
crash or hang. Every row is also judged by the generic checks in ``oracle.py``.
"""

from __future__ import annotations

from typing import Final

from .rows import (
    BINARY,
    CHUNKED,
    FORM,
    JSON,
    MULTIPART,
    TEXT,
    Expect,
    Headers,
    Row,
    chunks,
    get,
    http,
    multipart,
    part,
    post,
)

#: Issue 11 F1: 16384 escapes make 48 KiB, which froze uvicorn-httptools for 45 s.
ESCAPES: Final = 16384
#: Issue 11 F7: 4 MiB bodies, kept under the guard's default limit (4 MiB).
FORM_BYTES: Final = 4 * 1024 * 1024 - 1024
#: A PNG signature and IHDR start, then bytes that would be invalid as UTF-8.
PNG: Final = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\xff\xd8\xc0\xaf\xed\xa0\x80"
)
SCRIPT: Final = b"+ADw-script+AD4-"  # "<script>" in UTF-7 (RFC 2152)
#: The guard's default max_multipart_parts, Werkzeug's max_form_parts.
MULTIPART_PARTS: Final = 1000
#: About 2 MiB of the smallest parts RFC 7578 allows (bench/_shapes.py's tiny parts).
TINY_PARTS: Final = 2 * 1024 * 1024 // len(multipart(part(b'name="a"', b"x")))


def refuse(
    id: str,
    raw: bytes,
    *forbidden: str,
    blind_on: tuple[str, ...] = (),
    **fields: str,
) -> Row:
    """A row issue 11 says to refuse; ``fields``: echo field -> forbidden substring.

    ``blind_on``: stacks that decode what the rule needs before the guard runs.
    """
    return Row(
        id, raw, Expect.REFUSE, forbidden, tuple(fields.items()), blind_on=blind_on
    )


def either(id: str, raw: bytes, *forbidden: str, **echo: object) -> Row:
    """A row that may pass or be refused; ``echo`` must hold when it passes."""
    return Row(id, raw, Expect.EITHER, forbidden, echo=echo)


def control(id: str, raw: bytes, *, fffd_ok: bool = False, **echo: object) -> Row:
    """A valid request: 2xx with ``echo`` on every stack."""
    return Row(id, raw, Expect.PASS, echo=echo, fffd_ok=fffd_ok)


def _mp(*parts: bytes) -> bytes:
    return post(b"/upload", MULTIPART, multipart(*parts))


def _ctype(value: bytes) -> Headers:
    return ((b"Content-Type", value),)


_FILE = b'name="f"; filename='
_CD = b"Content-Disposition: form-data; "
_FFFE = b"\xef\xbf\xbe"  # U+FFFE, a noncharacter (Unicode ch. 23.7)
_EVIL = _CD + b'name="evil"\r\n\r\n' + _FFFE  # a part a lenient parser would read
_SURROGATE_JSON = b'{"a": "\\ud800"}'  # RFC 8259 §8.2: a lone surrogate escape

CONTROLS: Final = (
    control(
        "clean-path-query",
        get(b"/ctl/caf%C3%A9/%E2%82%AC?q=%F0%9D%84%9E&r=a+b"),
        path="/ctl/café/€",
        query=[["q", "𝄞"], ["r", "a b"]],
    ),
    control(
        "clean-form",
        post(b"/ctl/form", FORM, b"a=%C3%A9t%C3%A9&b=%E2%82%AC&c=x+y"),
        form=[["a", "été"], ["b", "€"], ["c", "x y"]],
    ),
    control(
        "clean-json-model",
        post(b"/model", JSON, '{"a": "é \\u20ac 𝄞"}'.encode()),
        json_loads={"a": "é € 𝄞"},
        model={"a": "é € 𝄞"},
    ),
    # A query value may carry an escaped URL: escapes left after one decode that a
    # second decode turns into valid text are legitimate (OAuth redirect_uri, next=).
    control(
        "clean-query-nested-url",
        get(b"/ctl?next=https%3A%2F%2Fh%2Fa%2520b%3Fq%3D%25C3%25A9"),
        query=[["next", "https://h/a%20b?q=%C3%A9"]],
    ),
    # Unicode ch. 3 D92: U+FFFD is a valid character when the client sends it.
    control(
        "clean-json-real-fffd",
        post(b"/model", JSON, '{"a": "\ufffd"}'.encode()),
        fffd_ok=True,
        json_loads={"a": "\ufffd"},
    ),
    # RFC 8259 §8.2: a surrogate pair escape is one valid character.
    control(
        "clean-json-pair-escape",
        post(b"/model", JSON, b'{"a": "\\ud834\\udd1e"}'),
        json_loads={"a": "𝄞"},
    ),
    control(
        "clean-json-text-plain",
        post(b"/ctl", _ctype(b"text/plain"), '{"a": "é"}'.encode()),
        json_loads={"a": "é"},
    ),
    control(
        "clean-json-octet-stream",
        post(b"/ctl", BINARY, ' {"a": "é"}'.encode()),
        json_loads={"a": "é"},
    ),
    control(
        "clean-multipart-upload",
        _mp(
            part(b'name="comment"', "ä€𝄞".encode()),
            part(_FILE + '"résumé.txt"'.encode(), "ä€\n".encode(), b"Content-Type: text/plain"),
        ),
        form=[["comment", "ä€𝄞"]],
        files=[["f", "résumé.txt", "ä€\n".encode().hex()]],
    ),
    # RFC 7578 §4.4: a binary file part passes untouched, high bytes and all.
    control(
        "clean-png-upload",
        _mp(part(_FILE + b'"pixel.png"', PNG, b"Content-Type: image/png")),
        files=[["f", "pixel.png", PNG.hex()]],
    ),
    # emoji-variation-sequences.txt: U+2764 U+FE0F is a sequence Unicode defines.
    control(
        "clean-filename-emoji-variation",
        _mp(part(_FILE + '"\u2764\ufe0f.txt"'.encode(), b"x")),
        files=[["f", "\u2764\ufe0f.txt", b"x".hex()]],
    ),
    control("clean-binary-body", post(b"/ctl", _ctype(b"image/png"), PNG)),
    control(
        "clean-cookie",
        get(b"/ctl", ((b"Cookie", "lang=fr; city=München".encode()),)),
        cookies=[["lang", "fr"], ["city", "München"]],
    ),
    control("clean-header", get(b"/ctl", ((b"X-Name", "𝄞 ä".encode()),))),
    # Issue 26: old clients send Latin-1 in User-Agent; every framework reads it so.
    control("clean-user-agent-latin1", get(b"/ctl", ((b"User-Agent", b"Mozilla Caf\xe9"),))),
    refuse("user-agent-overlong", get(b"/h", ((b"User-Agent", b"x\xc0\xaf"),)), "À¯"),
    control(
        "clean-normalize-mode",
        get(b"/normalize/ok/caf%C3%A9"),
        path="/normalize/ok/café",
    ),
    # RFC 9112 §7.1: characters split across chunks; Django reads no chunked body.
    either(
        "clean-chunked-json",
        http(b"POST", b"/ctl", JSON + CHUNKED, chunks(b'{"a": "\xc3', b'\xa4\xe2\x82\xac"}'), length=False),
        json_loads={"a": "ä€"},
    ),
    # Issue 11 §8: valid raw UTF-8 in the target (h11 and Gunicorn refuse any).
    either(
        "clean-raw-utf8-target",
        get("/raw/ä€𝄞?q=ä".encode()),
        path="/raw/ä€𝄞",
        query=[["q", "ä"]],
    ),
)  # fmt: skip

HEAD_ATTACKS: Final = (
    # F1: quadratic work on escapes; 48 KiB froze uvicorn-httptools for 45 s.
    refuse("F1-query-ff-x16384", get(b"/q?x=" + b"%FF" * ESCAPES)),
    refuse("F1-path-ff-x16384", get(b"/p/" + b"%FF" * ESCAPES)),
    # F1 variant: fullwidth solidus (U+FF0F, a look-alike "/"), 36 KiB of it.
    refuse("F1-path-fullwidth-slash-x4096", get(b"/p/" + b"%EF%BC%8F" * 4096)),
    # F4: double encoding with each hex digit encoded: %25 %32 %65 -> %2e.
    refuse("F4-dot-nibbles", get(b"/static/%25%32%65%25%32%65/secret"), path="%2e"),
    refuse("F4-slash-nibbles-lower", get(b"/a%25%32%66b"), path="%2f"),
    refuse("F4-slash-nibbles-upper", get(b"/a%25%32%46b"), path="%2F"),
    refuse("F4-overlong-nibbles", get(b"/a%25%43%30%25%41%46b"), path="%C0%AF"),
    refuse("F4-overlong-nibbles-query", get(b"/q?x=%25%43%30%25%41%46"), query="%C0%AF"),
    # CVE-2001-0333: classic double encoding, for comparison.
    refuse("F4-double-encoded-dots", get(b"/a/%252e%252e/b"), path="%2e"),
    # F6: SECURITY.md promises controls are refused in paths: CR LF, C0, DEL, C1.
    refuse("F6-path-crlf", get(b"/a%0D%0ASet-Cookie:%20evil=1")),
    refuse("F6-path-lf", get(b"/a%0Ab")),
    refuse("F6-path-tab", get(b"/a%09b")),
    refuse("F6-path-c0-soh", get(b"/a%01b")),
    refuse("F6-path-esc", get(b"/a%1B[2Jb")),
    refuse("F6-path-del", get(b"/a%7Fb")),
    refuse("F6-path-c1-nel", get(b"/a%C2%85b")),
    refuse("F6-path-c1-csi", get(b"/a%C2%9B2Jb")),
    refuse("path-nul", get(b"/a%00.txt")),
    # F13: dot segments ended by "\" or ";" (Tomcat, IIS and Windows split there).
    refuse("F13-dotdot-backslash", get(b"/static/%2e%2e\\secret")),
    refuse("F13-dotdot-semicolon", get(b"/static/%2e%2e;/secret")),
    refuse("F13-dot-semicolon", get(b"/static/%2e;/secret"), path="/.;/"),
    refuse("F13-dotdot-semicolon-param", get(b"/static/%2e%2e;x=1/secret")),
    refuse("encoded-dot-segment", get(b"/static/%2e%2e/app.py")),
    # RFC 3986 §2.2: an encoded "/" or "\" hides a separator from routing.
    # wsgiref (runserver) hands over only the decoded path: "%2F" is "/" there.
    refuse("encoded-slash", get(b"/a%2Fb"), blind_on=("runserver-django",)),
    refuse("encoded-backslash", get(b"/a%5c..%5cb")),
    # UAX #15: NFKC turns these into "/" (U+FF0F, U+2215).
    refuse("path-fullwidth-slash", get(b"/a%EF%BC%8F..%EF%BC%8Fb")),
    refuse("path-division-slash", get(b"/a%E2%88%95b")),
    # UAX #9: a bidi override reorders what a log or a user sees.
    refuse("path-bidi-rlo", get(b"/a%E2%80%AEtxt.exe")),
    # Table 3-7: C0 AF is the overlong "/" of CVE-2000-0884.
    refuse("path-overlong-slash", get(b"/etc%C0%AFpasswd"), "À¯"),
    refuse("path-surrogate", get(b"/a%ED%A0%80")),
    refuse("query-surrogate", get(b"/q?x=%ED%A0%80")),
    refuse("query-noncharacter", get(b"/q?x=%EF%BF%BE")),
    refuse("query-latin1", get(b"/q?x=caf%E9"), "caf\xe9"),
    refuse("path-iis-u-escape", get(b"/a%u002fb")),
    # Issue 11 §8: raw (unencoded) invalid bytes in the target.
    refuse("raw-invalid-path", get(b"/a\xc0\xafb"), "À¯"),
    refuse("raw-invalid-query", get(b"/q?x=\xc0\xaf"), "À¯"),
    refuse("raw-surrogate-path", get(b"/a\xed\xa0\x80b")),
    refuse("header-latin1", get(b"/h", ((b"X-Name", b"caf\xe9"),)), "caf\xe9"),
    # RFC 9110 §5.5: a CTL other than HTAB is no field-vchar; ESC colours a log on a
    # terminal, DEL and SOH reach apps that log or echo the value.
    refuse("header-control-esc", get(b"/h", ((b"User-Agent", b"a\x1b[31mb"),)), "\x1b"),
    refuse("header-control-soh", get(b"/h", ((b"X-Name", b"a\x01b"),)), "\x01"),
    refuse("header-control-del", get(b"/h", ((b"X-Name", b"a\x7fb"),)), "\x7f"),
    control("header-tab", get(b"/h", ((b"X-Name", b"a\tb"),))),
    # C1 controls as UTF-8: U+0085 NEL ends a line for str.splitlines (log forging),
    # U+009B CSI starts a terminal escape like ESC [.
    refuse("header-c1-nel", get(b"/h", ((b"X-Name", b"a\xc2\x85b"),)), "\x85"),
    refuse("header-c1-csi", get(b"/h", ((b"User-Agent", b"a\xc2\x9b31mb"),)), "\x9b"),
    # F12: cookies with RFC 2616 quoted-string octal escapes (http.cookies decodes them).
    refuse("F12-cookie-octal-fffe", get(b"/c", ((b"Cookie", b'a="\\357\\277\\276"'),))),
    refuse("F12-cookie-octal-nul", get(b"/c", ((b"Cookie", b'b="x\\000y"'),))),
    refuse("F12-cookie-octal-overlong", get(b"/c", ((b"Cookie", b'c="\\300\\257"'),)), "À¯"),
    refuse(
        "F12-cookie-octal-all",
        get(b"/c", ((b"Cookie", b'a="\\357\\277\\276"; b="x\\000y"; c="\\300\\257"'),)),
        "À¯",
    ),
    refuse("F12-cookie-octal-surrogate", get(b"/c", ((b"Cookie", b'd="\\355\\240\\200"'),))),
    refuse("cookie-raw-overlong", get(b"/c", ((b"Cookie", b"c=\xc0\xaf"),)), "À¯"),
    # F14: normalize mode with encoded separators allowed must keep %2F encoded.
    Row(
        "F14-normalize-encoded-slash",
        get(b"/normalize/a%2Fb%FF"),
        Expect.EITHER,
        field_forbidden=(("raw_path", "/a/b"),),
        fffd_ok=True,
    ),
)  # fmt: skip

BODY_ATTACKS: Final = (
    # RFC 9112 §6.3 item 7: neither Content-Length nor Transfer-Encoding is no body
    # (the WSGI adapter reads none though Gunicorn marks its input terminated); the
    # bytes after the head must never reach the app as one, checked or not.
    either("no-framing-trailing-bytes", http(b"POST", b"/ctl/text", TEXT, b"\xc0\xafsmuggled", length=False), "smuggled"),
    # F2: RFC 8259 §8.1 says JSON is UTF-8; json.loads also reads UTF-16/32.
    refuse("F2-json-utf16le-surrogate", post(b"/model", JSON, _SURROGATE_JSON.decode().encode("utf-16-le"))),
    refuse("F2-json-utf16be-surrogate", post(b"/model", JSON, _SURROGATE_JSON.decode().encode("utf-16-be"))),
    refuse("F2-json-utf32le-surrogate", post(b"/model", JSON, _SURROGATE_JSON.decode().encode("utf-32-le"))),
    refuse("F2-json-utf32-bom-surrogate", post(b"/model", JSON, _SURROGATE_JSON.decode().encode("utf-32"))),
    refuse("F2-json-utf16-bom-surrogate", post(b"/model", JSON, _SURROGATE_JSON.decode().encode("utf-16"))),
    refuse("F2-json-utf16le-clean", post(b"/model", JSON, '{"a": "x"}'.encode("utf-16-le"))),
    refuse("F2-json-utf16le-fffe-escape", post(b"/model", JSON, '{"a": "\\ufffe"}'.encode("utf-16-le"))),
    # Unicode ch. 23.7: noncharacters through \u escapes.
    refuse("F2-json-fffe-escape", post(b"/model", JSON, b'{"a": "\\uFFFE"}')),
    refuse("F2-json-fdd0-escape", post(b"/model", JSON, b'{"a": "\\uFDD0"}')),
    refuse("json-surrogate-escape", post(b"/model", JSON, _SURROGATE_JSON)),
    refuse("json-low-surrogate-escape", post(b"/model", JSON, b'{"a": "\\udc00x"}')),
    refuse("json-surrogate-key", post(b"/model", JSON, b'{"\\ud800": 1, "a": "x"}')),
    refuse("json-raw-surrogate", post(b"/model", JSON, b'{"a": "\xed\xa0\x80"}')),
    refuse("json-overlong", post(b"/model", JSON, b'{"a": "\xc0\xaf"}'), "À¯"),
    # F9: JSON under another type (Starlette, Django and json.loads read it anyway).
    refuse("F9-json-text-plain", post(b"/model", _ctype(b"text/plain"), _SURROGATE_JSON)),
    refuse("F9-json-octet-stream", post(b"/model", BINARY, _SURROGATE_JSON)),
    refuse("F9-json-ndjson", post(b"/model", _ctype(b"application/x-ndjson"), _SURROGATE_JSON)),
    refuse("F9-json-no-content-type", post(b"/model", (), _SURROGATE_JSON)),
    refuse("F9-json-octet-stream-whitespace", post(b"/model", BINARY, b"\r\n\t " + _SURROGATE_JSON)),
    refuse("F9-json-array-octet-stream", post(b"/model", BINARY, b' ["\\ud800"]')),
    refuse("F9-json-image-png", post(b"/model", _ctype(b"image/png"), _SURROGATE_JSON)),
    refuse("F9-json-fffe-text-plain", post(b"/model", _ctype(b"text/plain"), b'{"a": "\\uFFFE"}')),
    # F10: FastAPI's 422 handler decoded the raw bytes and answered 500.
    refuse("F10-model-no-content-type-raw-surrogate", post(b"/model", (), b'{"a": "\xed\xa0\x80"}')),
    refuse("F10-model-no-content-type-overlong", post(b"/model", (), b'{"a": "\xc0\xaf"}'), "À¯"),
    refuse("text-truncated", post(b"/t", TEXT, b"abc\xe2\x82")),
    refuse("text-charset-utf7", post(b"/t", _ctype(b"text/plain; charset=utf-7"), SCRIPT), "<script>"),
    # F5 variant: a charset that is not UTF-8 on a form or JSON media type.
    refuse("F5-urlencoded-charset-utf7", post(b"/f", _ctype(b"application/x-www-form-urlencoded; charset=utf-7"), b"a=%2BADw-script%2BAD4-"), "<script>"),
    refuse("F5-urlencoded-charset-star-utf7", post(b"/f", _ctype(b"application/x-www-form-urlencoded; charset*=utf-8''utf-7"), b"a=%2BADw-script%2BAD4-"), "<script>"),
    refuse("F5-json-charset-utf16", post(b"/model", _ctype(b"application/json; charset=utf-16"), b'{"a": "x"}')),
    refuse("form-overlong", post(b"/f", FORM, b"a=1&b=%C0%AF"), "À¯"),
    refuse("form-noncharacter", post(b"/f", FORM, b"a=%EF%BF%BE")),
    refuse("form-surrogate-name", post(b"/f", FORM, b"%ED%A0%80=1")),
    # F7: 4 MiB of form separators; each must cost about what 4 MiB of text costs.
    either("F7-urlencoded-equals-4mib", post(b"/f", FORM, b"=" * FORM_BYTES)),
    either("F7-urlencoded-a-eq-4mib", post(b"/f", FORM, b"a=" * (FORM_BYTES // 2))),
    either("F7-urlencoded-amp-4mib", post(b"/f", FORM, b"&" * FORM_BYTES)),
    # F11: legal chunked framing (RFC 9112 §7.1.1 extensions, §7.1.2 trailers).
    either("F11-chunk-extension", http(b"POST", b"/t", JSON + CHUNKED, chunks(b'{"a"', b': "\xc3\xa9"}', extension=b";e=1"), length=False), json_loads={"a": "é"}),
    either("F11-chunk-extension-quoted", http(b"POST", b"/t", JSON + CHUNKED, chunks(b'{"a": "x"}', extension=b';e="a b"'), length=False), json_loads={"a": "x"}),
    either("F11-chunk-trailer", http(b"POST", b"/t", JSON + CHUNKED, chunks(b'{"a": "\xc3\xa9"}', trailer=b"X-T: 1\r\n"), length=False), json_loads={"a": "é"}),
    either("F11-chunk-extension-invalid-body", http(b"POST", b"/t", TEXT + CHUNKED, chunks(b"a\xc0", b"\xafb", extension=b";e=1"), length=False), "À¯"),
    # Also found: E0 80 can start no well-formed sequence (Table 3-7); split it.
    either("also-e0-80-split-across-chunks", http(b"POST", b"/t", TEXT + CHUNKED, chunks(b"a\xe0", b"\x80b"), length=False)),
    # RFC 9112 §6.3: repeated or conflicting framing headers (request smuggling).
    either("framing-duplicate-content-length", http(b"POST", b"/model", (*JSON, (b"Content-Length", b"15"), (b"Content-Length", b"15")), _SURROGATE_JSON, length=False)),
    either("framing-conflicting-content-length", http(b"POST", b"/model", (*JSON, (b"Content-Length", b"3"), (b"Content-Length", b"15")), _SURROGATE_JSON, length=False)),
    either("framing-duplicate-transfer-encoding", http(b"POST", b"/model", (*JSON, *CHUNKED, *CHUNKED), chunks(_SURROGATE_JSON), length=False)),
    either("framing-te-and-content-length", http(b"POST", b"/model", (*JSON, *CHUNKED, (b"Content-Length", b"3")), chunks(_SURROGATE_JSON), length=False)),
    either("framing-duplicate-content-type", http(b"POST", b"/model", ((b"Content-Type", b"application/octet-stream"), *JSON), _SURROGATE_JSON)),
)  # fmt: skip

_TXT = b"Content-Type: text/plain"
_OK_PART = part(b'name="ok"', b"fine")
_ESC_FILE = part(_FILE + b'"a\x1b[2J"', b"x")  # F3: ESC in a filename

MULTIPART_ATTACKS: Final = (
    # F3a: a preamble ending in a delimiter-like line; the guard and the framework
    # disagreed on where the first part starts (RFC 2046 §5.1.1: CRLF--boundary).
    refuse("F3a-multipart-preamble", post(b"/upload", MULTIPART, b"\nJUNK--XyZ\r\n" + _ESC_FILE + b"\r\n--XyZ--\r\n")),
    refuse("F3a-multipart-preamble-delimiter-prefix", post(b"/upload", MULTIPART, b"hello\r\n--XyZjunk\r\n" + _EVIL + b"\r\n" + multipart(_OK_PART))),
    # F3b: no preamble line break: "JUNK--XyZ" then a part.
    refuse("F3b-multipart-junk-delimiter", post(b"/upload", MULTIPART, b"JUNK--XyZ\r\n" + part(b'name="evil"', _FFFE) + b"\r\n--XyZ--\r\n")),
    # F3b: a delimiter-like line inside a binary part (Django split there).
    refuse("F3b-multipart-delimiter-in-binary-part", _mp(part(_FILE + b'"a.bin"', b"\x89x--XyZ\r\n" + _EVIL, b"Content-Type: application/octet-stream"))),
    # F3c: RFC 2231 §3 continuations glue "shell.php" and an encoded NUL.
    refuse("F3c-rfc2231-filename-continuation", _mp(part(b"name=\"f\"; filename*0=\"shell.php\"; filename*1*=utf-8''%00.jpg", b"x")), "shell.php\x00.jpg"),
    refuse("F3c-rfc2231-name-continuation", _mp(part(b'name*0="co"; name*1="mment"', _FFFE))),
    # F3d: two Content-Disposition lines; Werkzeug takes the first, the guard the last.
    refuse("F3d-repeated-content-disposition", _mp(part(_FILE + b'"inv\xe2\x80\xaetxt.exe"', b"x", _CD + b'name="f"; filename="ok.txt"'))),
    refuse("F3d-repeated-part-content-type", _mp(part(b'name="c"', SCRIPT, b"Content-Type: text/plain; charset=utf-7", _TXT)), "<script>"),
    # F3e: LF-only delimiters (RFC 2046 requires CRLF; Werkzeug accepts LF).
    refuse("F3e-multipart-lf-only", post(b"/upload", MULTIPART, b'--XyZ\nContent-Disposition: form-data; name="c"\n\n' + _FFFE + b"\n--XyZ--\n")),
    refuse("F3e-multipart-lf-after-crlf", post(b"/upload", MULTIPART, b"--XyZ\r\n" + part(b'name="ok"', b"x") + b"\n--XyZ\n" + _EVIL + b"\r\n--XyZ--\r\n")),
    # RFC 2046 §5.1.1: an epilogue a lenient parser reads as more parts.
    refuse("F3-multipart-epilogue-part", post(b"/upload", MULTIPART, multipart(_OK_PART) + b"--XyZ\r\n" + _EVIL + b"\r\n--XyZ--\r\n")),
    either("F3-multipart-epilogue-text", post(b"/upload", MULTIPART, multipart(_OK_PART) + b"thanks\r\n"), form=[["ok", "fine"]]),
    # F3 filenames: controls, bidi, CR LF.
    refuse("F3-filename-escape-sequence", _mp(_ESC_FILE)),
    refuse("F3-filename-bidi", _mp(part(_FILE + b'"inv\xe2\x80\xaetxt.exe"', b"x"))),
    # U+2028 ends a line for str.splitlines and ECMAScript, as LF does.
    refuse("F3-filename-line-separator", _mp(part(_FILE + b'"a\xe2\x80\xa8b.txt"', b"x"))),
    refuse("F3-filename-star-paragraph-separator", _mp(part(b"name=\"f\"; filename*=utf-8''a%E2%80%A9b.txt", b"x"))),
    refuse("F6-filename-star-crlf", _mp(part(b"name=\"f\"; filename*=utf-8''a%0D%0Aevil.txt", b"x"))),
    refuse("F6-filename-star-nul", _mp(part(b"name=\"f\"; filename*=utf-8''shell.php%00.jpg", b"x")), "shell.php\x00.jpg"),
    # Issue 11 §6: filenames get the rules of utf8guard.paths (traversal, devices,
    # look-alike separators).
    refuse("filename-traversal", _mp(part(_FILE + b'"../../etc/passwd"', b"x"))),
    refuse("filename-traversal-backslash", _mp(part(_FILE + b'"..\\\\..\\\\win.ini"', b"x"))),
    # Issue 26: a Windows device name is safe to receive (windows_upload_names refuses it).
    control("filename-device-con", _mp(part(_FILE + b'"CON"', b"x")), filename="CON"),
    control("filename-device-nul-ext", _mp(part(_FILE + b'"nul.txt"', b"x")), filename="nul.txt"),
    refuse("filename-division-slash", _mp(part(_FILE + b'"a\xe2\x88\x95b.txt"', b"x"))),
    refuse("filename-fullwidth-slash", _mp(part(_FILE + b'"..\xef\xbc\x8fpasswd"', b"x"))),
    refuse("filename-overlong", _mp(part(_FILE + b'"a\xc0\xaf.txt"', b"x")), "À¯"),
    refuse("filename-star-overlong", _mp(part(b"name=\"f\"; filename*=utf-8''a%C0%AF.txt", b"x")), "À¯"),
    # F5: UTF-7 declared through RFC 2231 (charset*) or in a part.
    refuse("F5-multipart-charset-star-utf7", post(b"/upload", _ctype(b"multipart/form-data; boundary=XyZ; charset*=utf-8''utf-7"), multipart(part(b'name="c"', SCRIPT))), "<script>"),
    refuse("F5-multipart-charset-utf7", post(b"/upload", _ctype(b"multipart/form-data; boundary=XyZ; charset=utf-7"), multipart(part(b'name="c"', SCRIPT))), "<script>"),
    refuse("F5-name-star-utf7", _mp(part(b"name*=utf-7''%2BADw-script%2BAD4-", b"x")), "<script>"),
    refuse("F5-filename-star-latin1", _mp(part(b"name=\"f\"; filename*=iso-8859-1''caf%E9.txt", b"x")), "caf\xe9"),
    refuse("F5-part-charset-utf7", _mp(part(b'name="c"', SCRIPT, b"Content-Type: text/plain; charset=utf-7")), "<script>"),
    # HTML §4.10.21.8: a _charset_ field names the form's encoding.
    refuse("F5-charset-field-utf7", _mp(part(b'name="_charset_"', b"utf-7"), part(b'name="c"', SCRIPT)), "<script>"),
    # F8: a part with no filename is a form field: Starlette decoded it as Latin-1.
    either("F8-octet-stream-part-no-filename", _mp(part(b'name="v"', b"\xc0\xaf\xed\xa0\x80", b"Content-Type: application/octet-stream")), "À¯"),
    either("F8-image-part-no-filename", _mp(part(b'name="v"', b"\xc0\xaf", b"Content-Type: image/png")), "À¯"),
    # Also found: U+FE0F (a variation selector) after a character that has no
    # variation sequence is invisible padding (StandardizedVariants.txt, emoji-variation-sequences.txt).
    either("also-filename-fe0f-after-lambda", _mp(part(_FILE + '"\u03bb\ufe0f.txt"'.encode(), b"x")), "\u03bb\ufe0f"),
    refuse("multipart-value-invalid", _mp(part(b'name="c"', b"x\xff"))),
    refuse("multipart-value-noncharacter", _mp(part(b'name="c"', _FFFE))),
    refuse("multipart-name-overlong", _mp(part(b'name="a\xc0\xaf"', b"x")), "À¯"),
    refuse("multipart-base64-part", _mp(part(b'name="c"', b"77++", b"Content-Transfer-Encoding: base64"))),
    # F7's multipart shape: each part costs every parser (and the guard) a fixed
    # amount, so parts are counted as the frameworks count them (Werkzeug's
    # max_form_parts, CVE-2023-25577; Starlette's max_fields; Django's
    # DATA_UPLOAD_MAX_NUMBER_FIELDS; all 1000 by default). Distinct names, as an
    # attacker would send, defeat any per-header-block cache.
    refuse("F7-multipart-parts-over-limit", _mp(*(part(b'name="a%d"' % i, b"x") for i in range(MULTIPART_PARTS + 1)))),
    either("F7-multipart-parts-at-limit", _mp(*(part(b'name="a%d"' % i, b"x") for i in range(MULTIPART_PARTS)))),
    # A body refused at its first byte while 2 MiB follow: every stack answers the
    # 400 (Werkzeug's server then drains the rest until the client closes).
    refuse("F7-text-refused-early-2mib", post(b"/t", TEXT, b"\xff" + b"x" * (2 * 1024 * 1024))),
    either("F7-multipart-tiny-parts-2mib", _mp(*(part(b'name="a"', b"x") for _ in range(TINY_PARTS)))),
)  # fmt: skip


def _form(
    body: bytes, content_type: bytes = b"application/x-www-form-urlencoded"
) -> bytes:
    return post(b"/f", _ctype(content_type), body)


def _mpt(content_type: bytes, body: bytes) -> bytes:
    return post(b"/upload", _ctype(content_type), body)


def _cookies(*values: bytes) -> bytes:
    return get(b"/c", tuple((b"Cookie", value) for value in values))


_OVERLONG = b"\xc0\xaf"  # Table 3-7: C0 is never a lead byte ("/" in two bytes)
_BIN = b"Content-Type: application/octet-stream"

# Probes of parser differentials (urlencoded, multipart, request target, cookies):
# each names what python-multipart (Starlette), Werkzeug (Flask) and Django do with it.
PROBE_FORM: Final = (
    # HTML 4 §B.2.2 suggested ";" as a separator; python-multipart 0.0.34, Werkzeug
    # and Django (CVE-2021-23336: parse_qsl separator="&") split at "&" only.
    refuse("probe-form-semicolon-overlong", _form(b"a=1;b=%C0%AF"), "À¯"),
    control("probe-form-semicolon-clean", _form(b"a=x;b=%C3%A9")),
    # HTML form-urlencoded parser: "+" is a space, inside a sequence too.
    control("probe-form-plus", _form(b"a=x+%C3%A9+y"), form=[["a", "x é y"]]),
    refuse("probe-form-plus-splits-sequence", _form(b"a=%C3+%A9")),
    # RFC 3986 §2.1 pct-encoded = "%" HEXDIG HEXDIG; unquote keeps a bad "%" as is.
    refuse("probe-form-trailing-percent", _form(b"a=x%")),
    refuse("probe-form-truncated-escape", _form(b"a=%2")),
    refuse("probe-form-double-percent", _form(b"a=%%41")),
    refuse("probe-form-iis-u-escape", _form(b"a=%u00C0")),
    # CVE-2001-0333 in a body: the form holds the text "%C0%AF", which an app that
    # unquotes again (or reads request.values, query and form merged) turns into an
    # overlong "/". Refused as in the query (probe-target-double-encoded-overlong-query);
    # an escaped URL whose second decode is valid text passes, as there.
    refuse("probe-form-double-encoded-overlong", _form(b"a=%25C0%25AF"), "%C0%AF"),
    refuse("probe-form-double-encoded-nibbles", _form(b"a=x&b=%25%43%30%25%41%46"), "%C0%AF"),
    refuse("probe-form-double-encoded-in-name", _form(b"%25ED%25A0%2580=1")),
    control("probe-form-double-encoded-url", _form(b"next=%2Fcaf%25C3%25A9%3Fq%3D1"), form=[["next", "/caf%C3%A9?q=1"]]),
    # A field without "=": Werkzeug and Django keep it with "" (keep_blank_values).
    refuse("probe-form-key-without-equals", _form(b"%C0%AF&a=1"), "À¯"),
    control("probe-form-key-without-equals-clean", _form(b"flag&a=%C3%A9")),
    refuse("probe-form-empty-key-overlong", _form(b"=%C0%AF&a=1"), "À¯"),
    control("probe-form-empty-key-clean", _form(b"=x&a=%C3%A9")),
    # Django's QueryDict decodes the body with request.encoding (the charset).
    refuse("probe-form-charset-latin1", _form(b"a=%C3%A9", b"application/x-www-form-urlencoded; charset=latin-1"), "Ã©"),
    refuse("probe-form-charset-iso-quoted", _form(b"a=%C3%A9", b'application/x-www-form-urlencoded; charset="ISO-8859-1"'), "Ã©"),
    refuse("probe-form-charset-utf16", _form("a=é&b=<".encode("utf-16-le"), b"application/x-www-form-urlencoded; charset=utf-16")),
    refuse("probe-form-charset-utf7-quoted-pair", _form(b"a=%2BADw-script%2BAD4-", b'application/x-www-form-urlencoded; charset="utf\\-7"'), "<script>"),
    control("probe-form-charset-utf8-quoted-upper", _form(b"a=%C3%A9", b'application/x-www-form-urlencoded; charset="UTF-8"'), form=[["a", "é"]]),
    # Python's codec registry: utf_8, u8 and cp65001 are UTF-8; fail closed is allowed.
    either("probe-form-charset-cp65001", _form(b"a=%C3%A9", b"application/x-www-form-urlencoded; charset=cp65001"), form=[["a", "é"]]),
    # RFC 9110 §8.3.1: type and subtype are case-insensitive; every parser folds them.
    refuse("probe-form-media-type-upper", _form(b"a=%C0%AF", b"Application/X-WWW-Form-Urlencoded"), "À¯"),
    # Starlette's request.json() and json.loads(request.body) read a body as JSON
    # whatever its type (issue 11 F9): under the form type too.
    refuse("probe-form-type-json-surrogate", post(b"/t", FORM, _SURROGATE_JSON)),
    refuse("probe-form-type-json-fffe", post(b"/t", FORM, b'{"a": "\\uFFFE"}')),
    refuse("probe-form-type-json-array", post(b"/t", FORM, b' ["\\ud800"]')),
    # json.loads skips a UTF-8 BOM and reads UTF-16 (RFC 8259 §8.1 says UTF-8 only).
    refuse("probe-form-type-json-bom", post(b"/t", FORM, b"\xef\xbb\xbf" + _SURROGATE_JSON)),
    refuse("probe-form-type-json-utf16le", post(b"/t", FORM, _SURROGATE_JSON.decode().encode("utf-16-le"))),
    # RFC 9112 §7.1: a chunked form, an escape split across chunks (runserver does
    # not de-chunk: Django reads no body there).
    refuse("probe-form-chunked-split-escape", http(b"POST", b"/f", FORM + CHUNKED, chunks(b"a=%C", b"0%AF"), length=False), "À¯", blind_on=("runserver-django",)),
    refuse("probe-form-chunked-json", http(b"POST", b"/f", FORM + CHUNKED, chunks(b'{"a": "\\ud', b'800"}'), length=False), blind_on=("runserver-django",)),
    # RFC 9110 §8.4: a coding the guard cannot undo on an inspected body is refused.
    refuse("probe-form-gzip", post(b"/f", (*FORM, (b"Content-Encoding", b"gzip")), b"a=%C0%AF"), "À¯"),
    either("probe-form-nul-value", _form(b"a=x%00y")),
    refuse("probe-form-charset-field-latin1", _form(b"_charset_=iso-8859-1&a=%E9"), "\xe9"),
)  # fmt: skip

PROBE_MULTIPART: Final = (
    # RFC 2046 §5.1.1 allows a quoted boundary (RFC 9110 §5.6.4 quoted-string).
    control("probe-mp-boundary-quoted", _mpt(b'multipart/form-data; boundary="XyZ"', multipart(_OK_PART)), form=[["ok", "fine"]]),
    # RFC 9110 §5.6.4 quoted-pair: "Xy\Z" is XyZ to Werkzeug (and was to the guard);
    # python-multipart (email.utils.unquote) and Django keep "\Z", and Django finds
    # "--Xy\Z" anywhere: the part hidden in the binary file reached it.
    refuse("probe-mp-boundary-quoted-pair", _mpt(b'multipart/form-data; boundary="Xy\\Z"', multipart(part(_FILE + b'"a.bin"', b"--Xy\\Z\r\n" + _EVIL + b"\r\n--Xy\\Z--\r\n", _BIN)))),
    refuse("probe-mp-boundary-quoted-pair-inverse", _mpt(b'multipart/form-data; boundary="Xy\\Z"', b"--Xy\\Z\r\n" + _EVIL + b"\r\n--Xy\\Z--\r\n")),
    # RFC 9110 §5.6.6: parameter names are case-insensitive; every parser folds them.
    control("probe-mp-boundary-name-upper", _mpt(b"multipart/form-data; BOUNDARY=XyZ", multipart(_OK_PART)), form=[["ok", "fine"]]),
    control("probe-mp-boundary-webkit", _mpt(b"multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW", multipart(_OK_PART, boundary=b"----WebKitFormBoundary7MA4YWxkTrZu0gW")), form=[["ok", "fine"]]),
    either("probe-mp-boundary-quoted-semicolon", _mpt(b'multipart/form-data; boundary="a;b"', multipart(_OK_PART, boundary=b"a;b")), form=[["ok", "fine"]]),
    either("probe-mp-boundary-over-70", _mpt(b"multipart/form-data; boundary=" + b"b" * 71, multipart(_OK_PART, boundary=b"b" * 71)), form=[["ok", "fine"]]),
    refuse("probe-mp-boundary-comment", _mpt(b"multipart/form-data; boundary=XyZ (c)", multipart(part(b'name="c"', _FFFE)))),
    # RFC 2046 §5.1.1: a boundary does not end in a space; quoted, one may.
    either("probe-mp-boundary-trailing-space-quoted", _mpt(b'multipart/form-data; boundary="XyZ "', multipart(_OK_PART, boundary=b"XyZ ")), form=[["ok", "fine"]]),
    either("probe-mp-boundary-trailing-space-unquoted", _mpt(b"multipart/form-data; boundary=XyZ \t", multipart(_OK_PART)), form=[["ok", "fine"]]),
    # RFC 2046 §5.1.1 transport-padding (LWSP after the delimiter); refused by the guard.
    refuse("probe-mp-transport-padding", _mp(_OK_PART).replace(b"--XyZ--", b"--XyZ \t\r\n" + _EVIL + b"\r\n--XyZ--")),
    refuse("probe-mp-lf-header-block", post(b"/upload", MULTIPART, b'--XyZ\r\nContent-Disposition: form-data; name="c"\n\n' + _FFFE + b"\r\n--XyZ--\r\n")),
    refuse("probe-mp-preamble-invalid", post(b"/upload", MULTIPART, _OVERLONG + b"\r\n" + multipart(_OK_PART)), "À¯"),
    refuse("probe-mp-epilogue-invalid", post(b"/upload", MULTIPART, multipart(_OK_PART) + _OVERLONG), "À¯"),
    # RFC 7578 §4.8, RFC 9110 §5.1: field names are case-insensitive.
    control("probe-mp-header-lower-case", post(b"/upload", MULTIPART, b'--XyZ\r\ncontent-disposition: form-data; name="c"\r\n\r\n\xc3\xa9\r\n--XyZ--\r\n'), form=[["c", "é"]]),
    refuse("probe-mp-duplicate-header-other-case", _mp(part(_FILE + b'"ok.txt"', b"x", b'content-disposition: form-data; name="f"; filename="inv\xe2\x80\xaetxt.exe"'))),
    # RFC 9112 §5.1: no whitespace between a field name and ":"; Werkzeug strips it.
    refuse("probe-mp-header-space-before-colon", post(b"/upload", MULTIPART, b'--XyZ\r\nContent-Disposition : form-data; name="f"; filename="inv\xe2\x80\xaetxt.exe"\r\n\r\nx\r\n--XyZ--\r\n')),
    either("probe-mp-disposition-upper", post(b"/upload", MULTIPART, b'--XyZ\r\nContent-Disposition: FORM-DATA; NAME="c"\r\n\r\n\xc3\xa9\r\n--XyZ--\r\n'), form=[["c", "é"]]),
    # RFC 8187 §3.2: ext-value; Werkzeug and Django decode it, python-multipart ignores it.
    refuse("probe-mp-filename-star-bidi", _mp(part(b"name=\"f\"; filename*=UTF-8''inv%E2%80%AEtxt.exe", b"x"))),
    refuse("probe-mp-filename-star-surrogate", _mp(part(b"name=\"f\"; filename*=utf-8''a%ED%A0%80.txt", b"x"))),
    refuse("probe-mp-filename-star-truncated-escape", _mp(part(b"name=\"f\"; filename*=utf-8''a%E2%80.txt", b"x"))),
    refuse("probe-mp-filename-star-bad-escape", _mp(part(b"name=\"f\"; filename*=utf-8''a%2", b"x"))),
    refuse("probe-mp-filename-star-traversal", _mp(part(b"name=\"f\"; filename*=utf-8'en'%2e%2e%2fpasswd", b"x"))),
    # One decode leaves "%2e%2e%2fpasswd": a valid name to utf8guard.paths too.
    either("probe-mp-filename-star-double-encoded", _mp(part(b"name=\"f\"; filename*=utf-8''%252e%252e%252fpasswd", b"x"))),
    either("probe-mp-filename-star-empty-charset", _mp(part(b"name=\"f\"; filename*=''caf%C3%A9.txt", b"x")), "Ã©"),
    refuse("probe-mp-filename-star-no-quotes", _mp(part(b"name=\"f\"; filename*=a%C0%AF.txt", b"x")), "À¯"),
    refuse("probe-mp-name-star-overlong", _mp(part(b"name*=utf-8''a%C0%AF", b"x")), "À¯"),
    refuse("probe-mp-name-star-ff", _mp(part(b"name*=utf-8''a%FF", b"x"))),
    refuse("probe-mp-cr-only-delimiters", post(b"/upload", MULTIPART, b'--XyZ\rContent-Disposition: form-data; name="c"\r\r' + _FFFE + b"\r--XyZ--\r")),
    refuse("probe-mp-name-plain-and-star", _mp(part(b"name=\"c\"; name*=utf-8''a%C0%AF", b"x")), "À¯"),
    refuse("probe-mp-filename-token-raw-invalid", _mp(part(b"name=\"f\"; filename=a\xc0\xaf.txt", b"x")), "À¯"),
    control("probe-mp-name-token", post(b"/upload", MULTIPART, b"--XyZ\r\nContent-Disposition: form-data; name=c\r\n\r\n\xc3\xa9\r\n--XyZ--\r\n"), form=[["c", "é"]]),
    # Django unescapes HTML character references in a filename (&#47; is "/").
    refuse("probe-mp-filename-hex-references-traversal", _mp(part(_FILE + b'"&#x2E;&#x2E;&#x2F;passwd"', b"x"))),
    refuse("probe-mp-filename-reference-bidi", _mp(part(_FILE + b'"inv&#8238;txt.exe"', b"x"))),
    refuse("probe-mp-filename-reference-surrogate", _mp(part(_FILE + b'"a&#xD800;.txt"', b"x"))),
    refuse("probe-mp-filename-reference-nul", _mp(part(_FILE + b'"a&#0;.txt"', b"x"))),
    # html.unescape (Django's reading) raises ValueError past 4300 decimal digits
    # (CPython's int limit, CVE-2020-10735).
    either("probe-mp-filename-reference-huge-decimal", _mp(part(_FILE + b'"a&#' + b"1" * 5000 + b';.txt"', b"x"))),
    # RFC 7578 §4.2 forbids RFC 2047 encoded-words; no parser decodes them ("?" is
    # reserved on Windows).
    either("probe-mp-filename-rfc2047", _mp(part(_FILE + b'"=?utf-8?B?Li4vZXRjL3Bhc3N3ZA==?="', b"x"))),
    either("probe-mp-filename-percent-overlong", _mp(part(_FILE + b'"%C0%AF.txt"', b"x")), "À¯"),
    # RFC 7578 §4.2 via RFC 2183 §2: parameter names are case-insensitive; a parser
    # that missed "FILENAME" would read this binary file as a text field (none does).
    control("probe-mp-filename-upper-binary", _mp(part(b'name="c"; FILENAME="a.bin"', _OVERLONG, _BIN)), files=[["c", "a.bin", "c0af"]]),
    refuse("probe-mp-name-upper-field-invalid", _mp(part(b'NAME="c"', _OVERLONG)), "À¯"),
    refuse("probe-mp-json-field-surrogate", _mp(part(b'name="j"', _SURROGATE_JSON, b"Content-Type: application/json"))),
    refuse("probe-mp-part-content-type-upper-utf7", _mp(part(b'name="c"', SCRIPT, b"CONTENT-TYPE: text/plain; charset=utf-7")), "<script>"),
    # RFC 7578 §4.7 deprecates Content-Transfer-Encoding; Django decodes base64.
    refuse("probe-mp-cte-quoted-printable", _mp(part(b'name="c"', b"=C0=AF", b"Content-Transfer-Encoding: quoted-printable"))),
    refuse("probe-mp-cte-base64-upper", _mp(part(b'name="c"', b"wK8=", b"content-transfer-encoding: BASE64")), "À¯"),
    # RFC 7578 §4.2 and RFC 8187 §4.2: Werkzeug and Django prefer filename*,
    # python-multipart reads filename alone; a repeated parameter, first or last.
    refuse("probe-mp-filename-and-star-bidi", _mp(part(b"name=\"f\"; filename=\"ok.txt\"; filename*=utf-8''inv%E2%80%AEtxt.exe", b"x"))),
    refuse("probe-mp-filename-twice-bidi", _mp(part(b'name="f"; filename="ok.txt"; filename="inv\xe2\x80\xaetxt.exe"', b"x"))),
    # Werkzeug reads %22 as '"' in a filename; other escapes stay as sent.
    either("probe-mp-filename-percent-slash", _mp(part(_FILE + b'"a%2F..%2Fb"', b"x"))),
    refuse("probe-mp-part-header-invalid-utf8", _mp(part(b'name="c"', b"x", b"X-Note: \xc0\xaf")), "À¯"),
    # RFC 7578 §4.4: a part may name a charset; the frameworks decode fields with the
    # request's (Starlette: Latin-1 for a name codecs does not know; codecs reads
    # "utf\-8" as utf_8): the guard allows only UTF-8, and no backslash in the name.
    refuse("probe-mp-part-charset-latin1", _mp(part(b'name="c"', b"caf\xc3\xa9", b"Content-Type: text/plain; charset=iso-8859-1")), "Ã©"),
    refuse("probe-mp-part-charset-utf16", _mp(part(b'name="c"', "<é>".encode("utf-16-le"), b"Content-Type: text/plain; charset=utf-16-le"))),
    refuse("probe-mp-part-charset-quoted-pair", _mp(part(b'name="c"', SCRIPT, b'Content-Type: text/plain; charset="utf\\-7"')), "<script>"),
    refuse("probe-mp-request-charset-quoted-pair", post(b"/upload", _ctype(b'multipart/form-data; boundary=XyZ; charset="utf\\-8"'), multipart(part(b'name="c"', b"caf\xc3\xa9"))), "Ã©"),
)  # fmt: skip

PROBE_TARGET: Final = (
    # RFC 9112 §3.2.2: absolute-form; the server takes the path from the URI.
    refuse("probe-target-absolute-overlong", get(b"http://t/a%C0%AFb"), "À¯"),
    refuse("probe-target-absolute-dotdot", get(b"http://t/static/%2e%2e/secret")),
    # The authority is no part of the path: httptools, Gunicorn and Werkzeug drop it.
    either("probe-target-absolute-userinfo-overlong", get(b"http://%C0%AF@t/a"), "À¯"),
    # Issue 11 §8: raw bytes over 0x7F anywhere in the target (servers refuse them).
    refuse("probe-target-absolute-host-raw-invalid", get(b"http://t\xc0\xaf/a"), "À¯"),
    refuse("probe-target-absolute-userinfo-raw-invalid", get(b"http://\xc0\xaf@t/a"), "À¯"),
    # RFC 9112 §3.2: no fragment in a request-target; servers cut it or keep it:
    # h11 and wsgiref keep "#..." in the path (the guard refuses it there);
    # httptools, Gunicorn and Werkzeug drop it from the path and query.
    either("probe-target-fragment-overlong", get(b"/a#%C0%AF"), "À¯"),
    either("probe-target-query-fragment-overlong", get(b"/q?x=1#%C0%AF"), "À¯"),
    # Werkzeug's server keeps the raw fragment in RAW_URI ("/a#À¯" to the app) while
    # PATH_INFO and QUERY_STRING drop it: the guard reads a fragment with the path
    # (RFC 3986 §3.5: from the first "#" to the end). The other servers refuse these.
    refuse("probe-target-fragment-raw-invalid", get(b"/a#\xc0\xaf"), "À¯"),
    refuse("probe-target-query-fragment-raw-invalid", get(b"/q?x=1#\xc0\xaf"), "À¯"),
    refuse("probe-target-fragment-query-raw-invalid", get(b"/a#b?\xc0\xaf"), "À¯"),
    either("probe-target-fragment-clean", get(b"/ctl/a#top")),
    # RFC 3986 §3.3: ";" path parameters are data to Starlette, Werkzeug and Django.
    refuse("probe-target-path-param-overlong", get(b"/a;x=%C0%AF/b"), "À¯"),
    control("probe-target-path-param-clean", get(b"/ctl/a;v=caf%C3%A9"), path="/ctl/a;v=café"),
    # Orange Tsai, "Breaking Parser Logic" (2018): Tomcat strips ";" parameters.
    refuse("probe-target-plain-dotdot-semicolon", get(b"/static/..;/secret")),
    refuse("probe-target-plain-dotdot-backslash", get(b"/static/..\\secret")),
    refuse("probe-target-plain-dotdot-encoded-slash", get(b"/static/..%2Fsecret"), blind_on=("runserver-django",)),
    # RFC 3986 §5.2.4: "." and ".." segments, half or wholly encoded.
    refuse("probe-target-encoded-single-dot", get(b"/static/%2e/secret"), blind_on=("runserver-django",)),
    refuse("probe-target-half-encoded-dotdot", get(b"/static/.%2e/secret")),
    refuse("probe-target-upper-encoded-dotdot-end", get(b"/static/%2E%2E")),
    refuse("probe-target-encoded-semicolon-dotdot", get(b"/static/%2e%2e%3Bx/secret")),
    refuse("probe-target-encoded-question-overlong", get(b"/a%3F%C0%AF"), "À¯"),
    # CVE-2001-0333: double encoding of an overlong "/" and of "\".
    refuse("probe-target-double-encoded-overlong", get(b"/a%25C0%25AFb"), path="%C0%AF"),
    refuse("probe-target-double-encoded-overlong-query", get(b"/q?x=%25C0%25AF"), query="%C0%AF"),
    refuse("probe-target-double-encoded-backslash", get(b"/a%255cb"), path="%5c"),
    # The query as a form: WHATWG URL and parse_qsl split at "&" only.
    refuse("probe-query-semicolon-overlong", get(b"/q?a=1;b=%C0%AF"), "À¯"),
    refuse("probe-query-key-without-equals", get(b"/q?%C0%AF"), "À¯"),
    refuse("probe-query-plus-splits-sequence", get(b"/q?a=%C3+%A9")),
    refuse("probe-query-iis-u-escape", get(b"/q?a=%u00C0")),
    refuse("probe-query-trailing-percent", get(b"/q?a=x%")),
    # RFC 3986 §2.1 in the path: a "%" that starts no pct-encoded triplet.
    refuse("probe-path-trailing-percent", get(b"/a%")),
    refuse("probe-path-percent-non-hex", get(b"/a%G0b")),
    refuse("probe-path-percent-percent-overlong", get(b"/a%%C0%AF")),
    # RFC 6455 §4.1: an upgrade is a GET; ASGI servers make it a websocket scope.
    refuse("probe-websocket-upgrade-path-overlong", get(b"/ws%C0%AF", ((b"Upgrade", b"websocket"), (b"Connection", b"Upgrade"), (b"Sec-WebSocket-Key", b"dGhlIHNhbXBsZSBub25jZQ=="), (b"Sec-WebSocket-Version", b"13"))), "À¯"),
    control("probe-path-encoded-space", get(b"/ctl/a%20b"), path="/ctl/a b"),
    refuse("probe-path-double-slash-overlong", get(b"//%C0%AF"), "À¯"),
    refuse("probe-host-raw-invalid", http(b"GET", b"/h", ((b"X-Y", b"1"),)).replace(b"Host: t", b"Host: t\xc0\xaf"), "À¯"),
    refuse("probe-target-encoded-slash-lower", get(b"/a%2fb"), blind_on=("runserver-django",)),
)  # fmt: skip

PROBE_COOKIES: Final = (
    # RFC 6265 §5.4: one Cookie field; servers join repeats (ASGI keeps both).
    refuse("probe-cookie-two-headers-overlong", _cookies(b"a=1", b"b=" + _OVERLONG), "À¯"),
    refuse("probe-cookie-two-headers-octal", _cookies(b"a=1", b'b="\\357\\277\\276"')),
    # http.cookies._unquote and Werkzeug's _cookie_unslash: \" is a quote.
    control("probe-cookie-quoted-escaped-quote", _cookies(b'a="x\\"y"; b=caf\xc3\xa9'), cookies=[["a", 'x"y'], ["b", "café"]]),
    # Issue 26: octal escapes as the frameworks write them pass. 'é' to Werkzeug,
    # 'Ã©' to http.cookies (its mojibake: judged as the UTF-8 it carries).
    control("probe-cookie-octal-utf8", _cookies(b'a="\\303\\251"')),
    control("probe-cookie-octal-in-unquoted", _cookies(b"a=\\303\\251")),
    # Werkzeug/Flask and WebOb write UTF-8 bytes; http.cookies (Django, Starlette,
    # Bottle, Litestar) code points below 256, which Werkzeug reads as U+FFFD.
    control("cookie-written-werkzeug", _cookies(b'city="mediod\\303\\255a"; t="\\346\\235\\261\\344\\272\\254"; e="\\360\\237\\230\\200"; s="\\303\\205sa"')),
    control("cookie-written-django", _cookies(b'city="mediod\\355a"; q="a\\"b\\\\c\\073d\\054e"'), fffd_ok=True),
    # Litestar percent-decodes the value http.cookies unquoted: \045 is "%".
    refuse("cookie-escaped-percent-nul", _cookies(b'a="x\\045000y"')),
    refuse("cookie-escaped-percent-crlf", _cookies(b'a="x\\0450D\\0450Ay"')),
    refuse("cookie-escaped-digits-fffe", _cookies(b'a="%EF%BF%\\102\\105"')),
    # U+0085 (NEL) as a code point to http.cookies, bytes that are not UTF-8
    refuse("cookie-octal-code-point-nel", _cookies(b'a="x\\205y"')),
    # Starlette and Werkzeug give the name as Latin-1 ("cafÃ©"), Django as "café".
    control("probe-cookie-name-utf8", _cookies(b"caf\xc3\xa9=1")),
    refuse("probe-cookie-name-overlong", _cookies(b"a\xc0\xaf=1"), "À¯"),
    refuse("probe-cookie-name-surrogate", _cookies(b"a\xed\xa0\x80=1")),
    refuse("probe-cookie-quoted-semicolon-overlong", _cookies(b'a="x;b=\xc0\xaf"'), "À¯"),
    refuse("probe-cookie-octal-lf", _cookies(b'a="x\\012y"')),
    refuse("probe-cookie-raw-del", _cookies(b"a=x\x7fy")),
    # Issue 26: 'Ã©' is http.cookies' mojibake of Werkzeug's 'é', not refused
    control("probe-cookie-version-octal-utf8", _cookies(b'$Version=1; a="\\303\\251"')),
    either("probe-cookie-trailing-backslash", _cookies(b'a="x\\"; b=1')),
    control("probe-cookie-octal-in-name", _cookies(b"a\\303\\251=1")),
    # Unicode ch. 23.1: C1 controls are controls; valid UTF-8 all the same.
    refuse("probe-cookie-raw-c1-nel", _cookies(b"a=x\xc2\x85y")),
    refuse("probe-cookie-octal-c1", _cookies(b'a="x\\302\\205y"')),
    # Werkzeug's parse_cookie keeps ";" inside quotes, http.cookies splits there.
    control("probe-cookie-quoted-semicolon-octal", _cookies(b'a="x;b=\\303\\251"')),
    refuse("probe-cookie-comma-separated-octal", _cookies(b'a=1, b="\\300\\257"'), "À¯"),
    # UAX #9 §2.4: the isolates LRI, RLI, FSI, PDI (U+2066..U+2069) reorder what they
    # enclose when shown (Trojan Source, CVE-2021-42574); no cookie-octet (RFC 6265
    # §4.1.1); one in a name is the same deception.
    refuse("probe-cookie-bidi-isolate", _cookies("a=x\u2067y\u2069".encode())),
    refuse("probe-cookie-bidi-isolate-name", _cookies("\u2066a=1".encode())),
    control("clean-cookie-rtl", _cookies("a=שלום; b=مرحبا".encode()), cookies=[["a", "שלום"], ["b", "مرحبا"]]),
)  # fmt: skip

# Probes of the request as a whole: framing, methods, normalize mode, and the
# Content-Type charset Django decodes the query with.
PROBE_REQUEST: Final = (
    # RFC 9110 §8.6 Content-Length = 1*DIGIT: past 4300 digits CPython's int()
    # raises ValueError (CVE-2020-10735), leading zeros included.
    either("probe-content-length-5000-digits", http(b"POST", b"/t", (*JSON, (b"Content-Length", b"9" * 5000)), b"{}", length=False)),
    either("probe-content-length-leading-zeros", http(b"POST", b"/t", (*JSON, (b"Content-Length", b"0" * 5000 + b"2")), b"{}", length=False)),
    # json.loads raises ValueError past 4300 digits and RecursionError when deep:
    # no framework may turn either into a 500.
    either("probe-json-number-5000-digits", post(b"/model", JSON, b'{"a": ' + b"1" * 5000 + b"}")),
    either("probe-json-nested-100000", post(b"/model", JSON, b"[" * 100000 + b"]" * 100000)),
    # RFC 9112 §6.1: chunked last; no server here decodes gzip, nor does any framework.
    either("probe-te-gzip-chunked", http(b"POST", b"/t", (*JSON, (b"Transfer-Encoding", b"gzip, chunked")), chunks(_SURROGATE_JSON), length=False)),
    # RFC 9110 §8.3.2: charset names are case-insensitive (parameter names too).
    refuse("probe-content-type-charset-upper-utf7", post(b"/upload", _ctype(b"multipart/form-data; boundary=XyZ; CHARSET=UTF-7"), multipart(part(b'name="c"', SCRIPT))), "<script>"),
    # RFC 9112 §2.3: HTTP/1.0, no Host.
    refuse("probe-http10-no-host-overlong", b"GET /a%C0%AFb HTTP/1.0\r\n\r\n", "À¯"),
    # RFC 9112 §5.2: obs-fold; a server unfolds it (h11) or refuses it.
    refuse("probe-header-obs-fold-overlong", get(b"/h", ((b"X-A", b"ok\r\n \xc0\xaf"),)), "À¯"),
    # Normalize mode repairs invalid UTF-8 to U+FFFD; an escape is no UTF-8 to repair.
    Row("probe-normalize-json-surrogate-escape", post(b"/normalize/t", JSON, _SURROGATE_JSON), Expect.EITHER, fffd_ok=True),
    Row("probe-normalize-form-type-json-surrogate", post(b"/normalize/t", FORM, _SURROGATE_JSON), Expect.EITHER, fffd_ok=True),
    Row("probe-normalize-text-json-fffe-escape", post(b"/normalize/t", TEXT, b'{"a": "\\uFFFE"}'), Expect.EITHER, fffd_ok=True),
    Row("probe-normalize-form-overlong", post(b"/normalize/f", FORM, b"a=%C0%AF"), Expect.EITHER, ("À¯",), fffd_ok=True),
    Row("probe-normalize-multipart-raw-overlong", post(b"/normalize/upload", MULTIPART, multipart(part(b'name="c"', b"a\xc0\xafb"))), Expect.EITHER, ("À¯",), fffd_ok=True),
    # A repair of the whole body must not touch a binary file part (RFC 7578 §4.4).
    Row("probe-normalize-multipart-field-and-png", post(b"/normalize/upload", MULTIPART, multipart(part(b'name="c"', b"a\xc0\xafb"), part(_FILE + b'"p.png"', PNG, b"Content-Type: image/png"))), Expect.EITHER, ("À¯",), echo={"files": [["f", "p.png", PNG.hex()]]}, fffd_ok=True),
    Row("probe-normalize-text-overlong", post(b"/normalize/t", TEXT, b"a\xc0\xafb"), Expect.EITHER, ("À¯",), fffd_ok=True),
    # Django decodes request.GET with request.encoding, the Content-Type's charset
    # whatever the media type (HttpRequest._set_content_type_params), body or not.
    refuse("probe-query-utf7-via-text-charset-get", get(b"/q?x=%2BADw-script%2BAD4-", _ctype(b"text/plain; charset=utf-7")), "<script>"),
    refuse("probe-query-utf7-via-binary-charset-get", get(b"/q?x=%2BADw-script%2BAD4-", _ctype(b"application/octet-stream; charset=utf-7")), "<script>"),
    refuse("probe-query-utf7-via-binary-charset-post", post(b"/q?x=%2BADw-script%2BAD4-", _ctype(b"image/png; charset=utf-7"), PNG), "<script>"),
    refuse("probe-query-latin1-via-binary-charset", get(b"/q?x=caf%C3%A9", _ctype(b"application/octet-stream; charset=latin-1")), "cafÃ©"),
    # RFC 9110 §9.3.1: a GET body has no defined meaning, but request.json() reads it.
    refuse("probe-get-body-json-surrogate", http(b"GET", b"/t", JSON, _SURROGATE_JSON)),
    refuse("probe-put-body-json-surrogate", http(b"PUT", b"/t", JSON, _SURROGATE_JSON)),
    # RFC 9110 §9.1: methods are case-sensitive; Django's view takes any method.
    refuse("probe-lowercase-method-json-surrogate", http(b"post", b"/t", JSON, _SURROGATE_JSON)),
    refuse("probe-unknown-method-form-overlong", http(b"FOO", b"/t", FORM, b"a=%C0%AF"), "À¯"),
)  # fmt: skip

PROBES: Final = (
    PROBE_FORM + PROBE_MULTIPART + PROBE_TARGET + PROBE_COOKIES + PROBE_REQUEST
)

#: Issue 11's rows; with issue 25's (table_framing.py) in test_differential.
ROWS: Final = CONTROLS + HEAD_ATTACKS + BODY_ATTACKS + MULTIPART_ATTACKS + PROBES
