# ruff: noqa: E501  # a table of data: one request per line reads best
"""Issue 25's rows: framing that each of sixteen stacks reads its own way.

R00..R12 are the issue's findings (and variants); each refuse row hides a noncharacter
(U+FFFE), a bidi file name or UTF-7 ``<script>`` where one parser of the request
would find it and the guard, reading it another way, would not. The controls are
forms as browsers, curl, requests and httpx build them: every stack must pass them.
"""

from __future__ import annotations

from typing import Final

from .rows import BINARY, FORM, Headers, Row, http, multipart, part, post
from .table import SCRIPT, control, either, refuse

_FFFE: Final = b"\xef\xbf\xbe"  # U+FFFE, a noncharacter (Unicode ch. 23.7)
_BIDI_NAME: Final = b'"inv\xe2\x80\xaetxt.exe"'  # U+202E RIGHT-TO-LEFT OVERRIDE
_CD: Final = b"Content-Disposition: form-data; "


def _ctype(value: bytes) -> Headers:
    return ((b"Content-Type", value),)


def _evil(boundary: bytes) -> bytes:
    """A whole multipart body under ``boundary``: a U+FFFE field and a bidi file name."""
    return multipart(
        part(b'name="evil"', _FFFE),
        part(b'name="f"; filename=' + _BIDI_NAME, b"x", b"Content-Type: text/plain"),
        boundary=boundary,
    )


def _hidden(outer: bytes, inner: bytes, *, lines: bytes = b"") -> bytes:
    """A body under ``outer`` whose one binary file part holds a body under ``inner``."""
    binary = part(
        b'name="bin"; filename="b.bin"',
        lines + _evil(inner),
        b"Content-Type: application/octet-stream",
    )
    return multipart(binary, boundary=outer)


def _mp(content_type: bytes, body: bytes) -> bytes:
    return post(b"/upload", _ctype(content_type), body)


_BAD_FORM: Final = b"n=%EF%BF%BE&o=%C0%AF"
_UTF7_FIELD: Final = multipart(part(b'name="c"', SCRIPT))

ATTACKS: Final = (
    # R00: RFC 9110 §5.6.4 reads \\ as one backslash, so the guard saw charset=utf-8;
    # email.message, cgi and Django read \" as a quote and get charset=utf-7.
    refuse("r00-quoted-pair-charset-utf7", _mp(b'multipart/form-data; boundary=XyZ; a="x\\\\"; charset=utf-8; b="; charset=utf-7; c="', _UTF7_FIELD), "<script>"),
    refuse("r00-quoted-pair-boundary", _mp(b'multipart/form-data; a="x\\\\"; boundary=Abc; b="; boundary=XyZ"', _hidden(b"Abc", b"XyZ"))),
    refuse("r00-quoted-pair-text-query-utf7", http(b"GET", b"/q?x=%2BADw-script%2BAD4-", _ctype(b'text/plain; a="x\\\\"; charset=utf-8; b="; charset=utf-7; c="')), "<script>"),
    refuse("r00-escaped-quote-in-boundary", _mp(b'multipart/form-data; boundary="Xy\\"Z"', _hidden(b'Xy\\"Z', b'Xy"Z'))),
    # R0: Werkzeug and Sanic percent-decode every parameter value.
    refuse("r0-percent-boundary", _mp(b"multipart/form-data; boundary=Xy%22Z", _hidden(b"Xy%22Z", b'Xy"Z'))),
    refuse("r0-percent-boundary-quoted", _mp(b'multipart/form-data; boundary="Xy%22Z"', _hidden(b"Xy%22Z", b'Xy"Z'))),
    refuse("r0-percent-charset", _mp(b"multipart/form-data; boundary=XyZ; charset=utf%2D7", _UTF7_FIELD), "<script>"),
    # R1: Falcon matches its handlers' types against wildcards.
    refuse("r1-multipart-wildcard", _mp(b"multipart/*; boundary=XyZ", _evil(b"XyZ"))),
    refuse("r1-wildcard-form-data", _mp(b"*/form-data; boundary=XyZ", _evil(b"XyZ"))),
    refuse("r1-wildcard-urlencoded", post(b"/f", _ctype(b"*/x-www-form-urlencoded"), _BAD_FORM), "À¯"),
    refuse("r1-wildcard-any", _mp(b"*/*; boundary=XyZ", _evil(b"XyZ"))),
    # R2 / R8: Bottle reads a form from every non-multipart body, WebOb when the
    # Content-Type is missing; R7: Werkzeug (Flask, Quart) reads this misspelling.
    refuse("r2-form-as-text", post(b"/f", _ctype(b"text/plain"), _BAD_FORM), "À¯"),
    refuse("r8-form-no-type", http(b"POST", b"/f", (), _BAD_FORM), "À¯"),
    refuse("r2-form-uppercase-multipart-type", post(b"/f", _ctype(b"MULTIPART/FORM-DATA"), _BAD_FORM), "À¯"),
    # Bottle only, under the inspect_all_bodies its echo runs with (SECURITY.md);
    # no other framework reads these, so they may pass there, never leak.
    either("r2-form-as-json", post(b"/f", _ctype(b"application/json"), _BAD_FORM), "À¯"),
    either("r2-form-as-octet-stream", post(b"/f", BINARY, _BAD_FORM), "À¯"),
    either("r2-multipart-mixed", _mp(b"multipart/mixed; boundary=XyZ", _evil(b"XyZ"))),
    refuse("r7-misspelt-urlencoded", post(b"/f", _ctype(b"application/x-url-encoded"), _BAD_FORM), "À¯"),
    # R3: Sanic splits at every occurrence of the boundary, dashes or none.
    refuse("r3-boundary-line-without-dashes", _mp(b"multipart/form-data; boundary=XyZ", _hidden(b"XyZ", b"XyZ", lines=b"XyZ\r\n" + _CD + b'name="evil"\r\n\r\n' + _FFFE + b"\r\n"))),
    # R4: backslashes and quotes in a boundary, which parsers keep or drop.
    refuse("r4-backslash-boundary", _mp(b'multipart/form-data; boundary="Xy\\\\Z"', _hidden(b"Xy\\Z", b"Xy\\\\Z"))),
    refuse("r4-quote-semicolon-boundary", _mp(b'multipart/form-data; boundary="Xy\\"; Z"', _hidden(b'Xy"; Z', b"Xy\\"))),
    refuse("r4-encoded-crlf-boundary", _mp(b"multipart/form-data; boundary=Xy%0D%0AZ", _hidden(b"Xy%0D%0AZ", b"Xy\r\nZ"))),
    refuse("r4-boundary-trailing-space", _mp(b'multipart/form-data; boundary="XyZ "', _evil(b"XyZ "))),
    # R9, R10: a form or multipart nested in a part (Falcon's part.get_media()).
    refuse("r9-nested-urlencoded-part", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="n"', _BAD_FORM, b"Content-Type: application/x-www-form-urlencoded"))), "À¯"),
    refuse("r10-nested-multipart-part", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="n"', _evil(b"Inner"), b"Content-Type: multipart/mixed; boundary=Inner")))),
    # R11: a part header some parser reads (cgi: Content-Length) and others ignore.
    refuse("r11-part-content-length", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="a"', b"ok", b"Content-Length: x")))),
    refuse("r11-part-content-length-number", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="a"', b"ok" + b"\r\n--XyZ\r\n" + _CD + b'name="evil"\r\n\r\n' + _FFFE, b"Content-Length: 2")))),
    refuse("r11-part-unknown-header", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="a"', b"ok", b"X-Extra: 1")))),
    # R6: Litestar and Sanic percent-decode file and field names (the WHATWG escapes
    # a browser writes for '"', CR and LF); _multipart_names checks that reading.
    refuse("r6-filename-escaped-crlf", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="f"; filename="a%0D%0Aevil.txt"', b"x", b"Content-Type: text/plain")))),
    refuse("r6-filename-escaped-bidi", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="f"; filename="inv%E2%80%AEtxt.exe"', b"x", b"Content-Type: text/plain")))),
    refuse("r6-name-escaped-fffe", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="n%EF%BF%BE"', b"x")))),
    # R5: Litestar percent-decodes every cookie value; _cookies checks that reading.
    refuse("r5-cookie-percent-nul", http(b"GET", b"/c", ((b"Cookie", b"a=x%00y"),))),
    refuse("r5-cookie-percent-fffe", http(b"GET", b"/c", ((b"Cookie", b"b=%EF%BF%BE"),))),
    refuse("r5-cookie-percent-crlf", http(b"GET", b"/c", ((b"Cookie", b"c=x%0D%0Ay"),))),
    refuse("r5-cookie-percent-overlong", http(b"GET", b"/c", ((b"Cookie", b"d=%C0%AF"),)), "À¯"),
)  # fmt: skip

# Forms as real clients build them (their boundary styles, Unicode names and values,
# a file part with a Content-Type; Chromium and Firefox escape '"' in names as %22).
_CHROMIUM: Final = b"----WebKitFormBoundary7MA4YWxkTrZu0gW"
_FIREFOX: Final = b"----geckoformboundary3f5c1a7e9b2d4c6a8e0f1b3d5a7c9e1f"
_CURL: Final = b"------------------------d74496d66958873e"
_REQUESTS: Final = b"a7c4e1f0b3d6920a8e5b1c7d3f9e2a64"
_PNG: Final = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8"


def _client_form(boundary: bytes, *, quoted: bool = False) -> bytes:
    body = multipart(
        part(b'name="caf\xc3\xa9"', "été €".encode()),
        part(
            b'name="f"; filename="r\xc3\xa9sum\xc3\xa9.png"',
            _PNG,
            b"Content-Type: image/png",
        ),
        boundary=boundary,
    )
    value = b'"' + boundary + b'"' if quoted else boundary
    return _mp(b"multipart/form-data; boundary=" + value, body)


_FORM_FIELDS: Final = [["café", "été €"]]
_FORM_FILES: Final = [["f", "résumé.png", _PNG.hex()]]

CONTROLS: Final = (
    control("c25-chromium-form", _client_form(_CHROMIUM), form=_FORM_FIELDS, files=_FORM_FILES),
    control("c25-firefox-form", _client_form(_FIREFOX), form=_FORM_FIELDS, files=_FORM_FILES),
    control("c25-curl-form", _client_form(_CURL), form=_FORM_FIELDS, files=_FORM_FILES),
    control("c25-requests-form", _client_form(_REQUESTS), form=_FORM_FIELDS, files=_FORM_FILES),
    control("c25-httpx-quoted-boundary", _client_form(_REQUESTS, quoted=True), form=_FORM_FIELDS, files=_FORM_FILES),
    control("c25-form-charset", post(b"/f", _ctype(b"application/x-www-form-urlencoded; charset=UTF-8"), b"a=%C3%A9t%C3%A9&b=x+y"), form=[["a", "été"], ["b", "x y"]]),
    control("c25-form-plain", post(b"/f", FORM, b"q=%E2%82%AC"), form=[["q", "€"]]),
    control("c25-json-utf8", post(b"/j", _ctype(b"application/json; charset=utf-8"), '{"a": "é 𝄞"}'.encode()), json_loads={"a": "é 𝄞"}),
    control("c25-binary-upload", post(b"/b", BINARY, _PNG)),
    # Percent-encoded cookies that decode to text (encodeURIComponent) pass R5's reading.
    control("c25-cookie-percent-json", http(b"GET", b"/c", ((b"Cookie", b"pref=%7B%22a%22%3A1%7D; name=caf%C3%A9; off=100%"),))),
    # WHATWG escapes in names (Chromium, Firefox: '"' as %22) and a lone '%' pass R6's reading.
    control("c25-filename-whatwg-quote", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="f"; filename="say %22hi%22.txt"', b"x", b"Content-Type: text/plain")))),
    control("c25-filename-percent-sign", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="f"; filename="100%.pdf"', b"x", b"Content-Type: application/pdf")))),
)  # fmt: skip

# Content-Transfer-Encoding (RFC 7578 §4.7 deprecates it). Django decodes base64 in
# fields and files (any case, parameters ignored, the last of two fields);
# python-multipart's FormParser also quoted-printable; Werkzeug and Starlette decode
# neither. The guard passes only the identity codings 7bit, 8bit and binary, once.
# curl sends the field only when asked (-F 'a=x;encoder=8bit'; captured from curl
# 7.88); Chromium, Firefox, requests (urllib3) and httpx never send it.
_CTE: Final = b"Content-Transfer-Encoding: "
_B64_FFFE: Final = b"77++"  # base64 (RFC 4648 §4) of EF BF BE, U+FFFE


def _cte_field(*headers: bytes, body: bytes = _B64_FFFE) -> bytes:
    return _mp(
        b"multipart/form-data; boundary=XyZ",
        multipart(part(b'name="c"', body, *headers)),
    )


_CURL_CTE: Final = b"------------------------6d70201da7973236"

CTE_ROWS: Final = (
    control("c25-curl-encoder-8bit", _mp(b"multipart/form-data; boundary=" + _CURL_CTE, multipart(part(b'name="a"', "välue".encode(), _CTE + b"8bit"), boundary=_CURL_CTE)), form=[["a", "välue"]]),
    control("c25-cte-binary-file", _mp(b"multipart/form-data; boundary=XyZ", multipart(part(b'name="f"; filename="r\xc3\xa9sum\xc3\xa9.png"', _PNG, b"Content-Type: image/png", _CTE + b"binary"))), files=_FORM_FILES),
    control("c25-cte-7bit-field", _cte_field(_CTE + b"7bit", body=b"plain"), form=[["c", "plain"]]),
    refuse("c25-cte-base64-after-7bit", _cte_field(_CTE + b"7bit", _CTE + b"base64"), "\ufffe"),
    refuse("c25-cte-7bit-after-base64", _cte_field(_CTE + b"base64", _CTE + b"7bit"), "\ufffe"),
    refuse("c25-cte-base64-parameter", _cte_field(_CTE + b"base64; x=1"), "\ufffe"),
    refuse("c25-cte-base64-mixed-case", _cte_field(_CTE + b"bAsE64"), "\ufffe"),
    refuse("c25-cte-base64-trailing-tab", _cte_field(_CTE + b"base64\t"), "\ufffe"),
    refuse("c25-cte-base64-space-before-colon", _cte_field(b"Content-Transfer-Encoding : base64"), "\ufffe"),
    refuse("c25-cte-base64-folded", _cte_field(_CTE.rstrip(), b" base64"), "\ufffe"),
    refuse("c25-cte-quoted-printable-soft-break", _cte_field(_CTE + b"quoted-printable", body=b"=EF=\r\n=BF=BE"), "\ufffe"),
    # The cost of failing closed: curl's -F 'f=@x;encoder=base64' file is refused
    # (Django would store the decoded bytes; the guard reads no file's content).
    refuse("c25-curl-encoder-base64-file", _mp(b"multipart/form-data; boundary=" + _CURL_CTE, multipart(part(b'name="up"; filename="f.txt"', b"aMOpbGxv", b"Content-Type: text/plain", _CTE + b"base64"), boundary=_CURL_CTE))),
)  # fmt: skip

ROWS: Final[tuple[Row, ...]] = CONTROLS + ATTACKS + CTE_ROWS
