"""End to end, issue 26: what real clients upload passes a guard with default options.

Compressed bodies too: a gzip or deflate JSON body is checked decoded and reaches
the app as sent.

Raw requests over sockets to uvicorn (ASGI) and Gunicorn (WSGI) running
``e2e_default_app``: file parts are bytes whatever their type (python-requests
sends none, httpx labels ``x.txt.gz`` text/plain), upload names are refused only
for what is unsafe on every platform, and files stream past ``max_body_size``
while form fields keep it. The attacks beside them must still be refused.
"""

from __future__ import annotations

import functools
import gzip
import zlib
from collections.abc import Callable, Iterator

import brotli
import pytest

from utf8guard.middleware.engine._config import MAX_BODY_BYTES

from .._servers import HOST, ServerProcess, e2e_env, gunicorn, request, uvicorn

pytest.importorskip("uvicorn")
pytest.importorskip("gunicorn")

#: Each server, by name: (command, environment name for e2e_env).
SERVERS = {
    "uvicorn": uvicorn("tests.middleware.e2e_default_app:asgi"),
    "gunicorn": gunicorn("tests.middleware.e2e_default_app:wsgi()"),
}
BOUNDARY = b"b0undary"
#: An upload larger than the default body limit (issue 26: "a 5 MB upload").
LARGE_BYTES = 5 * 1024 * 1024


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request: pytest.FixtureRequest) -> Iterator[int]:
    name: str = request.param
    env = e2e_env(name, lifetime_seconds=180)
    with ServerProcess(SERVERS[name], env=env) as process:
        yield process.port


def part(disposition: bytes, content: bytes, content_type: bytes = b"") -> bytes:
    head = b"Content-Disposition: form-data; " + disposition + b"\r\n"
    if content_type:
        head += b"Content-Type: " + content_type + b"\r\n"
    return b"--" + BOUNDARY + b"\r\n" + head + b"\r\n" + content + b"\r\n"


def upload(port: int, *parts: bytes) -> tuple[int, dict[str, object]]:
    body = b"".join(parts) + b"--" + BOUNDARY + b"--\r\n"
    head = (
        b"POST /upload HTTP/1.1\r\n"
        b"Content-Type: multipart/form-data; boundary=" + BOUNDARY + b"\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    status, seen = request(HOST, port, head, body)
    if status == 200:
        assert seen == {"length": len(body)}
    return status, seen


#: File parts whose bytes are not UTF-8 text, as clients send them: all pass.
FILES = {
    # requests: files={"file": open("data.bin", "rb")}, no part Content-Type
    "requests-binary": part(
        b'name="file"; filename="data.bin"',
        b"\x89PNG\r\n\x1a\n\xc0\xaf\xed\xa0\x80\xff",
    ),
    # httpx guesses text/plain for x.txt.gz (mimetypes: .gz is an encoding)
    "httpx-gzip-text-plain": part(
        b'name="f"; filename="x.txt.gz"',
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9\xc9\x07\x00",
        b"text/plain",
    ),
    "cp1252-csv": part(
        b'name="f"; filename="prices.csv"', "Café;€ 3".encode("cp1252"), b"text/csv"
    ),
    "shift-jis-text": part(
        b'name="f"; filename="memo.txt"', "日本語".encode("shift_jis"), b"text/plain"
    ),
    "utf-16-text": part(
        b'name="f"; filename="notes.txt"', "naïve".encode("utf-16"), b"text/plain"
    ),
    "json-file-latin1": part(
        b'name="f"; filename="x.json"', b'{"a": "caf\xe9"}', b"application/json"
    ),
}
#: Upload names Windows refuses or alters, and emoji sequences: all pass.
NAMES = [
    "Meeting 10:30.pdf",
    "Q&A?.pdf",
    "say %22hi%22.txt",
    "a|b.txt",
    "<draft>.txt",
    "report 2024*.xlsx",
    "con.txt",
    "AUX.pdf",
    "notes.",
    "é" * 138 + ".txt",
    "Wait….txt",
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f.png",
    "1\ufe0f\u20e3 \U0001f468\u200d\U0001f469\u200d\U0001f467.jpg",
]
#: Attacks in the same bodies that stay refused, with the kind.
ATTACKS = {
    "field-overlong": (part(b'name="a"', b"\xc0\xaf"), "overlong"),
    # Table 3-7: E9 leads a 3-byte sequence; the CR after it cuts it short
    "field-latin1": (part(b'name="a"', b"caf\xe9"), "truncated"),
    "field-typed-as-png": (part(b'name="a"', b"\xc0\xaf", b"image/png"), "overlong"),
    "name-traversal": (
        part(b'name="f"; filename="../../etc/passwd"', b"x"),
        "separator",
    ),
    "name-bidi": (
        part(b'name="f"; filename="inv\xe2\x80\xaetxt.exe"', b"x"),
        "bidi_control",
    ),
    "name-dot-dot": (part(b'name="f"; filename=".."', b"x"), "dot_name"),
    "name-fullwidth-slash": (
        part(b'name="f"; filename="..\xef\xbc\x8fpasswd"', b"x"),
        "lookalike",
    ),
    "name-zero-width": (
        part(b'name="f"; filename="a\xe2\x80\x8b.txt"', b"x"),
        "default_ignorable",
    ),
    "name-stray-tags": (
        part('name="f"; filename="a\U000e0067\U000e007f.txt"'.encode(), b"x"),
        "default_ignorable",
    ),
    "file-charset-utf7": (
        part(b'name="f"; filename="a.txt"', b"x", b"text/plain; charset=utf-7"),
        "unsupported_charset",
    ),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_file_parts_are_bytes(server: int, name: str) -> None:
    status, _ = upload(server, part(b'name="title"', "Grüße".encode()), FILES[name])
    assert status == 200


@pytest.mark.parametrize("name", NAMES)
def test_upload_names_safe_everywhere_pass(server: int, name: str) -> None:
    status, _ = upload(server, part(b'name="f"; filename="%s"' % name.encode(), b"x"))
    assert status == 200


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attacks_beside_files_are_refused(server: int, name: str) -> None:
    attack, kind = ATTACKS[name]
    status, problem = upload(server, FILES["requests-binary"], attack)
    assert status == 400
    assert problem["violations"][0]["kind"] == kind  # type: ignore[index]


def test_large_upload_passes_the_body_limit(server: int) -> None:
    assert LARGE_BYTES > MAX_BODY_BYTES
    content = bytes(range(256)) * (LARGE_BYTES // 256)
    status, _ = upload(server, part(b'name="f"; filename="big.bin"', content))
    assert status == 200


def test_large_field_is_too_large(server: int) -> None:
    status, problem = upload(server, part(b'name="a"', b"a" * LARGE_BYTES))
    assert status == 413
    assert problem["status"] == 413


def post_encoded(
    port: int, coding: bytes, body: bytes
) -> tuple[int, dict[str, object]]:
    head = (
        b"POST /telemetry HTTP/1.1\r\nContent-Type: application/json\r\n"
        b"Content-Encoding: " + coding + b"\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    return request(HOST, port, head, body)


@pytest.mark.parametrize(
    ("coding", "compress"),
    [(b"gzip", gzip.compress), (b"deflate", zlib.compress), (b"br", brotli.compress)],
)
def test_compressed_json_is_checked_decoded(
    server: int, coding: bytes, compress: Callable[[bytes], bytes]
) -> None:
    clean = compress('{"msg": "Grüße 👋", "city": "Medellín"}'.encode())
    status, seen = post_encoded(server, coding, clean)
    # The app reads the body as sent: compressed.
    assert (status, seen) == (200, {"length": len(clean)})
    status, problem = post_encoded(server, coding, compress(b'{"a": "\xc0\xaf"}'))
    assert status == 400
    assert problem["violations"][0]["kind"] == "overlong"  # type: ignore[index]


def test_unknown_coding_and_bomb(server: int) -> None:
    # refused by its name, whatever the bytes
    status, problem = post_encoded(server, b"zstd", b"{}")
    assert status == 400
    assert problem["violations"][0]["kind"] == "unsupported_content_encoding"  # type: ignore[index]
    fast_br = functools.partial(brotli.compress, quality=1)
    for coding, compress in ((b"gzip", gzip.compress), (b"br", fast_br)):
        bomb = compress(b"[" + b" " * (64 << 20) + b"]")
        status, problem = post_encoded(server, coding, bomb)
        assert status == 413
