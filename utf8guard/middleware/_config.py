"""GuardConfig: every middleware option, checked once; how findings are reported."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import Final

from .._policy import STRICT, Policy
from .._scan import is_valid
from ._finding import Finding, ViolationEvent

__all__ = [
    "MAX_BODY_BYTES",
    "MEMORY_BODY_BYTES",
    "MODES",
    "GuardConfig",
]

#: The modes: refuse with 400, repair what is safe to repair, or only report.
MODES: Final = ("block", "normalize", "report")
#: Default limit for a body the guard inspects (text, JSON, forms); binary media types
#: are not inspected and not limited. A few MiB covers forms and JSON APIs.
MAX_BODY_BYTES: Final = 4 * 1024 * 1024
#: Bodies held for validation stay in memory up to this size, then spool to a
#: temporary file (as ``tempfile.SpooledTemporaryFile`` does).
MEMORY_BODY_BYTES: Final = 1024 * 1024
#: The logger every finding goes to; messages hold kinds and offsets, never bytes.
logger: Final = logging.getLogger("utf8guard")


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardConfig:
    """The guard's options, shared by the ASGI and WSGI adapters.

    Security-relevant defaults: ``mode="block"``; ``policy=STRICT`` for query, headers
    and bodies; paths always refuse NUL, controls and bidi controls on top of
    ``path_policy`` (default: ``policy``); encoded separators and NFKC look-alikes of
    ``/``, ``\\`` and ``.`` are refused in paths; a body of an inspected type is read
    and validated completely before the application sees any of it.

    Raises:
        ValueError: an unknown mode, or a size that is not positive.
        TypeError: an option of the wrong type.
    """

    mode: str = "block"
    policy: Policy = STRICT
    path_policy: Policy | None = None
    max_body_size: int = MAX_BODY_BYTES
    memory_body_size: int = MEMORY_BODY_BYTES
    stream_body: bool = False
    skip_headers: Collection[str] = ()
    allow_encoded_separators: bool = False
    allow_lookalike_separators: bool = False
    #: Check every body as UTF-8 text (and as JSON when it starts like JSON), not only
    #: bodies with no Content-Type or a text, JSON, form or multipart type. By default
    #: a body of another (binary) type passes untouched unless it starts like JSON.
    inspect_all_bodies: bool = False
    on_violation: Callable[[ViolationEvent], None] | None = None
    #: ``path_policy`` (or ``policy``) with NUL, controls and bidi controls refused.
    effective_path_policy: Policy = field(init=False, repr=False)
    #: The ASCII bytes each policy refuses, as a pattern (None: it refuses none), so
    #: that plain ASCII, most of any request, skips the full scan.
    ascii_refused: re.Pattern[bytes] | None = field(init=False, repr=False)
    path_ascii_refused: re.Pattern[bytes] | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(
                f"mode must be one of {', '.join(MODES)}, not {self.mode!r}"
            )
        for name in ("policy", "path_policy"):
            value = getattr(self, name)
            if not isinstance(value, Policy) and not (
                name == "path_policy" and value is None
            ):
                raise TypeError(f"{name} must be a Policy, not {type(value).__name__}")
        for name in ("max_body_size", "memory_body_size"):
            _check_size(name, getattr(self, name))
        for name in (
            "stream_body",
            "allow_encoded_separators",
            "allow_lookalike_separators",
            "inspect_all_bodies",
        ):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool")
        if self.on_violation is not None and not callable(self.on_violation):
            raise TypeError("on_violation must be callable or None")
        object.__setattr__(self, "skip_headers", _header_names(self.skip_headers))
        base = self.path_policy if self.path_policy is not None else self.policy
        path = replace(
            base, allow_nul=False, allow_controls=False, allow_bidi_controls=False
        )
        object.__setattr__(self, "effective_path_policy", path)
        object.__setattr__(self, "ascii_refused", _ascii_refused(self.policy))
        object.__setattr__(self, "path_ascii_refused", _ascii_refused(path))

    def is_plain(self, value: bytes, *, path: bool = False) -> bool:
        """True when ``value`` is ASCII that the policy (or path policy) allows."""
        if not value.isascii():
            return False
        refused = self.path_ascii_refused if path else self.ascii_refused
        return refused is None or refused.search(value) is None

    def report(self, findings: Iterable[Finding], action: str, scope_type: str) -> None:
        """Log each finding and pass it to ``on_violation``; never log request bytes."""
        for finding in findings:
            logger.warning(
                "utf8guard %s %s: %s at offset %d in %s%s",
                action,
                scope_type,
                finding.kind.value,
                finding.offset,
                finding.location.value,
                "" if finding.name is None else f" ({finding.name})",
            )
            if self.on_violation is not None:
                self.on_violation(ViolationEvent(finding, action, scope_type))


def _ascii_refused(policy: Policy) -> re.Pattern[bytes] | None:
    # Asked of the core, one byte at a time, once per configuration.
    refused = [
        bytes([byte]) for byte in range(0x80) if not is_valid(bytes([byte]), policy)
    ]
    if not refused:
        return None
    return re.compile(b"[" + b"".join(map(re.escape, refused)) + b"]")


def _check_size(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be > 0, not {value}")


def _header_names(names: object) -> frozenset[str]:
    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise TypeError("skip_headers must be a collection of header names")
    listed = list(names)
    if not all(isinstance(name, str) for name in listed):
        raise TypeError("skip_headers must hold str header names")
    return frozenset(name.lower() for name in listed)
