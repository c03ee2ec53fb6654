"""Fuzz the accelerator's block boundaries: a needle at any offset in any filler.

Invariant: as ``fuzz_accel``; every instruction set and the pure-Python core report
the oracle's violations. The SIMD paths read 64-byte blocks of 16- or 32-byte
vectors and hand flagged blocks to an exact scalar pass, so the risky inputs put an
error, a noncharacter or a refused code point across a 16/32/64-byte line, or end
the input inside a sequence. This harness builds exactly those: a filler text of
1- to 4-byte characters cut to a length, with the fuzzer's bytes spliced in at an
offset near a block line.

Input layout: byte 0 the policy (as ``fuzz_accel``), byte 1 the filler, byte 2 the
length (0..255), byte 3 the offset (0..255, clamped to the length), the rest the
needle (at most 16 bytes are used).
"""

from __future__ import annotations

import sys
from typing import Final

from fuzz.fuzz_accel import compare, policy_of

__all__ = [
    "FILLERS",
    "HEADER_BYTES",
    "MAX_LEN",
    "TestOneInput",
    "build",
    "check",
    "main",
]

HEADER_BYTES: Final = 4
MAX_LEN: Final = HEADER_BYTES + 16
#: Text of 1-, 2-, 3- and 4-byte characters, and a mix.
FILLERS: Final = (
    b"a",
    "\u00e9".encode(),
    "\u20ac".encode(),
    "\U0001f600".encode(),
    "a\u00e9\u20ac\U0001f600".encode(),
    "\u4e2d\u6587".encode(),
)


def build(filler: bytes, length: int, offset: int, needle: bytes) -> bytes:
    """``filler`` repeated and cut to ``length`` bytes, ``needle`` spliced in at
    ``offset`` (clamped)."""
    text = (filler * (length // len(filler) + 1))[:length]
    at = min(offset, length)
    return text[:at] + needle + text[at:]


def check(data: bytes) -> None:
    """Fail with AssertionError when an implementation disagrees with the oracle."""
    header = data[:HEADER_BYTES].ljust(HEADER_BYTES, b"\0")
    payload = build(
        FILLERS[header[1] % len(FILLERS)],
        header[2],
        header[3],
        data[HEADER_BYTES : HEADER_BYTES + 16],
    )
    compare(payload, payload, 0, policy_of(header[0]))


TestOneInput = check


def main() -> None:  # pragma: no cover - runs under atheris only
    import atheris

    atheris.Setup([*sys.argv, f"-max_len={MAX_LEN}"], TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":  # pragma: no cover
    main()
