"""tools/check_wheel.py: C sources and unstripped ELF extensions are reported.

The ELF files are built here by the C compiler, with and without ``-g`` and ``-s``;
``readelf`` (binutils) is the oracle for their section names.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tools import check_wheel

CC = shutil.which("cc")
READELF = shutil.which("readelf")
SECTION_ROW = re.compile(r"^\s*\[\s*(\d+)\] (\S+)")
needs_toolchain = pytest.mark.skipif(
    CC is None or READELF is None, reason="needs cc and readelf (Linux toolchain)"
)


def _shared_object(tmp_path: Path, *flags: str) -> bytes:
    source = tmp_path / "ext.c"
    source.write_text("int PyInit_ext(void) { return 42; }\n")
    out = tmp_path / f"ext{''.join(flags)}.so"
    subprocess.run(  # noqa: S603  # fixed argv, no shell
        [str(CC), "-shared", "-fPIC", *flags, "-o", str(out), str(source)], check=True
    )
    return out.read_bytes()


def _readelf_sections(data: bytes, tmp_path: Path) -> list[str]:
    path = tmp_path / "probe.so"
    path.write_bytes(data)
    listing = subprocess.run(  # noqa: S603  # fixed argv, no shell
        [str(READELF), "-S", "-W", str(path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # "  [ 1] .note.gnu.build-id NOTE ..."; entry 0 is the unnamed NULL section.
    rows = (SECTION_ROW.match(line) for line in listing.splitlines())
    return [row[2] for row in rows if row and row[1] != "0"]


def _wheel(tmp_path: Path, members: dict[str, bytes]) -> Path:
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "pkg-1.0-cp311-cp311-linux_x86_64.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in members.items():
            wheel.writestr(name, data)
    return path


@needs_toolchain
@pytest.mark.parametrize("flags", [("-g",), ("-g", "-s"), ()])
def test_section_names_match_readelf(tmp_path: Path, flags: tuple[str, ...]) -> None:
    data = _shared_object(tmp_path, *flags)
    names = check_wheel.elf_section_names(data)
    assert [name for name in names if name] == _readelf_sections(data, tmp_path)


@needs_toolchain
def test_debug_build_is_reported_and_stripped_build_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    debug = _wheel(
        tmp_path / "a", {"pkg/_ext.cpython-311.so": _shared_object(tmp_path, "-g")}
    )
    assert check_wheel.main([str(debug)]) == 1
    out = capsys.readouterr().out
    assert "pkg/_ext.cpython-311.so: not stripped (" in out
    assert ".debug_info" in out
    assert ".symtab" in out
    stripped = _shared_object(tmp_path, "-g", "-s")
    clean = _wheel(tmp_path / "b", {"pkg/_ext.cpython-311.so": stripped})
    assert check_wheel.main([str(clean)]) == 0
    assert capsys.readouterr().out == "check_wheel: 1 wheels, 0 problems\n"


def test_c_sources_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    members = {"pkg/__init__.py": b"", "pkg/_ext.c": b"int x;\n", "pkg/_ext.h": b"\n"}
    assert check_wheel.main([str(_wheel(tmp_path, members))]) == 1
    out = capsys.readouterr().out
    assert "pkg/_ext.c: C source in the wheel" in out
    assert "pkg/_ext.h: C source in the wheel" in out
    assert out.endswith("check_wheel: 1 wheels, 2 problems\n")


def test_no_wheel_is_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    # `make dist-check` with an empty dist/ must not pass.
    assert check_wheel.main([]) == 1
    assert "0 wheels" in capsys.readouterr().out


def test_non_elf_data_is_refused() -> None:
    with pytest.raises(ValueError, match="not an ELF file"):
        check_wheel.elf_section_names(b"MZ\x90\x00")
