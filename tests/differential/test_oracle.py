"""The oracle on fabricated answers: it must catch a guard that lets an attack through.

No server here: each test builds the response a stack could give and checks the
verdict, so a blind spot in the oracle fails here rather than hiding leaks.
"""

from __future__ import annotations

import re

import pytest

from .._servers import Response
from .echo import Document, dumps, new_document
from .oracle import Exchange, judge
from .rows import Expect, Row, get
from .table import ROWS
from .table_framing import ROWS as FRAMING_ROWS
from .table_h2 import ROWS as H2_ROWS
from .table_ws import ROWS as WS_ROWS

_ROWS = {row.id: row for row in ROWS}


def _echo(**fields: object) -> Exchange:
    document: Document = new_document("test", "/t", "/t")
    document.update(fields)
    headers = ((b"content-type", b"application/json"),)
    return Exchange(Response(200, headers, dumps(document)))


def _status(status: int, media_type: bytes = b"text/plain") -> Exchange:
    return Exchange(Response(status, ((b"content-type", media_type),), b"{}"))


@pytest.mark.parametrize(
    ("row_id", "fields", "why"),
    [
        ("path-overlong-slash", {"path": "/etc\u00c0\u00afpasswd"}, "forbidden"),
        ("raw-invalid-path", {"raw_path": "/a\u00c0\u00afb"}, "forbidden"),
        ("json-surrogate-escape", {"json_loads": {"a": "\ud800"}}, "lone surrogate"),
        ("json-surrogate-key", {"json": {"\ud800": 1}}, "lone surrogate"),
        ("F2-json-fdd0-escape", {"model": {"a": "\ufdd0"}}, "noncharacter"),
        (
            "F3c-rfc2231-filename-continuation",
            {"files": [["f", "shell.php\x00.jpg", ""]]},
            "forbidden",
        ),
        ("F3-filename-bidi", {"files": [["f", "inv\u202etxt.exe", ""]]}, "bidi"),
        ("filename-traversal", {"files": [["f", "../../etc/passwd", ""]]}, "separator"),
        ("filename-division-slash", {"files": [["f", "a\u2215b", ""]]}, "look-alike"),
        ("F6-path-crlf", {"path": "/a\r\nSet-Cookie: evil=1"}, "control"),
        ("F6-path-c1-nel", {"path": "/a\x85b"}, "control"),
        ("F13-dotdot-semicolon", {"path": "/static/..;/secret"}, "dot-dot"),
        ("F13-dotdot-backslash", {"path": "/static/..\\secret"}, "dot-dot"),
        ("F4-dot-nibbles", {"path": "/static/%2e%2e/secret"}, "forbidden"),
        ("F5-name-star-utf7", {"form": [["<script>", "x"]]}, "forbidden"),
        (
            "F8-octet-stream-part-no-filename",
            {"form": [["v", "À¯í\xa0\x80"]]},
            "forbidden",
        ),
        ("multipart-value-invalid", {"form": [["c", "x\ufffd"]]}, "U+FFFD"),
        # Starlette hands cookies over one code point per byte: EF BF BE is U+FFFE.
        (
            "F12-cookie-octal-fffe",
            {"cookies": [["a", "\u00ef\u00bf\u00be"]]},
            "nonchar",
        ),
        ("F12-cookie-octal-nul", {"cookies": [["b", "x\x00y"]]}, "control"),
        ("header-latin1", {"headers": [["x-name", "caf\u00e9"]]}, "forbidden"),
        (
            "F14-normalize-encoded-slash",
            {"raw_path": "/normalize/a/b%EF%BF%BD"},
            "/a/b",
        ),
    ],
)
def test_a_leak_is_caught(row_id: str, fields: dict[str, object], why: str) -> None:
    verdict = judge(_ROWS[row_id], _echo(**fields))
    assert verdict.outcome == "leaked"
    assert re.search(re.escape(why), verdict.detail, re.IGNORECASE), verdict.detail


def test_a_windows_device_name_is_a_control() -> None:
    # Issue 26: refused only with windows_upload_names; by default it must arrive.
    verdict = judge(_ROWS["filename-device-con"], _echo(files=[["f", "CON", "78"]]))
    assert verdict.outcome == "passed", verdict.detail


def test_a_clean_echo_of_a_row_to_refuse_is_allowed() -> None:
    assert judge(_ROWS["F2-json-utf16le-clean"], _echo()).outcome == "allowed"


@pytest.mark.parametrize(
    ("exchange", "outcome"),
    [
        (_status(500), "5xx"),
        (_status(502), "5xx"),
        (_status(501), "server-refused"),
        (_status(404), "wrong"),
        (Exchange(hung=True), "hang"),
        (Exchange(error="ConnectionRefusedError"), "error"),
        (_status(400, b"application/problem+json"), "refused"),
        (_status(413, b"application/problem+json"), "refused"),
        (_status(400), "server-refused"),
        (_status(422, b"application/json"), "server-refused"),
        (Exchange(), "closed"),
    ],
)
def test_status_outcomes(exchange: Exchange, outcome: str) -> None:
    assert judge(_ROWS["path-surrogate"], exchange).outcome == outcome


def test_a_refused_control_row_is_wrong() -> None:
    row = _ROWS["clean-path-query"]
    assert judge(row, _status(400, b"application/problem+json")).outcome == "wrong"
    assert judge(row, Exchange()).outcome == "wrong"


def test_a_control_row_checks_its_echo() -> None:
    row = _ROWS["clean-path-query"]
    good = {"path": "/ctl/café/€", "query": [["q", "𝄞"], ["r", "a b"]]}
    assert judge(row, _echo(**good)).outcome == "passed"
    assert judge(row, _echo(**{**good, "path": "/ctl/caf"})).outcome == "wrong"
    assert judge(row, _echo(**good, errors={"query": "KeyError"})).outcome == "wrong"


def test_utf8_carried_one_code_point_per_byte_is_no_leak() -> None:
    # Starlette's cookie "München" arrives as the Latin-1 reading of its UTF-8.
    row = _ROWS["clean-cookie"]
    cookies = [["lang", "fr"], ["city", "München".encode().decode("latin-1")]]
    assert judge(row, _echo(cookies=cookies)).outcome == "passed"


def test_fffd_is_allowed_only_where_the_row_says() -> None:
    assert judge(_ROWS["clean-json-real-fffd"], _echo(json_loads={"a": "\ufffd"})).ok
    row = Row("t", get(b"/t"), Expect.EITHER)
    assert judge(row, _echo(json_loads={"a": "\ufffd"})).outcome == "leaked"


def test_row_ids_are_unique_and_cover_every_finding() -> None:
    ids = [row.id for row in (*ROWS, *FRAMING_ROWS, *H2_ROWS, *WS_ROWS)]
    assert len(ids) == len(set(ids))
    for finding in range(1, 15):
        assert any(i.startswith(f"F{finding}-") for i in ids), f"F{finding}"
    # Issue 25: R00, R0 .. R11 (R12's, Granian WSGI's blindness, is BLIND_STACKS
    # in stacks.py).
    for label in ("00", *map(str, range(12))):
        assert any(i.startswith(f"r{label}-") for i in ids), f"R{label}"


def test_blind_stack_relaxes_only_refuse_rows() -> None:
    row = _ROWS["encoded-slash"]
    assert row.on("runserver-django").expect is Expect.EITHER
    assert row.on("gunicorn-django") is row
    control_row = _ROWS["clean-path-query"]
    assert control_row.on("runserver-django") is control_row
