"""Compile a Policy into a bytes regex matching the encodings of what it refuses.

The regex is only ever run over bytes already known to be well-formed, where every match
of a complete encoding starts on a character boundary, so no alignment checks are
needed.
"""

from __future__ import annotations

from ._policy import Policy, not_a_policy, refused_ranges
from ._tables import LEADS, MAX_SEQUENCE_BYTES
from ._violation import Frozen, Kind

# typing costs a tenth of ``import utf8guard`` (issue 28); only mypy needs it. ``re``
# (a fifth of the import with STRICT's regexes) is imported at a plan regex's first
# search (lazy_pattern, imported with a plan's first build: the C build needs none
# to import): neither build imports ``re`` to import utf8guard.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Final

    from ._ranges import Ranges

    #: A lead byte; the refused characters with that lead, looked up in the decoded
    #: text (``str.__contains__`` runs at memchr speed); and bytes regexes for larger
    #: groups, each with the second byte of its literal 2-byte prefix, a cheaper gate
    #: of its own.
    Gate = tuple[int, tuple[str, ...], tuple[tuple[int, re.Pattern[bytes]], ...]]

__all__ = ["Plan", "narrow_gate", "plan_for", "tail_gate"]

#: A policy refusing more code points than this gets no gates (private use has 137k).
MAX_GATED_CODE_POINTS: Final = 256
#: Refused code points sharing a 2-byte encoding prefix: up to this many are looked up
#: one by one in the decoded text, more by one bytes regex with that literal prefix.
MAX_LOOKUP_CHARS: Final = 4
# The last code point of each UTF-8 length (RFC 3629 §3).
_LENGTH_LIMITS: Final = (0x7F, 0x7FF, 0xFFFF)

ByteClasses = tuple[tuple[int, int], ...]


class Plan(Frozen):
    """How to scan a well-formed region for the code points one policy refuses.

    Not a dataclass or NamedTuple: importing ``dataclasses`` or ``typing`` costs more
    than the rest of ``import utf8guard`` (issue 28).
    """

    _fields = (
        "pattern",
        "ascii_clean",
        "gates",
        "leads",
        "tails",
        "tail_byte",
        "patterns",
    )
    __slots__ = _fields

    #: matches any refused encoding; None when the policy refuses no code point
    pattern: re.Pattern[bytes] | None
    #: the policy refuses no ASCII code point, so pure ASCII input is valid
    ascii_clean: bool
    #: cheap tests that together cover every refused code point; None if too many
    gates: tuple[Gate, ...] | None
    #: a ``bytes.translate`` table: 1 for each gate's lead byte, 0 for the rest
    leads: bytes
    #: one regex for the last two bytes of every looked-up character, or None
    tails: re.Pattern[bytes] | None
    #: the first byte of ``tails``, which every looked-up character's encoding holds:
    #: where it is absent (one memchr) only ``patterns`` can match; None with ``tails``
    tail_byte: int | None
    #: every gate's regex as ``(lead, second, regex)``: all that is left to run where
    #: ``tail_byte`` is absent
    patterns: tuple[tuple[int, int, re.Pattern[bytes]], ...]

    def __init__(
        self,
        pattern: re.Pattern[bytes] | None,
        ascii_clean: bool,
        gates: tuple[Gate, ...] | None,
        leads: bytes,
        tails: re.Pattern[bytes] | None,
        tail_byte: int | None,
        patterns: tuple[tuple[int, int, re.Pattern[bytes]], ...],
    ) -> None:
        values = (pattern, ascii_clean, gates, leads, tails, tail_byte, patterns)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)


def _byte_classes(lo: int, hi: int) -> list[ByteClasses]:
    """Split ``[lo, hi]`` into runs whose encodings are a fixed sequence of byte ranges.

    The classic construction (RE2 and Rust's utf8-ranges): split at length boundaries,
    then at 6-bit continuation boundaries until each byte position is one contiguous
    range.
    """
    for limit in _LENGTH_LIMITS:
        if lo <= limit < hi:
            return _byte_classes(lo, limit) + _byte_classes(limit + 1, hi)
    for bits in (6, 12, 18):
        mask = (1 << bits) - 1
        if lo & ~mask != hi & ~mask:
            if lo & mask:
                return _byte_classes(lo, lo | mask) + _byte_classes((lo | mask) + 1, hi)
            if hi & mask != mask:
                return _byte_classes(lo, (hi & ~mask) - 1) + _byte_classes(
                    hi & ~mask, hi
                )
    first, last = chr(lo).encode(), chr(hi).encode()
    return [tuple(zip(first, last, strict=True))]


def _literal(data: bytes) -> bytes:
    """``data`` as a regex matching exactly it: each byte as ``\\xNN``, which needs
    no ``re.escape`` (and so no ``re``) to build."""
    return b"".join(b"\\x%02x" % byte for byte in data)


def _alternation(sequences: list[ByteClasses]) -> bytes:
    # A one-byte class is written as a literal, so ``re`` can scan for a fixed prefix
    # (measured 12-25x faster than the same regex written with [\xNN-\xNN]).
    def byte_class(lo: int, hi: int) -> bytes:
        return b"\\x%02x" % lo if lo == hi else b"[\\x%02x-\\x%02x]" % (lo, hi)

    return b"|".join(
        b"".join(byte_class(lo, hi) for lo, hi in seq) for seq in sequences
    )


def _gates(refused: tuple[tuple[Kind, Ranges], ...]) -> tuple[Gate, ...] | None:
    """Gates covering every refused code point, or None if there are too many.

    STRICT gets six: EF (U+FDD0..U+FDEF by the regex ``EF B7 [90-AF]``, U+FFFE and
    U+FFFF by lookup) and F0..F4 (the 64 noncharacters above U+FFFF, by lookup).
    """
    from ._lazy_pattern import lazy_pattern  # see TYPE_CHECKING above

    chars = [
        chr(cp)
        for _, ranges in refused
        for lo, hi in ranges
        for cp in range(lo, min(hi, lo + MAX_GATED_CODE_POINTS) + 1)
    ]
    if len(chars) > MAX_GATED_CODE_POINTS:
        return None
    by_prefix: dict[bytes, list[str]] = {}
    for char in chars:
        by_prefix.setdefault(char.encode()[:2], []).append(char)
    gates: dict[int, tuple[list[str], list[tuple[int, re.Pattern[bytes]]]]] = {}
    for prefix, group in by_prefix.items():
        lookups, patterns = gates.setdefault(prefix[0], ([], []))
        if len(group) <= MAX_LOOKUP_CHARS:
            lookups += group
        else:
            tails = b"|".join(_literal(c.encode()[2:]) for c in group)
            pattern = lazy_pattern(_literal(prefix) + b"(?:" + tails + b")")
            patterns.append((prefix[1], pattern))
    # 4-byte leads first: a chunk holding one decodes to a 4-byte-per-character str.
    return tuple(
        (lead, tuple(lookups), tuple(patterns))
        for lead, (lookups, patterns) in sorted(gates.items(), reverse=True)
    )


def _tails(gates: tuple[Gate, ...]) -> tuple[re.Pattern[bytes], int] | None:
    """One regex for the last two bytes of every looked-up character, and the byte they
    all start with; or None.

    Only when all are encoded in 3 or 4 bytes and their tails share a first byte, so
    ``re`` scans for one literal byte. In a 4-byte-per-character str each lookup costs
    about 4 us per 64 KiB; this regex replaces them all for about 16 us. STRICT:
    ``BF [BE BF]``, the end of every U+nFFFE and U+nFFFF.
    """
    from ._lazy_pattern import lazy_pattern

    encodings = {char.encode() for _, chars, _ in gates for char in chars}
    if min(map(len, encodings), default=0) < 3:
        return None
    tails = sorted({encoding[-2:] for encoding in encodings})
    firsts = {tail[0] for tail in tails}
    if len(firsts) != 1:
        return None
    return lazy_pattern(b"|".join(map(_literal, tails))), firsts.pop()


def _compile(refused: tuple[tuple[Kind, Ranges], ...]) -> Plan:
    """One named group per kind, so a match says which rule it broke (``lastgroup``).

    That pattern runs only where the gates (compiled here) fail, so it is compiled at
    its first search: STRICT's took a quarter of the pure build's import (issue 28).
    """
    from ._lazy_pattern import lazy_pattern

    groups = {
        kind: [seq for lo, hi in ranges for seq in _byte_classes(lo, hi)]
        for kind, ranges in refused
    }
    if not groups:
        return Plan(
            None,
            ascii_clean=True,
            gates=(),
            leads=bytes(256),
            tails=None,
            tail_byte=None,
            patterns=(),
        )
    pattern = lazy_pattern(
        b"|".join(
            b"(?P<%s>%s)" % (kind.value.encode(), _alternation(seqs))
            for kind, seqs in groups.items()
        )
    )
    ascii_clean = all(seq[0][0] > 0x7F for seqs in groups.values() for seq in seqs)
    gates = _gates(refused)
    lead_bytes = {lead for lead, _, _ in gates or ()}
    tails, tail_byte = (_tails(gates) if gates else None) or (None, None)
    return Plan(
        pattern,
        ascii_clean=ascii_clean,
        gates=gates,
        leads=bytes(b in lead_bytes for b in range(256)),
        tails=tails,
        # STRICT: 0xBF, absent from bench_core's German and emoji text.
        tail_byte=tail_byte,
        patterns=tuple(
            (lead, second, regex)
            for lead, _, regexes in gates or ()
            for second, regex in regexes
        ),
    )


def plan_for(policy: Policy) -> Plan:
    """The plan for ``policy``, compiled once and kept on the policy object.

    Raises:
        TypeError: ``policy`` is not a :class:`~utf8guard.Policy`.
    """
    try:
        plan = policy._plan
    except AttributeError:
        raise not_a_policy(policy) from None
    if isinstance(plan, Plan):
        return plan
    if not isinstance(policy, Policy):  # an object with a _plan of its own
        raise not_a_policy(policy)
    plan = _compile(refused_ranges(policy))
    object.__setattr__(policy, "_plan", plan)
    return plan


def tail_gate(plan: Plan) -> tuple[int, int, int, re.Pattern[bytes]]:
    """``plan``'s tail byte and its one regex gate: ``(tail, lead, second, regex)``.

    Raises:
        ValueError: the plan has no tail byte or not exactly one regex gate.
    """
    if plan.tail_byte is None or len(plan.patterns) != 1:
        raise ValueError("the small-input fast path needs one tail byte and one regex")
    return (plan.tail_byte, *plan.patterns[0])


def narrow_gate(plan: Plan, lead: int) -> tuple[str, str]:
    """The two lookups of ``plan``'s gate for ``lead``, whose other gates are all for
    4-byte leads: in text with no character above U+FFFF (no 4-byte sequence), that
    gate is the only one which can match.

    Raises:
        ValueError: ``plan`` has other gates or not two lookups for ``lead``.
    """
    gates = plan.gates or ()
    wide = [gate_lead for gate_lead, _, _ in gates if gate_lead != lead]
    lookups = [chars for gate_lead, chars, _ in gates if gate_lead == lead]
    if (
        any(LEADS[gate_lead].length != MAX_SEQUENCE_BYTES for gate_lead in wide)
        or len(lookups) != 1
        or len(lookups[0]) != 2  # is_valid binds two names
    ):
        raise ValueError("the narrow-text fast path needs 4-byte gates and one other")
    first, second = lookups[0]
    return first, second
