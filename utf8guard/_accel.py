"""Pick the compiled scanner (``utf8guard._speedups``) when it is built and allowed.

Setting ``UTF8GUARD_PURE_PYTHON`` to anything but ``""`` or ``"0"`` forces the
pure-Python core, the reference behaviour, which the compiled scanner must match.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final, Protocol

from ._policy import Policy
from ._violation import Violation

__all__ = [
    "IMPLEMENTATION",
    "PURE_PYTHON_ENV",
    "compiled_first_violation",
    "compiled_is_valid",
    "compiled_stream_step",
    "load",
]

#: Environment variable that forces the pure-Python core.
PURE_PYTHON_ENV: Final = "UTF8GUARD_PURE_PYTHON"

FirstViolation = Callable[
    [bytes | bytearray | memoryview, int, int, Policy], Violation | None
]
StreamStep = Callable[
    [bytes, bytes | bytearray | memoryview, Policy], bytes | Violation
]


class IsValid(Protocol):
    """The signature of the public ``is_valid``, compiled or not."""

    def __call__(
        self, data: bytes | bytearray | memoryview, policy: Policy = ...
    ) -> bool: ...


def load() -> tuple[str, FirstViolation | None, IsValid | None, StreamStep | None]:
    """The active implementation's name and its compiled entry points, if any.

    ``("c", first_violation, is_valid, stream_step)`` when the extension imports and
    is not disabled, else ``("python", None, None, None)``.
    """
    if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return "python", None, None, None
    try:
        from . import _speedups
    except ImportError:
        # Not built (no compiler at install time): the pure-Python core is complete.
        return "python", None, None, None
    return "c", _speedups.first_violation, _speedups.is_valid, _speedups.stream_step


#: The compiled is_valid is the whole public predicate in one C call: the Python
#: function around the seam cost twice a small decode (bench/README.md). The compiled
#: stream_step is a stream's chunk in one call, for the same reason.
(
    IMPLEMENTATION,
    compiled_first_violation,
    compiled_is_valid,
    compiled_stream_step,
) = load()
