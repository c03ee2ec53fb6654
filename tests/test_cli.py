"""``utf8guard check``: output formats, offsets, exit codes, streaming, policies."""

from __future__ import annotations

import argparse
import io
import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import utf8guard
from utf8guard import (
    IDENTIFIER,
    STRICT,
    WELL_FORMED,
    Kind,
    Violation,
    _cli_check,
    _cli_input,
    cli,
)
from utf8guard import reference as ref
from utf8guard._policy import FLAGS

from .clitools import run, write


@pytest.fixture
def corpus(tmp_path: Path, kuhn_corpus: bytes) -> Path:
    """A copy of Kuhn's stress test (the conftest fixture finds it or skips)."""
    path = tmp_path / "UTF-8-test.txt"
    path.write_bytes(kuhn_corpus)
    return path


def place(data: bytes, start: int) -> tuple[int, int]:
    """Line and byte column of ``start``, from the whole input split into lines."""
    lines_before = data[:start].split(b"\n")
    return len(lines_before), len(lines_before[-1]) + 1


def check_records(out: str, data: bytes, path: str) -> list[Violation]:
    """Parse ``--json`` output; every record must point at the bytes it shows."""
    found = []
    for line in out.splitlines():
        record = json.loads(line)
        assert set(record) == {
            "path",
            "kind",
            "start",
            "end",
            "line",
            "column",
            "bytes",
        }
        assert record["path"] == path
        start, end = record["start"], record["end"]
        assert bytes.fromhex(record["bytes"]) == data[start:end]
        assert (record["line"], record["column"]) == place(data, start)
        found.append(Violation(Kind(record["kind"]), start, end))
    return found


def only_hints(err: str, path: Path) -> bool:
    """True when stderr holds nothing but encoding hints about ``path``."""
    return all(
        line.startswith(f"utf8guard: {path}: hint: ") for line in err.splitlines()
    )


# -- check: output formats -------------------------------------------------------


def test_valid_file_prints_nothing_and_exits_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "héllo wörld\n€ 𝄞\n".encode())
    assert run(capsys, "check", path) == (0, "", "")


def test_human_line_names_path_line_column_kind_byte_and_hex(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, b"first\n/etc\xc0\xafpasswd\n\xed\xa0\x80\n")
    status, out, err = run(capsys, "check", path)
    assert (status, err) == (1, "")
    assert out == f"{path}:2:5: overlong at byte 10 (C0)\n"


def test_all_reports_every_violation_in_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = b"a\xf4\x90\x80\x80b\n\xe2\x82\n\xef\xbf\xbe"
    path = write(tmp_path, data)
    status, out, _ = run(capsys, "check", "--all", path)
    assert status == 1
    assert out.splitlines() == [
        f"{path}:1:2: out_of_range at byte 1 (F4)",
        f"{path}:1:3: unexpected_continuation at byte 2 (90)",
        f"{path}:1:4: unexpected_continuation at byte 3 (80)",
        f"{path}:1:5: unexpected_continuation at byte 4 (80)",
        f"{path}:2:1: truncated at byte 7 (E2 82)",
        f"{path}:3:1: noncharacter at byte 10 (EF BF BE)",
    ]


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\xc0\xaf", id="overlong-c0af"),
        pytest.param(b"x\n\n\xe0\x80\xaf", id="overlong-e080af-line-3"),
        pytest.param(b"\xed\xa0\x80\xed\xb0\x80", id="cesu8-surrogate-pair"),
        pytest.param(b"ab\xf0\x9f\x98", id="truncated-at-eof"),
        pytest.param(b"\n\xfe\xff", id="invalid-byte-fe"),
        pytest.param(b"\xef\xb7\x90\n\xf4\x8f\xbf\xbf", id="noncharacters"),
        pytest.param(b"\r\n\x80\r\n\xc3", id="crlf-is-one-line"),
    ],
)
def test_json_records_point_at_the_reported_bytes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes
) -> None:
    path = write(tmp_path, data)
    status, out, err = run(capsys, "check", "--json", "--all", path)
    assert status == 1
    assert only_hints(err, path)
    assert check_records(out, data, str(path)) == list(ref.iter_violations(data))


def test_without_all_only_the_first_violation_of_each_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first = write(tmp_path, b"\x80\x80\x80", "first.txt")
    second = write(tmp_path, b"ok\n\xff\xff", "second.txt")
    status, out, _ = run(capsys, "check", "--json", first, second)
    assert status == 1
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["path"], r["start"]) for r in records] == [
        (str(first), 0),
        (str(second), 3),
    ]


def test_kuhn_corpus_all_violations_match_the_one_shot_api(
    capsys: pytest.CaptureFixture[str], corpus: Path, kuhn_corpus: bytes
) -> None:
    status, out, err = run(capsys, "check", "--json", "--all", corpus)
    assert (status, err) == (1, "")
    found = check_records(out, kuhn_corpus, str(corpus))
    assert found == list(utf8guard.iter_violations(kuhn_corpus))
    assert found == list(ref.iter_violations(kuhn_corpus))


def test_kuhn_corpus_first_violation_is_the_lone_f8(
    capsys: pytest.CaptureFixture[str], corpus: Path
) -> None:
    # Corpus README: the first error is at byte 4461, the lone 0xF8 of line 2.1.5.
    status, out, _ = run(capsys, "check", corpus)
    assert (status, out) == (1, f"{corpus}:75:38: out_of_range at byte 4461 (F8)\n")


@pytest.mark.parametrize(("chunk", "lookback"), [(1, 3), (5, 8), (4096, 64)])
def test_tiny_chunks_give_the_same_lines_and_columns(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    corpus: Path,
    kuhn_corpus: bytes,
    chunk: int,
    lookback: int,
) -> None:
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", chunk)
    monkeypatch.setattr(_cli_check, "LOOKBACK_BYTES", lookback)
    status, out, _ = run(capsys, "check", "--json", "--all", corpus)
    assert status == 1
    found = check_records(out, kuhn_corpus, str(corpus))
    assert found == list(ref.iter_violations(kuhn_corpus))


def test_stdin_is_read_as_binary(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"line\n\xe2\x28\xa1"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    status, out, _ = run(capsys, "check", "--json", "--all", "-")
    assert status == 1
    assert check_records(out, data, "<stdin>") == list(ref.iter_violations(data))


def test_stdin_human_output_is_named_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xc1\xbf")))
    status, out, _ = run(capsys, "check", "-")
    assert (status, out) == (1, "<stdin>:1:1: overlong at byte 0 (C1)\n")


def test_stdin_is_the_default_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As iconv, uconv and ftfy: no path reads standard input."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"ok\xc1\xbf")))
    status, out, _ = run(capsys, "check")
    assert (status, out) == (1, "<stdin>:1:3: overlong at byte 2 (C1)\n")


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        pytest.param("a\nb.txt", "a\\u000ab.txt", id="newline"),
        pytest.param("\u202etxt.exe", "\\u202etxt.exe", id="bidi-override"),
        pytest.param("bad\udcff.txt", "bad\\xff.txt", id="undecodable-byte"),
        pytest.param("a\\b.txt", "a\\\\b.txt", id="backslash-doubled"),
        pytest.param("zero\u200bwidth", "zero\\u200bwidth", id="invisible"),
        pytest.param("grüße.txt", "grüße.txt", id="printable-unicode-kept"),
    ],
)
def test_file_names_cannot_forge_output_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, shown: str
) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xc0")
    status, out, _ = run(capsys, "check", path)
    assert (status, out) == (1, f"{tmp_path}/{shown}:1:1: overlong at byte 0 (C0)\n")
    status, out, _ = run(capsys, "check", "--json", path)
    assert json.loads(out)["path"] == str(path)


# -- check: policies ---------------------------------------------------------------

SAMPLES = {
    "allow_noncharacters": ("\ufdd0", Kind.NONCHARACTER),
    "allow_nul": ("\x00", Kind.NUL),
    "allow_controls": ("\x1b", Kind.CONTROL),
    "allow_bidi_controls": ("\u202e", Kind.BIDI_CONTROL),
    "allow_private_use": ("\ue000", Kind.PRIVATE_USE),
    "allow_bom": ("\ufeff", Kind.BOM),
}
PRESETS = {"strict": STRICT, "well-formed": WELL_FORMED, "identifier": IDENTIFIER}


def test_every_policy_field_has_a_sample() -> None:
    assert set(FLAGS) == set(SAMPLES)


@pytest.mark.parametrize("field", sorted(SAMPLES))
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_allow_and_refuse_flags_override_the_preset(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, field: str, preset: str
) -> None:
    sample, kind = SAMPLES[field]
    path = write(tmp_path, f"x{sample}y".encode())
    flag = field.removeprefix("allow_").replace("_", "-")
    default = 0 if getattr(PRESETS[preset], field) else 1
    assert run(capsys, "check", "--policy", preset, path)[0] == default
    assert run(capsys, "check", "--policy", preset, f"--allow-{flag}", path)[0] == 0
    status, out, _ = run(capsys, "check", "--policy", preset, f"--refuse-{flag}", path)
    shown = sample.encode().hex(" ").upper()
    assert (status, out) == (1, f"{path}:1:2: {kind.value} at byte 1 ({shown})\n")


def test_conflicting_flags_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run(capsys, "check", "--allow-nul", "--refuse-nul", tmp_path)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert "not allowed with argument --allow-nul" in err


# -- check: exit codes and errors ------------------------------------------------


def test_missing_file_is_one_line_and_exit_2_other_files_still_checked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = write(tmp_path, b"\xc0\xaf")
    status, out, err = run(capsys, "check", tmp_path / "missing.txt", bad)
    assert status == 2
    assert out == f"{bad}:1:1: overlong at byte 0 (C0)\n"
    assert err == f"utf8guard: {tmp_path}/missing.txt: No such file or directory\n"


def test_directory_is_an_error_not_a_recursion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write(tmp_path, b"\xff")
    assert run(capsys, "check", tmp_path) == (
        2,
        "",
        f"utf8guard: {tmp_path}: Is a directory (-r checks its files)\n",
    )


def test_valid_and_invalid_files_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path, b"fine\n", "good.txt")
    bad = write(tmp_path, b"\xc0\x80", "bad.txt")
    assert run(capsys, "check", good, bad)[0] == 1
    assert run(capsys, "check", good, good)[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param([], "utf8guard: error: the following arguments", id="no-command"),
        pytest.param(["lint", "x"], "invalid choice: 'lint'", id="bad-command"),
        pytest.param(["check", "--policy", "lax", "x"], "invalid choice", id="preset"),
        pytest.param(["check", "--bogus", "x"], "unrecognized arguments", id="flag"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0
    assert "exit status: 0 valid" in out
    kernel = utf8guard.KERNEL
    core = f"C accelerator, {kernel} kernel" if kernel != "python" else "pure Python"
    expected = f"utf8guard {utf8guard.__version__} ({core})\n"
    assert run(capsys, "--version") == (0, expected, "")


def test_python_dash_m_runs_main(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "argv", ["utf8guard", "check", str(write(tmp_path, b""))])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("utf8guard", run_name="__main__")
    assert exit_info.value.code == 0


#: What no command imports (issue 28: a command's start-up); ``shutil`` is for
#: help, ``--version`` and ``-r`` (git's path) only, argparse's formatter sized there.
NEVER_IMPORTED = ["typing", "dataclasses"]
#: The child reports which of ``names`` were imported by a CLI call (``python -S``,
#: with the package's parent directory first on ``sys.path``: no site hook imports
#: anything for it).
IMPORTED_BY_A_CALL = """
import sys
sys.path.insert(0, sys.argv[1])
names, argv = sys.argv[2].split(","), sys.argv[3:]
from utf8guard.cli import main
status = main(argv)
print(status, *[name for name in names if name in sys.modules])
"""


@pytest.mark.parametrize(
    ("argv", "left_out"),
    [
        pytest.param(
            ["--version"],
            [*NEVER_IMPORTED, "json", "subprocess", "tempfile"],
            id="version",
        ),
        pytest.param(
            ["check", "{file}"],
            [
                *NEVER_IMPORTED,
                "json",
                "subprocess",
                "tempfile",
                "shutil",
                "utf8guard.paths",
            ],
            id="check",
        ),
        pytest.param(
            ["check", "--json", "{file}"],
            [*NEVER_IMPORTED, "subprocess", "shutil"],
            id="json",
        ),
        pytest.param(["check", "-r", "{dir}"], [*NEVER_IMPORTED, "tempfile"], id="r"),
        pytest.param(
            ["repair", "{file}"], [*NEVER_IMPORTED, "tempfile", "shutil"], id="repair"
        ),
        pytest.param(
            ["scan", "{dir}"],
            [*NEVER_IMPORTED, "subprocess", "tempfile", "shutil"],
            id="scan",
        ),
    ],
)
def test_a_command_does_not_import_what_it_does_not_use(
    tmp_path: Path, argv: list[str], left_out: list[str]
) -> None:
    path = write(tmp_path, "Grüße\n".encode())
    argv = [arg.format(file=path, dir=tmp_path) for arg in argv]
    root = str(Path(utf8guard.__file__).parent.parent)
    code = ["-S", "-c", IMPORTED_BY_A_CALL, root, ",".join(left_out)]
    child = subprocess.run(  # noqa: S603 (fixed argv, no shell)
        [sys.executable, *code, *argv],
        capture_output=True,
        check=True,
        text=True,
    )
    assert child.stdout.split("\n")[-2] == "0"


def test_help_and_version_are_argparses_at_every_width(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 28: the formatter is sized when help is printed, not when each argument
    # is added; the oracle is the same parser with argparse's own formatter.
    commands = [["--help"], ["check", "--help"], ["repair", "--help"]]
    commands += [["scan", "--help"], ["--version"]]
    helps = {}
    for columns in ("30", "52", "80", "200"):
        monkeypatch.setenv("COLUMNS", columns)
        ours = [run(capsys, *argv) for argv in commands]
        with monkeypatch.context() as plain:
            plain.setattr(cli, "_HelpFormatter", argparse.HelpFormatter)
            assert ours == [run(capsys, *argv) for argv in commands], columns
        assert all(status == 0 and out for status, out, _ in ours)
        helps[columns] = ours
    assert helps["30"] != helps["200"]  # the width was read


def test_the_formatter_has_no_other_late_attribute() -> None:
    formatter = cli._HelpFormatter("utf8guard")
    with pytest.raises(AttributeError, match="_no_such_size"):
        getattr(formatter, "_no_such_size")  # noqa: B009 - the look-up is the test
