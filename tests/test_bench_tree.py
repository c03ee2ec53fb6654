"""bench_tree still runs: both commands over a tiny tree, and its table from fake
timings (no timing assertions)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench import bench_tree

from .clitools import write


def test_both_commands_walk_and_check_the_tree(tmp_path: Path) -> None:
    write(tmp_path, b"ok\n", "a/good.txt")
    write(tmp_path, b"\xc0\xaf", "b/bad.txt")
    argvs = bench_tree.commands(str(tmp_path))
    ours = subprocess.run(argvs["utf8guard"], capture_output=True, check=False)  # noqa: S603
    assert (ours.returncode, ours.stdout) == (
        1,
        f"{tmp_path}/b/bad.txt:1:1: overlong at byte 0 (C0)\n".encode(),
    )
    if shutil.which("isutf8") is None:
        pytest.skip("isutf8 (moreutils) is not installed")
    theirs = subprocess.run(argvs["isutf8"], capture_output=True, check=False)  # noqa: S603
    assert theirs.returncode != 0
    assert f"{tmp_path}/b/bad.txt".encode() in theirs.stdout + theirs.stderr


def test_table_gives_the_ratios(tmp_path: Path) -> None:
    result = {
        "utf8guard": bench_tree.Timing(0.9, 0.6),
        "isutf8": bench_tree.Timing(0.6, 0.4),
    }
    shown = bench_tree.table(str(tmp_path), 3, result, 5)
    assert shown.splitlines()[0].startswith(f"tree: {tmp_path} (3 files), median of 5")
    assert shown.splitlines()[-1] == "| ratio (target <= 2.0) | 1.50x | 1.50x |"
    result["isutf8"] = bench_tree.Timing(0.6, 0.0)  # below os.times' tick
    shown = bench_tree.table(str(tmp_path), 3, result, 5)
    assert shown.splitlines()[-1] == "| ratio (target <= 2.0) | 1.50x | n/a |"


def test_main_runs_one_round_or_says_isutf8_is_missing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write(tmp_path, b"ok\n", "good.txt")
    status = bench_tree.main([str(tmp_path), "--rounds", "1"])
    out, err = capsys.readouterr()
    if shutil.which("isutf8") is None:
        assert (status, err) == (
            2,
            "isutf8 is not installed (apt-get install moreutils)\n",
        )
    else:
        assert status == 0
        assert "| find + isutf8 |" in out
        assert bench_tree.count_files(str(tmp_path)) == 1
