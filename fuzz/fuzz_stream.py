"""Streaming: chunked validation and repair give exactly the one-shot results.

Invariant: for the input cut into fuzzer-chosen chunks (empty ones included),
``iter_stream_violations`` yields exactly ``utf8guard.reference``'s violations with
absolute offsets, ``repair_stream``'s pieces join to ``reference.repair``, and
``IncrementalValidator`` raises ``Utf8Error`` for exactly the first violation of
``utf8guard.reference`` over the whole input, with absolute offsets, never for bytes
not yet fed, and never holds more than 3 unchecked bytes; after a violation every call
raises it again (fail closed); with no violation, ``finish`` leaves ``position`` at the
input's length.

Input layout: byte 0 chooses the policy and buffer type (``fuzz._common``), the low 3
bits of byte 1 how many chunk lengths follow, one byte each, used in turn; the rest is
the stream.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from itertools import cycle
from typing import Final

from fuzz._common import mismatch, policy_of, run_atheris, split, wrap
from utf8guard import (
    IncrementalValidator,
    Policy,
    Utf8Error,
    Violation,
    iter_stream_violations,
    reference,
    repair_stream,
)

__all__ = ["MAX_LEN", "TestOneInput", "check", "chunked", "main"]

#: The chunk-length count is the low bits of byte 1: at most 7 lengths.
_LENGTH_COUNT_MASK: Final = 0x07
#: IncrementalValidator holds at most this many bytes of an unfinished sequence.
MAX_HELD_BYTES: Final = 3
#: libFuzzer -max_len: one-byte chunks make long inputs slow without finding more.
MAX_LEN: Final = 1024


def chunked(payload: bytes, lengths: bytes) -> Iterator[bytes]:
    """``payload`` cut into chunks of ``lengths`` in turn (0 gives an empty chunk)."""
    if not any(lengths):
        yield from (b"" for _ in lengths)
        yield payload
        return
    pos, turns = 0, cycle(lengths)
    while pos < len(payload):
        length = next(turns)
        yield payload[pos : pos + length]
        pos += length


def _parse(data: bytes) -> tuple[int, bytes, bytes]:
    (selector, count), rest = split(data, 2)
    lengths, payload = split(rest, count & _LENGTH_COUNT_MASK)
    return selector, lengths, payload


def _fail_closed(
    validator: IncrementalValidator, payload: bytes, policy: Policy, error: Utf8Error
) -> None:
    """After ``error``, both ``feed`` and ``finish`` raise it again."""
    for call in (partial(validator.feed, b"a"), validator.finish):
        try:
            call()
        except Utf8Error as again:
            if again.violation != error.violation:
                mismatch("after a violation", payload, policy, again=again.violation)
        else:
            mismatch("accepted input after a violation", payload, policy)


def _check_iterators(
    selector: int, lengths: bytes, payload: bytes, policy: Policy
) -> None:
    """``iter_stream_violations`` and ``repair_stream`` match the reference."""
    chunks = [wrap(chunk, selector) for chunk in chunked(payload, lengths)]
    found = list(iter_stream_violations(chunks, policy))
    expected = list(reference.iter_violations(payload, policy))
    if found != expected:
        mismatch(
            "iter_stream_violations", payload, policy, chunked=found, reference=expected
        )
    repaired = b"".join(repair_stream(chunks, policy))
    if repaired != reference.repair(payload, policy):
        mismatch(
            "repair_stream",
            payload,
            policy,
            chunked=repaired,
            reference=reference.repair(payload, policy),
        )


def check(data: bytes) -> None:
    """Fail with AssertionError when chunked and one-shot results disagree."""
    selector, lengths, payload = _parse(data)
    policy = policy_of(selector)
    _check_iterators(selector, lengths, payload, policy)
    expected = reference.find_violation(payload, policy)
    validator = IncrementalValidator(policy)
    fed = seen = 0
    raised: Violation | None = None
    try:
        for chunk in chunked(payload, lengths):
            seen = fed + len(chunk)
            validator.feed(wrap(chunk, selector))
            fed = seen
            if not 0 <= fed - validator.position <= MAX_HELD_BYTES or (
                expected is not None and expected.start < validator.position
            ):
                mismatch(
                    "position", payload, policy, fed=fed, position=validator.position
                )
        validator.finish()
    except Utf8Error as exc:
        raised = exc.violation
        if raised.start >= seen:
            mismatch("raised before the bytes were fed", payload, policy, seen=seen)
        _fail_closed(validator, payload, policy, exc)
    if raised != expected:
        mismatch(
            "chunked != one-shot",
            payload,
            policy,
            chunks=list(chunked(payload, lengths)),
            chunked=raised,
            reference=expected,
        )
    if raised is None and validator.position != len(payload):
        mismatch("position after finish", payload, policy, position=validator.position)


TestOneInput = check


def main() -> None:  # pragma: no cover - runs under atheris only
    run_atheris(check)


if __name__ == "__main__":  # pragma: no cover
    main()
