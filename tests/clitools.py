"""Helpers shared by the command-line tests: run ``main`` in-process, write inputs."""

from __future__ import annotations

import os
import subprocess
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


def git(repo: Path, *args: str) -> bytes:
    """Run git in ``repo`` with a fixed identity and no system or user config."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(repo),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }
    done = subprocess.run(  # noqa: S603 (fixed argv, no shell)
        ["git", *args],  # noqa: S607 (git from PATH, as pre-commit finds it)
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )
    return done.stdout
