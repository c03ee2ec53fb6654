"""Pick the compiled scanner (``utf8guard._speedups``) when it is built and allowed.

Setting ``UTF8GUARD_PURE_PYTHON`` to anything but ``""`` or ``"0"`` forces the
pure-Python core, the reference behaviour, which the compiled scanner must match.
Setting ``UTF8GUARD_ISA`` to a kernel name (``scalar``, the portable one; ``sse4.1``,
``avx2``, ``avx512`` on x86-64; ``neon`` on arm64) forces that kernel of the compiled
scanner; ``""`` or ``"auto"`` picks the fastest the CPU runs. A name the CPU or the
build does not offer is a ``RuntimeWarning``, and the fastest kernel is used.
"""

from __future__ import annotations

import os

# typing costs a tenth of ``import utf8guard`` (issue 28); only mypy needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final, Protocol

    from ._policy import Policy
    from ._violation import Violation

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


__all__ = [
    "IMPLEMENTATION",
    "ISA_ENV",
    "KERNEL",
    "PURE_PYTHON_ENV",
    "compiled_first_violation",
    "compiled_is_valid",
    "compiled_stream_step",
    "load",
    "pick_kernel",
]

#: Environment variable that forces the pure-Python core.
PURE_PYTHON_ENV: Final = "UTF8GUARD_PURE_PYTHON"
#: Environment variable that picks the compiled scanner's kernel by name.
ISA_ENV: Final = "UTF8GUARD_ISA"


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


def pick_kernel(implementation: str) -> str:
    """The kernel in use: ``"python"``, or the compiled scanner's instruction set,
    switched to the one ``UTF8GUARD_ISA`` names when the CPU runs it.
    """
    if implementation != "c":
        return "python"
    from . import _speedups

    wanted = os.environ.get(ISA_ENV, "")
    if wanted not in ("", "auto"):
        supported = _speedups.supported_isas()
        if wanted in supported:
            _speedups.set_isa(wanted)
        else:
            import warnings  # only for this mistake (issue 28: import time)

            warnings.warn(
                f"{ISA_ENV}={wanted!r} is not a kernel this build runs on this CPU "
                f"({', '.join(supported)}, or auto): using {_speedups.isa()}",
                RuntimeWarning,
                stacklevel=2,
            )
    return str(_speedups.isa())


#: The kernel chosen at import: ``"python"`` for the pure-Python core, else the
#: instruction set of the compiled scanner (``utf8guard --version`` names it).
KERNEL: Final = pick_kernel(IMPLEMENTATION)
