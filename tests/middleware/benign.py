"""A benign corpus (issue 26): requests as real clients build them, all to pass.

Multipart bodies in the shapes Chromium, curl, python-requests and httpx write
(names in many languages and habits, binary and legacy-encoded files, with and
without part Content-Types), forms and JSON in many scripts, real User-Agent
strings, gzip and br JSON, cookies the frameworks' own writers wrote, and a large
upload. httpx's bodies are built by httpx itself (``httpx2``), cookies by
``http.cookies`` and Werkzeug; the others follow each client's encoder, cited at
each builder.
"""

# ruff: noqa: RUF001  # the corpus is text in many scripts, look-alikes included

from __future__ import annotations

import gzip
import json
import unicodedata
from http.cookies import SimpleCookie
from typing import Final
from urllib.parse import quote, urlencode

import brotli
import httpx2
from werkzeug.http import dump_cookie

#: ``(id, method, target, headers, body)``; every row must pass a default guard.
Request = tuple[str, str, bytes, tuple[tuple[bytes, bytes], ...], bytes]

#: Upload names from many languages and habits (screenshots, copies, versions).
NAMES: Final = (
    "report.pdf",
    "Отчёт за 2024 год.pdf",
    "報告書（最終版）.docx",
    "会議　資料.pptx",
    "تقرير الربع الأول.pdf",
    "דו״ח שנתי.xlsx",
    "रिपोर्ट.txt",
    "क्‍षेत्र.txt",
    "می‌خواهم.txt",
    "보고서_최종.hwp",
    "รายงาน.pdf",
    "Ảnh chụp màn hình 2024-05-01 lúc 10.30.15.png",
    "Screenshot 2024-05-01 at 10.30.15\u202fAM.png",
    "Capture d’écran 2024-05-01 à 10.30.15.png",
    unicodedata.normalize("NFD", "Café crème.txt"),
    "résumé (1).pdf",
    "Meeting 10:30.pdf",
    "Q&A?.pdf",
    'say "hi".txt',
    "a|b.txt",
    "<draft>.txt",
    "report 2024*.xlsx",
    "con.txt",
    "AUX.pdf",
    "notes.",
    "Wait….txt",
    "naïve — draft v2.docx",
    "50% off.pdf",
    "#1 idea.md",
    "photo~1.JPG",
    "файл.tar.gz",
    "🎉 party.jpg",
    "👨\u200d👩\u200d👧 family.jpg",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Scotland.png",
    "1\ufe0f\u20e3 first.txt",
    "x" * 200 + "é" * 60 + ".txt",
)
#: Text in many scripts, for forms and JSON.
TEXTS: Final = (
    "Grüße aus Köln",
    "Привет, мир",
    "こんにちは世界",
    "你好，世界",
    "مرحبا بالعالم",
    "שלום עולם",
    "नमस्ते दुनिया",
    "Xin chào thế giới",
    "안녕하세요 세계",
    "Γειά σου Κόσμε",
    "ሰላም ልዑል",
    "emoji 👋🏽 and 𝄞",
    "line one\r\nline two\ttab",
)
#: Real User-Agent strings.
USER_AGENTS: Final = (
    b"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    b"Chrome/131.0.0.0 Safari/537.36",
    b"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, "
    b"like Gecko) Version/18.1 Safari/605.1.15",
    b"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
    b"curl/8.5.0",
    b"python-requests/2.32.3",
    b"python-httpx/0.28.1",
    b"okhttp/4.12.0",
    b"Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP2A.240805.005)",
)
#: File contents that are no UTF-8 text.
CONTENTS: Final = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8\xc0\xaf",
    "Café;Prix;€\r\n".encode("cp1252"),
    "日本語のテキスト".encode("shift_jis"),
    "naïve".encode("utf-16"),
    gzip.compress(b"compressed"),
)


def _disposition_name(name: str) -> bytes:
    # HTML §4.10.21.8 (Chromium, Firefox): " as %22, CR and LF as %0D %0A, the rest
    # raw UTF-8.
    escaped = name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
    return escaped.encode()


def browser_multipart(name: str, content: bytes, content_type: bytes) -> Request:
    """Chromium: a WebKitFormBoundary, a text field, then the file with its type."""
    boundary = b"----WebKitFormBoundary7MA4YWxkTrZu0gW"
    body = (
        b"--" + boundary + b"\r\n"
        b'Content-Disposition: form-data; name="title"\r\n\r\n'
        + TEXTS[1].encode()
        + b"\r\n--"
        + boundary
        + b"\r\n"
        b'Content-Disposition: form-data; name="file"; filename="'
        + _disposition_name(name)
        + b'"\r\nContent-Type: '
        + content_type
        + b"\r\n\r\n"
        + content
        + b"\r\n--"
        + boundary
        + b"--\r\n"
    )
    headers = (
        (b"content-type", b"multipart/form-data; boundary=" + boundary),
        (b"user-agent", USER_AGENTS[0]),
    )
    return (f"browser-{name}", "POST", b"/upload", headers, body)


def curl_multipart(name: str, content: bytes) -> Request:
    """curl -F 'file=@x': application/octet-stream for an unknown extension, the
    name raw (lib/mime.c escapes only " and \\ as %22 and \\\\, and CR LF)."""
    boundary = b"------------------------d74496d66958873e"
    body = (
        b"--" + boundary + b"\r\n"
        b'Content-Disposition: form-data; name="file"; filename="'
        + _disposition_name(name)
        + b'"\r\nContent-Type: application/octet-stream\r\n\r\n'
        + content
        + b"\r\n--"
        + boundary
        + b"--\r\n"
    )
    headers = (
        (b"content-type", b"multipart/form-data; boundary=" + boundary),
        (b"user-agent", b"curl/8.5.0"),
    )
    return (f"curl-{name}", "POST", b"/upload", headers, body)


def requests_multipart(name: str, content: bytes) -> Request:
    """python-requests ``files={"file": (name, content)}`` (urllib3's
    encode_multipart_formdata): no part Content-Type; a non-ASCII name raw in UTF-8
    (urllib3 2's ``format_multipart_header_param``, HTML5 style)."""
    boundary = b"9b1d2f7c3e8a4f6d0c5b7a9e1f3d5c7b"
    body = (
        b"--" + boundary + b"\r\n"
        b'Content-Disposition: form-data; name="comment"\r\n\r\n'
        + TEXTS[2].encode()
        + b"\r\n--"
        + boundary
        + b"\r\n"
        b'Content-Disposition: form-data; name="file"; filename="'
        + _disposition_name(name)
        + b'"\r\n\r\n'
        + content
        + b"\r\n--"
        + boundary
        + b"--\r\n"
    )
    headers = (
        (b"content-type", b"multipart/form-data; boundary=" + boundary),
        (b"user-agent", b"python-requests/2.32.3"),
    )
    return (f"requests-{name}", "POST", b"/upload", headers, body)


def httpx_multipart(name: str, content: bytes) -> Request:
    """httpx builds it: the type guessed from the name (text/plain for x.txt.gz)."""
    built = httpx2.Request(
        "POST",
        "http://t/upload",
        files={"file": (name, content)},
        data={"note": TEXTS[3]},
    )
    body = built.read()
    headers = (
        (b"content-type", built.headers["content-type"].encode()),
        (b"user-agent", b"python-httpx/0.28.1"),
    )
    return (f"httpx-{name}", "POST", b"/upload", headers, body)


def _form(text: str, index: int) -> Request:
    body = urlencode({"q": text, "lang": "any", "n": str(index)}).encode()
    headers = ((b"content-type", b"application/x-www-form-urlencoded"),)
    return (f"form-{index}", "POST", b"/form", headers, body)


def _json(text: str, index: int, *, ascii_only: bool) -> Request:
    document = {"text": text, "tags": [text[:3], "ok"], "n": index}
    body = json.dumps(document, ensure_ascii=ascii_only).encode()
    headers = ((b"content-type", b"application/json"),)
    return (
        f"json-{index}-{'ascii' if ascii_only else 'utf8'}",
        "POST",
        b"/api",
        headers,
        body,
    )


def _gzip_json(text: str, index: int) -> Request:
    body = gzip.compress(json.dumps({"event": "tap", "label": text}).encode())
    headers = (
        (b"content-type", b"application/json"),
        (b"content-encoding", b"gzip"),
        (b"user-agent", b"okhttp/4.12.0"),
    )
    return (f"gzip-json-{index}", "POST", b"/telemetry", headers, body)


def _br_json(text: str, index: int) -> Request:
    body = brotli.compress(json.dumps({"event": "tap", "label": text}).encode())
    headers = (
        (b"content-type", b"application/json"),
        (b"content-encoding", b"br"),
        (b"user-agent", b"okhttp/4.12.0"),
    )
    return (f"br-json-{index}", "POST", b"/telemetry", headers, body)


def _cookie_get(row_id: str, set_cookie: str) -> Request:
    # What a browser sends back: the name=value pair the server set (both writers
    # escape ";"), among others.
    pair = set_cookie.split(";")[0].encode("latin-1")
    cookie = b"sessionid=q8w7e6r5; " + pair + b"; theme=dark"
    return (row_id, "GET", b"/", ((b"cookie", cookie),), b"")


def _written_cookies(text: str, index: int) -> list[Request]:
    """Cookies holding ``text`` as the frameworks write them: Werkzeug (Flask)
    escapes UTF-8 bytes as ``\\ooo``; http.cookies (Django, Starlette, Bottle,
    Litestar) code points below 256, and leaves others raw, which a server sending
    Latin-1 headers cannot send."""
    rows = [_cookie_get(f"cookie-werkzeug-{index}", dump_cookie("city", text))]
    jar: SimpleCookie = SimpleCookie()
    jar["city"] = text
    pair = jar["city"].OutputString()
    if pair.isascii():
        rows.append(_cookie_get(f"cookie-http-cookies-{index}", pair))
    return rows


def _query(text: str, index: int, agent: bytes) -> Request:
    target = (
        b"/search/" + quote(text[:6]).encode() + b"?" + urlencode({"q": text}).encode()
    )
    return (f"get-{index}", "GET", target, ((b"user-agent", agent),), b"")


def corpus() -> list[Request]:
    """Every request of the corpus."""
    rows: list[Request] = []
    for index, name in enumerate(NAMES):
        content = CONTENTS[index % len(CONTENTS)]
        rows.append(browser_multipart(name, content, b"application/octet-stream"))
        rows.append(curl_multipart(name, content))
        rows.append(requests_multipart(name, content))
        rows.append(httpx_multipart(name, content))
    for index, text in enumerate(TEXTS):
        agent = USER_AGENTS[index % len(USER_AGENTS)]
        rows += [
            _form(text, index),
            _json(text, index, ascii_only=False),
            _json(text, index, ascii_only=True),
            _gzip_json(text, index),
            _br_json(text, index),
            _query(text, index, agent),
        ]
        if text.isprintable():  # no app keeps CR, LF or TAB in a cookie
            rows += _written_cookies(text, index)
    rows.append(httpx_multipart("x.txt.gz", gzip.compress(b"hello")))
    return rows


#: A 5 MB upload (over the default 4 MiB body limit, which caps fields only).
LARGE_UPLOAD: Final = requests_multipart("video.mp4", bytes(range(256)) * 20_480)
