"""utf8guard: strict UTF-8 validation naming every violation and its exact byte span.

>>> import utf8guard
>>> utf8guard.find_violation(b"/etc\\xc0\\xafpasswd")
Violation(kind=<Kind.OVERLONG: 'overlong'>, start=4, end=5)
"""

from ._accel import IMPLEMENTATION, KERNEL
from ._policy import IDENTIFIER, STRICT, WELL_FORMED, Policy
from ._repair import repair
from ._scan import (
    BytesLike,
    decode,
    find_violation,
    is_valid,
    iter_violations,
    validate,
)
from ._stream import IncrementalValidator, iter_stream_violations, repair_stream
from ._violation import Kind, Utf8Error, Violation

__version__ = "0.2.0"

__all__ = [
    "IDENTIFIER",
    "IMPLEMENTATION",
    "KERNEL",
    "STRICT",
    "WELL_FORMED",
    "BytesLike",
    "IncrementalValidator",
    "Kind",
    "Policy",
    "Utf8Error",
    "Violation",
    "__version__",
    "decode",
    "find_violation",
    "is_valid",
    "iter_stream_violations",
    "iter_violations",
    "repair",
    "repair_stream",
    "validate",
]
