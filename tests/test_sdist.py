"""The sdist carries every file its tests need (oracle: ``git ls-files``).

Release checks need a git checkout and ``build``; from an unpacked sdist (no ``.git``)
this module skips. ``make sdist-test`` then runs the tests inside the unpacked archive.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Repository files that are not part of the source distribution: CI configuration
#: and git metadata stay in the repository.
NOT_SHIPPED = (".ci/", ".github/", ".gitignore", ".gitattributes")


def _tracked() -> set[str]:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (not an unpacked sdist)")
    listed = subprocess.run(  # noqa: S603  # fixed argv, no shell
        [git, "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode()
    return {name for name in listed.split("\0") if name}


@pytest.fixture(scope="module")
def sdist_members(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    tracked = _tracked()
    out = tmp_path_factory.mktemp("sdist")
    subprocess.run(  # noqa: S603  # fixed argv, no shell
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (archive,) = out.glob("utf8guard-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    prefix = names[0].split("/")[0] + "/"
    members = {name.removeprefix(prefix) for name in names if name.startswith(prefix)}
    assert tracked, "git lists no files"
    return members


def test_sdist_has_every_tracked_file(sdist_members: set[str]) -> None:
    missing = sorted(
        name
        for name in _tracked()
        if not name.startswith(NOT_SHIPPED) and name not in sdist_members
    )
    assert missing == []


def test_sdist_has_no_build_products(sdist_members: set[str]) -> None:
    unwanted = [
        name
        for name in sdist_members
        if name.endswith((".so", ".pyc", ".pyd")) or "__pycache__" in name
    ]
    assert unwanted == []


def test_sdist_has_license_and_metadata(sdist_members: set[str]) -> None:
    assert {"LICENSE", "PKG-INFO", "CHANGELOG.md", "conftest.py"} <= sdist_members
