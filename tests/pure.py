"""Running a snippet in a fresh interpreter with the pure-Python core forced."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Final

from utf8guard import _accel

ROOT: Final = Path(__file__).resolve().parent.parent


def run_pure(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` with ``UTF8GUARD_PURE_PYTHON=1``; the checkout first on the path."""
    env = {**os.environ, _accel.PURE_PYTHON_ENV: "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run(  # noqa: S603 - our own interpreter, fixed arguments
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
