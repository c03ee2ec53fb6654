"""The multipart differentials the guard closes, shown on the real parsers in-process.

Each row is a raw body that python-multipart (under Starlette), Werkzeug and Django
read differently, or that one of them reads into something the guard refuses
elsewhere. The test feeds the same bytes to all three, checks that the smuggled
payload does reach an application on at least one of them (so the row is a real
attack on the installed versions), and that the guard refuses the body with the
named kind. Test-only dependencies: starlette, python-multipart, werkzeug, django.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncGenerator, Callable
from typing import Final

import pytest

from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._multipart import MultipartInspector

pytest.importorskip("python_multipart")
pytest.importorskip("werkzeug")
pytest.importorskip("django")

CONTENT_TYPE: Final = "multipart/form-data; boundary=XyZ"
#: A field holding U+FFFE, which the guard refuses (noncharacter) wherever it sees it.
FIELD: Final = b'Content-Disposition: form-data; name="a"\r\n\r\n\xef\xbf\xbe'
BINARY: Final = (
    b'Content-Disposition: form-data; name="f"; filename="a.bin"\r\n'
    b"Content-Type: application/octet-stream\r\n\r\n"
)

#: (name, filename, value) per part; file contents as Latin-1 to keep every byte.
Reading = list[tuple[str, str | None, str]]


def starlette(body: bytes) -> Reading:
    from starlette.datastructures import Headers, UploadFile
    from starlette.formparsers import MultiPartParser

    async def stream() -> AsyncGenerator[bytes, None]:
        yield body

    async def parse() -> Reading:
        parser = MultiPartParser(Headers({"content-type": CONTENT_TYPE}), stream())
        got: Reading = []
        form = await parser.parse()
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                data = (await value.read()).decode("latin-1")
                got.append((name, value.filename, data))
            else:
                got.append((name, None, value))
        await form.close()
        return got

    return asyncio.run(parse())


def werkzeug(body: bytes) -> Reading:
    from werkzeug.formparser import parse_form_data
    from werkzeug.test import create_environ

    environ = create_environ(
        method="POST",
        input_stream=io.BytesIO(body),
        content_type=CONTENT_TYPE,
        content_length=len(body),
    )
    _, form, files = parse_form_data(environ)
    got: Reading = [(name, None, value) for name, value in form.items(multi=True)]
    for name, file in files.items(multi=True):
        got.append((name, file.filename, file.read().decode("latin-1")))
        file.close()
    return got


def django(body: bytes) -> Reading:
    # Django ships no type information.
    from django.conf import settings

    if not settings.configured:
        settings.configure()
    from django.core.files.uploadhandler import (
        MemoryFileUploadHandler,
    )
    from django.http.multipartparser import (
        MultiPartParser,
    )

    meta = {"CONTENT_TYPE": CONTENT_TYPE, "CONTENT_LENGTH": str(len(body))}
    handlers = [MemoryFileUploadHandler()]
    post, files = MultiPartParser(meta, io.BytesIO(body), handlers, "utf-8").parse()
    got: Reading = [(name, None, value) for name, value in post.items()]
    for name, file in files.items():
        got.append((name, file.name, file.read().decode("latin-1")))
    return got


PARSERS: Final[tuple[Callable[[bytes], Reading], ...]] = (starlette, werkzeug, django)


def readings(body: bytes) -> dict[str, Reading | str]:
    """What each parser reads, or the name of the exception it raised."""
    got: dict[str, Reading | str] = {}
    for parser in PARSERS:
        try:
            got[parser.__name__] = parser(body)
        # A parser's refusal is a reading too; pytest still fails on warnings.
        except Exception as exc:
            got[parser.__name__] = f"refused: {type(exc).__name__}"
    return got


def part(disposition: bytes, value: bytes = b"v") -> bytes:
    return (
        b"--XyZ\r\nContent-Disposition: form-data; " + disposition + b"\r\n\r\n" + value
    )


END: Final = b"\r\n--XyZ--\r\n"

# (id, body, the kind the guard refuses it with, payload one parser lets through)
ROWS: Final = [
    # F3a: python-multipart skips from a leading LF to the first "-"
    (
        "F3a-lf-junk-preamble",
        b"\nJUNK--XyZ\r\n" + FIELD + END,
        "multipart_preamble",
        "\ufffe",
    ),
    # F3b: a boundary that is not a delimiter line
    (
        "F3b-junk-preamble",
        b"JUNK--XyZ\r\n" + FIELD + END,
        "multipart_preamble",
        "\ufffe",
    ),
    (
        "F3b-boundary-in-binary-part",
        b"--XyZ\r\n" + BINARY + b"x--XyZ\r\n" + FIELD + END,
        "multipart_boundary_in_part",
        "\ufffe",  # Django: a field "a"; the others: inside the file
    ),
    (
        "F3b-boundary-after-headers",
        b"--XyZ\r\n" + BINARY + b"--XyZ\r\n" + FIELD + END,
        "multipart_boundary_in_part",
        "\ufffe",
    ),
    (
        "F3b-boundary-in-headers",
        part(b'name="f"; filename="--XyZ"') + END,
        "multipart_boundary_in_part",
        "--XyZ",  # Django reads no part at all
    ),
    (
        "padded-delimiter",
        b"--XyZ\r\n" + BINARY + b"x\r\n--XyZ \r\n" + FIELD + END,
        "multipart_boundary_in_part",
        "\ufffe",
    ),
    # F3c: Werkzeug joins RFC 2231 continuations
    (
        "F3c-continuation",
        part(b'name="f"; filename*0="shell.php"; filename*1*=utf-8\'\'%00.jpg') + END,
        "multipart_parameter_continuation",
        "shell.php\x00.jpg",
    ),
    (
        "plain-and-extended-filename",
        part(b'name="f"; filename="a.txt"; filename*=utf-8\'\'..%2F..%2Fx') + END,
        "multipart_ambiguous_parameter",
        "../../x",
    ),
    (
        "backslash-in-filename",
        part(b'name="f"; filename="..\\..\\x"') + END,
        "multipart_ambiguous_parameter",
        "..\\..\\x",
    ),
    # F3d: Werkzeug takes the first Content-Disposition, the others the last
    (
        "F3d-two-dispositions",
        b'--XyZ\r\nContent-Disposition: form-data; name="f"; filename="../../x"\r\n'
        + part(b'name="f"; filename="ok.txt"')[7:]
        + END,
        "multipart_duplicate_header",
        "../../x",
    ),
    (
        "folded-header",
        part(b'name="a";\r\n filename="../x"') + END,
        "multipart_folded_header",
        "../x",
    ),
    # F3e: Werkzeug reads LF line breaks
    (
        "F3e-lf-only",
        b'--XyZ\nContent-Disposition: form-data; name="a"\n\n\xef\xbf\xbe\n--XyZ--\n',
        "multipart_bare_line_break",
        "\ufffe",
    ),
    # Django reads on after the close delimiter
    (
        "epilogue-part",
        part(b'name="b"', b"ok") + END + b"--XyZ\r\n" + FIELD + END,
        "multipart_epilogue",
        "\ufffe",
    ),
    # F5: Django decodes name* in any charset Python knows
    (
        "F5-name-utf7",
        part(b"name*=utf-7''%2BADw-script%2BAD4-") + END,
        "unsupported_charset",
        "<script>",
    ),
    # F8: Starlette decodes a field that is not UTF-8 as Latin-1
    (
        "F8-octet-stream-field",
        b"--XyZ\r\n"
        + FIELD[:-5]
        + b"\r\nContent-Type: application/octet-stream\r\n\r\n\xc0\xaf\xed\xa0\x80"
        + END,
        "overlong",
        "\xc0\xaf\xed\xa0\x80",
    ),
    # Django reads HTML character references in filenames
    (
        "filename-character-reference",
        part(b'name="f"; filename="..&#x2215;x"') + END,
        "lookalike",
        "..\u2215x",
    ),
    # Django reads a part with filename="" as a field, whatever its type
    (
        "empty-filename-field",
        part(
            b'name="f"; filename=""\r\nContent-Type: application/octet-stream',
            b"\xef\xbf\xbe",
        )
        + END,
        "noncharacter",
        "\ufffe",
    ),
    # Werkzeug reads "filename =" as no filename: a field, checked by no one
    (
        "space-before-equals",
        part(b'name="f"; filename ="a.png"\r\nContent-Type: image/png', b"\xef\xbf\xbe")
        + END,
        "malformed_multipart",
        "\ufffe",
    ),
    # RFC 7578 §4.2: a part without a name; Werkzeug alone keeps it
    (
        "no-name",
        b"--XyZ\r\n" + BINARY.replace(b'name="f"; ', b"") + b"\xef\xbf\xbe" + END,
        "malformed_multipart",
        b"\xef\xbf\xbe".decode("latin-1"),  # as a file: Latin-1 here
    ),
    # Item 6: what python-multipart, Werkzeug and Django keep as the filename
    (
        "filename-traversal",
        part(b'name="f"; filename="../../etc/passwd"') + END,
        "separator",
        "../../etc/passwd",
    ),
    (
        "filename-division-slash",
        part('name="f"; filename="..\u2215x"'.encode()) + END,
        "lookalike",
        "..\u2215x",
    ),
]


@pytest.mark.parametrize(
    ("body", "kind", "payload"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_guard_refuses_what_a_parser_lets_through(
    body: bytes, kind: str, payload: str
) -> None:
    got = readings(body)
    assert any(
        payload in text
        for reading in got.values()
        if not isinstance(reading, str)
        for part in reading
        for text in part
        if text is not None
    ), got
    inspector = MultipartInspector(b"XyZ", GuardConfig())
    findings = inspector.feed(body) + inspector.finish()
    assert [finding.kind.value for finding in findings][:1] == [kind]


#: Issue 26: rows refused only under ``windows_upload_names`` (a Windows rule).
WINDOWS_ROWS: Final = [
    (
        "filename-device",
        part(b'name="f"; filename="CON.txt"') + END,
        "reserved_name",
        "CON.txt",
    ),
    (
        "filename-colon",
        part(b'name="f"; filename="Meeting 10:30.pdf"') + END,
        "reserved_character",
        "Meeting 10:30.pdf",
    ),
]


@pytest.mark.parametrize(
    ("body", "kind", "payload"),
    [row[1:] for row in WINDOWS_ROWS],
    ids=[row[0] for row in WINDOWS_ROWS],
)
def test_windows_names_refused_only_on_request(
    body: bytes, kind: str, payload: str
) -> None:
    # Every parser reads the name as sent: not deceptive, only unsafe on Windows.
    got = readings(body)
    for name in ("starlette", "werkzeug", "django"):
        assert payload in (got[name][0][1] or ""), got
    default = MultipartInspector(b"XyZ", GuardConfig())
    assert default.feed(body) + default.finish() == []
    windows = MultipartInspector(b"XyZ", GuardConfig(windows_upload_names=True))
    findings = windows.feed(body) + windows.finish()
    assert [finding.kind.value for finding in findings] == [kind]


VALID: Final = [
    (
        "browser-shaped",
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="title"\r\n\r\n'
        + "Grüße 👋".encode()
        + b"\r\n--XyZ\r\n"
        b'Content-Disposition: form-data; name="upload"; '
        b'filename="Stra\xc3\x9fe.png"\r\n'
        b"Content-Type: image/png\r\n\r\n"
        b"\x89PNG\r\n\x1a\n\x00\xff--X\r\n"
        b"\r\n--XyZ\r\n"
        b'Content-Disposition: form-data; name="empty"; filename=""\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n"
        b"\r\n--XyZ--\r\n",
    ),
    (
        # curl -F 'a=1' -F 'f=@x.json': no final CRLF is fine too
        "curl-shaped",
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="a"\r\n\r\n1\r\n'
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="f"; filename="x.json"\r\n'
        b"Content-Type: application/json\r\n\r\n"
        b'{"k": "\\u00e4"}\r\n'
        b"--XyZ--",
    ),
    (
        # Issue 26: python-requests sends a file part without a Content-Type
        # (urllib3 RequestField.make_multipart); every parser reads it as a file.
        "requests-binary-no-type",
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="file"; filename="data.bin"\r\n\r\n'
        b"\x1f\x8b\x08\x00\xc0\xaf\xed\xa0\x80\xff\xfe"
        b"\r\n--XyZ--\r\n",
    ),
    (
        # httpx labels a file by its extension's guess: x.txt.gz is text/plain
        "httpx-gz-text-plain",
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="f"; filename="x.txt.gz"\r\n'
        b"Content-Type: text/plain\r\n\r\n"
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9\xc9\x07\x00"
        b"\r\n--XyZ--\r\n",
    ),
    (
        # a CSV saved by Excel in cp1252, a Shift_JIS and a UTF-16 text file
        "legacy-encoded-text-files",
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="a"; filename="prices.csv"\r\n'
        b"Content-Type: text/csv\r\n\r\n"
        + "Café;€ 3\r\n".encode("cp1252")
        + b"\r\n--XyZ\r\n"
        b'Content-Disposition: form-data; name="b"; filename="memo.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\n"
        + "日本語のメモ".encode("shift_jis")
        + b"\r\n--XyZ\r\n"
        b'Content-Disposition: form-data; name="c"; filename="notes.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\n"
        + "naïve".encode("utf-16")
        + b"\r\n--XyZ--\r\n",
    ),
    (
        # names Windows refuses, which macOS and Linux users send (issue 26)
        "windows-reserved-names",
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="a"; filename="Q&A?.pdf"\r\n'
        b"Content-Type: application/pdf\r\n\r\n%PDF-1.7"
        b"\r\n--XyZ\r\n"
        b'Content-Disposition: form-data; name="b"; filename="con.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\nx"
        b"\r\n--XyZ\r\n"
        b'Content-Disposition: form-data; name="c"; filename="notes."\r\n'
        b"Content-Type: text/plain\r\n\r\ny"
        b"\r\n--XyZ\r\n"
        b'Content-Disposition: form-data; name="d"; filename="Wait\xe2\x80\xa6.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\nz"
        b"\r\n--XyZ--\r\n",
    ),
    (
        # Werkzeug's test client opens with a CRLF
        "werkzeug-test-client",
        b"\r\n--XyZ\r\n" + FIELD[:-3] + "ä".encode() + END,
    ),
]


@pytest.mark.parametrize(
    "body", [row[1] for row in VALID], ids=[row[0] for row in VALID]
)
def test_valid_uploads_pass_and_parse_alike(body: bytes) -> None:
    got = readings(body)
    # Django alone turns an empty file input into an empty field; all parse it.
    assert all(isinstance(reading, list) for reading in got.values()), got
    assert got["starlette"] == got["werkzeug"], got
    inspector = MultipartInspector(b"XyZ", GuardConfig())
    assert inspector.feed(body) + inspector.finish() == []
