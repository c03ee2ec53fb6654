"""Differential fuzzing of the one-shot API against two oracles.

Invariant: for every input and policy, ``iter_violations`` yields exactly the
violations (kind and span) of ``utf8guard.reference``, and exactly the spans of
CPython's strict codec plus the policy rules restated from Unicode data
(``fuzz._cpython``); ``find_violation``, ``is_valid``, ``validate`` and ``decode``
agree with that list, and so does the scanning seam ``first_violation`` resumed after
each violation with a small window, which exercises the chunk cuts on short inputs.

Input layout: byte 0 chooses the policy and buffer type (``fuzz._common``), byte 1 the
seam's window (1 + byte), the rest is the bytes under test.
"""

from __future__ import annotations

from typing import Final

from fuzz import _cpython
from fuzz._common import mismatch, policy_of, run_atheris, split, wrap
from utf8guard import (
    BytesLike,
    Policy,
    Utf8Error,
    Violation,
    decode,
    find_violation,
    is_valid,
    iter_violations,
    reference,
    validate,
)
from utf8guard._scan import as_buffer, first_violation

__all__ = ["HEADER_BYTES", "MAX_LEN", "TestOneInput", "check", "main"]

HEADER_BYTES: Final = 2
#: libFuzzer -max_len: long enough for several 256-byte resume windows.
MAX_LEN: Final = 2048


def _seam_violations(buf: BytesLike, policy: Policy, window: int) -> list[Violation]:
    """What ``iter_violations`` does, with the seam's window chosen by the fuzzer."""
    flat = as_buffer(buf)  # the seam takes the flat buffer the public API makes
    found: list[Violation] = []
    pos = 0
    while (v := first_violation(flat, pos, len(flat), policy, window)) is not None:
        found.append(v)
        pos = v.end
    return found


def _check_raising(
    buf: BytesLike, payload: bytes, policy: Policy, first: Violation | None
) -> None:
    """``validate`` and ``decode`` raise exactly for ``first``, with its message."""
    for name, call in (("validate", validate), ("decode", decode)):
        try:
            result = call(buf, policy)
        except Utf8Error as exc:
            if first is None or exc.violation != first:
                mismatch(
                    f"{name} raised",
                    payload,
                    policy,
                    raised=exc.violation,
                    expected=first,
                )
            snippet = payload[first.start : first.end][:8].hex(" ")
            text = f"{first.kind!s} at bytes [{first.start}, {first.end}): {snippet}"
            if str(exc) != text:
                mismatch("message", payload, policy, message=str(exc), expected=text)
        else:
            if first is not None:
                mismatch(f"{name} did not raise", payload, policy, expected=first)
            if name == "decode" and result != payload.decode():
                mismatch("decode", payload, policy, decoded=result)


def check(data: bytes) -> None:
    """Fail with AssertionError when the fast path disagrees with either oracle."""
    (selector, window), payload = split(data, HEADER_BYTES)
    policy = policy_of(selector)
    buf = wrap(payload, selector)
    fast = list(iter_violations(buf, policy))
    expected = list(reference.iter_violations(payload, policy))
    if fast != expected:
        mismatch(
            "iter_violations != reference",
            payload,
            policy,
            fast=fast,
            reference=expected,
        )
    spans = [
        (v.start, v.end, None if v.kind in _cpython.ILL_FORMED else v.kind)
        for v in fast
    ]
    cpython = _cpython.violations(payload, policy)
    if spans != cpython:
        mismatch(
            "iter_violations != cpython", payload, policy, fast=spans, cpython=cpython
        )
    seam = _seam_violations(buf, policy, 1 + window)
    if seam != fast:
        mismatch(
            f"first_violation(window={1 + window})",
            payload,
            policy,
            seam=seam,
            fast=fast,
        )
    first = fast[0] if fast else None
    found, valid = find_violation(buf, policy), is_valid(buf, policy)
    oracle_valid = reference.is_valid(payload, policy)
    if found != first or valid != (first is None) or valid != oracle_valid:
        mismatch(
            "find_violation/is_valid",
            payload,
            policy,
            found=found,
            valid=valid,
            first=first,
        )
    _check_raising(buf, payload, policy, first)


TestOneInput = check


def main() -> None:  # pragma: no cover - runs under atheris only
    run_atheris(check)


if __name__ == "__main__":  # pragma: no cover
    main()
