"""``utf8guard repair``: targets, overwrite refusal, atomic writes, --in-place."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import utf8guard
from utf8guard import _cli_input, _cli_repair, cli
from utf8guard import reference as ref

from .clitools import run, write

BAD = b"ok \xc0\xaf then \xed\xa0\x80 and \xef\xbf\xbd kept\n\xe2\x82"


def test_repair_to_a_new_file_exits_1_and_matches_the_api(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source, target = write(tmp_path, BAD), tmp_path / "out.txt"
    status, out, err = run(capsys, "repair", source, "-o", target)
    assert (status, out) == (1, "")
    assert err == f"utf8guard: {source}: replaced 6 violation(s) with U+FFFD\n"
    assert target.read_bytes() == utf8guard.repair(BAD) == ref.repair(BAD)
    assert source.read_bytes() == BAD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]


def test_repair_of_a_valid_file_copies_it_and_exits_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = "already \ufffd fine\n".encode()
    source, target = write(tmp_path, data), tmp_path / "out.txt"
    assert run(capsys, "repair", source, "-o", target) == (0, "", "")
    assert target.read_bytes() == data


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_repair_counts_replacements_split_across_chunks(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    chunk: int,
) -> None:
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", chunk)
    source, target = write(tmp_path, BAD), tmp_path / "out.txt"
    status, _, err = run(capsys, "repair", source, "-o", target)
    assert (status, err) == (
        1,
        f"utf8guard: {source}: replaced 6 violation(s) with U+FFFD\n",
    )
    assert target.read_bytes() == utf8guard.repair(BAD)


def test_repair_policy_flags(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source, target = write(tmp_path, b"a\x00b\xef\xb7\x90"), tmp_path / "out.txt"
    argv: list[str | Path] = ["repair", source, "-o", target, "--policy", "well-formed"]
    argv.append("--refuse-nul")
    assert run(capsys, *argv)[0] == 1
    assert target.read_bytes() == "a\ufffdb\ufdd0".encode()


def test_repair_to_stdout(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    status = cli.main(["repair", str(write(tmp_path, BAD)), "-o", "-"])
    out, _ = capsysbinary.readouterr()
    assert (status, out) == (1, utf8guard.repair(BAD))


def test_repair_stdin_to_stdout(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"fine")))
    status = cli.main(["repair", "-", "-o", "-"])
    assert (status, capsysbinary.readouterr()) == (0, (b"fine", b""))


def test_repair_reads_stdin_by_default(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"H\xf6he")))
    status = cli.main(["repair", "-f", "latin-1"])
    assert (status, capsysbinary.readouterr().out) == (1, "Höhe".encode())


def test_repair_in_place_rewrites_atomically_and_keeps_the_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write(tmp_path, BAD)
    source.chmod(0o640)
    assert run(capsys, "repair", "--in-place", source)[0] == 1
    assert source.read_bytes() == utf8guard.repair(BAD)
    assert source.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["in.txt"]


def test_repair_in_place_through_a_symlink_rewrites_the_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write(tmp_path, BAD)
    link = tmp_path / "link.txt"
    link.symlink_to(source)
    assert run(capsys, "repair", "--in-place", link)[0] == 1
    assert link.is_symlink()
    assert source.read_bytes() == utf8guard.repair(BAD)


def test_repair_in_place_leaves_a_valid_file_untouched(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write(tmp_path, b"valid\n")
    os.utime(source, (1_000_000_000, 1_000_000_000))
    before = source.stat()
    assert run(capsys, "repair", "--in-place", source) == (0, "", "")
    after = source.stat()
    assert (after.st_ino, after.st_mtime) == (before.st_ino, before.st_mtime)
    assert [p.name for p in tmp_path.iterdir()] == ["in.txt"]


def test_new_output_file_gets_the_umask_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = os.umask(0o027)
    try:
        run(capsys, "repair", write(tmp_path, BAD), "-o", tmp_path / "out.txt")
    finally:
        os.umask(old)
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        pytest.param(["-o", "{src}"], "-o names IN itself", id="same-path"),
        pytest.param(["-o", "{dir}/./in.txt"], "-o names IN itself", id="same-real"),
        pytest.param(["-o", "{dir}/hard.txt"], "-o names IN itself", id="hard-link"),
    ],
)
def test_repair_refuses_to_overwrite_its_input_unless_in_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], message: str
) -> None:
    source = write(tmp_path, BAD)
    (tmp_path / "hard.txt").hardlink_to(source)
    argv = [a.format(src=source, dir=tmp_path) for a in extra]
    status, out, err = run(capsys, "repair", source, *argv)
    assert (status, out) == (2, "")
    assert err.startswith(f"utf8guard: repair: {message}")
    assert err.count("\n") == 1
    assert source.read_bytes() == BAD


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["-", "--in-place"], "repair: --in-place needs files", id="stdin"),
        pytest.param(["x", "-o", "y", "--in-place"], "not allowed with", id="both"),
    ],
)
def test_repair_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, _, err = run(capsys, "repair", *argv)
    assert status == 2
    assert message in err


def test_repair_of_a_missing_file_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "out.txt"
    status, _, err = run(capsys, "repair", tmp_path / "nope.txt", "-o", target)
    assert (status, err) == (
        2,
        f"utf8guard: {tmp_path}/nope.txt: No such file or directory\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_repair_into_a_missing_directory_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write(tmp_path, BAD)
    status, _, err = run(capsys, "repair", source, "-o", tmp_path / "no" / "out.txt")
    assert status == 2
    assert err == f"utf8guard: {tmp_path}/no/out.txt: No such file or directory\n"


def _failing_read(stream: object, progress: object) -> Iterator[bytes]:
    yield b"half of the \xc0 data"
    raise OSError(5, "Input/output error")


@pytest.mark.parametrize("in_place", [False, True])
def test_a_read_error_leaves_no_partial_output(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    in_place: bool,
) -> None:
    monkeypatch.setattr(_cli_repair, "read_chunks", _failing_read)
    source = write(tmp_path, BAD)
    target = write(tmp_path, b"previous output", "out.txt")
    where = ["--in-place"] if in_place else ["-o", str(target), "--force"]
    status, _, err = run(capsys, "repair", source, *where)
    assert (status, err) == (2, f"utf8guard: {source}: Input/output error\n")
    assert source.read_bytes() == BAD
    assert target.read_bytes() == b"previous output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]


def test_repair_onto_a_directory_is_an_error_and_cleans_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write(tmp_path, BAD)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "keep").write_bytes(b"")
    argv: list[str | Path] = ["repair", source, "-o", tmp_path / "sub"]
    status, _, err = run(capsys, *argv)
    assert (status, err) == (
        2,
        f"utf8guard: repair: {tmp_path}/sub exists: add --force to replace it\n",
    )
    status, _, err = run(capsys, *argv, "--force")
    assert status == 2
    assert err == f"utf8guard: {tmp_path}/sub: Is a directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "sub"]


# -- output targets: stdout by default, no silent overwrite --------------------------


def test_repair_without_a_target_writes_to_stdout(
    capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    source = write(tmp_path, BAD)
    status = cli.main(["repair", str(source)])
    out, err = capsysbinary.readouterr()
    assert (status, out) == (1, ref.repair(BAD))
    assert err == f"utf8guard: {source}: replaced 6 violation(s) with U+FFFD\n".encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


def test_output_onto_an_existing_file_is_refused_without_force(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write(tmp_path, BAD)
    target = write(tmp_path, b"keep me", "out.txt")
    status, out, err = run(capsys, "repair", source, "-o", target)
    assert (status, out) == (2, "")
    assert err == f"utf8guard: repair: {target} exists: add --force to replace it\n"
    assert target.read_bytes() == b"keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]
    assert run(capsys, "repair", source, "-o", target, "--force")[0] == 1
    assert target.read_bytes() == ref.repair(BAD)


def test_a_dangling_symlink_counts_as_existing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write(tmp_path, BAD)
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "nowhere")
    status, _, err = run(capsys, "repair", source, "-o", link)
    assert status == 2
    assert "exists: add --force" in err
    assert not (tmp_path / "nowhere").exists()


def test_an_output_created_meanwhile_is_not_replaced(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The check before reading can race; the final link cannot replace a file."""
    monkeypatch.setattr(cli, "usage_problem", lambda *args: None)
    source = write(tmp_path, BAD)
    target = write(tmp_path, b"appeared meanwhile", "out.txt")
    status, _, err = run(capsys, "repair", source, "-o", target)
    assert (status, err) == (2, f"utf8guard: {target}: File exists\n")
    assert target.read_bytes() == b"appeared meanwhile"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["-o", "-", "--force"], "--force goes with -o OUT", id="stdout"),
        pytest.param(["--in-place", "--force"], "--force goes with -o OUT", id="inpl"),
        pytest.param(["--force"], "--force goes with -o OUT", id="default-stdout"),
        pytest.param(
            ["{src}", "-o", "{dir}/o"], "several inputs need --in-place", id="n"
        ),
        pytest.param(["--from", "rot13"], "'rot13' is not a text encoding", id="rot"),
        pytest.param(["--from", "nope-9"], "'nope-9' is not a text encoding", id="enc"),
    ],
)
def test_repair_usage_errors_write_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    source = write(tmp_path, BAD)
    args = [a.format(src=source, dir=tmp_path) for a in argv]
    status, out, err = run(capsys, "repair", source, *args)
    assert (status, out) == (2, "")
    assert err.startswith("utf8guard: repair: ")
    assert message in err
    assert err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]
    assert source.read_bytes() == BAD


# -- several inputs in place ---------------------------------------------------------


def test_several_inputs_in_place_each_repaired_valid_ones_untouched(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first = write(tmp_path, BAD, "a.txt")
    second = write(tmp_path, b"x\xff\n", "b.txt")
    valid = write(tmp_path, "fine ✓\n".encode(), "c.txt")
    os.utime(valid, (1_000_000_000, 1_000_000_000))
    before = valid.stat()
    status, out, err = run(capsys, "repair", "--in-place", first, second, valid)
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        f"utf8guard: {first}: replaced 6 violation(s) with U+FFFD",
        f"utf8guard: {second}: replaced 1 violation(s) with U+FFFD",
    ]
    assert first.read_bytes() == ref.repair(BAD)
    assert second.read_bytes() == "x\ufffd\n".encode()
    after = valid.stat()
    assert (after.st_ino, after.st_mtime) == (before.st_ino, before.st_mtime)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt", "c.txt"]


def test_a_missing_input_in_place_is_exit_2_and_the_others_are_still_repaired(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    present = write(tmp_path, BAD)
    missing = tmp_path / "missing.txt"
    status, _, err = run(capsys, "repair", "--in-place", missing, present)
    assert status == 2
    assert err.splitlines() == [
        f"utf8guard: {missing}: No such file or directory",
        f"utf8guard: {present}: replaced 6 violation(s) with U+FFFD",
    ]
    assert present.read_bytes() == ref.repair(BAD)
    assert not missing.exists()


def test_stdin_repaired_to_stdout_by_default(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a\xc0b")))
    status = cli.main(["repair", "-"])
    out, err = capsysbinary.readouterr()
    assert (status, out) == (1, "a\ufffdb".encode())
    assert err == b"utf8guard: <stdin>: replaced 1 violation(s) with U+FFFD\n"
