"""Build the optional C accelerator, utf8guard._speedups.

Everything else lives in pyproject.toml. The extension is optional: when no C
compiler works (try ``CC=false pip install .``), the build says so in a banner and the
package installs as pure Python, which is the reference behaviour anyway. Set
``UTF8GUARD_REQUIRE_ACCEL=1`` to make a failed build an error instead (release wheels).

Every build compiles afresh: a ``_speedups`` left in ``build/`` by an earlier build is
deleted first, so ``CC=false`` after a C build really gives pure Python.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

#: GCC and Clang; MSVC gets its defaults (its SIMD kernels need no target flags: each
#: runs only after a cpuid check, see utf8guard/_speedups_scan.h).
UNIX_FLAGS = ["-std=c11", "-O3", "-Wall", "-Wextra", "-Werror"]
#: Strip the debug information that Python's own CFLAGS (-g) put in the extension (a
#: fifth of the size without it): GNU ld and lld take -s, Apple's ld64 -S. A build whose
#: CFLAGS ask for -g itself (make sanitize, make fuzz-accel) keeps it.
STRIP_FLAGS = ["-Wl,-S"] if sys.platform == "darwin" else ["-s"]
REQUIRE_ENV = "UTF8GUARD_REQUIRE_ACCEL"

BANNER = """
************************************************************************
utf8guard: the optional C accelerator could not be built ({reason}).
The package works as pure Python (same results, slower on large inputs).
Check with: python -c "import utf8guard; print(utf8guard.IMPLEMENTATION)"
To get it, install a C compiler and the Python headers, then reinstall.
************************************************************************
"""


class OptionalBuildExt(build_ext):
    """build_ext that always rebuilds, and says loudly when it could not."""

    def build_extension(self, ext: Extension) -> None:
        # A stale binary from an earlier build must never be packaged instead.
        Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
        self.force = True
        if self.compiler.compiler_type != "msvc":
            ext.extra_compile_args = UNIX_FLAGS
            if "-g" not in os.environ.get("CFLAGS", "").split():
                ext.extra_link_args = STRIP_FLAGS
        try:
            super().build_extension(ext)
        # What setuptools itself treats as "no working compiler" for optional builds.
        except (CCompilerError, ExecError, PlatformError) as exc:
            if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
                raise
            sys.stderr.write(BANNER.format(reason=type(exc).__name__))


setup(
    cmdclass={"build_ext": OptionalBuildExt},
    ext_modules=[
        Extension(
            "utf8guard._speedups",
            sources=[
                "utf8guard/_speedups.c",
                "utf8guard/_speedups_http.c",
                "utf8guard/_speedups_environ.c",
                "utf8guard/_speedups_lane.c",
            ],
            depends=[
                "utf8guard/_speedups_kernel.h",
                "utf8guard/_speedups_load.h",
                "utf8guard/_speedups_portable.h",
                "utf8guard/_speedups_scan.h",
                "utf8guard/_speedups_shared.h",
            ],
        )
    ],
)
