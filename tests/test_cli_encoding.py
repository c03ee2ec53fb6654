"""Encoding hints of ``check`` and ``repair --from``; expected text built by hand.

Inputs are made by encoding known text with CPython's codecs (ISO-8859-1, cp1252,
UTF-16) or by the CESU-8 definition (Unicode TR #26: each UTF-16 surrogate encoded
as a 3-byte sequence, which is what ``surrogatepass`` writes); the expected output
is the same text encoded as UTF-8, never the tool's own output.
"""

from __future__ import annotations

import codecs
import io
import os
import sys
from pathlib import Path

import pytest

from utf8guard import _cli_encoding, _cli_input

from .clitools import run, write

CP1252_HINT = (
    "the invalid bytes look like cp1252/Latin-1: utf8guard repair --from cp1252"
)
CESU8_HINT = (
    "the invalid bytes look like CESU-8 (UTF-16 surrogate pairs): "
    "utf8guard repair --from cesu-8"
)


def cesu8(text: str) -> bytes:
    """TR #26: each UTF-16 code unit as UTF-8; a supplementary character is 6 bytes."""
    units = text.encode("utf-16-be")
    halves = [
        units[i : i + 2].decode("utf-16-be", "surrogatepass")
        for i in range(0, len(units), 2)
    ]
    return "".join(halves).encode("utf-8", "surrogatepass")


def test_cesu8_helper_matches_the_tr26_example() -> None:
    # TR #26 §2: U+10400 is D801 DC00, in CESU-8 ED A0 81 ED B0 80.
    assert cesu8("\U00010400") == bytes.fromhex("eda081edb080")


# -- check: hints ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "argv", "hint"),
    [
        pytest.param("Höhe\n".encode("latin-1"), [], CP1252_HINT, id="hoehe-latin1"),
        pytest.param(
            "Grüße, “quoted” \u2013 5 €\n".encode("cp1252"),
            [],
            CP1252_HINT,
            id="cp1252",
        ),
        pytest.param(b"clef " + cesu8("𝄞 and 😀"), [], CESU8_HINT, id="cesu8"),
        pytest.param(
            "Höhe\n".encode("utf-16"),
            [],
            "looks like UTF-16LE (byte order mark FF FE): convert it whole, "
            "e.g. iconv -f UTF-16 -t UTF-8",
            id="utf16-bom-le",
        ),
        pytest.param(
            codecs.BOM_UTF16_BE + "Höhe\n".encode("utf-16-be"),
            [],
            "looks like UTF-16BE (byte order mark FE FF): convert it whole, "
            "e.g. iconv -f UTF-16 -t UTF-8",
            id="utf16-bom-be",
        ),
        pytest.param(
            "Höhe über alles\n".encode("utf-16-le"),
            ["--refuse-nul"],
            "looks like UTF-16LE (a NUL in every other byte): convert it whole, "
            "e.g. iconv -f UTF-16LE -t UTF-8",
            id="utf16-nul-le",
        ),
        pytest.param(
            "Höhe über alles\n".encode("utf-16-be"),
            ["--refuse-nul"],
            "looks like UTF-16BE (a NUL in every other byte): convert it whole, "
            "e.g. iconv -f UTF-16BE -t UTF-8",
            id="utf16-nul-be",
        ),
        # No hint: an attack is not an encoding, and mixed evidence is no evidence.
        pytest.param(b"/etc\xc0\xafpasswd", [], None, id="overlong-c0af"),
        pytest.param(b"a\xed\xa0\x80b", [], None, id="lone-surrogate"),
        pytest.param(b"x\x81y", [], None, id="cp1252-unassigned-81"),
        pytest.param("é ".encode("latin-1") + cesu8("𝄞"), [], None, id="mixed"),
        pytest.param(
            codecs.BOM_UTF16_LE + b"\x00\xd8A\x00", [], None, id="utf16-lone-surrogate"
        ),
        pytest.param("hi\n".encode("utf-32"), [], None, id="utf32-bom"),
        pytest.param(b"a\x1bb", ["--policy", "identifier"], None, id="policy-only"),
        pytest.param(b"a\x00b\x00c", ["--refuse-nul"], None, id="nul-not-utf16"),
    ],
)
def test_check_names_the_encoding_an_invalid_file_looks_like(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    data: bytes,
    argv: list[str],
    hint: str | None,
) -> None:
    path = write(tmp_path, data)
    status, out, err = run(capsys, "check", *argv, path)
    assert status == 1
    assert out.count("\n") == 1
    assert err == (f"utf8guard: {path}: hint: {hint}\n" if hint else "")


def test_the_hint_comes_once_after_every_violation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "Größe\nHöhe\n".encode("latin-1"))
    status, out, err = run(capsys, "check", "--all", "--json", path)
    assert (status, out.count("\n")) == (1, 3)
    assert err == f"utf8guard: {path}: hint: {CP1252_HINT}\n"


def test_stdin_from_a_file_opened_part_way_is_judged_from_where_it_starts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """As in ``{ read line; utf8guard check -; } < file``: line 1 is not input."""
    path = write(tmp_path, cesu8("😀") + b"\n" + "Höhe".encode("latin-1"))
    with path.open("rb") as stream:
        stream.readline()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stream))
        status, _, err = run(capsys, "check", "-")
    assert (status, err) == (1, f"utf8guard: <stdin>: hint: {CP1252_HINT}\n")


def test_no_hint_for_an_unseekable_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, "Höhe".encode("latin-1"))
    os.close(write_end)
    with open(read_end, "rb", buffering=0) as pipe:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(pipe)))
        assert run(capsys, "check", "-") == (
            1,
            "<stdin>:1:2: out_of_range at byte 1 (F6)\n",
            "",
        )


# -- repair --from -----------------------------------------------------------------

#: A file written by two tools: (text, encoding it was saved in).
MIXED = [
    ("Grüße aus ", "utf-8"),
    ("Köln", "latin-1"),
    (" und Zürich, 5 € ", "utf-8"),
    ("“quoted” \u2013 naïve", "cp1252"),
    (" 𝄞\n", "utf-8"),
]


def mixed_input() -> bytes:
    return b"".join(text.encode(encoding) for text, encoding in MIXED)


def expected_text() -> bytes:
    return "".join(text for text, _ in MIXED).encode("utf-8")


@pytest.mark.parametrize("chunk", [1, 2, 3, 1 << 18])
def test_from_cp1252_repairs_a_file_mixing_utf8_and_latin1(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    chunk: int,
) -> None:
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", chunk)
    source, target = write(tmp_path, mixed_input()), tmp_path / "out.txt"
    status, out, err = run(capsys, "repair", "--from", "cp1252", source, "-o", target)
    # Stretches by hand: ö; “; ” (ASCII between them); the en dash; ï: five.
    assert (status, out) == (1, "")
    assert err == f"utf8guard: {source}: re-read 5 stretch(es) as cp1252\n"
    assert target.read_bytes() == expected_text()
    assert run(capsys, "check", target) == (0, "", "")


def test_from_splits_a_stretch_longer_than_the_cap(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_cli_encoding, "MAX_STRETCH_BYTES", 2)
    source = write(tmp_path, "àéîõü".encode("latin-1"))
    status, out, err = run(capsys, "repair", "--from", "latin-1", source, "--in-place")
    assert (status, out) == (1, "")
    assert "re-read 3 stretch(es) as latin-1" in err
    assert source.read_text(encoding="utf-8") == "àéîõü"


def test_from_replaces_what_does_not_decode_and_what_the_policy_refuses(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    # 81 is unassigned in cp1252: one U+FFFD. 85 in Latin-1 is U+0085, a C1
    # control the identifier policy refuses: one U+FFFD. U+FDD0 is a
    # noncharacter, refused by every preset but well-formed: one U+FFFD.
    data = b"a\x81b\xe9c" + "\ufdd0".encode()
    source = write(tmp_path, data)
    status = run_binary(capsysbinary, "repair", "--from", "cp1252", source)
    assert status == (1, "a\ufffdbéc\ufffd".encode())
    source2 = write(tmp_path, b"x\x85y", "c1.txt")
    status = run_binary(
        capsysbinary, "repair", "--from", "latin-1", "--policy", "identifier", source2
    )
    assert status == (1, "x\ufffdy".encode())


def run_binary(
    capsysbinary: pytest.CaptureFixture[bytes], *argv: str | Path
) -> tuple[int, bytes]:
    from utf8guard import cli

    status = cli.main([str(arg) for arg in argv])
    return status, capsysbinary.readouterr().out


def test_from_cesu8_pairs_surrogates_and_refuses_lone_or_reversed_halves(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    pair = cesu8("😀")
    high, low = pair[:3], pair[3:]
    data = b"a" + pair + b" " + high + b" " + low + high + b"\n"
    source = write(tmp_path, data)
    status, out = run_binary(capsysbinary, "repair", "--from", "cesu-8", source)
    # Maximal subparts (Unicode ch. 3): each ED A0..BF xx is three violations.
    assert (status, out) == (
        1,
        ("a😀 " + "\ufffd" * 3 + " " + "\ufffd" * 6 + "\n").encode(),
    )


def test_from_in_place_and_valid_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    valid = write(tmp_path, "schon gültig\n".encode(), "valid.txt")
    latin = write(tmp_path, "Höhe\n".encode("latin-1"), "latin.txt")
    status, _, err = run(
        capsys, "repair", "--from", "latin_1", "--in-place", valid, latin
    )
    assert (status, err) == (
        1,
        f"utf8guard: {latin}: re-read 1 stretch(es) as latin_1\n",
    )
    assert latin.read_text(encoding="utf-8") == "Höhe\n"
    assert valid.read_text(encoding="utf-8") == "schon gültig\n"
