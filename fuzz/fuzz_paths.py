"""Fuzz the filename and path guards against their own stated guarantees.

Invariant: ``safe_filename`` either raises ``UnsafePathError`` or returns a non-empty,
NFC name within ``max_bytes`` that holds no separator, for which ``check_path`` finds
nothing and which ``safe_filename`` returns unchanged (idempotence). Without a
replacement it accepts exactly the names ``check_path`` finds nothing in (oracle:
``check_path`` on the NFC form, one segment). ``safe_join`` either raises
``UnsafePathError`` or returns a path inside its base whose every component is its own
``safe_filename``. ``check_path`` never raises and reports sorted spans inside the
input.

Input layout: byte 0 chooses the mode (bits 0-1 platform, bit 2 replacement "_",
bit 3 str via ``surrogateescape`` instead of bytes), byte 1 is ``max_bytes - 1``, the
rest is the name or path under test.
"""

from __future__ import annotations

import importlib
import os
import sys
import unicodedata
from pathlib import PurePosixPath
from typing import Final

from utf8guard.paths import (
    Platform,
    UnsafePathError,
    check_path,
    safe_filename,
    safe_join,
)

__all__ = ["MAX_LEN", "TestOneInput", "check", "main"]

HEADER_BYTES: Final = 2
#: libFuzzer -max_len: a few names of NAME_MAX bytes.
MAX_LEN: Final = 1024
PLATFORMS: Final[tuple[Platform, ...]] = ("universal", "windows", "posix", "universal")
BASE: Final = PurePosixPath("/srv/base")


def _fail(what: str, data: bytes, **sides: object) -> None:
    lines = [what, f"  input ({len(data)} bytes): {data.hex(' ')}"]
    lines += (f"  {name}: {value!r}" for name, value in sides.items())
    raise AssertionError("\n".join(lines))


def _check_filename(
    data: bytes, name: str | bytes, platform: Platform, max_bytes: int, replace: bool
) -> None:
    replacement = "_" if replace else None
    try:
        fixed = safe_filename(
            name, replacement=replacement, max_bytes=max_bytes, platform=platform
        )
    except UnsafePathError:
        if not replace and isinstance(name, str) and "/" not in name:
            nfc = unicodedata.normalize("NFC", name)
            if not check_path(nfc, platform=platform, max_bytes=max_bytes):
                _fail("refused a name check_path accepts", data, name=name)
        return
    bad = check_path(fixed, platform=platform, max_bytes=max_bytes)
    if bad or not fixed or "/" in fixed or "\\" in fixed:
        _fail("unsafe result", data, result=fixed, violations=bad)
    if not unicodedata.is_normalized("NFC", fixed) or len(fixed.encode()) > max_bytes:
        _fail("result not NFC or too long", data, result=fixed)
    again = safe_filename(
        fixed, replacement=replacement, max_bytes=max_bytes, platform=platform
    )
    if again != fixed:
        _fail("not idempotent", data, first=fixed, second=again)


def _check_join(data: bytes, parts: list[str], platform: Platform) -> None:
    try:
        joined = PurePosixPath(safe_join(BASE, *parts, platform=platform))
    except UnsafePathError:
        return
    if PurePosixPath(os.path.normpath(joined)) != joined or not joined.is_relative_to(
        BASE
    ):
        _fail("joined path leaves the base", data, path=joined)
    for part in joined.relative_to(BASE).parts:
        try:
            safe = safe_filename(part, platform=platform) == part
        except UnsafePathError:
            safe = False
        if not safe:
            _fail("joined component is not safe", data, path=joined, part=part)


def _check_report(data: bytes, path: str | bytes, platform: Platform) -> None:
    found = check_path(path, platform=platform)
    spans = [(v.start, v.end) for v in found]
    if spans != sorted(spans) or any(not 0 <= s <= e <= len(path) for s, e in spans):
        _fail("bad spans", data, violations=found)


def check(data: bytes) -> None:
    """Fail with AssertionError when a guarantee of ``utf8guard.paths`` breaks."""
    header, payload = data[:HEADER_BYTES], data[HEADER_BYTES:]
    mode, size = (header + bytes(HEADER_BYTES - len(header)))[:HEADER_BYTES]
    platform = PLATFORMS[mode & 3]
    as_text = bool(mode & 8)
    name: str | bytes = payload
    if as_text:
        name = payload.decode("utf-8", "surrogateescape")
    _check_filename(data, name, platform, size + 1, bool(mode & 4))
    _check_report(data, name, platform)
    text = payload.decode("utf-8", "surrogateescape")
    _check_join(data, text.split("\x00"), platform)


TestOneInput = check


def main() -> None:  # pragma: no cover - runs only under atheris
    """Instrument utf8guard, then hand ``sys.argv`` to libFuzzer."""
    # Imported here so the corpus replays without atheris, and through importlib
    # because atheris ships no type information.
    atheris = importlib.import_module("atheris")
    atheris.instrument_all()
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":  # pragma: no cover
    main()
