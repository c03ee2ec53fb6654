"""Build the optional C accelerator, utf8guard._speedups.

Everything else lives in pyproject.toml. The extension is ``optional``: when no C
compiler works (try ``CC=false pip install .``), setuptools warns and the package
installs as pure Python, which is the reference behaviour anyway.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "utf8guard._speedups",
            sources=["utf8guard/_speedups.c"],
            depends=["utf8guard/_speedups_kernel.h"],
            extra_compile_args=["-std=c11", "-O3", "-Wall", "-Wextra", "-Werror"],
            optional=True,
        )
    ],
)
