"""``utf8guard check`` on large inputs and pipes: memory, progress, early stop."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from utf8guard import STRICT, Kind, Policy, Violation, _cli_check, _cli_input, cli

from .clitools import run, write


def test_memory_stays_constant_on_a_large_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    size = 24 << 20
    line = "streamed text, ünïcödé and 𝄞\n".encode()
    path = tmp_path / "big.txt"
    with path.open("wb") as out:
        for _ in range(size // (1 << 20)):
            out.write(line * ((1 << 20) // len(line)))
        out.write(b"\xc0")
    tracemalloc.start()
    try:
        status, out_text, _ = run(capsys, "check", "--json", path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status == 1
    assert json.loads(out_text)["start"] == path.stat().st_size - 1
    assert peak < 4 * _cli_input.READ_CHUNK_BYTES + (
        1 << 20
    )  # far below the 24 MiB input


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_for_large_inputs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_cli_input, "PROGRESS_MIN_BYTES", 3000)
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", 1000)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    # C0 AF gets no encoding hint, so the progress line is all stderr shows.
    path = write(tmp_path, b"a" * 1500 + b"\xc0\xaf" + b"b" * 1498)
    status, out, _ = run(capsys, "check", "--all", path)
    assert (status, out.splitlines()) == (
        1,
        [
            f"{path}:1:1501: overlong at byte 1500 (C0)",
            f"{path}:1:1502: unexpected_continuation at byte 1501 (AF)",
        ],
    )
    shown = terminal.getvalue()
    assert shown.startswith(f"\r{path}  33%\r{path}  66%\r\x1b[K")
    assert shown.endswith(f"\r{path} 100%\r\x1b[K")


def test_no_progress_when_small_or_not_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = write(tmp_path, b"x" * 5000)
    monkeypatch.setattr(_cli_input, "PROGRESS_MIN_BYTES", 1000)
    assert run(capsys, "check", path) == (0, "", "")  # stderr is not a terminal
    monkeypatch.setattr(_cli_input, "PROGRESS_MIN_BYTES", 6000)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run(capsys, "check", path)[0] == 0
    assert terminal.getvalue() == ""


class _ClosedPipe:
    """A stdout (and its binary buffer) whose reader has gone away."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self.buffer = self

    def write(self, data: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        return self._fd


@pytest.mark.parametrize("command", ["check", "check-r", "repair"])
def test_closed_stdout_ends_quietly(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    command: str,
) -> None:
    read_end, write_end = os.pipe()
    try:
        monkeypatch.setattr(sys, "stdout", _ClosedPipe(write_end))
        path = write(tmp_path, b"\x80")
        argv = {
            "check": ["check", path],
            "check-r": ["check", "-r", tmp_path],
            "repair": ["repair", path, "-o", "-"],
        }[command]
        assert cli.main([str(arg) for arg in argv]) == 2
        assert capsys.readouterr().err == ""
    finally:
        os.close(read_end)
        os.close(write_end)


def test_pipe_into_head_has_no_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, b"\x80\n" * 200_000)
    with subprocess.Popen(  # noqa: S603 (fixed argv, no shell)
        [sys.executable, "-m", "utf8guard", "check", "--all", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
    assert first == f"{path}:1:1: unexpected_continuation at byte 0 (80)\n".encode()
    assert (proc.returncode, err) == (2, b"")


def test_without_all_reading_stops_at_the_first_violation(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    reads: list[int] = []
    real_read = _cli_input.read_chunks

    def counting(stream: BinaryIO, progress: _cli_input.Progress) -> Iterator[bytes]:
        for data in real_read(stream, progress):
            reads.append(len(data))
            yield data

    monkeypatch.setattr(_cli_check, "read_chunks", counting)
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", 100)
    path = write(tmp_path, b"x" * 150 + b"\xc0\xaf" + b"x" * 100_000)
    assert run(capsys, "check", path)[0] == 1
    assert reads == [100, 100]


def _interrupt(*args: object, **kwargs: object) -> int:
    raise KeyboardInterrupt


def test_ctrl_c_is_one_line_and_exit_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "run_check", _interrupt)
    assert run(capsys, "check", "x") == (130, "", "utf8guard: interrupted\n")


def _late(chunks: Iterable[bytes], policy: Policy = STRICT) -> Iterator[Violation]:
    """A stream validator that reads everything before it reports."""
    total = sum(len(chunk) for chunk in chunks)
    yield Violation(Kind.OVERLONG, 0, 1)
    yield Violation(Kind.OVERLONG, total, total + 1)


def test_a_violation_outside_the_held_bytes_fails_loudly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_cli_check, "iter_stream_violations", _late)
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", 10)
    monkeypatch.setattr(_cli_check, "LOOKBACK_BYTES", 10)
    path = write(tmp_path, b"\xc0" + b"x" * 99)
    with pytest.raises(RuntimeError, match=r"internal error: .* outside the bytes"):
        cli.main(["check", str(path)])
    monkeypatch.setattr(_cli_check, "LOOKBACK_BYTES", 1000)
    with pytest.raises(RuntimeError, match=r"internal error: .* outside the bytes"):
        cli.main(["check", "--all", str(path)])
    capsys.readouterr()
