"""The public types of the adapters' options, ``Mode`` and ``GuardOptions``.

Built with ``typing`` (with what it imports, a tenth of the middleware's import;
issue 28), which no request needs: type checkers import them from here, and at run
time :mod:`._config` and :mod:`utf8guard.middleware` import this module at the first
look-up of either name (their module ``__getattr__``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Literal, TypedDict

# Imported at run time, so that typing.get_type_hints(GuardOptions) resolves.
from ..._policy import Policy
from ._finding import ViolationEvent
from ._respond import Refusal

__all__ = ["GuardOptions", "Mode"]

#: The modes: refuse with 400, repair what is safe to repair, or only report
#: (:data:`._config.MODES` at run time; a test ties the two).
Mode = Literal["block", "normalize", "report"]


class GuardOptions(TypedDict, total=False):
    """The keyword options every adapter takes: :class:`GuardConfig`'s fields.

    Typing only (PEP 692 ``Unpack``); a test ties its keys to ``GuardConfig``.
    """

    mode: Mode
    policy: Policy
    path_policy: Policy | None
    max_body_size: int
    max_upload_size: int | None
    memory_body_size: int
    max_multipart_parts: int
    windows_upload_names: bool
    stream_body: bool
    skip_headers: Collection[str]
    latin1_headers: Collection[str]
    allow_encoded_separators: bool
    allow_lookalike_separators: bool
    inspect_all_bodies: bool
    on_violation: Callable[[ViolationEvent], None] | None
    on_refuse: Callable[[Refusal], Refusal] | None
    exclude_paths: Collection[str | re.Pattern[str]]
    request_id_header: str | None
