"""The pre-commit hook: run its entry the way pre-commit does, on a real git repo.

pre-commit runs ``entry`` plus the hook's ``args`` plus the staged file names (those
its ``types`` select) and fails the commit on a non-zero exit. Installing pre-commit
itself would need network access to build the hook's environment, so these tests run
the entry directly, with the staged names from the same git command pre-commit uses.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
import yaml

from .clitools import git

ROOT = Path(__file__).resolve().parents[1]
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def load_hook() -> dict[str, object]:
    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    (hook,) = (h for h in hooks if h["id"] == "utf8guard")
    assert isinstance(hook, dict)
    return hook


def staged(repo: Path) -> list[str]:
    """The file names pre-commit hands a hook for a normal commit."""
    out = git(repo, "diff", "--staged", "--name-only", "--no-ext-diff", "-z")
    return [os.fsdecode(name) for name in out.split(b"\0") if name]


def run_hook(repo: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    hook = load_hook()
    entry = shlex.split(str(hook["entry"]))
    args = hook.get("args", [])
    assert isinstance(args, list)
    # `language: python` installs this package; its console script is the entry.
    script = Path(sysconfig.get_path("scripts")) / entry[0]
    return subprocess.run(  # noqa: S603 (fixed argv, no shell)
        [str(script), *entry[1:], *map(str, args), *files],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git(tmp_path, "init", "--quiet", "--initial-branch=main")
    (tmp_path / "README.txt").write_bytes("fine, naïve\n".encode())
    git(tmp_path, "add", "README.txt")
    git(tmp_path, "commit", "--quiet", "-m", "initial")
    return tmp_path


def test_hook_is_a_python_hook_on_text_files() -> None:
    hook = load_hook()
    assert hook["language"] == "python"
    assert hook["types"] == ["text"]
    assert shlex.split(str(hook["entry"]))[:2] == ["utf8guard", "check"]


def test_hook_fails_on_a_staged_bad_file_and_passes_once_repaired(repo: Path) -> None:
    bad = repo / "docs" / "naïve notes.txt"
    bad.parent.mkdir()
    bad.write_bytes(b"ok\n/etc\xc0\xafpasswd\n")
    (repo / "good.txt").write_bytes("€ 𝄞\n".encode())
    git(repo, "add", ".")
    files = staged(repo)
    assert files == ["docs/naïve notes.txt", "good.txt"]

    failed = run_hook(repo, files)
    assert failed.returncode == 1
    assert failed.stdout == "docs/naïve notes.txt:2:5: overlong at byte 7 (C0)\n"
    assert failed.stderr == ""

    script = Path(sysconfig.get_path("scripts")) / "utf8guard"
    repaired = subprocess.run(  # noqa: S603 (fixed argv, no shell)
        [str(script), "repair", "--in-place", str(bad)], check=False
    )
    assert repaired.returncode == 1
    git(repo, "add", ".")
    passed = run_hook(repo, staged(repo))
    assert (passed.returncode, passed.stdout, passed.stderr) == (0, "", "")


def test_hook_over_all_files(repo: Path) -> None:
    """``pre-commit run --all-files`` passes every tracked file instead."""
    (repo / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "latin-1 slipped in")
    tracked = [os.fsdecode(n) for n in git(repo, "ls-files", "-z").split(b"\0") if n]
    done = run_hook(repo, tracked)
    assert (done.returncode, done.stdout) == (
        1,
        "latin1.txt:1:4: truncated at byte 3 (E9)\n",
    )


#: Trojan Source (CVE-2021-42574), the paper's "commenting-out" Python example:
#: RLO and LRI make the comment look like it ends the string.
TROJAN_SOURCE = (
    'access_level = "user"\n'
    "if access_level != 'none\u202e\u2066': # Check if admin \u2069\u2066'"
    " and access_level != 'user':\n"
    '    print("You are an admin.")\n'
)


def test_hook_refuses_trojan_source_by_default(repo: Path) -> None:
    (repo / "evil.py").write_text(TROJAN_SOURCE, encoding="utf-8")
    git(repo, "add", ".")
    done = run_hook(repo, staged(repo))
    # Line 1 is 21 characters and a newline; "if access_level != 'none" is 24.
    assert (done.returncode, done.stdout) == (
        1,
        "evil.py:2:25: bidi_control at byte 46 (E2 80 AE)\n",
    )


def test_hook_passes_rtl_text_without_controls(repo: Path) -> None:
    """The benign control: Hebrew and Arabic letters are not bidi controls."""
    (repo / "greeting.py").write_text('print("שלום עולם")  # مرحبا\n', encoding="utf-8")
    git(repo, "add", ".")
    done = run_hook(repo, staged(repo))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_plain_check_still_allows_bidi_controls(repo: Path) -> None:
    """The strict policy allows them (RTL text uses marks); the hook's args refuse."""
    (repo / "evil.py").write_text(TROJAN_SOURCE, encoding="utf-8")
    script = Path(sysconfig.get_path("scripts")) / "utf8guard"
    done = subprocess.run(  # noqa: S603 (fixed argv, no shell)
        [str(script), "check", "evil.py"], cwd=repo, check=False
    )
    assert done.returncode == 0
