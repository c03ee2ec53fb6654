"""Helpers shared by the command-line tests: run ``main`` in-process, write inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from utf8guard import cli

#: (exit status, stdout, stderr)
Run = tuple[int, str, str]


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> Run:
    status = cli.main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path: Path, data: bytes, name: str = "in.txt") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
