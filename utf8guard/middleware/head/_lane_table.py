"""The lane's table: each head rule's :class:`._trigger.Trigger`, by where the lane
looks for its needles, and the field names the lane leaves to the full check.

The rules declare their triggers beside their exact checks (``_target``,
``_request``, ``_cookies``); this module only gathers them. The Python lane
(``_clean``, ``_clean_fields``) builds its gates from :data:`TRIGGERS` at import
(their patterns compile at their first search); the C lane reads it as
``_clean.TRIGGERS`` at its first call.
"""

from __future__ import annotations

from ._cookies import COOKIE_TRIGGER
from ._request import FIELD_VALUE_TRIGGER, HOST_TRIGGER, QUERY_ESCAPE_TRIGGER
from ._target import DECODED_PATH_TRIGGER, PATH_TRICK_TRIGGER
from ._trigger import Trigger

# typing is for type checkers only (issue 28).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple
else:
    from ..._named_tuple import NamedTuple

__all__ = ["TRIGGERS", "Triggers"]


class Triggers(NamedTuple):
    """The lane's table: each head rule's :class:`._trigger.Trigger`, by where the
    lane looks for its needles, and the field names the lane leaves to the full
    check. The C lane reads it at its first call (``_speedups_http.c``)."""

    #: Looked for in "/" + the raw path in ASCII lower case.
    raw_path: Trigger
    #: Looked for in the percent-decoded path.
    decoded_path: Trigger
    #: Looked for in the query percent-decoded with "+" as space.
    decoded_query: Trigger
    #: Looked for in every field value.
    values: Trigger
    #: Per once-only field name (of ``once``), looked for in its one value.
    fields: tuple[tuple[bytes, Trigger], ...]
    #: Lower-case names a clean head holds at most once, in this order: Host,
    #: Cookie, Content-Length, Content-Type (what the body's route reads).
    once: tuple[bytes, bytes, bytes, bytes]
    #: Lower-case names a clean head does not hold.
    declined: tuple[bytes, ...]


TRIGGERS: Final = Triggers(
    raw_path=PATH_TRICK_TRIGGER,
    decoded_path=DECODED_PATH_TRIGGER,
    decoded_query=QUERY_ESCAPE_TRIGGER,
    values=FIELD_VALUE_TRIGGER,
    fields=((b"host", HOST_TRIGGER), (b"cookie", COOKIE_TRIGGER)),
    # RFC 9112 §3.2: one Host line. RFC 9113 §8.2.3: HTTP/2 may split Cookie in
    # fields (then the full check). RFC 9112 §6.3: framing the body check must weigh
    # in full (_engine's _framing_finding and body_inspector's repeated
    # Content-Type).
    once=(b"host", b"cookie", b"content-length", b"content-type"),
    # A coded body (RFC 9110 §8.4), body_inspector's to judge in full.
    declined=(b"transfer-encoding", b"content-encoding"),
)
