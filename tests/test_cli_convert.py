"""``repair --from`` with an encoding whose bytes do not decode alone: the whole input
is converted, strictly, as ``iconv -f`` does (issue 27: re-reading a stretch of
UTF-16 or Shift_JIS by itself wrote mojibake that ``check`` then passed).

The oracle is CPython's own codec on the whole input: ``data.decode(ENC)`` for the
text, and its ``UnicodeDecodeError.start`` for where conversion must stop.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from utf8guard import _cli_encoding, _cli_input, cli

from .clitools import run, write

#: (encoding, text in it): the issue's two cases first.
WHOLE_FILE = [
    ("utf-16", "Grüße aus Köln 😀\n"),
    ("shift_jis", "日本語のテキスト\n"),
    ("utf-16-le", "Grüße\n"),
    ("utf-16-be", "Grüße 😀\n"),
    ("utf-32", "𝄞 Noten\n"),
    ("cp932", "日本語のテキスト\n"),
    ("euc-jp", "日本語のテキスト\n"),
    ("big5", "繁體中文\n"),
    ("gb18030", "简体中文 😀\n"),
    ("euc-kr", "한국어 텍스트\n"),
    ("iso2022_jp", "日本語のテキスト\n"),
]


@pytest.mark.parametrize("chunk", [1, 3, 1 << 18])
@pytest.mark.parametrize(("encoding", "text"), WHOLE_FILE)
def test_whole_file_conversion_matches_python_s_codec(
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    encoding: str,
    text: str,
    chunk: int,
) -> None:
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", chunk)
    data = text.encode(encoding)
    source = write(tmp_path, data)
    status = cli.main(["repair", "--from", encoding, str(source)])
    out, err = capsysbinary.readouterr()
    assert (status, out) == (1, data.decode(encoding).encode("utf-8"))
    assert err == f"utf8guard: {source}: converted from {encoding}\n".encode()


def test_the_converted_output_is_checked_by_the_policy(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    """UTF-16 can carry a noncharacter (U+FFFF) that the strict policy refuses."""
    source = write(tmp_path, "a\uffffb".encode("utf-16-le"))
    status = cli.main(["repair", "-f", "utf-16-le", str(source)])
    out, err = capsysbinary.readouterr()
    assert (status, out) == (1, "a\ufffdb".encode())
    assert err.endswith(
        b"converted from utf-16-le, replaced 1 violation(s) with U+FFFD\n"
    )


@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 18])
@pytest.mark.parametrize(
    ("encoding", "data"),
    [
        ("shift_jis", "日本語".encode("shift_jis") + b"\xff\xfe" + b"tail"),
        ("big5", "中文".encode("big5") + b"\x80"),
        ("utf-16-le", "ab".encode("utf-16-le") + b"c"),  # a truncated code unit
        ("utf-16-le", "a".encode("utf-16-le") + b"\x00\xdc" + b"b\x00"),  # lone low
        ("utf-32", codecs.BOM_UTF32_LE + b"\x00\x00\x11\x00"),  # above U+10FFFF
    ],
)
def test_invalid_input_is_an_error_at_python_s_offset_and_writes_nothing(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    encoding: str,
    data: bytes,
    chunk: int,
) -> None:
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", chunk)
    with pytest.raises(UnicodeDecodeError) as oracle:
        data.decode(encoding)
    start, end = oracle.value.start, oracle.value.end
    source, target = write(tmp_path, data), tmp_path / "out.txt"
    status, out, err = run(capsys, "repair", "-f", encoding, source, "-o", target)
    assert (status, out) == (2, "")
    assert err.startswith(
        f"utf8guard: {source}: not {encoding} at byte {start} "
        f"({data[start:end].hex(' ').upper()}): "
    )
    assert err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


@pytest.mark.parametrize(
    ("encoding", "alone"),
    [
        ("latin-1", True),
        ("cp1252", True),  # 81, 8D, 8F, 90, 9D undefined: errors alone, still fine
        ("koi8-r", True),
        ("mac-roman", True),
        ("cp437", True),
        ("iso8859-5", True),
        ("ascii", True),
        ("cesu-8", True),
        ("CESU8", True),
        ("utf-16", False),
        ("utf-16-be", False),
        ("utf-32-le", False),
        ("utf-7", False),
        ("shift_jis", False),
        ("cp932", False),
        ("big5", False),
        ("euc-jp", False),
        ("euc-kr", False),
        ("gb18030", False),
        ("iso2022_jp", False),  # stateful: ESC starts a shift
    ],
)
def test_which_encodings_read_alone(encoding: str, alone: bool) -> None:
    """Single-byte encodings (each byte one character, Python's charmap codecs)
    and CESU-8 re-read a stretch; multibyte and stateful ones cannot."""
    assert _cli_encoding.reads_alone(encoding) is alone


def test_koi8_r_stretches_are_re_read_in_a_utf8_file(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    data = "Москва: ".encode() + "Привет".encode("koi8-r") + " ✓\n".encode()
    source = write(tmp_path, data)
    status = cli.main(["repair", "--from", "koi8-r", str(source)])
    assert (status, capsysbinary.readouterr().out) == (1, "Москва: Привет ✓\n".encode())


@pytest.mark.parametrize(
    "name", ["utf-8", "UTF8", "utf_8", "U8", "cp65001", "utf-8-sig"]
)
def test_from_utf8_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    source = write(tmp_path, b"a\xe9b")
    status, out, err = run(capsys, "repair", "--from", name, source)
    assert (status, out) == (2, "")
    assert err == (
        f"utf8guard: repair: --from {name}: the invalid bytes are not UTF-8 by "
        "definition; name the encoding they were written in (cp1252, latin-1, ...)\n"
    )
