"""Which files ``check -r DIR`` reads: git's view of a work tree, else a plain walk.

Inside a git work tree the files are those ``git ls-files -co --exclude-standard``
lists: tracked, or untracked and not ignored, as git itself would show them.
Elsewhere the tree is walked without following symlinks. Either way only regular
files are read (no symlinks, FIFOs or devices), in a stable order.
"""

from __future__ import annotations

import codecs
import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from typing import Final

from ._cli_output import display

__all__ = ["BINARY_SNIFF_BYTES", "is_binary", "iter_files"]

#: A NUL byte in this many leading bytes makes a file binary: git's rule
#: (``buffer_is_binary`` in xdiff-interface.c reads the first 8000 bytes) and
#: ripgrep's (a NUL in the first block read), rounded to 8 KiB.
BINARY_SNIFF_BYTES: Final = 8192
#: A UTF-16 byte order mark makes a file text whatever its NULs: ripgrep reads such
#: a file as text too, and ``check`` then says that it looks like UTF-16.
UTF16_BOMS: Final = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def is_binary(head: bytes) -> bool:
    """True when the first bytes of a file say it is binary, not text."""
    return b"\0" in head[:BINARY_SNIFF_BYTES] and not head.startswith(UTF16_BOMS)


def iter_files(root: str, on_error: Callable[[str], None]) -> Iterator[str]:
    """The regular files below the directory ``root``, as paths that start with it.

    Raises:
        OSError: git said ``root`` is in a work tree but could not list it.
    """
    listed = _git_files(root)
    for path in _walk(root, on_error) if listed is None else listed:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:  # tracked by git, deleted in the work tree
            continue
        if stat.S_ISREG(mode):
            yield path


def _git_files(root: str) -> list[str] | None:
    """Git's files below ``root`` if it is in a work tree, else None."""
    if shutil.which("git") is None:
        return None
    inside = _git(root, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        return None
    listed = _git(root, "ls-files", "-co", "--exclude-standard", "-z")
    if listed.returncode != 0:
        said = listed.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = said[0] if said else f"exit {listed.returncode}"
        raise OSError(0, f"git ls-files failed: {reason}", root)
    # Untracked files come after tracked ones, and a path in a merge conflict is
    # listed once per stage: one sorted list of distinct names.
    names = sorted({name for name in listed.stdout.split(b"\0") if name})
    return [os.path.join(root, os.fsdecode(name)) for name in names]


def _git(root: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # noqa: S603 (fixed argv, no shell)
        ["git", *args],  # noqa: S607 (git from PATH, as the user runs it)
        cwd=root,
        capture_output=True,
        check=False,
    )


def _walk(root: str, on_error: Callable[[str], None]) -> Iterator[str]:
    def report(exc: OSError) -> None:
        on_error(f"{display(str(exc.filename))}: {exc.strerror}")

    for directory, dirnames, filenames in os.walk(root, onerror=report):
        dirnames.sort()
        for name in sorted(filenames):
            yield os.path.join(directory, name)
