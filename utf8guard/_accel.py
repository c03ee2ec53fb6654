"""Pick the compiled scanner (``utf8guard._speedups``) when it is built and allowed.

Setting ``UTF8GUARD_PURE_PYTHON`` to anything but ``""`` or ``"0"`` forces the
pure-Python core, the reference behaviour, which the compiled scanner must match.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

from ._policy import Policy
from ._violation import Violation

__all__ = ["IMPLEMENTATION", "PURE_PYTHON_ENV", "compiled_first_violation", "load"]

#: Environment variable that forces the pure-Python core.
PURE_PYTHON_ENV: Final = "UTF8GUARD_PURE_PYTHON"

FirstViolation = Callable[
    [bytes | bytearray | memoryview, int, int, Policy], Violation | None
]


def load() -> tuple[str, FirstViolation | None]:
    """The active implementation's name and its compiled first_violation, if any.

    ``("c", first_violation)`` when the extension imports and is not disabled, else
    ``("python", None)``.
    """
    if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return "python", None
    try:
        from . import _speedups
    except ImportError:
        # Not built (no compiler at install time): the pure-Python core is complete.
        return "python", None
    return "c", _speedups.first_violation


IMPLEMENTATION, compiled_first_violation = load()
