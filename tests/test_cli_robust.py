"""The command line on hostile standard streams, in real processes (docs/cli.md):
an error is one line on stderr and exit 2, never a traceback, and a failed write
to standard output is said to be about standard output, not about the input."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from utf8guard import cli

from .clitools import write

DEV_FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(not DEV_FULL.exists(), reason="no /dev/full")


def utf8guard(
    *argv: str | Path,
    closed: int | None = None,
    stdout: int | IO[Any] = subprocess.PIPE,
) -> tuple[int, bytes, str]:
    """Run ``python -m utf8guard`` with descriptor ``closed`` closed."""
    done = subprocess.run(  # noqa: S603 (fixed argv, no shell)
        [sys.executable, "-m", "utf8guard", *map(str, argv)],
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        preexec_fn=None if closed is None else lambda: os.close(closed),
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout or b"", done.stderr.decode()


def one_error_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("utf8guard: ")
    return lines[0]


@pytest.fixture
def unsafe_tree(tmp_path: Path) -> Path:
    write(tmp_path, b"ok\n", "CON")  # a reserved name: scan reports it
    return tmp_path


@needs_dev_full
@pytest.mark.parametrize(
    "argv",
    [
        ["check", "{bad}"],
        ["check", "--all", "--json", "{bad}"],
        ["check", "-r", "--no-ignore", "{dir}"],
        ["repair", "{bad}"],
        ["scan", "{dir}"],
        ["scan", "--json", "{dir}"],
    ],
)
def test_full_stdout_is_an_error_about_standard_output(
    unsafe_tree: Path, argv: list[str]
) -> None:
    bad = write(unsafe_tree, b"H\xf6he\n", "bad.txt")
    args = [a.format(bad=bad, dir=unsafe_tree) for a in argv]
    with DEV_FULL.open("wb") as full:
        status, _, err = utf8guard(*args, stdout=full)
    assert status == 2
    assert "Traceback" not in err
    assert "utf8guard: standard output: No space left on device" in err.splitlines()
    assert f"{bad}:" not in err.replace(f"{bad}: hint", "")  # not the input's fault


@needs_dev_full
@pytest.mark.parametrize(
    "argv", [["--help"], ["--version"], ["check", "--help"], ["scan", "--help"]]
)
def test_help_to_a_full_device_is_an_error(argv: list[str]) -> None:
    with DEV_FULL.open("wb") as full:
        status, _, err = utf8guard(*argv, stdout=full)
    assert status == 2
    assert one_error_line(err) == "utf8guard: standard output: No space left on device"


@pytest.mark.parametrize("command", ["check", "repair"])
def test_closed_stdin_is_an_io_error(command: str) -> None:
    status, out, err = utf8guard(command, closed=0)
    assert (status, out) == (2, b"")
    assert one_error_line(err) == "utf8guard: <stdin>: Bad file descriptor"


def test_closed_stdin_is_not_needed_for_files(tmp_path: Path) -> None:
    path = write(tmp_path, b"ok\n")
    assert utf8guard("check", path, closed=0) == (0, b"", "")


@pytest.mark.parametrize("command", ["check", "repair"])
def test_closed_stdout_is_an_io_error(tmp_path: Path, command: str) -> None:
    path = write(tmp_path, b"H\xf6he\n")
    status, _, err = utf8guard(command, path, closed=1)
    assert status == 2
    assert "Traceback" not in err
    assert "utf8guard: standard output: Bad file descriptor" in err.splitlines()


def test_closed_stdout_is_not_needed_to_repair_a_file(tmp_path: Path) -> None:
    path = write(tmp_path, b"H\xf6he\n")
    status, _, err = utf8guard("repair", path, "-o", tmp_path / "out.txt", closed=1)
    assert status == 1
    assert (tmp_path / "out.txt").read_bytes() == b"H\xef\xbf\xbdhe\n"
    assert err == f"utf8guard: {path}: replaced 1 violation(s) with U+FFFD\n"


@pytest.mark.parametrize(("data", "expected"), [(None, 2), (b"ok\n", 0), (b"\xff", 1)])
def test_closed_stderr_keeps_the_documented_status(
    tmp_path: Path, data: bytes | None, expected: int
) -> None:
    path = tmp_path / "missing.txt" if data is None else write(tmp_path, data)
    status, _, _ = utf8guard("check", path, closed=2)
    assert status == expected


def test_in_process_stand_ins_for_closed_streams(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The same, in this process (for coverage): each closed stream stood in for."""
    path = write(tmp_path, b"\xff")
    for name in ("stdin", "stdout", "stderr"):
        monkeypatch.setattr(sys, name, None)
    try:
        assert cli.main(["check", str(path)]) == 2  # no stdout to report on
        assert cli.main(["check", "-"]) == 2  # no stdin to read
    finally:
        for stream in (sys.stdin, sys.stdout, sys.stderr):
            stream.close()


class _Stdout:
    """A stdout (and its binary buffer) on descriptor ``fd`` whose writes or
    flushes raise ``error``."""

    def __init__(self, fd: int, error: OSError, *, on: str) -> None:
        self._fd, self._error, self._on = fd, error, on
        self.buffer = self

    def write(self, data: object) -> int:
        if self._on == "write":
            raise self._error
        return 0

    def flush(self) -> None:
        if self._on == "flush":
            raise self._error

    def fileno(self) -> int:
        return self._fd


@pytest.mark.parametrize(
    ("error", "on", "said"),
    [
        (OSError(28, "No space left on device"), "write", "No space left on device"),
        (OSError(28, "No space left on device"), "flush", "No space left on device"),
        (BrokenPipeError(32, "Broken pipe"), "flush", None),
    ],
)
@pytest.mark.parametrize("command", ["check", "repair", "scan"])
def test_in_process_stdout_errors(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    unsafe_tree: Path,
    error: OSError,
    on: str,
    said: str | None,
    command: str,
) -> None:
    """The same, in this process (for coverage): write and flush errors."""
    bad = write(unsafe_tree, b"\xff", "bad.txt")
    read_end, write_end = os.pipe()
    try:
        monkeypatch.setattr(sys, "stdout", _Stdout(write_end, error, on=on))
        target = unsafe_tree if command == "scan" else bad
        assert cli.main([command, str(target)]) == 2
        err = capsys.readouterr().err
        assert ("standard output" in err) == (said is not None)
        if said is not None:
            assert f"utf8guard: standard output: {said}\n" in err
    finally:
        os.close(read_end)
        os.close(write_end)


needs_dev_fd = pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="no /dev/fd")


@needs_dev_fd
@pytest.mark.parametrize(
    ("data", "expected", "line"),
    [
        (b"a\xff", 1, ":1:2: invalid_byte at byte 1 (FF)\n"),
        (b"ok\n" * 200_000, 0, ""),  # more than one read
        (b"x" * 300_000 + b"\xed\xa0\x80", 1, ":1:300001: surrogate at byte 300000"),
    ],
)
def test_a_pipe_named_as_a_file_is_read_once(
    capsys: pytest.CaptureFixture[str], data: bytes, expected: int, line: str
) -> None:
    """``utf8guard check <(cmd)``: the pipe holds its bytes once; each is checked."""
    read_end, write_end = os.pipe()
    try:
        writer = threading.Thread(target=lambda: _write_all(write_end, data))
        writer.start()
        path = f"/dev/fd/{read_end}"
        status = cli.main(["check", path])
        writer.join()
    finally:
        os.close(read_end)
    out = capsys.readouterr().out
    assert status == expected
    assert out.startswith(f"{path}{line}") if line else out == ""


def _write_all(fd: int, data: bytes) -> None:
    with open(fd, "wb") as pipe:
        pipe.write(data)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_named_on_the_command_line_is_checked(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    process = subprocess.Popen(  # noqa: S603 (fixed argv, no shell)
        [sys.executable, "-m", "utf8guard", "check", str(fifo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    fifo.write_bytes(b"ab\xff")
    out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (
        1,
        f"{fifo}:1:3: invalid_byte at byte 2 (FF)\n".encode(),
        b"",
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_force_never_replaces_a_fifo_or_device_with_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``-o OUT --force`` replaces a file; a FIFO or a device (``-o /dev/stdout``)
    is not one, and replacing its node with a file would lose it."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    bad = write(tmp_path, b"H\xf6he\n")
    assert cli.main(["repair", str(bad), "-o", str(fifo), "--force"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"utf8guard: repair: {fifo} is not a regular file: "
        "write to it with -o - and a redirection\n"
    )
    assert fifo.is_fifo()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_in_place_never_replaces_a_fifo_with_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    bad = write(tmp_path, b"H\xf6he\n")
    assert cli.main(["repair", "--in-place", str(fifo), str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"utf8guard: {fifo}: not a regular file (--in-place rewrites files)",
        f"utf8guard: {bad}: replaced 1 violation(s) with U+FFFD",
    ]
    assert fifo.is_fifo()
    assert bad.read_bytes() == b"H\xef\xbf\xbdhe\n"  # the others are still repaired


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and FIFOs")
def test_sigterm_while_writing_leaves_no_temporary_file(tmp_path: Path) -> None:
    """docs/cli.md: on any error OUT is not created or changed; SIGTERM (`timeout`,
    `kill`) is taken as Ctrl-C, so the hidden temporary file goes too."""
    import signal
    import time

    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    with subprocess.Popen(
        [sys.executable, "-m", "utf8guard", "repair", "-o", "out.txt", "in.fifo"],
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    ) as proc:
        assert proc.stderr is not None
        writer = os.open(fifo, os.O_WRONLY)  # the repair reads, then waits for more
        try:
            os.write(writer, b"caf\xe9\n")
            deadline = time.monotonic() + 30
            while not list(tmp_path.glob(".utf8guard-*.tmp")):
                assert time.monotonic() < deadline, "no temporary file appeared"
                assert proc.poll() is None, proc.stderr.read()
                time.sleep(0.02)
            proc.send_signal(signal.SIGTERM)
            err = proc.stderr.read().decode()
            status = proc.wait(timeout=30)
        finally:
            os.close(writer)
    assert (status, err) == (130, "utf8guard: interrupted\n")
    assert [p.name for p in tmp_path.iterdir()] == ["in.fifo"]


def test_atomic_file_takes_sigterm_as_ctrl_c_while_open(tmp_path: Path) -> None:
    """In process, for coverage: the handler AtomicFile installs raises
    KeyboardInterrupt, the temporary file is removed, the old handler comes back."""
    import signal

    from utf8guard._cli_atomic import AtomicFile

    before = signal.getsignal(signal.SIGTERM)
    target = str(tmp_path / "out.txt")
    with AtomicFile(target, target, overwrite=False):
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        with pytest.raises(KeyboardInterrupt):
            handler(signal.SIGTERM, None)
    assert signal.getsignal(signal.SIGTERM) is before
    assert list(tmp_path.iterdir()) == []


def test_atomic_file_outside_the_main_thread_leaves_sigterm_alone(
    tmp_path: Path,
) -> None:
    """Only the main thread may set a signal handler: elsewhere (cli.main called from
    a worker thread) the file is still written, and SIGTERM keeps its handler."""
    import signal

    from utf8guard._cli_atomic import AtomicFile

    before = signal.getsignal(signal.SIGTERM)
    seen: list[object] = []
    target = str(tmp_path / "out.txt")

    def write_in_a_thread() -> None:
        with AtomicFile(target, target, overwrite=False) as file:
            seen.append(signal.getsignal(signal.SIGTERM))
            file.write(b"ok\n")
            file.commit()

    worker = threading.Thread(target=write_in_a_thread)
    worker.start()
    worker.join()
    assert seen == [before]
    assert signal.getsignal(signal.SIGTERM) is before
    assert (tmp_path / "out.txt").read_bytes() == b"ok\n"
