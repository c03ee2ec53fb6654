"""Whether a well-formed region holds a code point its policy refuses: the plan's gates.

The strict codec has already proved the region well-formed; what is left is the
policy's code-point sets. Gates rule them out cheaply (memchr for their lead bytes,
lookups in the decoded text, literal-prefix regexes), and only where a gate fails does
the policy's full regex run. ``bench/README.md`` has the measurements.
"""

from __future__ import annotations

from ._plan import Plan
from ._tables import LEADS, MAX_SEQUENCE_BYTES
from ._violation import Kind, Violation

# typing costs a tenth of ``import utf8guard`` (issue 28); only mypy needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final

    BytesLike = bytes | bytearray | memoryview

__all__ = [
    "TRANSLATE_MAX_BYTES",
    "first_refused",
    "may_refuse",
    "small_is_valid",
    "ucs4_floor",
]

#: Up to this size one bytes.translate() finds all gate lead bytes faster than one
#: memchr per gate (measured: 55 ns against 245 ns at 64 bytes, even at 512).
TRANSLATE_MAX_BYTES: Final = 512


def _holds(haystack: bytes | bytearray, byte: int, start: int, end: int) -> bool:
    """``byte`` occurs in ``haystack[start:end]`` (memchr, no slice copied)."""
    if start == 0 and end == len(haystack):
        return byte in haystack
    return haystack.find(byte, start, end) >= 0


def may_refuse(
    buf: BytesLike,
    start: int,
    end: int,
    text: str,
    plan: Plan,
) -> bool:
    """False only if the well-formed ``buf[start:end]``, decoded as ``text``, holds
    no code point the gates cover; cheap when their lead bytes are absent (memchr).
    """
    if not isinstance(buf, bytes | bytearray):
        # A memoryview has no find(): all its gates are opened.
        return _open_gates_match(buf, start, end, text, plan)
    if plan.tail_byte is not None and not _holds(buf, plan.tail_byte, start, end):
        # Every looked-up character's encoding holds tail_byte: only regexes are left.
        for lead, second, regex in plan.patterns:
            if (
                _holds(buf, lead, start, end)
                and _holds(buf, second, start, end)
                and regex.search(buf, start, end)
            ):
                return True
        return False
    whole = start == 0 and end == len(buf)
    wide = False  # seen a 4-byte lead: text has 4 bytes per character
    tails_found: bool | None = None
    # The hot loop: _holds inlined (a call costs as much as the memchr on 4 KiB).
    for lead, chars, patterns in plan.gates or ():
        if lead not in buf if whole else buf.find(lead, start, end) < 0:
            continue
        wide = wide or LEADS[lead].length == MAX_SEQUENCE_BYTES
        if chars and wide and plan.tails is not None:
            if tails_found is None:
                tails_found = plan.tails.search(buf, start, end) is not None
            chars = chars if tails_found else ()
        for char in chars:
            if char in text:
                return True
        for second, pattern in patterns:
            if (
                second in buf if whole else buf.find(second, start, end) >= 0
            ) and pattern.search(buf, start, end):
                return True
    return False


def _open_gates_match(
    buf: BytesLike, start: int, end: int, text: str, plan: Plan
) -> bool:
    """Every gate opened: each looked-up character in ``text``, then each regex."""
    return any(
        char in text for _, chars, _ in plan.gates or () for char in chars
    ) or any(regex.search(buf, start, end) is not None for _, _, regex in plan.patterns)


def first_refused(buf: BytesLike, start: int, end: int, plan: Plan) -> Violation | None:
    """The first refused code point in the well-formed region ``buf[start:end]``."""
    if plan.pattern is None or start >= end:
        return None
    match = plan.pattern.search(buf, start, end)
    if match is None:
        return None
    return Violation(Kind(match.lastgroup), match.start(), match.end())


def small_is_valid(data: bytes, text: str, plan: Plan) -> bool:
    """The verdict on well-formed ``data`` (one chunk at most), decoded as ``text``."""
    if plan.pattern is None:
        return True  # the policy refuses no code point (WELL_FORMED)
    if plan.gates is None:
        return first_refused(data, 0, len(data), plan) is None
    # No gate's lead byte (or no gates: the policy refuses no code point).
    if len(data) <= TRANSLATE_MAX_BYTES and 1 not in data.translate(plan.leads):
        return True
    return (
        not may_refuse(data, 0, len(data), text, plan)
        or first_refused(data, 0, len(data), plan) is None
    )


def ucs4_floor(size_of: Callable[[str], int] | None = None) -> int:
    """F such that a str ``s`` holding a character above U+FFFF has
    ``s.__sizeof__() >= F + 4 * len(s)``, while a str of characters up to U+FFFF
    decoded from bytes stays below; 0 where that cannot be relied on (then no str
    looks narrow). ``__sizeof__`` learns a str's width in O(1), where ``max(s)`` walks
    it (1-2 us at 64 bytes).

    PEP 393: CPython keeps a str in 1, 2 or 4 bytes per character, by its largest
    one, and ``__sizeof__`` counts a fixed header, ``len(s) + 1`` such units and any
    cached UTF-8 copy (more size: a narrow str may look wide, never the reverse). The
    layout is checked here on fresh strings; another Python may lay out or size them
    otherwise, or not at all.
    """
    try:
        if size_of is None:
            size_of = str.__sizeof__
        floor = size_of(chr(0x10000)) - 4
        for count in (1, 2, 7):
            if (
                size_of(chr(0x10000) * count) != floor + 4 * count
                or size_of(chr(0xFFFF) * count) != floor + 2 * count - 2
            ):
                return 0
    except (AttributeError, TypeError):  # no __sizeof__, or one that refuses
        return 0
    return max(floor, 0)
