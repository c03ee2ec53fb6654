"""``utf8guard check -r``: trees, git work trees, binary files, the summary line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from utf8guard import _cli_files, _cli_input

from .clitools import git, run, write

OVERLONG = b"/etc\xc0\xafpasswd\n"  # no encoding hint: C0 AF is no legacy text


@pytest.fixture(autouse=True)
def _no_repo_above(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """git must not find a repository above the test's directory."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """good, bad, binary and nested files, plus things that are not regular files."""
    root = tmp_path / "tree"
    write(root, "fine ✓\n".encode(), "good.txt")
    write(root, OVERLONG, "sub/bad.txt")
    write(root, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xff", "image.png")
    write(tmp_path, OVERLONG, "outside.txt")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    (root / "linkdir").symlink_to(tmp_path, target_is_directory=True)
    if hasattr(os, "mkfifo"):  # POSIX only
        os.mkfifo(root / "fifo")  # opening it would block: it must not be read
    return root


def test_walk_checks_regular_files_skips_binary_and_ends_with_a_summary(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    status, out, err = run(capsys, "check", "-r", tree)
    assert (status, out) == (1, f"{tree}/sub/bad.txt:1:5: overlong at byte 4 (C0)\n")
    assert err == (
        "utf8guard: 2 files checked, 1 with violations, "
        "1 violation (the first of each file), 1 binary file skipped\n"
    )


def test_all_counts_every_violation(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    status, out, err = run(capsys, "check", "--recursive", "--all", tree)
    assert (status, out.count("\n")) == (1, 2)
    assert err == (
        "utf8guard: 2 files checked, 1 with violations, 2 violations, "
        "1 binary file skipped\n"
    )


def test_clean_tree_exits_0_with_a_summary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write(tmp_path, b"ok\n", "a.txt")
    assert run(capsys, "check", "-r", tmp_path) == (
        0,
        "",
        "utf8guard: 1 file checked, 0 with violations, 0 violations\n",
    )


@pytest.mark.parametrize(
    ("nul_at", "binary"),
    [(0, True), (8191, True), (8192, False)],
)
def test_a_nul_in_the_first_8_kib_makes_a_file_binary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, nul_at: int, binary: bool
) -> None:
    data = bytearray(b"a" * 9000)
    data[nul_at] = 0
    write(tmp_path, bytes(data) + b"\xc0\xaf")
    write(tmp_path, b"ok\n", "good.txt")
    status, _, err = run(capsys, "check", "-r", tmp_path)
    assert status == (0 if binary else 1)
    assert ("1 binary file skipped" in err) is binary


def test_a_tree_of_binary_files_only_is_an_error_not_a_pass(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write(tmp_path, b"\x7fELF\x02\x01\x01\x00\x00", "a.out")
    assert run(capsys, "check", "-r", tmp_path) == (
        2,
        "",
        f"utf8guard: {tmp_path}: no file checked: 1 binary file\n"
        "utf8guard: 0 files checked, 0 with violations, 0 violations, "
        "1 binary file skipped, 1 error\n",
    )


def test_git_s_own_files_are_never_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A .git directory, or the .git file of a worktree or submodule, is git's."""
    write(tmp_path, b"gitdir: /elsewhere\xff\n", "worktree/.git")
    write(tmp_path, b"\xc0\xaf", "plain/.git/config")
    write(tmp_path, b"ok\n", "worktree/good.txt")
    assert run(capsys, "check", "-r", "--no-ignore", tmp_path) == (
        0,
        "",
        "utf8guard: 1 file checked, 0 with violations, 0 violations\n",
    )


def test_no_ignore_without_r_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--help: "with -r"; alone it would change nothing, so it is said, not ignored."""
    path = write(tmp_path, b"ok\n", "a.txt")
    assert run(capsys, "check", "--no-ignore", path) == (
        2,
        "",
        "utf8guard: check: --no-ignore goes with -r "
        "(git's ignores apply to a tree walk)\n",
    )


def test_an_empty_tree_passes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    assert run(capsys, "check", "-r", tmp_path) == (
        0,
        "",
        "utf8guard: 0 files checked, 0 with violations, 0 violations\n",
    )


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_is_named_not_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, codec: str
) -> None:
    """ASCII in UTF-16 is valid UTF-8 (NULs and letters): named, and status 1."""
    path = write(tmp_path, "print('hello')\r\n".encode(codec), "script.ps1")
    write(tmp_path, b"ok\n", "good.txt")
    form = codec.replace("utf-16-", "UTF-16").upper()
    status, out, err = run(capsys, "check", "-r", tmp_path)
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        f"utf8guard: {path}: looks like {form} (a NUL in every other byte): "
        f"convert it whole, e.g. iconv -f {form} -t UTF-8",
        "utf8guard: 2 files checked, 0 with violations, 0 violations, "
        "1 UTF-16 file (named above)",
    ]


def test_a_large_utf16_file_without_a_bom_is_named_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Larger than one read, it takes the second, chunked pass: named all the same."""
    monkeypatch.setattr(_cli_input, "READ_CHUNK_BYTES", 64)
    path = write(tmp_path, ("print('hello')\n" * 20).encode("utf-16-le"))
    status, out, err = run(capsys, "check", path)
    assert (status, out) == (1, "")
    assert err == (
        f"utf8guard: {path}: looks like UTF-16LE (a NUL in every other byte): "
        "convert it whole, e.g. iconv -f UTF-16LE -t UTF-8\n"
    )


def test_binary_bytes_with_nuls_in_every_other_byte_stay_binary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """CPython's importlib test data: 00 01 02 03 is no UTF-16 text."""
    write(tmp_path, bytes(range(4)), "binary.file")
    write(tmp_path, b"ok\n", "good.txt")
    assert run(capsys, "check", "-r", tmp_path)[2] == (
        "utf8guard: 1 file checked, 0 with violations, 0 violations, "
        "1 binary file skipped\n"
    )


def test_utf16_with_a_bom_is_text_and_gets_a_hint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "Höhe\n".encode("utf-16"))
    status, out, err = run(capsys, "check", "-r", tmp_path)
    assert (status, out) == (1, f"{path}:1:1: invalid_byte at byte 0 (FF)\n")
    assert err.splitlines()[0].startswith(f"utf8guard: {path}: hint: looks like UTF-16")


def test_named_files_are_never_skipped_as_binary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, b"\x00" + OVERLONG)
    status, out, err = run(capsys, "check", "-r", path)
    assert (status, out) == (1, f"{path}:1:6: overlong at byte 5 (C0)\n")
    assert err == (
        "utf8guard: 1 file checked, 1 with violations, "
        "1 violation (the first of each file)\n"
    )


def test_several_paths_and_errors_are_counted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first = write(tmp_path, b"\xc0\xaf", "one/a.txt")
    second = write(tmp_path, b"\xc0\xaf", "two/b.txt")
    missing = tmp_path / "missing"
    status, out, err = run(capsys, "check", "-r", first.parent, missing, second.parent)
    assert status == 2
    assert [line.split(":")[0] for line in out.splitlines()] == [
        str(first),
        str(second),
    ]
    assert err.splitlines() == [
        f"utf8guard: {missing}: No such file or directory",
        "utf8guard: 2 files checked, 2 with violations, "
        "2 violations (the first of each file), 1 error",
    ]


def test_walk_errors_are_reported_and_the_walk_goes_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = write(tmp_path, b"\xc0\xaf", "a.txt")
    write(tmp_path, b"\xc0\xaf", "locked\n/b.txt")
    real_scandir = os.scandir

    def failing_scandir(top: str) -> object:
        if top.endswith("\n"):
            raise PermissionError(13, "Permission denied", top)
        return real_scandir(top)

    monkeypatch.setattr(os, "scandir", failing_scandir)
    status, out, err = run(capsys, "check", "-r", tmp_path)
    assert (status, out.count("\n")) == (2, 1)
    assert err.splitlines() == [
        f"utf8guard: {tmp_path}/locked\\u000a: Permission denied",
        "utf8guard: 1 file checked, 1 with violations, "
        "1 violation (the first of each file), 1 error",
    ]
    assert path.exists()


def test_json_with_recursion_and_a_name_that_is_not_utf8(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    raw = os.fsencode(tmp_path) + b"/caf\xe9.txt"
    with open(raw, "wb") as out:
        out.write(b"\xc0\xaf")
    status, out_text, _ = run(capsys, "check", "-r", "--json", tmp_path)
    record = json.loads(out_text)
    assert status == 1
    assert record["path"] == os.fsdecode(raw)
    assert bytes.fromhex(record["path_bytes"]) == raw


# -- inside a git work tree ---------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "--quiet", "--initial-branch=main")
    write(root, b"build/\n*.log\n", ".gitignore")
    write(root, b"ok\n", "tracked-good.txt")
    write(root, OVERLONG, "src/tracked-bad.txt")
    write(root, OVERLONG, "src/deleted.txt")
    git(root, "add", ".")
    git(root, "commit", "--quiet", "-m", "initial")
    (root / "src" / "deleted.txt").unlink()  # tracked, gone from the work tree
    write(root, OVERLONG, "untracked-bad.txt")
    write(root, OVERLONG, "build/ignored.txt")
    write(root, OVERLONG, "debug.log")
    return root


def test_git_work_tree_checks_tracked_and_untracked_but_not_ignored(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    status, out, err = run(capsys, "check", "-r", repo)
    assert status == 1
    assert [line.split(":")[0] for line in out.splitlines()] == [
        f"{repo}/src/tracked-bad.txt",
        f"{repo}/untracked-bad.txt",
    ]
    # .gitignore, tracked-good.txt and the two bad files; nothing from .git/. The
    # two ignored files are counted, not read.
    assert err == (
        "utf8guard: 4 files checked, 2 with violations, "
        "2 violations (the first of each file), 2 files ignored by git\n"
    )


def test_no_ignore_checks_what_git_ignores_but_never_git_itself(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    status, out, err = run(capsys, "check", "-r", "--no-ignore", repo)
    assert status == 1
    assert [line.split(":")[0] for line in out.splitlines()] == [
        f"{repo}/build/ignored.txt",
        f"{repo}/debug.log",
        f"{repo}/src/tracked-bad.txt",
        f"{repo}/untracked-bad.txt",
    ]
    assert err == (
        "utf8guard: 6 files checked, 4 with violations, "
        "4 violations (the first of each file)\n"
    )


def test_a_tree_git_ignores_whole_is_an_error_not_a_pass(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """pyenv's case: its checkout's .gitignore has /versions, where Pythons live."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git(tmp_path, "init", "--quiet", "--initial-branch=main")
    write(tmp_path, b"/versions\n", ".gitignore")
    lib = tmp_path / "versions" / "3.11.7" / "lib"
    write(lib, "caf\u00e9\n".encode("latin-1"), "test/latin1.txt")
    write(lib, b"ok\n", "os.py")
    status, out, err = run(capsys, "check", "-r", lib)
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        f"utf8guard: {lib}: no file checked: 2 files ignored by git "
        "(--no-ignore checks them)",
        "utf8guard: 0 files checked, 0 with violations, 0 violations, "
        "2 files ignored by git, 1 error",
    ]
    status, out, _ = run(capsys, "check", "-r", "--no-ignore", lib)
    assert (status, out) == (
        1,
        f"{lib}/test/latin1.txt:1:4: truncated at byte 3 (E9)\n",
    )


def test_a_tracked_file_in_an_ignored_directory_is_checked_not_counted(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    """``git add -f`` tracks a file git would ignore: git shows it, so it is read."""
    write(repo, OVERLONG, "build/forced.txt")
    git(repo, "add", "-f", "build/forced.txt")
    status, out, err = run(capsys, "check", "-r", repo / "build")
    assert (status, out) == (
        1,
        f"{repo}/build/forced.txt:1:5: overlong at byte 4 (C0)\n",
    )
    assert err == (
        "utf8guard: 1 file checked, 1 with violations, "
        "1 violation (the first of each file), 1 file ignored by git\n"
    )


def test_a_tree_of_ignored_and_binary_files_names_both(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    write(repo, b"PK\x03\x04\x00\x00", "assets/icons.zip")
    write(repo, OVERLONG, "assets/old.log")
    status, out, err = run(capsys, "check", "-r", repo / "assets")
    assert (status, out) == (2, "")
    assert err.splitlines()[0] == (
        f"utf8guard: {repo}/assets: no file checked: 1 file ignored by git "
        "(--no-ignore checks them) and 1 binary file"
    )


def test_a_subdirectory_of_a_work_tree_lists_only_its_files(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    status, out, _ = run(capsys, "check", "-r", repo / "src")
    assert (status, out) == (
        1,
        f"{repo}/src/tracked-bad.txt:1:5: overlong at byte 4 (C0)\n",
    )


def test_without_git_the_tree_is_walked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    _, out, _ = run(capsys, "check", "-r", repo)
    shown = [line.split(":")[0] for line in out.splitlines()]
    assert f"{repo}/build/ignored.txt" in shown
    assert f"{repo}/debug.log" in shown


@pytest.mark.parametrize(
    ("stderr", "reason"),
    [(b"fatal: index file corrupt\n", "fatal: index file corrupt"), (b"", "exit 128")],
)
def test_a_failing_git_ls_files_is_an_error(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    repo: Path,
    stderr: bytes,
    reason: str,
) -> None:
    real_git = _cli_files._git

    def failing(root: str, *args: str) -> subprocess.CompletedProcess[bytes]:
        if args[0] == "ls-files":
            return subprocess.CompletedProcess(["git"], 128, b"", stderr)
        return real_git(root, *args)

    monkeypatch.setattr(_cli_files, "_git", failing)
    status, out, err = run(capsys, "check", "-r", repo)
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        f"utf8guard: {repo}: git ls-files failed: {reason}",
        "utf8guard: 0 files checked, 0 with violations, 0 violations, 1 error",
    ]


def test_the_git_directory_itself_is_walked_as_a_plain_tree(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    """Inside .git, git says "not a work tree": the walk reads every regular file."""
    status, _, err = run(capsys, "check", "-r", repo / ".git" / "info")
    assert status == 0
    assert err.startswith("utf8guard: 1 file checked")
