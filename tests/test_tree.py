"""utf8guard._tree: ``scan DIR`` on real temporary trees with non-UTF-8 names."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from utf8guard import _cli_output, _tree, cli, paths
from utf8guard._pathrules import PLATFORMS
from utf8guard._tree import display
from utf8guard.paths import PathKind, UnsafePathError

Scan = Callable[..., int]


@pytest.fixture
def scan() -> Scan:
    """Run ``utf8guard scan ...`` end to end through the CLI's ``main``."""

    def run(*argv: str | Path) -> int:
        return cli.main(["scan", *map(str, argv)])

    return run


def make(root: Path, *names: bytes, dirs: tuple[bytes, ...] = ()) -> None:
    """Create files and directories from raw byte names, as a non-UTF-8 disk has."""
    base = os.fsencode(root)
    os.makedirs(base, exist_ok=True)
    for name in dirs:
        os.makedirs(os.path.join(base, name))
    for name in names:
        with open(os.path.join(base, name), "wb"):
            pass


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    make(
        root,
        b"ok.txt",
        "Straße.txt".encode(),
        b"Cafe\xcc\x81.txt",  # NFD
        b"caf\xe9.txt",  # Latin-1
        "invoice\u202etxt.exe".encode(),
        b"CON.txt",
        "sub\u200b".encode() + b"/\xff",
        dirs=("sub\u200b".encode(),),
    )
    outside = tmp_path / "outside"
    make(outside, b"evil\x01.txt")
    (root / "link").symlink_to(outside)
    (root / "bad:link").symlink_to(outside)
    return root


def lines(text: str) -> list[str]:
    return text.splitlines()


def test_scan_reports_each_unsafe_name(
    scan: Scan, tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert scan(tree) == 1
    out, err = capsys.readouterr()
    assert err == ""
    assert lines(out) == [
        f"{tree}/sub\\u200b/\\xff: invalid_byte at byte 0 (FF)",
        f"{tree}/CON.txt: reserved_name at byte 0 (43 4F 4E)",
        f"{tree}/Cafe\u0301.txt: not_nfc at byte 0 (43 61 66 65 CC 81 2E 74 78 74)",
        f"{tree}/bad:link: reserved_character at byte 3 (3A)",
        f"{tree}/caf\\xe9.txt: truncated at byte 3 (E9)",
        f"{tree}/invoice\\u202etxt.exe: bidi_control at byte 7 (E2 80 AE)",
        f"{tree}/sub\\u200b: default_ignorable at byte 3 (E2 80 8B)",
    ]


def test_scan_never_follows_symlinks(
    scan: Scan, tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scan(tree)
    assert "evil" not in capsys.readouterr().out


def test_scan_clean_tree(
    scan: Scan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(tmp_path, "Straße.txt".encode(), "北京.pdf".encode(), dirs=(b"docs",))
    assert scan(tmp_path) == 0
    assert capsys.readouterr() == ("", "")


def test_scan_json(scan: Scan, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert scan(tree, "--json") == 1
    records = [json.loads(line) for line in lines(capsys.readouterr().out)]
    # check's record: the raw name (PEP 383) and its bytes; offsets in the name.
    assert records[0] == {
        "path": os.fsdecode(os.fsencode(tree) + "/sub\u200b/".encode() + b"\xff"),
        "path_bytes": (os.fsencode(tree) + "/sub\u200b/".encode() + b"\xff").hex(),
        "kind": "invalid_byte",
        "start": 0,
        "end": 1,
        "bytes": "ff",
    }
    assert records[5] == {
        "path": f"{tree}/invoice\u202etxt.exe",
        "kind": "bidi_control",
        "start": 7,
        "end": 10,
        "bytes": "\u202e".encode().hex(),
    }
    assert {r["kind"] for r in records} == {
        "invalid_byte",
        "reserved_name",
        "not_nfc",
        "reserved_character",
        "truncated",
        "bidi_control",
        "default_ignorable",
    }


def test_scan_platform_posix(
    scan: Scan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(tmp_path, b"CON.txt", b"a:b")
    assert scan(tmp_path, "--platform", "posix") == 0
    assert scan(tmp_path, "--platform", "windows") == 1


def test_scan_platform_choices_are_the_name_rules_ones(
    scan: Scan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse reads them only when it checks a value or prints help (_Platforms).
    assert scan("--help") == 0
    assert ", ".join(PLATFORMS) in " ".join(capsys.readouterr().out.split())
    assert scan(tmp_path, "--platform", "macos") == 2
    err = capsys.readouterr().err
    assert (
        "invalid choice: 'macos' (choose from " + ", ".join(map(repr, PLATFORMS)) in err
    )


def test_fix_is_a_dry_run_by_default(
    scan: Scan, tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(os.listdir(os.fsencode(tree)))
    assert scan(tree, "--fix") == 1
    assert sorted(os.listdir(os.fsencode(tree))) == before
    out = lines(capsys.readouterr().out)
    assert "  would rename: \\xff → _" in out
    assert "  would rename: Cafe\u0301.txt → Café.txt" in out
    assert "  would rename: CON.txt → _CON.txt" in out
    assert "  would rename: sub\\u200b → sub_" in out


def test_fix_apply_renames_then_tree_is_clean(
    scan: Scan, tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert scan(tree, "--fix", "--apply") == 1
    out = lines(capsys.readouterr().out)
    assert "  renamed: sub\\u200b → sub_" in out
    assert sorted(os.listdir(tree)) == sorted(
        [
            "ok.txt",
            "Straße.txt",
            "Café.txt",
            "caf_.txt",
            "invoice_txt.exe",
            "_CON.txt",
            "sub_",
            "link",
            "bad_link",
        ]
    )
    assert os.listdir(tree / "sub_") == ["_"]
    assert scan(tree) == 0


def test_fix_json(
    scan: Scan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(tmp_path, b"a\x01")
    assert scan(tmp_path, "--fix", "--json") == 1
    record = json.loads(capsys.readouterr().out)
    assert record["fix"] == {"action": "would rename", "to": "a_"}


def test_fix_never_overwrites(
    scan: Scan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(tmp_path, b"a:b", b"a_b")
    assert scan(tmp_path, "--fix", "--apply") == 1
    assert "  cannot rename: a_b exists" in lines(capsys.readouterr().out)
    assert sorted(os.listdir(tmp_path)) == ["a:b", "a_b"]


def test_fix_reports_names_it_cannot_fix(
    scan: Scan,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object, **kwargs: object) -> str:
        raise UnsafePathError(PathKind.EMPTY, "empty at characters [0, 0)")

    monkeypatch.setattr(paths, "safe_filename", refuse)
    make(tmp_path, b"a\x01")
    assert scan(tmp_path, "--fix") == 1
    assert "  cannot rename: empty at characters [0, 0)" in capsys.readouterr().out


def test_rename_failure_is_an_error(
    scan: Scan,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fail(src: bytes, dst: bytes) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", src)

    monkeypatch.setattr(os, "rename", fail)
    make(tmp_path, b"a\x01")
    assert scan(tmp_path, "--fix", "--apply") == 2
    out, err = capsys.readouterr()
    assert "  cannot rename: Permission denied" in lines(out)
    assert err == f"utf8guard: {tmp_path}/a\\u0001: Permission denied\n"


def test_apply_needs_fix(
    scan: Scan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(tmp_path, b"a\x01")
    assert scan(tmp_path, "--apply") == 2
    assert capsys.readouterr() == ("", "utf8guard: scan: --apply needs --fix\n")
    assert os.listdir(tmp_path) == ["a\x01"]


def test_not_a_directory(
    scan: Scan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert scan(tmp_path / "missing\x1b[2J") == 2
    assert capsys.readouterr().err == (
        f"utf8guard: scan: not a directory: {tmp_path}/missing\\u001b[2J\n"
    )


def test_unreadable_directory_is_an_error_and_scan_goes_on(
    scan: Scan,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make(tmp_path, b"bad\x01", dirs=(b"locked",))
    real_scandir = os.scandir
    locked = os.path.join(os.fsencode(tmp_path), b"locked")

    def scandir(path: bytes) -> Iterator[os.DirEntry[bytes]]:
        if path == locked:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert scan(tmp_path) == 2
    out, err = capsys.readouterr()
    assert out == f"{tmp_path}/bad\\u0001: control at byte 3 (01)\n"
    assert err == f"utf8guard: {tmp_path}/locked: Permission denied\n"


def test_progress_on_a_terminal(
    scan: Scan,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make(tmp_path, *(f"{i}.txt".encode() for i in range(5)))
    monkeypatch.setattr(_tree, "PROGRESS_EVERY_NAMES", 2)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert scan(tmp_path) == 0
    assert capsys.readouterr().err == (
        "\rscanned 2 names\rscanned 4 names\rscanned 5 names\n"
    )


def test_no_progress_for_a_small_tree_on_a_terminal(
    scan: Scan,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make(tmp_path, b"a")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert scan(tmp_path) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"plain", "plain"),
        ("北京".encode(), "北京"),
        (b"a\\b", "a\\\\b"),
        (b"\xff\xfe", "\\xff\\xfe"),
        (b"\x1b[31m", "\\u001b[31m"),
        ("a\u202eb".encode(), "a\\u202eb"),
        ("\u3164".encode(), "\\u3164"),
        ("\U000e0041".encode(), "\\U000e0041"),
        ("a\u00a0b".encode(), "a\\u00a0b"),
    ],
    ids=ascii,
)
def test_display_escapes_what_could_rewrite_output(raw: bytes, shown: str) -> None:
    assert display(raw) == shown


def test_scan_usage_error(scan: Scan, capsys: pytest.CaptureFixture[str]) -> None:
    assert scan() == 2
    assert "utf8guard scan: error: the following arguments are required: DIR" in (
        capsys.readouterr().err
    )


def test_python_m_utf8guard_scan(tree: Path) -> None:
    done = subprocess.run(  # noqa: S603 (fixed argv, no shell)
        [sys.executable, "-m", "utf8guard", "scan", "--json", os.fspath(tree)],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr == b""
    assert len(done.stdout.splitlines()) == 7


def test_scan_takes_several_directories_and_goes_on_past_a_missing_one(
    scan: Scan, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make(tmp_path / "one", b"a\x01")
    make(tmp_path / "two", b"CON")
    missing = tmp_path / "missing"
    assert scan(tmp_path / "one", missing, tmp_path / "two") == 2
    out, err = capsys.readouterr()
    assert lines(out) == [
        f"{tmp_path}/one/a\\u0001: control at byte 1 (01)",
        f"{tmp_path}/two/CON: reserved_name at byte 0 (43 4F 4E)",
    ]
    assert err == f"utf8guard: scan: not a directory: {missing}\n"
    assert scan(tmp_path / "one", tmp_path / "two") == 1
    capsys.readouterr()


@pytest.mark.parametrize(
    "raw", [b"caf\xe9\n.txt", "a\u202eb\\c".encode(), "\U000e0041 x".encode()]
)
def test_check_and_scan_escape_a_name_alike(raw: bytes) -> None:
    """One escaping: the str a walk gives (PEP 383) shows as the bytes do."""
    assert _cli_output.display(os.fsdecode(raw)) == display(raw)
