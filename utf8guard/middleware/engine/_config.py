"""GuardConfig: every option, checked once; ``configure``, the adapters' constructor."""

from __future__ import annotations

import sys

# collections.abc's classes are _collections_abc's, which os imported at start-up;
# collections itself would cost the import 7 M instructions (issue 28).
from _collections_abc import Iterable

from ..._lazy_pattern import lazy_pattern, literal
from ..._policy import STRICT, Policy, not_a_policy, refused_ranges
from ..._ranges import in_ranges
from ..._record import Record, field, fields
from ..head._abnf import FIELD_NAME
from ..head._cookies import cookie_policy
from ..head._latin1 import DEFAULT_LATIN1_HEADERS
from ._finding import ViolationEvent

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Collection, Mapping
    from typing import Final

    from ._options import GuardOptions, Mode
    from ._respond import Refusal
else:

    def __getattr__(name: str) -> object:
        # Mode and GuardOptions need typing: built at their first look-up (issue 28).
        if name in _OPTIONS_TYPES:
            from . import _options

            return getattr(_options, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_BODY_BYTES",
    "MAX_MULTIPART_PARTS",
    "MAX_UPLOAD_BYTES",
    "MEMORY_BODY_BYTES",
    "MODES",
    "OPTION_NAMES",
    "GuardConfig",
    "GuardOptions",
    "Mode",
    "configure",
]

#: The modes: refuse with 400, repair what is safe to repair, or only report
#: (:data:`Mode`'s values, which type checkers read from ``._options``).
MODES: Final[tuple[Mode, ...]] = ("block", "normalize", "report")
#: The names :mod:`._options` builds with typing, at their first look-up.
_OPTIONS_TYPES: Final = frozenset(("GuardOptions", "Mode"))
#: Default limit for a body the guard inspects (text, JSON, forms); binary media types
#: are not inspected and not limited. A few MiB covers forms and JSON APIs.
MAX_BODY_BYTES: Final = 4 * 1024 * 1024
#: Default limit on the parts of a multipart body: Werkzeug's ``max_form_parts`` (all
#: parts), and Starlette's and Django's limit on form fields (they count files apart,
#: up to 1000 more in Starlette and 100 in Django, so a form of 1000 fields and some
#: files that those take is refused here).
MAX_MULTIPART_PARTS: Final = 1000
#: Issue 26: default limit on the file contents of a multipart body, counted apart
#: from ``max_body_size`` (which caps the fields and headers): Starlette and Django
#: stream files to disk without a cap, so this one is generous; None turns it off.
MAX_UPLOAD_BYTES: Final = 1024 * 1024 * 1024
#: Bodies held for validation stay in memory up to this size, then spool to a
#: temporary file (as ``tempfile.SpooledTemporaryFile`` does).
MEMORY_BODY_BYTES: Final = 1024 * 1024


class GuardConfig(Record, kw_only=True):
    """The guard's options, shared by the ASGI and WSGI adapters.

    Security-relevant defaults: ``mode="block"``; ``policy=STRICT`` for query, headers
    and bodies; paths always refuse NUL, controls (TAB, CR and LF too) and bidi
    controls on top of ``path_policy`` (default: ``policy``); encoded separators and
    NFKC look-alikes of ``/``, ``\\`` and ``.`` are refused in paths; header values
    and cookies refuse CR, LF and NUL; a body of an inspected type is read and
    validated completely before the application sees any of it, and bodies with no
    Content-Type or a binary type that starts like JSON are inspected too. A
    multipart file's content is not inspected: ``max_body_size`` caps the rest of the
    body, ``max_upload_size`` (1 GiB) the files; upload names are refused only for
    what is unsafe on every platform unless ``windows_upload_names``.

    ``on_refuse`` shapes the refusal response (see :class:`Refusal`);
    ``exclude_paths`` lists routes the guard leaves to the application (see
    the README, "Excluding routes", for the exact rule);
    ``request_id_header`` names a header whose value goes, escaped, into the log
    record and :class:`ViolationEvent` of each reported request.

    Raises:
        ValueError: an unknown mode, a size or part limit that is not positive, an
            exclusion that is not an absolute path, or a request id header that is
            not a token.
        TypeError: an option of the wrong type.
    """

    mode: Mode = "block"
    policy: Policy = STRICT
    path_policy: Policy | None = None
    max_body_size: int = MAX_BODY_BYTES
    #: Bytes of file content (parts with a filename) a multipart body may carry, on
    #: top of ``max_body_size``; None: no limit.
    max_upload_size: int | None = MAX_UPLOAD_BYTES
    memory_body_size: int = MEMORY_BODY_BYTES
    #: Parts a multipart body may have; one more is ``multipart_too_many_parts``.
    max_multipart_parts: int = MAX_MULTIPART_PARTS
    #: Refuse upload names that Windows refuses or alters too (``< > : " | ? *``,
    #: device names such as ``con.txt``, a trailing dot or space) and names over 255
    #: bytes. Off by default: those names are safe to receive, and
    #: ``utf8guard.paths.safe_filename`` makes any name safe to store.
    windows_upload_names: bool = False
    stream_body: bool = False
    skip_headers: Collection[str] = ()
    #: Header fields whose value may hold printable Latin-1 bytes that are not UTF-8
    #: (obs-text, RFC 9110 §5.5): every framework reads them as Latin-1, so they
    #: deceive no parser; C1 controls and overlong, surrogate and out-of-range forms
    #: stay refused. ``()`` refuses them in every field.
    latin1_headers: Collection[str] = DEFAULT_LATIN1_HEADERS
    allow_encoded_separators: bool = False
    allow_lookalike_separators: bool = False
    #: Check every body as UTF-8 text (and as JSON when it starts like JSON), not only
    #: bodies with no Content-Type or a text, JSON, form or multipart type. By default
    #: a body of another (binary) type passes untouched unless it starts like JSON.
    inspect_all_bodies: bool = False
    on_violation: Callable[[ViolationEvent], None] | None = None
    on_refuse: Callable[[Refusal], Refusal] | None = None
    exclude_paths: Collection[str | re.Pattern[str]] = ()
    request_id_header: str | None = None
    #: ``path_policy`` (or ``policy``) with NUL, controls and bidi controls refused.
    effective_path_policy: Policy = field(init=False, repr=False)
    #: ``policy`` with NUL and controls refused: what a Cookie value must meet, and
    #: what every header value meets when a head is proven clean in one pass.
    header_policy: Policy = field(init=False, repr=False)
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
                raise not_a_policy(value, name)
        for name in ("max_body_size", "memory_body_size", "max_multipart_parts"):
            _check_size(name, getattr(self, name))
        if self.max_upload_size is not None:
            _check_size("max_upload_size", self.max_upload_size)
        for name in (
            "windows_upload_names",
            "stream_body",
            "allow_encoded_separators",
            "allow_lookalike_separators",
            "inspect_all_bodies",
        ):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool")
        for name in ("on_violation", "on_refuse"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise TypeError(f"{name} must be callable or None")
        object.__setattr__(self, "exclude_paths", _exclusions(self.exclude_paths))
        if self.request_id_header is not None:
            object.__setattr__(
                self, "request_id_header", _header_name(self.request_id_header)
            )
        for name in ("skip_headers", "latin1_headers"):
            object.__setattr__(self, name, _header_names(name, getattr(self, name)))
        base = self.path_policy if self.path_policy is not None else self.policy
        path = base.replace(
            allow_nul=False, allow_controls=False, allow_bidi_controls=False
        )
        object.__setattr__(self, "effective_path_policy", path)
        object.__setattr__(self, "header_policy", cookie_policy(self.policy))
        object.__setattr__(self, "ascii_refused", _ascii_refused(self.policy))
        object.__setattr__(self, "path_ascii_refused", _ascii_refused(path))

    def is_plain(self, value: bytes, *, path: bool = False) -> bool:
        """True when ``value`` is ASCII that the policy (or path policy) allows."""
        if not value.isascii():
            return False
        refused = self.path_ascii_refused if path else self.ascii_refused
        return refused is None or refused.search(value) is None


def _ascii_refused(policy: Policy) -> re.Pattern[bytes] | None:
    # From the code-point sets the validator refuses (not by asking it, which in the
    # pure build compiles the policy's regex and imports re at construction).
    sets = [ranges for _, ranges in refused_ranges(policy)]
    refused = bytes(
        byte for byte in range(0x80) if any(in_ranges(byte, s) for s in sets)
    )
    return lazy_pattern(b"[" + literal(refused) + b"]") if refused else None


def _check_size(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be > 0, not {value}")


def _header_names(option: str, names: object) -> frozenset[str]:
    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise TypeError(f"{option} must be a collection of header names")
    listed = list(names)
    if not all(isinstance(name, str) for name in listed):
        raise TypeError(f"{option} must hold str header names")
    return frozenset(name.lower() for name in listed)


def _header_name(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"request_id_header must be a str, not {type(name).__name__}")
    if not (name.isascii() and FIELD_NAME.fullmatch(name.encode("ascii"))):
        raise ValueError(f"request_id_header must be a header name, not {name!r}")
    return name.lower()


def _exclusions(paths: object) -> tuple[str | re.Pattern[str], ...]:
    """Prefixes and patterns, checked: a prefix is an absolute path (``/...``)."""
    if isinstance(paths, str | bytes) or not isinstance(paths, Iterable):
        raise TypeError("exclude_paths must be a collection of str or re.Pattern")
    listed = tuple(paths)
    # No pattern exists before ``re`` is imported, and the middleware does not import
    # it (issue 28): then no entry is one (isinstance of an empty tuple is False).
    pattern_type = getattr(sys.modules.get("re"), "Pattern", ())
    for entry in listed:
        if isinstance(entry, pattern_type):
            if not isinstance(entry.pattern, str):
                raise TypeError("exclude_paths patterns must be str patterns")
        elif not isinstance(entry, str):
            raise TypeError("exclude_paths must be a collection of str or re.Pattern")
        elif not entry.startswith("/"):
            raise ValueError(f"exclude_paths prefixes must start with /, not {entry!r}")
    return listed


def configure(config: GuardConfig | None, options: Mapping[str, object]) -> GuardConfig:
    """The one constructor behind every adapter: ``config``, or one built from options.

    Raises:
        TypeError: both ``config`` and keyword options, a ``config`` that is not a
            GuardConfig, or an unknown option.
        ValueError: a bad option value (see :class:`GuardConfig`).
    """
    if config is None:
        unknown = sorted(set(options) - OPTION_NAMES)
        if unknown:
            import difflib  # only for this message: it costs at import

            near = difflib.get_close_matches(unknown[0], OPTION_NAMES, n=1)
            guess = f" (did you mean {near[0]!r}?)" if near else ""
            raise TypeError(
                f"unknown option {unknown[0]!r}{guess}; the options are: "
                + ", ".join(sorted(OPTION_NAMES))
            )
        return GuardConfig(**options)  # type: ignore[arg-type]  # checked in __post_init__
    if not isinstance(config, GuardConfig):
        raise TypeError(f"config must be a GuardConfig, not {type(config).__name__}")
    if options:
        given = ", ".join(sorted(options))
        raise TypeError(f"pass either config or keyword options, not both: {given}")
    return config


#: The keyword options of every adapter (GuardConfig's fields).
OPTION_NAMES: Final = frozenset(f.name for f in fields(GuardConfig) if f.init)
