"""Which files ``check -r DIR`` reads: a walk of the tree, filtered by git's view.

The tree is walked with ``os.scandir`` without following symlinks; only regular
files are kept (no symlinks, FIFOs or devices), in a stable order, and no ``.git``
directory is entered (nor a ``.git`` file read). Inside a git work tree (unless
``--no-ignore``) a file is read only if ``git ls-files -co --exclude-standard``
lists it: tracked, or untracked and not ignored. The files git leaves out are
counted, never silently dropped: a tree that git ignores whole (pyenv's
``versions/`` in its checkout) must not pass as checked.
"""

from __future__ import annotations

import codecs
import os

from ._cli_encoding import bomless_utf16
from ._cli_output import display

# Only mypy needs these (issue 28: a command's start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Iterator
    from typing import Final

__all__ = ["BINARY_SNIFF_BYTES", "Tree", "is_binary"]

#: A NUL byte in this many leading bytes makes a file binary: git's rule
#: (``buffer_is_binary`` in xdiff-interface.c reads the first 8000 bytes) and
#: ripgrep's (a NUL in the first block read), rounded to 8 KiB.
BINARY_SNIFF_BYTES: Final = 8192
#: A UTF-16 byte order mark makes a file text whatever its NULs: ripgrep reads such
#: a file as text too, and ``check`` then says that it looks like UTF-16.
UTF16_BOMS: Final = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
#: Git's own directory (or, in a worktree or submodule, the file pointing to it):
#: git's business, not text to check.
GIT_DIR_NAME: Final = ".git"


def is_binary(head: bytes) -> bool:
    """True when the first bytes of a file say it is binary, not text.

    UTF-16 text (with a byte order mark, or without one by its NULs) is
    text: checking it names it, where skipping it as binary would hide it.
    """
    head = head[:BINARY_SNIFF_BYTES]
    if b"\0" not in head or head.startswith(UTF16_BOMS):
        return False
    return bomless_utf16(head) is None


class Tree:
    """The regular files below the directory ``root``, as paths that start with it.

    Iterate once; afterwards ``ignored`` holds how many regular files git left out.
    Walk errors go to ``on_error`` as one line each and the walk goes on.

    Raises:
        OSError: git said ``root`` is in a work tree but could not list it.
    """

    def __init__(
        self, root: str, on_error: Callable[[str], None], *, use_git: bool
    ) -> None:
        self.root = root
        self.ignored = 0
        self._on_error = on_error
        self._use_git = use_git

    def __iter__(self) -> Iterator[str]:
        listed = _git_files(self.root) if self._use_git else None
        prefix = os.path.join(self.root, "")
        for relative in _walk(self.root, self._on_error):
            if listed is None or relative in listed:
                yield prefix + relative
            else:
                self.ignored += 1


def _git_files(root: str) -> frozenset[str] | None:
    """Git's files below ``root`` (relative, ``/``-separated), or None outside git."""
    import shutil  # -r only (issue 28: with bz2, lzma and fnmatch, 7 M instructions)

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
    return frozenset(os.fsdecode(name) for name in listed.stdout.split(b"\0") if name)


def _git(root: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    # Only -r asks git: subprocess costs a command 23M instructions (issue 28).
    import subprocess

    return subprocess.run(  # noqa: S603 (fixed argv, no shell)
        ["git", *args],  # noqa: S607 (git from PATH, as the user runs it)
        cwd=root,
        capture_output=True,
        check=False,
    )


def _walk(root: str, on_error: Callable[[str], None]) -> Iterator[str]:
    """Regular files below ``root`` as ``/``-separated relative paths, by name,
    depth first. ``scandir`` gives each entry's type from the
    directory itself, so no file is stat'ed."""
    # A stack of (path, is a directory), not recursion: a deep tree must not
    # overflow. Entries go on in reverse so that they come off in name order.
    pending = [("", True)]
    while pending:
        relative, is_dir = pending.pop()
        if not is_dir:
            yield relative
            continue
        prefix = f"{relative}/" if relative else ""
        try:
            with os.scandir(os.path.join(root, relative)) as scan:
                entries = [
                    (prefix + e.name, e.is_dir(follow_symlinks=False))
                    for e in scan
                    if e.name != GIT_DIR_NAME
                    and (
                        e.is_file(follow_symlinks=False)
                        or e.is_dir(follow_symlinks=False)
                    )
                ]
        except OSError as exc:
            on_error(f"{display(str(exc.filename))}: {exc.strerror}")
            continue
        pending.extend(sorted(entries, reverse=True))
